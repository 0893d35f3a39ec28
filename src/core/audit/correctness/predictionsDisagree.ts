import { Question } from '../../bird/questions';
import { Row } from '../../db/database';
import { DatabaseConnection } from '../../db/engine';
import { readQuery } from '../../db/readQuery';
import { jsonValue } from '../../results/jsonValue';
import { rowKey } from '../../results/valueKey';
import type { PredictionEvidence } from '../predictionEvidence';
import type { CorrectnessFinding } from './kinds';

/** What the check needs of a prediction file's evidence: each question's outcome and predicted SQL. */
export type PredictionAgreement = Pick<PredictionEvidence, 'file' | 'byIndex'>;

/** A result as a set, as EX compares: the same key for two results exactly when EX calls them equal. */
const setKey = (rows: readonly Row[]) => JSON.stringify([...new Set(rows.map(rowKey))].sort());

/**
 * Golds that most correct-looking predictions disagree with in the same way: the mismatching predictions are run
 * again here, those that return rows as wide as the gold's (a prediction that answers in another shape, a full
 * name for first and last, disagrees on form, not on the answer) are grouped by their result as a set; a group
 * of more than half of all files, at least two, is a finding. Independent models that agree with each other and
 * not with the gold point at the gold (or its evidence).
 */
export async function predictionsDisagree(
  db: DatabaseConnection,
  question: Question,
  goldRows: readonly Row[],
  options: { timeoutMs: number; maxRows: number; predictions?: readonly PredictionAgreement[]; signal?: AbortSignal },
): Promise<CorrectnessFinding | undefined> {
  const files = options.predictions ?? [];
  const hits = files.map((p) => ({ file: p.file, hit: p.byIndex.get(question.index) }));
  const correct = hits.filter((h) => h.hit?.correct).length;
  const mismatching = hits.filter((h) => h.hit?.outcome === 'mismatch' && h.hit.sql);
  if (mismatching.length < 2 || mismatching.length <= correct) return undefined;
  const groups = new Map<string, { files: string[]; rows: Row[] }>();
  for (const { file, hit } of mismatching) {
    if (options.signal?.aborted) return undefined;
    const { timeoutMs, maxRows, signal } = options;
    const run = await readQuery(db, hit!.sql!, { deadline: performance.now() + timeoutMs, budgetMs: timeoutMs, maxRows, signal });
    if (run.status !== 'ok' || run.rows.length === 0) continue;
    if (goldRows.length && run.rows[0].length !== goldRows[0].length) continue;
    const key = setKey(run.rows);
    const group = groups.get(key) ?? { files: [], rows: run.rows };
    group.files.push(file);
    groups.set(key, group);
  }
  const largest = [...groups.values()].sort((a, b) => b.files.length - a.files.length)[0];
  if (!largest || largest.files.length < 2 || largest.files.length <= correct || largest.files.length * 2 <= files.length) return undefined;
  const name = (file: string) => file.split(/[\\/]/).pop() ?? file;
  return {
    kind: 'predictions_disagree',
    detail:
      `${largest.files.length} of ${files.length} prediction files return the same rows, not the gold's ` +
      `(${correct} match the gold): ${largest.files.map(name).join(', ')}`,
    evidence: {
      check: 'the mismatching predictions run again and grouped by their result',
      sql: mismatching.find((m) => m.file === largest.files[0])!.hit!.sql!,
      rows_as_written: goldRows.slice(0, 5).map((row) => row.map(jsonValue)),
      rows_of_check: largest.rows.slice(0, 5).map((row) => row.map(jsonValue)),
      row_counts: { as_written: goldRows.length, check: largest.rows.length },
      files: largest.files,
      of_files: files.length,
    },
  };
}
