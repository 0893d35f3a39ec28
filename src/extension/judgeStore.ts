import * as vscode from 'vscode';
import { JudgeResult } from '../shared/protocol';
import { JudgeFlag } from '../shared/webviewMessages';
import { QuestionMark } from './explorer';

const STORE_KEY = 'vesLens.judgements';

/** What the Refuter flagged for annotators (never part of the score): the gold looks wrong; the question or schema is ambiguous. */
export function refuterFlags(result: Pick<JudgeResult, 'judge'>): { goldFlagged: boolean; ambiguity: string | null } {
  const refuter = result.judge.refuter;
  return { goldFlagged: refuter?.gold_correct === false, ambiguity: refuter && refuter.ambiguity !== 'na' ? refuter.ambiguity : null };
}

/**
 * The latest judgement of each question in this workspace (kept across reloads): the explorer shows the
 * Refuter's flags on the question, a report shows them (and the verdict on the same prediction) in its
 * judge column.
 */
export class JudgeStore {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly state: vscode.Memento) {}

  all(): Record<string, JudgeFlag> {
    return this.state.get<Record<string, JudgeFlag>>(STORE_KEY) ?? {};
  }

  async record(result: JudgeResult): Promise<void> {
    const { goldFlagged, ambiguity } = refuterFlags(result);
    const entry: JudgeFlag = {
      score: result.judge.score,
      error: result.judge.error,
      goldFlagged,
      ambiguity,
      judgement: result.judge.refuter?.judgement ?? null,
      predictedSql: result.predicted_sql,
      model: result.model,
    };
    await this.state.update(STORE_KEY, { ...this.all(), [String(result.question.questionId)]: entry });
    this.changed.fire();
  }

  /** The explorer's marks: questions whose gold the Refuter doubts, or finds ambiguous. */
  marks(): Map<string, QuestionMark> {
    const marks = new Map<string, QuestionMark>();
    for (const [questionId, flag] of Object.entries(this.all())) {
      const words = [flag.goldFlagged ? 'gold flagged' : null, flag.ambiguity].filter((w): w is string => Boolean(w));
      if (!words.length) continue;
      const why = flag.judgement ? `: ${flag.judgement}` : '';
      marks.set(questionId, {
        text: `judge: ${words.join(', ')}`,
        tooltip: `The judge's Refuter (${flag.model}) ${flag.goldFlagged ? 'says the gold SQL looks wrong' : ''}${flag.goldFlagged && flag.ambiguity ? ' and ' : ''}${flag.ambiguity ? `finds an ${flag.ambiguity}` : ''}${why}`,
      });
    }
    return marks;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
