/**
 * Text from core as the editor shows it. Core names the inputs its messages refer to through the face's own
 * wording (core/text/inputWording.ts): the editor's, below, names settings, dataset files and quick fixes where
 * the command line names its options. A terminal colour code must never reach a panel, a notification or the JSON.
 */
import { InputWording } from '../core/text/inputWording';
import { plainText } from '../core/text/terminalText';

/** How the editor names what core's messages refer to; the service makes it core's wording when it starts. */
export const EDITOR_WORDING: InputWording = {
  goldFile: 'the gold file',
  goldLine: 'gold line',
  noGoldFile: 'the dataset has no gold file',
  rowLimit: 'the vesLens.maxRows setting',
  verification: 'the quick fix "Verify and apply"',
  scoreAgainstPredictionGold: "scoring against the prediction file's own gold would use it",
  // The editor scores against the dataset's gold only: no choice to offer.
};

export function editorText(text: string): string {
  return plainText(text);
}
