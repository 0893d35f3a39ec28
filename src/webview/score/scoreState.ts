// What the Score panel's modules share: the result on screen, what it scored, and the page's channel.
import type { ScoreResult } from '../../shared/protocol';
import type { ScoreContext, ScorePanelMessage, ScorePanelRequest } from '../../shared/webviewMessages';
import { pageChannel, RememberedMessage } from '../common/vscodeApi';

export type ScoreMessage<T extends ScorePanelMessage['type']> = Extract<ScorePanelMessage, { type: T }>;

/** Kept across reloads: the last result drawn, and the last judgement (its own state). */
export interface ScorePageState extends RememberedMessage<ScorePanelMessage> {
  judgement: ScoreMessage<'judgement'>;
  counterexample: ScoreMessage<'counterexample'>;
}

export const channel = pageChannel<ScorePanelRequest, ScorePageState>();

export const shown: {
  /** The result on screen (none while scoring, or when a judgement is shown alone). */
  result: ScoreResult | null;
  /** What it scored: sent back with `rerun` (a restored panel re-runs without the extension remembering). */
  context: ScoreContext | null;
} = { result: null, context: null };
