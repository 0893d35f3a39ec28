/**
 * What the Score panel shows, for its tab title: a score, or a judgement of another prediction than the score
 * on screen (the page then turns to the judgement alone, src/webview/score/judgeSection.ts). The title follows,
 * so a Judge lens on entry 765 after scoring 744 reads "Judge: question 765". No vscode import: tested with node:test.
 */
import type { ScoreContext } from '../../shared/webviewMessages';

export interface PanelShows {
  kind: 'score' | 'judge';
  context: ScoreContext;
}

export function questionLabel(context: Pick<ScoreContext, 'questionId' | 'questionIndex'>): string {
  return `question ${context.questionId ?? `#${context.questionIndex}`}`;
}

/** The same prediction as the page compares them (the whole context: where it is, and which question). */
const samePrediction = (a: ScoreContext, b: ScoreContext) => JSON.stringify(a) === JSON.stringify(b);

/**
 * After a judge message: a judgement of the prediction on screen joins it; any other takes the panel over. A panel
 * restored after a reload is known by its title only: a score of the same question is taken to stay.
 */
export function showsAfterJudge(shows: PanelShows | undefined, context: ScoreContext, restoredTitle?: string): PanelShows {
  if (shows) return samePrediction(shows.context, context) ? shows : { kind: 'judge', context };
  const sameQuestionScored = restoredTitle !== undefined && restoredTitle === panelTitle({ kind: 'score', context });
  return { kind: sameQuestionScored ? 'score' : 'judge', context };
}

export function panelTitle(shows: PanelShows): string {
  return `${shows.kind === 'score' ? 'Score' : 'Judge'}: ${questionLabel(shows.context)}`;
}
