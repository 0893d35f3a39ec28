/**
 * The correctness pass on several questions at once (EvalOptions.jobs). Each lane scores one question at a time on
 * connections of its own (one SQLite connection runs one statement at a time); node-sqlite3 runs statements on
 * libuv's thread pool, so N lanes use N cores while this thread compares the rows. Worker threads (@vscode/sqlite3
 * loads in one) or child processes would each load the bundle again (about 0.1 s of CPU, a fifth of a mini-dev
 * file's run), for a pass that a CPU profile shows is mostly waiting for SQLite; lanes need no second entry point,
 * and the abort signal, progress and SQLite's process-wide heap limit work as with one lane. On a PostgreSQL or
 * MySQL server each lane is a session per database (the pool mini_dev's script keeps as processes): the server
 * runs them on its cores, this thread reads and compares their rows. The embedded PostgreSQL runs the lanes on up
 * to two WASM threads (pglite/embeddedPostgres.ts), sharing one until a statement has kept another lane waiting
 * for 3 s: a question whose time limit passed after such a wait is scored again alone, as below.
 *
 * Memory stays under the one bound whatever the predictions: each lane's queries are cut at 1/jobs of the rows and
 * bytes one result may hold (DatabaseConnection.streamRows), so N lanes together hold what one lone run may. A
 * question whose query meets such a share (or runs out of SQLite's process-wide heap, or the embedded PostgreSQL's
 * memory ceiling, beside the other lanes) is scored again afterwards, alone, with the whole bound: results never
 * depend on --jobs.
 */
import * as os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { median } from 'simple-statistics';
import { ConnectionCache, DatabaseUnavailable, OpenConnection } from '../db/connectionCache';
import { MEMORY_BOUNDS, QueryTimeout, ResultTooLarge, TooManyRows } from '../db/database';
import { DatabaseConnection } from '../db/engine';
import { DatabaseSource } from '../db/source';

/** The default number of questions scored at once: VES_LENS_JOBS when it is a positive whole number, else the cores. */
export function defaultJobs(): number {
  const stated = Number(process.env.VES_LENS_JOBS);
  if (Number.isSafeInteger(stated) && stated > 0) return stated;
  return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
}

/**
 * How many lanes a run gets: never more than its questions, nor than the engine runs at once
 * (DatabaseEngine.maxLanes: the embedded PostgreSQL's threads). A server (PostgreSQL, MySQL) gets one session
 * per lane and database, as mini_dev's process pool opens one per worker: the server runs them on its own cores.
 */
export function laneCount(jobs: number | undefined, source: DatabaseSource, questions: number): number {
  return Math.max(1, Math.min(jobs ?? 1, questions, source.engine.maxLanes ?? Infinity));
}

/**
 * libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise) runs every SQLite statement and file
 * read: more lanes than that would wait for a thread. It is sized when first used, so this only helps when called
 * before any database is opened (the command line); it never shrinks a size the user set.
 */
export function widenThreadPool(jobs: number): void {
  if (process.env.UV_THREADPOOL_SIZE === undefined && jobs > 3) process.env.UV_THREADPOOL_SIZE = String(jobs + 1);
}

/**
 * Out of memory shared by the lanes: SQLite's below the process-wide heap limit (sqliteConnection.ts words it so),
 * the embedded PostgreSQL's statement stopped as the process passed its ceiling (pglite/embeddedPostgres.ts).
 */
const SHARED_OUT_OF_MEMORY = /SQLite's heap|took the process past/;

/**
 * A time limit met after waiting for an executor another lane held (DatabaseConnection.executorWaitMs: the
 * embedded PostgreSQL's threads) for more than this share of it may be the wait's, not the statement's. Shorter
 * waits are within what a busy machine shifts a statement's time by, and scoring every such timeout again would
 * cost another time limit each.
 */
const WAIT_COUNTED_SHARE = 0.01;

/** Whether a failure met a bound another lane shares; `waited`: the question's wait for executors so far, ms. */
const isSharedBound = (error: unknown, waited: number) =>
  error instanceof TooManyRows ||
  error instanceof ResultTooLarge ||
  (error instanceof QueryTimeout && waited > WAIT_COUNTED_SHARE * error.limitMs) ||
  (error instanceof Error && SHARED_OUT_OF_MEMORY.test(error.message));

