/**
 * Text from core as the editor should show it. Core's messages are written for the command line too: they may
 * name its options (`--gold`, `--verify`) where the editor has a setting, a quick fix or a dataset file, and a
 * terminal colour code must never reach a panel, a notification or the JSON.
 */
import { plainText } from '../core/text/terminalText';

const OPTION_WORDING: [RegExp, string][] = [
  [/--gold-from predictions would score against it/g, 'scoring against the prediction file\'s own gold would use it'],
  [/; --gold-from predictions scores against the file's own/g, ''],
  [/--verify runs each form on the attached database/g, 'the quick fix "Verify and apply" runs each form on the attached database'],
  [/--verify/g, 'the quick fix "Verify and apply"'],
  [/no --gold file was given/g, 'the dataset has no gold file'],
  [/no --gold line to take it from/g, 'no gold line to take it from'],
  [/its --gold line/g, 'its gold line'],
  [/under --db-root/g, 'in the database folder'],
  [/--db-root/g, 'the database folder'],
  [/--timeout/g, 'the vesLens.timeoutSeconds setting'],
  [/--max-rows/g, 'the vesLens.maxRows setting'],
  [/--scales/g, 'the vesLens.scales setting'],
  [/--questions/g, 'the question file'],
  [/--predictions/g, 'the prediction file'],
  [/--gold\b/g, 'the gold file'],
];

export function editorText(text: string): string {
  let out = plainText(text);
  for (const [pattern, wording] of OPTION_WORDING) out = out.replace(pattern, wording);
  return out;
}
