/**
 * Counterexamples to EX-correct pairs: a proof of equivalence or a small database where gold and prediction differ.
 * SQLite only: the witnesses are SQLite files made from the SQLite files.
 * - eval's counterexample step (`--counterexamples`), between scoring and the summary: for each EX-correct pair,
 *   written to a folder, and which mismatches are EX-fragile (core/eval/robustnessStep.ts). The folder is checked
 *   before any question runs; the search has a budget per pair and one for the whole file.
 * - The Score panel's "Look for a database where they differ" (issue 19) on the editor's one pair
 *   (PairCounterexamples): everything decided is core's, the EX verdict (scoreTask), provable equivalence
 *   (decideEquivalence), the search (searchCounterexample, which re-runs both queries on the witness file before
 *   reporting it); this runs them with a budget, progress and cancellation, and reads the witness file back for
 *   the page: its tables' first rows, both results with the rows the other lacks marked (EX's own row keys).
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import type { EvalTask } from '../core/bird/tasks';
import { QueryCancelled, type Row } from '../core/db/database';
import { openDatabase } from '../core/db/engines';
import { dialectOf, type QueryRun, readQuery } from '../core/db/readQuery';
import { quoteIdentifier } from '../core/db/schema';
import type { DatabaseSource } from '../core/db/source';
import { scoreTask } from '../core/eval/evaluate';
import { checkRobustness, RobustnessOptions, RobustnessRun } from '../core/eval/robustnessStep';
import type { Outcome, QuestionResult, TimingMode } from '../core/eval/types';
import type { NamedInput } from '../core/io/outputPaths';
import {
  type Counterexample,
  type CounterexampleSearch as SearchReport,
  type PairToSearch,
  searchCounterexample,
} from '../core/results/counterexample/search';
import { decideEquivalence, type EquivalenceVerdict } from '../core/results/equivalence';
import { jsonValue } from '../core/results/jsonValue';
import { rowKey } from '../core/results/valueKey';
import { sameProgram } from '../core/timing/sameProgram';
import { resultPreview } from './queryRuns';
import { checkedOutputPath } from './runOutputs';
import { RunRefused } from './runRefused';
import type { Wording } from './statementPlan';
import { interruptOnAbort, type StatementPair } from './statementScore';

/** Whole-file search budget: ten minutes, or the per-pair budget times the pairs, whichever is less. */
const TOTAL_BUDGET_MS = 10 * 60 * 1000;

/**
 * Checks the counterexample folder before any question runs (the engine reads SQLite files under `dbRoot`; the
 * folder, compared by real path as any output is, is no input file and lies outside `dbRoot`) and makes it.
 */
export function prepareCounterexampleFolder(
  folder: string,
  source: DatabaseSource,
  dbRoot: string | undefined,
  inputs: readonly NamedInput[],
): void {
  if (source.engine.name !== 'sqlite' || dbRoot === undefined)
    throw new RunRefused(
      '--counterexamples',
      'counterexample databases are SQLite files made from SQLite files; use --db-root (not --engine postgres)',
    );
  const real = checkedOutputPath('--counterexamples', folder, inputs, [{ label: '--db-root', folder: dbRoot }]);
  if (fs.existsSync(real) && !fs.statSync(real).isDirectory())
    throw new RunRefused('--counterexamples', `${folder} is a file; give a folder for the counterexample databases`);
  try {
    fs.mkdirSync(real, { recursive: true });
  } catch (error) {
    throw new RunRefused('--counterexamples', `cannot make the folder ${folder}: ${(error as Error).message}`);
  }
}

/** The search's settings as a face has them; the whole file's budget is this file's. */
export type CounterexampleSearch = Omit<RobustnessOptions, 'totalBudgetMs'>;

/** The step over the scored results; `signal` (the run's Ctrl-C) stops it at the next query, the run says how far it got. */
export function searchCounterexamples(
  results: QuestionResult[],
  tasks: readonly EvalTask[],
  search: CounterexampleSearch,
): Promise<RobustnessRun> {
  return checkRobustness(results, tasks, { ...search, totalBudgetMs: TOTAL_BUDGET_MS });
}

// ---- the Score panel's one pair --------------------------------------------------------------------------

const MAX_SEARCH_SECONDS = 120;
/** Seconds of variations tried when a request names none: more than `eval`'s 3 s a pair, since a person waits for one pair. */
const DEFAULT_COUNTEREXAMPLE_SECONDS = 10;
/** Rows of each witness table and of each result the page shows (the file holds them all). */
const WITNESS_ROWS_SHOWN = 5;

/** The seconds of search the Score panel offers for a scored pair: an EX-correct pair on SQLite; none otherwise. */
export function counterexampleOffer(outcome: Outcome, pair: StatementPair): number | undefined {
  return outcome === 'correct' && dialectOf(pair.database.db.engine) === 'sqlite' ? DEFAULT_COUNTEREXAMPLE_SECONDS : undefined;
}

