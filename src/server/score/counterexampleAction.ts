/**
 * The Score panel's "Look for a database where they differ" (issue 19), and the EX-fragile note of a mismatch.
 * Everything decided here is core's: the EX verdict (scoreTask), provable equivalence (decideEquivalence), the
 * search (searchCounterexample, which re-runs both queries on the witness file before reporting it) and
 * exFragility. This module only runs them for one pair of the editor, with a budget, progress and cancellation,
 * and reads the witness file back for the page: its tables' first rows, both results with the rows the other
 * lacks marked (EX's own row keys).
 */
import { createHash } from 'crypto';
import * as os from 'os';
import * as path from 'path';
import * as fs from 'fs';
import { Row } from '../../core/db/database';
import { openDatabase } from '../../core/db/engines';
import { dialectOf, QueryRun, readQuery } from '../../core/db/readQuery';
import { quoteIdentifier } from '../../core/db/schema';
import { scoreTask } from '../../core/eval/evaluate';
import { Counterexample, CounterexampleSearch, PairToSearch, searchCounterexample } from '../../core/results/counterexample/search';
import { ExFragile, exFragility } from '../../core/results/counterexample/exFragile';
import { decideEquivalence } from '../../core/results/equivalence';
import { jsonValue } from '../../core/results/jsonValue';
import { rowKey } from '../../core/results/valueKey';
import { sameProgram } from '../../core/timing/sameProgram';
import {
  CounterexampleParams,
  CounterexampleResult,
  VesLensErrorCodes,
  WITNESS_FOLDER,
  WitnessResultView,
  WitnessView,
} from '../../shared/protocol';
import { QueryLimits, ServerContext } from '../context';
import type { OpenDatabase } from '../../core/db/connectionCache';
import { editorText } from '../editorText';
import { CancelledError, UserError } from '../errors';
import { resultPreview } from '../../app/queryRuns';
import { QueryTargets } from '../queryTargets';
import { interruptOnAbort, openScoringPair } from './scoringPair';

const MAX_SEARCH_SECONDS = 120;
/** Seconds of variations tried when a request names none: more than `eval`'s 3 s a pair, since a person waits for one pair. */
export const DEFAULT_COUNTEREXAMPLE_SECONDS = 10;
/** Rows of each witness table and of each result the page shows (the file holds them all). */
const WITNESS_ROWS_SHOWN = 5;

/** The folder of this server's counterexample databases when the client gave no storage: made once, private to it. */
let privateFallbackFolder: string | undefined;

/**
 * Where the editor writes counterexample databases: under the extension's storage, never beside a real database.
 * Without a storage folder, a new folder of this server's own under the temp folder (mkdtemp: unpredictable,
 * readable by this user only), not a fixed shared path another user could create first or link elsewhere.
 */
export function witnessFolder(storageDir: string | undefined): string {
  if (storageDir) return path.join(storageDir, WITNESS_FOLDER);
  privateFallbackFolder ??= fs.mkdtempSync(path.join(os.tmpdir(), `ves-lens-${WITNESS_FOLDER}-`));
  return privateFallbackFolder;
}

