import { median, sampleRankCorrelation } from 'simple-statistics';
import { PredictionFile, BIRD_SEPARATOR } from '../bird/predictions';
import { InputFileError, InputProblem } from '../bird/problems';
import { parseJsonFile, readTextFile } from '../bird/jsonFile';
import { Question } from '../bird/questions';
import { ConnectionCache, DatabaseUnavailable } from '../db/connectionCache';
import { DatabaseSource } from '../db/source';
import { timeExecution } from '../db/engines';
import { dialectOf, runnableBody } from '../db/readQuery';
import { buildTasks } from '../bird/tasks';
import { RerankBy, rerankCandidates } from './rerank';

/** K candidate SQLs for one question, each with where it came from (a file, or its place in a candidate list). */
export interface QuestionCandidates {
  question: Question;
  candidates: { sql: string; source: string }[];
}

export interface CandidateOutcome {
  /** Position among the question's candidates (0: the first, e.g. greedy decoding). */
  index: number;
  source: string;
  executable: boolean;
  error?: string;
  rule: number | null;
  work: number | null;
  rows?: number;
  /** --measure: median milliseconds of a full execution on a fresh connection. */
  ms?: number | null;
}

export interface RerankedQuestion {
  index: number;
  question_id: number | string;
  db_id: string;
  /** The candidate picked (its position), and its SQL. */
  chosen: number;
  sql: string;
  /** Why the first candidate was kept without ranking (no candidate runs, no database). */
  note?: string;
  candidates: CandidateOutcome[];
  /** --measure: Spearman's ρ between each cost and the measured time over this question's distinct runnable candidates (null under 3). */
  rho?: { rule: number | null; estimate: number | null };
}

export interface CorrelationSummary {
  /** Mean of the per-question ρ, over the questions where it is defined. */
  mean_per_question: number | null;
  questions: number;
  /** ρ over every distinct runnable candidate of every question at once. */
  pooled: number | null;
  statements: number;
}

export interface RerankReport {
  by: RerankBy;
  questions: RerankedQuestion[];
  /** Questions where another candidate than the first was picked. */
  changed: number;
  correlation?: { rule: CorrelationSummary; estimate: CorrelationSummary };
}

const SQL_LIST_FIELDS = ['candidates', 'sqls', 'predictions', 'predicted_sqls', 'predicted_sql', 'pred_sqls', 'sql', 'SQL'];

/**
 * A candidate list: a JSON list of `{question_id, candidates: [SQL, ...]}` (also `sqls`, `predictions`,
 * `predicted_sql` ... as a list), or an object `{ "<question_id>": [SQL, ...] }`. Paired with the questions by
 * question_id; questions with no entry get no candidate (and are said in `problems`).
 */