/** One side's result on the witness: its first rows, which of them the other side's result lacks (EX's set comparison). */
export interface WitnessResultView {
  columns: string[];
  rows: unknown[][];
  /** For each row shown: the other result has no equal row. */
  differs: boolean[];
  rowCount: number;
  /** Rows of the whole result the other result lacks (the shown ones may not hold them all). */
  differingCount: number;
  /** The query failed when read back for the page (the search had run it on the file). */
  error?: string;
}

/** A table of the witness: its first rows and how many it holds. */
export interface WitnessTableView {
  name: string;
  columns: string[];
  rows: unknown[][];
  rowCount: number;
}

/** The witness database, read back from its file: its tables and both results on it. */
export interface WitnessView {
  /** The SQLite file (under the extension's storage, never beside the real database). */
  database: string;
  /** How the real database was varied, and how small the witness is. */
  how: string;
  tables: WitnessTableView[];
  gold: WitnessResultView;
  prediction: WitnessResultView;
}

/**
 * What the search came to. `equivalent`: proved, nothing searched (`equivalence.reason` says why); `found`: a
 * witness, both queries re-run on its file and still differing; `none_found`, `budget_spent`, `not_searched`:
 * core's search result (`search` says how much was tried, in how long); `not_correct`: the pair does not agree on
 * the real database (`outcome`), so there is nothing to look for.
 */
export interface PairSearched {
  status: 'equivalent' | 'not_correct' | SearchReport['result'];
  outcome: Outcome;
  equivalence: EquivalenceVerdict | null;
  search: SearchReport | null;
  witness: WitnessView | null;
  /** The search's budget in seconds, as it ran. */
  budgetSeconds: number;
}

/** A pair searched, or `not_sqlite`: a counterexample database is a SQLite file made from SQLite files. */
export type PairCounterexample = { status: 'not_sqlite' } | PairSearched;

/** How the editor's search runs: its settings, the request's budget, where witnesses go. */
export interface PairSearchOptions {
  timing: TimingMode;
  officialIterations: number;
  timeoutMs: number;
  maxRows: number;
  /** Seconds for trying variations as the request asks (default 10, at most 120). */
  budgetSeconds?: unknown;
  /** The folder the witness databases are written to, asked for when a search starts (which makes it). */
  outDir: () => string;
  signal?: AbortSignal;
  progress?: (message: string) => void;
}

/** `work`, or core's QueryCancelled as soon as `signal` aborts (the work itself runs on). */
function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new QueryCancelled());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new QueryCancelled());
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** One side's result on the witness, its shown rows marked where the other result has no equal row. */
function witnessSide(run: QueryRun, other: QueryRun, columns: string[], word: Wording): WitnessResultView {
  if (run.status !== 'ok' || other.status !== 'ok') {
    const failure = run.status !== 'ok' ? run.message : other.status !== 'ok' ? `the other query: ${other.message}` : '';
    return { columns, rows: [], differs: [], rowCount: 0, differingCount: 0, error: word(failure) };
  }
  const otherKeys = new Set(other.rows.map(rowKey));
  const lacking = (row: Row) => !otherKeys.has(rowKey(row));
  const shown = run.rows.slice(0, WITNESS_ROWS_SHOWN);
  return {
    columns,
    rows: shown.map((row) => row.map(jsonValue)),
    differs: shown.map(lacking),
    rowCount: run.rows.length,
    differingCount: run.rows.filter(lacking).length,
  };
}

/** The witness read back from its file (read-only): its tables' first rows, and both results on it side by side. */
async function witnessView(found: Counterexample, pair: PairToSearch, options: PairSearchOptions, word: Wording): Promise<WitnessView> {
  const { timeoutMs, maxRows, signal } = options;
  const db = await openDatabase(found.database);
  try {
    const runLimits = { deadline: performance.now() + timeoutMs, budgetMs: timeoutMs, maxRows, signal };
    const schema = await db.readSchema();
    const tables = [];
    for (const [name, rowCount] of Object.entries(found.rows_by_table)) {
      const run = await readQuery(db, `SELECT * FROM ${quoteIdentifier(name)} LIMIT ${WITNESS_ROWS_SHOWN}`, runLimits);
      const columns = schema.tables.get(name.toLowerCase())?.columns.map((c) => c.name) ?? [];
      tables.push({ name, columns, rows: run.status === 'ok' ? run.rows.map((row) => row.map(jsonValue)) : [], rowCount });
    }
    const gold = await readQuery(db, pair.gold, runLimits);
    const prediction = await readQuery(db, pair.prediction, runLimits);
    const columnsOf = async (sql: string) => (await resultPreview(db, sql, { timeoutMs, maxRows, signal })).columns;
    return {
      database: found.database,
      how: found.how,
      tables,
      gold: witnessSide(gold, prediction, await columnsOf(pair.gold), word),
      prediction: witnessSide(prediction, gold, await columnsOf(pair.prediction), word),
    };
  } finally {
    await db.close();
  }
}