/** `work`, or a CancelledError as soon as `signal` aborts (the work itself runs on). */
function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new CancelledError());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new CancelledError());
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** One side's result on the witness, its shown rows marked where the other result has no equal row. */
function witnessSide(run: QueryRun, other: QueryRun, columns: string[]): WitnessResultView {
  if (run.status !== 'ok' || other.status !== 'ok') {
    const failure = run.status !== 'ok' ? run.message : other.status !== 'ok' ? `the other query: ${other.message}` : '';
    return { columns, rows: [], differs: [], rowCount: 0, differingCount: 0, error: editorText(failure) };
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
async function witnessView(found: Counterexample, pair: PairToSearch, limits: QueryLimits, signal?: AbortSignal): Promise<WitnessView> {
  const db = await openDatabase(found.database);
  try {
    const runLimits = { deadline: performance.now() + limits.timeoutMs, budgetMs: limits.timeoutMs, maxRows: limits.maxRows, signal };
    const schema = await db.readSchema();
    const tables = [];
    for (const [name, rowCount] of Object.entries(found.rows_by_table)) {
      const run = await readQuery(db, `SELECT * FROM ${quoteIdentifier(name)} LIMIT ${WITNESS_ROWS_SHOWN}`, runLimits);
      const columns = schema.tables.get(name.toLowerCase())?.columns.map((c) => c.name) ?? [];
      tables.push({ name, columns, rows: run.status === 'ok' ? run.rows.map((row) => row.map(jsonValue)) : [], rowCount });
    }
    const gold = await readQuery(db, pair.gold, runLimits);
    const prediction = await readQuery(db, pair.prediction, runLimits);
    const columnsOf = async (sql: string) => (await resultPreview(db, sql, { ...limits, signal })).columns;
    return {
      database: found.database,
      how: found.how,
      tables,
      gold: witnessSide(gold, prediction, await columnsOf(pair.gold)),
      prediction: witnessSide(prediction, gold, await columnsOf(pair.prediction)),
    };
  } finally {
    await db.close();
  }
}

/**
 * A mismatch on SQLite that rests only on float digits or on the physical row order (core's exFragility, on a
 * fresh connection for the reversed scan); undefined when it does not, or when the check itself fails (logged).
 */
export async function mismatchFragility(
  database: OpenDatabase,
  goldSql: string,
  predictedSql: string,
  context: ServerContext,
): Promise<ExFragile | undefined> {
  const { timeoutMs, maxRows } = context.limits;
  try {
    return await exFragility({
      db: database.db,
      openFresh: () => openDatabase(database.path),
      gold: goldSql,
      prediction: predictedSql,
      deadline: performance.now() + timeoutMs,
      maxRows,
    });
  } catch (error) {
    context.log(`the EX-fragile check failed: ${(error as Error)?.message ?? error}`);
    return undefined;
  }
}

export class CounterexampleAction {
  /**
   * The search last started. Core's search stops at its own deadline, not on a signal: a cancelled one runs out
   * its budget in the background, and the next waits for it (two never share the cores or a witness's name).
   */
  private running: Promise<unknown> = Promise.resolve();
  /** A search is under way (a cancelled one included). */
  private searching = false;

  constructor(
    private readonly context: ServerContext,
    private readonly targets: QueryTargets,
  ) {}

  async run(params: CounterexampleParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<CounterexampleResult> {
    const { started, sql, question, database, goldSql } = await openScoringPair(this.context, this.targets, params);
    const state = this.context.state;
    if (dialectOf(database.db.engine) !== 'sqlite') {
      const message = 'a counterexample database is a SQLite file made from SQLite files: set vesLens.engine to sqlite to look for one';
      throw new UserError(message, VesLensErrorCodes.badInput);
    }
    const budgetSeconds = Math.min(MAX_SEARCH_SECONDS, Math.max(1, Number(params.budgetSeconds) || DEFAULT_COUNTEREXAMPLE_SECONDS));
    const answer = (fields: Partial<CounterexampleResult> & Pick<CounterexampleResult, 'status' | 'outcome'>): CounterexampleResult => ({
      question: state.info(question),
      equivalence: null,
      search: null,
      witness: null,
      budgetSeconds,
      ...fields,
      elapsedMs: performance.now() - started,
    });

    progress?.('running prediction and gold on the database');
    const stopInterrupting = interruptOnAbort(database, signal);
    let outcome;
    let same = false;
    try {
      const task = { question, goldSql, predictedSql: sql, notes: [] };
      ({ outcome } = await scoreTask(database.db, task, { metrics: ['ex'], ...this.context.timing, ...this.context.limits, signal }));
      if (signal?.aborted) throw new CancelledError();
      if (outcome === 'correct') same = await sameProgram(database.db, goldSql, sql).catch(() => false);
    } finally {
      stopInterrupting();
    }
    if (outcome !== 'correct') return answer({ status: 'not_correct', outcome });

    progress?.('is the prediction provably equivalent to the gold?');
    const equivalence = decideEquivalence(goldSql, sql, database.schema, same);
    if (equivalence.verdict === 'equivalent') return answer({ status: 'equivalent', outcome, equivalence });

    const hash = createHash('sha256').update(`${goldSql}\n${sql}`).digest('hex').slice(0, 10);
    const pair: PairToSearch = {
      dbPath: database.path,
      gold: goldSql,
      prediction: sql,
      name: `${question.questionId}-${question.dbId}-${hash}`,
    };
    const found = await this.search(pair, { budgetSeconds, schema: database.schema }, signal, progress);
    const witness = found.counterexample ? await witnessView(found.counterexample, pair, this.context.limits, signal) : null;
    return answer({ status: found.search.result, outcome, equivalence, search: found.search, witness });
  }

  private async search(
    pair: PairToSearch,
    options: { budgetSeconds: number; schema: OpenDatabase['schema'] },
    signal: AbortSignal | undefined,
    progress: ((message: string) => void) | undefined,
  ): Promise<{ counterexample?: Counterexample; search: CounterexampleSearch }> {
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
    const outDir = witnessFolder(this.context.storageDir);
    const started = performance.now();
    const ticker = setInterval(() => {
      const seconds = Math.round((performance.now() - started) / 1000);
      progress?.(
        `trying variations of the tables read: ${seconds} s of ${options.budgetSeconds} s (a counterexample database found is then shrunk)`,
      );
    }, 1000);
    signal?.addEventListener('abort', () => clearInterval(ticker), { once: true });
    progress?.(`trying variations of the tables read (up to ${options.budgetSeconds} s)`);
    this.searching = true;
    const searching = (async () => {
      fs.mkdirSync(outDir, { recursive: true });
      const budgetMs = options.budgetSeconds * 1000;
      return searchCounterexample(pair, { outDir, budgetMs, maxRows: this.context.limits.maxRows, schema: options.schema, signal });
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