export function candidatesFromList(file: string, questions: readonly Question[], problems: InputProblem[]): QuestionCandidates[] {
  const value = parseJsonFile(file, readTextFile(file, 'candidate file'));
  const entries: { id: string; list: unknown; where: string }[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const where = `item ${i}`;
      if (!item || typeof item !== 'object' || Array.isArray(item))
        throw new InputFileError({ file, where, message: 'expected an object with question_id and a list of candidate SQL' });
      const record = item as Record<string, unknown>;
      if (typeof record.question_id !== 'number' && typeof record.question_id !== 'string')
        throw new InputFileError({ file, where, message: 'no question_id' });
      const field = SQL_LIST_FIELDS.find((f) => Array.isArray(record[f]));
      if (!field) throw new InputFileError({ file, where, message: `no list of candidate SQL (one of ${SQL_LIST_FIELDS.join(', ')})` });
      entries.push({ id: String(record.question_id), list: record[field], where: `${where}.${field}` });
    });
  } else if (value && typeof value === 'object') {
    for (const [key, list] of Object.entries(value)) {
      if (!Array.isArray(list))
        throw new InputFileError({ file, where: `key ${JSON.stringify(key)}`, message: 'expected a list of candidate SQL' });
      entries.push({ id: key, list, where: `key ${JSON.stringify(key)}` });
    }
  } else {
    throw new InputFileError({
      file,
      message: 'expected a JSON list of {question_id, candidates: [...]} (or an object of question_id → [SQL, ...])',
    });
  }
  const byId = new Map<string, { list: unknown[]; where: string }>();
  for (const entry of entries) {
    if (byId.has(entry.id))
      problems.push({ file, where: entry.where, message: `question_id ${entry.id} appears again; the first one is used` });
    else byId.set(entry.id, { list: entry.list as unknown[], where: entry.where });
  }
  const known = new Set(questions.map((q) => String(q.questionId)));
  const unknown = [...byId.keys()].filter((id) => !known.has(id));
  if (byId.size > 0 && unknown.length === byId.size)
    throw new InputFileError({
      file,
      message: `none of its question_ids is in the question file: is it the question file they were made for?`,
    });
  if (unknown.length)
    problems.push({
      file,
      message: `${unknown.length} question_ids are not in the question file (ignored): ${unknown.slice(0, 5).join(', ')}`,
      headline: true,
    });
  let without = 0;
  const sets = questions.map((question) => {
    const entry = byId.get(String(question.questionId));
    if (!entry) {
      without++;
      return { question, candidates: [] };
    }
    const candidates = entry.list.map((sql, k) => {
      if (typeof sql === 'string') return { sql, source: `${entry.where}[${k}]` };
      const object = sql && typeof sql === 'object' ? (sql as Record<string, unknown>) : {};
      const text = ['sql', 'SQL', 'predicted_sql', 'prediction'].map((f) => object[f]).find((v) => typeof v === 'string');
      if (typeof text !== 'string')
        problems.push({ file, where: `${entry.where}[${k}]`, message: 'not an SQL string: scored as an empty query' });
      return { sql: typeof text === 'string' ? text : ' ', source: `${entry.where}[${k}]` };
    });
    return { question, candidates };
  });
  if (without)
    problems.push({
      file,
      message: `${without} of ${questions.length} questions have no candidates: their prediction is empty (scored 0)`,
      headline: true,
    });
  return sets;
}

/** K prediction files (any format `eval` reads), each paired with the questions as `eval` pairs it: candidate k of a question is file k's prediction. */
export function candidatesFromPredictionFiles(
  files: readonly PredictionFile[],
  questions: Question[],
  problems: InputProblem[],
): QuestionCandidates[] {
  const perFile = files.map((file) => buildTasks(questions, file, undefined, problems));
  return questions.map((question, q) => ({
    question,
    candidates: perFile.flatMap((tasks, k) =>
      tasks[q].predictedSql === undefined ? [] : [{ sql: tasks[q].predictedSql!, source: files[k].file }],
    ),
  }));
}

/** Median milliseconds of a full execution on fresh connections (sub-millisecond queries averaged over several). */
async function measureMs(dbPath: string, body: string, timeoutMs: number, samples: number): Promise<number | null> {
  const limits = () => ({ deadline: performance.now() + timeoutMs, budgetMs: timeoutMs });
  try {
    const once = await timeExecution(dbPath, body, 'full', limits());
    const repetitions = Math.min(16, Math.max(1, Math.ceil(1 / Math.max(once, 0.001))));
    const values: number[] = [];
    for (let s = 0; s < samples; s++) {
      let total = 0;
      for (let r = 0; r < repetitions; r++) total += await timeExecution(dbPath, body, 'full', limits());
      values.push(total / repetitions);
    }
    return median(values);
  } catch {
    return null;
  }
}

/** Spearman's ρ, or null where it is undefined (fewer than 3 points, or no spread in either). */
export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  if (xs.length < 3) return null;
  const rho = sampleRankCorrelation([...xs], [...ys]);
  return Number.isFinite(rho) ? rho : null;
}

function summarizeCorrelation(questions: readonly RerankedQuestion[], key: 'rule' | 'estimate'): CorrelationSummary {
  const perQuestion = questions.map((q) => q.rho?.[key]).filter((r): r is number => typeof r === 'number');
  const points = questions.flatMap((q) => distinctMeasured(q.candidates));
  return {
    mean_per_question: perQuestion.length ? perQuestion.reduce((a, b) => a + b, 0) / perQuestion.length : null,
    questions: perQuestion.length,
    pooled: spearman(
      points.map((c) => (key === 'rule' ? c.rule! : c.work!)),
      points.map((c) => c.ms!),
    ),
    statements: points.length,
  };
}