/**
 * The editor's searches, one at a time. A cancelled request ends in core's QueryCancelled; the face words the
 * failures its witness read back holds with `word`.
 */
export class PairCounterexamples {
  /**
   * The search last started. Core's search stops at its own deadline, not on a signal: a cancelled one runs out
   * its budget in the background, and the next waits for it (two never share the cores or a witness's name).
   */
  private running: Promise<unknown> = Promise.resolve();
  /** A search is under way (a cancelled one included). */
  private searching = false;

  constructor(private readonly word: Wording) {}

  /** EX on the real database, then a proof of equivalence, then the search with its witness read back. */
  async run(statement: StatementPair, options: PairSearchOptions): Promise<PairCounterexample> {
    const { question, database, goldSql, sql } = statement;
    const { signal, progress } = options;
    if (dialectOf(database.db.engine) !== 'sqlite') return { status: 'not_sqlite' };
    const budgetSeconds = Math.min(MAX_SEARCH_SECONDS, Math.max(1, Number(options.budgetSeconds) || DEFAULT_COUNTEREXAMPLE_SECONDS));
    const answer = { equivalence: null, search: null, witness: null, budgetSeconds };

    progress?.('running prediction and gold on the database');
    const { timing, officialIterations, timeoutMs, maxRows } = options;
    const stopInterrupting = interruptOnAbort(database, signal);
    let outcome;
    let same = false;
    try {
      const task = { question, goldSql, predictedSql: sql, notes: [] };
      ({ outcome } = await scoreTask(database.db, task, { metrics: ['ex'], timing, officialIterations, timeoutMs, maxRows, signal }));
      if (signal?.aborted) throw new QueryCancelled();
      if (outcome === 'correct') same = await sameProgram(database.db, goldSql, sql).catch(() => false);
    } finally {
      stopInterrupting();
    }
    if (outcome !== 'correct') return { ...answer, status: 'not_correct', outcome };

    progress?.('is the prediction provably equivalent to the gold?');
    const equivalence = decideEquivalence(goldSql, sql, database.schema, same);
    if (equivalence.verdict === 'equivalent') return { ...answer, status: 'equivalent', outcome, equivalence };

    const hash = createHash('sha256').update(`${goldSql}\n${sql}`).digest('hex').slice(0, 10);
    const pair: PairToSearch = {
      dbPath: database.path,
      gold: goldSql,
      prediction: sql,
      name: `${question.questionId}-${question.dbId}-${hash}`,
    };
    const found = await this.search(pair, budgetSeconds, database.schema, options);
    const witness = found.counterexample ? await witnessView(found.counterexample, pair, options, this.word) : null;
    return { ...answer, status: found.search.result, outcome, equivalence, search: found.search, witness };
  }

  private async search(
    pair: PairToSearch,
    budgetSeconds: number,
    schema: StatementPair['database']['schema'],
    options: PairSearchOptions,
  ): Promise<{ counterexample?: Counterexample; search: SearchReport }> {
    const { signal, progress } = options;
    // Taken at once, so a search asked for meanwhile queues behind this one.
    const previous = this.running;
    let finished!: () => void;
    this.running = new Promise<void>((resolve) => (finished = resolve));
    if (this.searching) progress?.('waiting for the search cancelled before to run out its budget');
    try {
      await untilAborted(previous, signal);
    } catch (error) {
      void previous.finally(finished);
      throw error;
    }
    const outDir = options.outDir();
    const started = performance.now();
    const ticker = setInterval(() => {
      const seconds = Math.round((performance.now() - started) / 1000);
      progress?.(
        `trying variations of the tables read: ${seconds} s of ${budgetSeconds} s (a counterexample database found is then shrunk)`,
      );
    }, 1000);
    signal?.addEventListener('abort', () => clearInterval(ticker), { once: true });
    progress?.(`trying variations of the tables read (up to ${budgetSeconds} s)`);
    this.searching = true;
    const searching = (async () => {
      fs.mkdirSync(outDir, { recursive: true });
      return searchCounterexample(pair, { outDir, budgetMs: budgetSeconds * 1000, maxRows: options.maxRows, schema, signal });
    })();
    void searching
      // A witness of a cancelled search is nobody's: it goes, before the next search may start.
      .then((found) => signal?.aborted && found.counterexample && fs.rmSync(found.counterexample.database, { force: true }))
      .catch(() => undefined)
      .finally(() => {
        clearInterval(ticker);
        this.searching = false;
        finished();
      });
    return untilAborted(searching, signal);
  }
}