/**
 * A connection whose results are cut at `1/share` of the caller's rows and bytes; `onBound` hears of every query
 * that met a bound another lane shares (its share of rows and bytes, SQLite's heap, the embedded PostgreSQL's
 * memory ceiling, a time limit after `waited()` ms of the question spent waiting for its threads), whatever the
 * caller then makes of the failure.
 */
function withShareOfBounds(db: DatabaseConnection, share: number, onBound: () => void, waited: () => number): DatabaseConnection {
  const watch = <T>(run: Promise<T>) =>
    run.catch((error: unknown) => {
      if (isSharedBound(error, waited())) onBound();
      throw error;
    });
  const streamRows: DatabaseConnection['streamRows'] = (body, onRow, limits) =>
    watch(
      db.streamRows(body, onRow, {
        ...limits,
        maxRows: Math.max(1, Math.floor(limits.maxRows / share)),
        maxBytes: Math.floor((limits.maxBytes ?? MEMORY_BOUNDS.resultBytes) / share),
      }),
    );
  return new Proxy(db, {
    get(target, key) {
      if (key === 'streamRows') return streamRows;
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const returned: unknown = value.apply(target, args);
        return returned instanceof Promise ? watch(returned) : returned;
      };
    },
  });
}

/** One lane: its own connections to the dataset's databases, and whether its current question met a shared bound. */
export class Lane {
  private readonly cache: ConnectionCache;
  private readonly shared = new Map<DatabaseConnection, DatabaseConnection>();
  /** Each connection's wait for executors when the current question started (DatabaseConnection.executorWaitMs). */
  private readonly waitAtStart = new Map<DatabaseConnection, number>();
  /** Set when a query of the question being scored met a bound a lone run would not have: score it again alone. */
  metSharedBound = false;

  constructor(
    source: DatabaseSource,
    /** How many lanes share the bounds (1: the whole bound, as a lone run). */
    private readonly share: number,
  ) {
    this.cache = ConnectionCache.connections({ source });
  }

  /** A question starts: nothing met yet, and its time limit counts waits from here (its pair shares one limit). */
  beginQuestion(): void {
    this.metSharedBound = false;
    for (const db of this.shared.keys()) this.waitAtStart.set(db, db.executorWaitMs?.() ?? 0);
  }

  /** The question's database on this lane's connection (ConnectionCache.forQuestion). */
  async forQuestion(dbId: string): Promise<OpenConnection | DatabaseUnavailable> {
    const opened = await this.cache.forQuestion(dbId);
    if (opened instanceof DatabaseUnavailable || this.share === 1) return opened;
    const raw = opened.db;
    let db = this.shared.get(raw);
    if (!db) {
      const waited = () => (raw.executorWaitMs?.() ?? 0) - (this.waitAtStart.get(raw) ?? 0);
      db = withShareOfBounds(raw, this.share, () => (this.metSharedBound = true), waited);
      this.shared.set(raw, db);
    }
    return { ...opened, db };
  }

  closeAll(): Promise<void> {
    this.shared.clear();
    return this.cache.closeAll();
  }
}

/**
 * How a run may look ahead: the planner's estimate of a question's work on a connection of a lane of its own
 * (undefined: none), given up when `signal` aborts.
 */
export type WorkEstimate = (index: number, lane: Lane, signal: AbortSignal) => Promise<number | undefined>;

/** A question estimated at this many times the median question's work is started before the others. */
const COSTLY_FACTOR = 100;
/** The median is read once this many questions have an estimate. */
const MEDIAN_AFTER = 10;
/** Looking ahead starts once the lanes have scored this long: PostgreSQL's 280 EXPLAINs made a 0.7 s pass 0.1 s slower. */
const LOOK_AHEAD_AFTER_MS = 1_000;
/** An estimate that takes longer (a planner evaluating a subquery) ends the looking ahead. */
const ESTIMATE_MS = 1_000;

