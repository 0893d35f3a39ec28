import { GoldFile } from '../bird/gold';
import { PredictionFile } from '../bird/predictions';
import { InputProblem } from '../bird/problems';
import { Question } from '../bird/questions';
import { evaluateTasks, EvalProgress } from '../eval/evaluate';
import { buildTasks, GoldSource } from '../bird/tasks';
import { LoadedReport, ReportQuestion } from '../eval/reportFile';
import { comparableRatio } from '../report/compareRuns';
import { DatabaseSource, sqliteFolder } from '../db/source';

/** What one prediction file's prediction of each question did against the gold: correct or not, and its time ratio t_gold / t_pred. */
export interface PredictionEvidence {
  file: string;
  byIndex: Map<number, PredictionHit>;
}

/** One question's prediction: correct or not, its outcome and SQL where known (audit --correctness re-runs it), its time ratio. */
export interface PredictionHit {
  correct: boolean;
  outcome?: string;
  sql?: string;
  ratio: number | null;
  low: number | null;
  high: number | null;
}

function evidence(file: string, results: readonly ReportQuestion[], sqlOf: (index: number) => string | undefined): PredictionEvidence {
  const byIndex = new Map<number, PredictionHit>();
  for (const r of results) {
    const ratio = comparableRatio(r);
    const sql = sqlOf(r.index);
    byIndex.set(r.index, {
      correct: r.ex === 1,
      outcome: r.outcome,
      ...(sql !== undefined ? { sql } : {}),
      ratio: ratio?.ratio ?? null,
      low: ratio?.low ?? null,
      high: ratio?.high ?? null,
    });
  }
  return { file, byIndex };
}

/**
 * From an `eval --json` report of the same question file: questions are matched by position and question_id
 * (a report of another question file matches by question_id and database where it can). Returns the evidence
 * and how many questions it covers.
 */
export function evidenceFromReport(
  loaded: LoadedReport,
  questions: readonly Question[],
): { evidence: PredictionEvidence; matched: number } {
  const byPosition = new Map(loaded.report.questions.map((q) => [q.index, q]));
  const byId = new Map(loaded.report.questions.map((q) => [`${q.question_id}@${q.db_id}`, q]));
  const matched: ReportQuestion[] = [];
  for (const question of questions) {
    const atPosition = byPosition.get(question.index);
    const hit =
      atPosition && String(atPosition.question_id) === String(question.questionId)
        ? atPosition
        : byId.get(`${question.questionId}@${question.dbId}`);
    if (hit) matched.push({ ...hit, index: question.index });
  }
  const sqlByIndex = new Map(matched.map((q) => [q.index, q.predicted_sql ?? undefined]));
  return { evidence: evidence(loaded.file, matched, (index) => sqlByIndex.get(index)), matched: matched.length };
}

/**
 * Scores a prediction file against the audited gold with the evaluation engine (EX, then R-VES's full-execution
 * timing, fast protocol): the evidence a report would give, without writing one.
 */
export async function evidenceFromPredictions(
  predictions: PredictionFile,
  questions: Question[],
  gold: GoldFile | undefined,
  problems: InputProblem[],
  options: {
    dbRoot: string;
    /** Where the predictions run; default: the SQLite files under dbRoot. */
    source?: DatabaseSource;
    timeoutMs: number;
    maxRows: number;
    goldFrom: GoldSource;
    onProgress?: (progress: EvalProgress) => void;
    signal?: AbortSignal;
  },
): Promise<PredictionEvidence> {
  const tasks = buildTasks(questions, predictions, gold, problems, { goldFrom: options.goldFrom });
  const results = await evaluateTasks(tasks, {
    source: options.source ?? sqliteFolder(options.dbRoot),
    metrics: ['ex', 'rves'],
    timing: 'fast',
    timeoutMs: options.timeoutMs,
    maxRows: options.maxRows,
    onProgress: options.onProgress,
    signal: options.signal,
  });
  const sqlByIndex = new Map(tasks.map((task) => [task.question.index, task.predictedSql]));
  return evidence(predictions.file, results, (index) => sqlByIndex.get(index));
}