/** Runnable candidates with a time, one per distinct SQL (K samples often repeat a query; repeats would inflate ρ). */
function distinctMeasured(candidates: readonly (CandidateOutcome & { sql?: string })[]): CandidateOutcome[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    if (!c.executable || c.ms === null || c.ms === undefined || c.rule === null || c.work === null) return false;
    const key = `${c.rule}|${c.work}|${c.rows}|${c.ms}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface RerankOptions {
  /** Where the questions' databases are (SQLite files under a folder, or a PostgreSQL server). */
  source: DatabaseSource;
  by: RerankBy;
  timeoutMs: number;
  maxRows: number;
  /** Time every runnable candidate and correlate each cost with the time (samples per candidate, default 5). */
  measure?: boolean;
  samples?: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Cost-aware re-ranking of K candidates per question (plan/rerank.ts): the cheapest candidate that runs, by the
 * row-aware estimate or by the rule cost; the first candidate where none runs. With `measure`, also how well
 * each cost ranks the candidates' measured times (Spearman's ρ per question and pooled).
 */
export async function rerankQuestions(sets: readonly QuestionCandidates[], options: RerankOptions): Promise<RerankReport> {
  const results: RerankedQuestion[] = [];
  const connections = ConnectionCache.withSchema({ source: options.source });
  try {
    for (const [done, set] of sets.entries()) {
      const { question } = set;
      const base = { index: question.index, question_id: question.questionId, db_id: question.dbId };
      const first = set.candidates[0]?.sql ?? '';
      if (set.candidates.length === 0) {
        results.push({ ...base, chosen: 0, sql: '', note: 'no candidates', candidates: [] });
        continue;
      }
      const connection = await connections.forQuestion(question.dbId);
      if (connection instanceof DatabaseUnavailable) {
        results.push({
          ...base,
          chosen: 0,
          sql: first,
          note: `${connection.message}: the first candidate is kept`,
          candidates: set.candidates.map((c, index) => ({
            index,
            source: c.source,
            executable: false,
            error: connection.message,
            rule: null,
            work: null,
          })),
        });
        continue;
      }
      const ranked = await rerankCandidates(
        connection.db,
        set.candidates.map((c) => c.sql),
        connection.schema,
        { timeoutMs: options.timeoutMs, maxRows: options.maxRows },
        options.by,
      );
      const times = new Map<string, number | null>();
      const candidates: CandidateOutcome[] = [];
      for (const r of [...ranked].sort((a, b) => a.index - b.index)) {
        const outcome: CandidateOutcome = {
          index: r.index,
          source: set.candidates[r.index].source,
          executable: r.executable,
          rule: r.plan.error ? null : r.plan.cost.rule,
          work: r.plan.error ? null : r.plan.cost.work,
        };
        if (r.error) outcome.error = r.error;
        if (r.rows !== undefined) outcome.rows = r.rows;
        if (options.measure && r.executable) {
          const runnable = runnableBody(r.sql, dialectOf(connection.db.engine));
          if (!('status' in runnable)) {
            if (!times.has(runnable.body))
              times.set(runnable.body, await measureMs(connection.path, runnable.body, options.timeoutMs, options.samples ?? 5));
            outcome.ms = times.get(runnable.body)!;
          }
        }
        candidates.push(outcome);
      }
      const best = ranked[0];
      const result: RerankedQuestion = best.executable
        ? { ...base, chosen: best.index, sql: best.sql, candidates }
        : { ...base, chosen: 0, sql: first, note: 'no candidate runs: the first is kept', candidates };
      if (options.measure) {
        const points = distinctMeasured(candidates);
        result.rho = {
          rule: spearman(
            points.map((c) => c.rule!),
            points.map((c) => c.ms!),
          ),
          estimate: spearman(
            points.map((c) => c.work!),
            points.map((c) => c.ms!),
          ),
        };
      }
      results.push(result);
      options.onProgress?.(done + 1, sets.length);
    }
  } finally {
    await connections.closeAll();
  }
  const report: RerankReport = { by: options.by, questions: results, changed: results.filter((r) => r.chosen !== 0).length };
  if (options.measure)
    report.correlation = { rule: summarizeCorrelation(results, 'rule'), estimate: summarizeCorrelation(results, 'estimate') };
  return report;
}

/** The picks as an official prediction file, `{"0": "SQL\t----- bird -----\tdb_id", ...}` in question order: `eval` pairs it by position. */
export function predictionObject(report: RerankReport): Record<string, string> {
  const sorted = [...report.questions].sort((a, b) => a.index - b.index);
  return Object.fromEntries(sorted.map((q, i) => [String(i), `${q.sql}${BIRD_SEPARATOR}${q.db_id}`]));
}