/** Waits `ms`; false when `signal` aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return delay(ms, true, { signal }).catch(() => false);
}

/**
 * Scores `count` questions in `jobs` lanes, each taking the next question when it is done with one, until every
 * question is scored or `signal` aborts (no lane starts another). `score` returns undefined for a question the
 * abort interrupted. Questions whose lane met a shared bound are scored again, in order and alone, once every
 * lane is idle, on a lane with the whole bound. Every connection is closed before this resolves.
 *
 * With `estimate`, once the pass has run for a second (LOOK_AHEAD_AFTER_MS), a lane of its own asks the planner
 * about every question not started while the others score, and those it finds far costlier than the median
 * (COSTLY_FACTOR) are taken next, costliest first: a run's wall time is often one slow statement's, and started
 * late in question order it would run alone at the end (mini-dev's MySQL files: a 22 s prediction at question 128
 * of 140). Results, and the order they are passed on in, are the same whatever the order they are scored in.
 */
export async function scoreInLanes<Scored>(
  count: number,
  jobs: number,
  source: DatabaseSource,
  signal: AbortSignal | undefined,
  score: (index: number, lane: Lane) => Promise<Scored | undefined>,
  onScored: (index: number, scored: Scored) => void,
  estimate?: WorkEstimate,
): Promise<void> {
  const started = new Uint8Array(count);
  let inOrder = 0;
  let costly: number[] = [];
  const takeNext = (): number | undefined => {
    const index = costly.find((i) => !started[i]) ?? nextInOrder();
    if (index !== undefined) started[index] = 1;
    return index;
  };
  const nextInOrder = () => {
    while (inOrder < count && started[inOrder]) inOrder++;
    return inOrder < count ? inOrder : undefined;
  };
  const again: number[] = [];
  const runLane = async (lane: Lane) => {
    try {
      for (let index = takeNext(); index !== undefined && !signal?.aborted; index = takeNext()) {
        lane.beginQuestion();
        const scored = await score(index, lane);
        if (lane.metSharedBound && !signal?.aborted) again.push(index);
        else if (scored !== undefined) onScored(index, scored);
      }
    } catch (error) {
      started.fill(1); // a failing lane (a bug) stops the others after their current question
      throw error;
    } finally {
      await lane.closeAll();
    }
  };
  const doneLooking = new AbortController();
  const lookAhead = async () => {
    const stopped = AbortSignal.any([doneLooking.signal, ...(signal ? [signal] : [])]);
    // A short pass has no time to lose to a slow question found late, and the plans would compete with it.
    if (!(await pause(LOOK_AHEAD_AFTER_MS, stopped))) return;
    const lane = new Lane(source, jobs);
    const found: { index: number; work: number }[] = [];
    // Once there are enough estimates, each far above the median of those so far is queued, costliest first.
    const consider = (index: number, work: number) => {
      if (work <= 0) return; // fails before running: quick
      found.push({ index, work });
      if (found.length < MEDIAN_AFTER) return;
      const typical = median(found.map((e) => e.work));
      const costlier = found.filter((e) => e.work >= COSTLY_FACTOR * typical && !started[e.index]);
      costly = costlier.sort((a, b) => b.work - a.work).map((e) => e.index);
    };
    try {
      for (let index = 0; index < count && !stopped.aborted; index++) {
        if (started[index]) continue;
        const slow = AbortSignal.timeout(ESTIMATE_MS);
        const work = await estimate!(index, lane, AbortSignal.any([slow, stopped]));
        if (slow.aborted) break;
        if (work !== undefined) consider(index, work);
      }
    } catch {
      // Looking ahead only orders the questions: without it they are taken in question order.
    } finally {
      await lane.closeAll();
    }
  };
  const looking = estimate && jobs > 1 ? lookAhead() : undefined;
  const lanes = await Promise.allSettled(Array.from({ length: jobs }, () => runLane(new Lane(source, jobs))));
  doneLooking.abort();
  await looking;
  const failed = lanes.find((lane) => lane.status === 'rejected');
  if (failed) throw failed.reason;
  if (again.length === 0) return;
  const alone = new Lane(source, 1);
  try {
    for (const index of again.sort((a, b) => a - b)) {
      if (signal?.aborted) break;
      const scored = await score(index, alone);
      if (scored !== undefined) onScored(index, scored);
    }
  } finally {
    await alone.closeAll();
  }
}
