import { ChildProcess, spawn } from 'node:child_process';
import * as readline from 'node:readline';
import { QueryCancelled, QueryTimeout } from '../db/database';
import { sqliteVersion } from '../db/engines';
import { PYTHON_TIMING_SCRIPT } from './pythonTimingScript';
import { TimedQuantity } from './types';

/**
 * `--timing official` on SQLite times the executions in a long-lived Python process running the official
 * scripts' loops with Python's sqlite3 (pythonTimingScript.ts): a ratio of two sub-millisecond times moves with
 * every fixed cost added to both, so the official number depends on how the scripts run the SQL, not only on
 * what they time (README, "Timing"). `--timing fast` on SQLite times its blocks in the same process (fast.ts), for
 * the same reason. This module starts that process, speaks its JSON-lines protocol and says which clock produced a
 * number; the statistics stay in official.ts, estimate.ts and runAllocation.ts.
 */

/** Which runtime timed the official protocol: Python's sqlite3 as the scripts, or VES Lens's own node-sqlite3. */
export type OfficialClock =
  { clock: 'python-sqlite3'; python: string; sqlite: string; executable: string } | { clock: 'node-sqlite3'; reason: string };

/**
 * The timing process's address-space cap: a fetchall past it ends in a reported MemoryError, not a full machine.
 * It comes on top of node's own memory, so the two together stay under the 1 GiB bound: node holds up to about
 * 450 MiB while Python fetches (an EX-correct pair of 500,000 rows, bench/memory.mjs --official-only), and the
 * largest results correctness lets through take Python about 250 MiB.
 */
export const PYTHON_MEMORY_LIMIT_BYTES = 448 * 2 ** 20;
const PYTHON_MEMORY_LIMIT_MIB = PYTHON_MEMORY_LIMIT_BYTES / 2 ** 20;

/** How long Python may take to start and import sqlite3 before it counts as missing. */
const READY_LIMIT_MS = 15_000;

/** Past the loop's own limit, how long the process may take to answer before it is killed. */
const ANSWER_GRACE_MS = 3_000;

/** setTimeout's longest delay (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The interpreter: VES_LENS_PYTHON when set, else `python3` on PATH. */
export function pythonExecutable(): string {
  return process.env.VES_LENS_PYTHON || 'python3';
}

export interface PythonTimingRequest {
  dbPath: string;
  gold: string;
  pred: string;
  protocol: 'ves' | 'rves';
  iterations: number;
  /** The whole loop's limit (the scripts' func_timeout), correctness executions included. */
  loopLimitMs: number;
  /** Aborted (a Ctrl-C the run handles, a cancel): the process is killed at once and the request rejects (QueryCancelled). */
  signal?: AbortSignal;
}

/** The loop's times in seconds, each as `time.time()` differences gave them, prediction and gold per iteration. */
export interface PythonTimes {
  predSeconds: number[];
  goldSeconds: number[];
  /** Python's sqlite3 found set(pred) == set(gold), as the scripts check before timing. */
  resultsEqual?: boolean;
  /** The loop outlasted its limit: the scripts score the question 0. */
  timedOut: boolean;
}

/** One block of `--timing fast` (fast.ts): `iterations` iterations of one quantity, gold and prediction each on its file. */
export interface PythonBlockRequest {
  gold: { dbPath: string; body: string };
  pred: { dbPath: string; body: string };
  quantity: TimedQuantity;
  iterations: number;
  /** The index of the block's first iteration: the prediction goes first in iterations of even index. */
  firstIndex: number;
  /** Each execution's own limit: past it the execution is interrupted and the block rejects (QueryTimeout). */
  executionLimitMs: number;
  /** Aborted: the process is killed at once and the block rejects (QueryCancelled). */
  signal?: AbortSignal;
}

/** A block's times in milliseconds, one per iteration and side, as `time.perf_counter()` differences gave them. */
export interface PythonBlockTimes {
  goldMs: number[];
  predMs: number[];
  /** Which side ran first in each iteration, as the process ran them. */
  predFirst: boolean[];
}

interface Reply {
  id: number;
  pred_s?: number[];
  gold_s?: number[];
  results_equal?: boolean;
  pred_first?: boolean[];
  timed_out?: boolean;
  error?: string;
  kind?: 'memory' | 'sqlite' | 'request';
}

/** One running timing process; requests go one at a time (timings must not compete for the CPU). */
class PythonTimingProcess {
  private readonly waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private stderrTail = '';
  private ended: Error | undefined;

  private constructor(
    private readonly child: ChildProcess,
    readonly executable: string,
  ) {}

  static start(executable: string): Promise<StartedProcess> {
    return new Promise((resolve, reject) => {
      const child = spawn(executable, ['-I', '-c', PYTHON_TIMING_SCRIPT, String(PYTHON_MEMORY_LIMIT_BYTES)], {
        stdio: ['pipe', 'pipe', 'pipe'],
        // A process group of its own: a terminal's Ctrl-C goes to VES Lens, which decides (an interruptible run
        // finishes what it can), and never kills the timing in flight with a KeyboardInterrupt. It still ends with
        // VES Lens: its standard input closes, or the abort signal kills it.
        detached: true,
        // One malloc arena: threads' arenas would spend the capped address space on reservations.
        env: { ...process.env, MALLOC_ARENA_MAX: '1' },
      });
      const timing = new PythonTimingProcess(child, executable);
      // Out of reach of the terminal's signals, it must not outlive VES Lens in a long loop: ended with it (only
      // kill -9 skips this; the process then ends at its loop's limit, when it reads the closed input).
      const endWithUs = () => child.kill('SIGKILL');
      process.on('exit', endWithUs);
      const lines = readline.createInterface({ input: child.stdout! });
      let ready = false;
      const notReady = (reason: string) => {
        if (ready) return;
        ready = true;
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new Error(reason));
      };
      const timer = setTimeout(() => notReady(`${executable} did not start within ${READY_LIMIT_MS / 1000} s`), READY_LIMIT_MS);
      child.stderr!.on('data', (chunk: Buffer) => (timing.stderrTail = (timing.stderrTail + chunk.toString()).slice(-2000)));
      child.on('error', (error: NodeJS.ErrnoException) =>
        notReady(error.code === 'ENOENT' ? `${executable} was not found on PATH` : `${executable} could not start: ${error.message}`),
      );
      child.on('exit', (code, signal) => {
        process.off('exit', endWithUs);
        const why = signal ? `was killed (${signal})` : `exited with code ${code}`;
        const tail = timing.stderrTail.trim().split('\n').at(-1);
        notReady(`${executable} ${why}${tail ? `: ${tail}` : ''}`);
        timing.fail(new Error(`the Python timing process ${why}${tail ? `: ${tail}` : ''}`));
      });
      // Nothing to write to a process that is gone: its exit says why.
      child.stdin!.on('error', () => undefined);
      lines.on('line', (line) => {
        let message: Reply & { ready?: boolean; python?: string; sqlite?: string };
        try {
          message = JSON.parse(line);
        } catch {
          return;
        }
        if (!ready && message.ready) {
          ready = true;
          clearTimeout(timer);
          timing.idle();
          resolve({ process: timing, python: String(message.python), sqlite: String(message.sqlite) });
          return;
        }
        const waiter = timing.waiting.get(message.id);
        timing.waiting.delete(message.id);
        waiter?.resolve(message);
      });
    });
  }

  get alive(): boolean {
    return this.ended === undefined;
  }

  /** Sends one pair and waits for its times; past the loop limit and a grace, kills the process (the loop timed out). */
  async time(request: PythonTimingRequest): Promise<PythonTimes> {
    const { dbPath, gold, pred, protocol, iterations, loopLimitMs, signal } = request;
    const message = { db: dbPath, gold, pred, protocol, iterations, loop_limit_s: loopLimitMs / 1000 };
    const reply = await this.ask(message, loopLimitMs, 'the official loop', signal);
    return {
      predSeconds: reply.pred_s ?? [],
      goldSeconds: reply.gold_s ?? [],
      resultsEqual: reply.results_equal,
      timedOut: reply.timed_out === true,
    };
  }

  /** Sends one fast-mode block and waits for its times; a timed-out execution rejects, as node-sqlite3's timer does. */
  async timeBlock(request: PythonBlockRequest): Promise<PythonBlockTimes> {
    const { gold, pred, quantity, iterations, firstIndex, executionLimitMs, signal } = request;
    const message = {
      kind: 'fast_block',
      ...{ gold_db: gold.dbPath, gold: gold.body, pred_db: pred.dbPath, pred: pred.body, quantity, iterations },
      ...{ first_index: firstIndex, execution_limit_s: executionLimitMs / 1000 },
    };
    // Past every execution's limit the block cannot still be running: its interruption failed.
    const reply = await this.ask(message, 2 * iterations * executionLimitMs, 'a fast timing block', signal);
    if (reply.timed_out) throw new QueryTimeout(executionLimitMs);
    const toMs = (seconds: number[] = []) => seconds.map((s) => s * 1000);
    return { goldMs: toMs(reply.gold_s), predMs: toMs(reply.pred_s), predFirst: reply.pred_first ?? [] };
  }

  /**
   * One request, after the ones before it. Past `limitMs` and a grace the process is killed and the reply is
   * `timed_out`; an abort kills it (QueryCancelled); an error reply rejects, worded for `what` ran out of memory.
   */
  private ask(message: object, limitMs: number, what: string, signal?: AbortSignal): Promise<Reply> {
    const run = this.queue.then(() => this.askNow(message, limitMs, what, signal));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async askNow(message: object, limitMs: number, what: string, signal?: AbortSignal): Promise<Reply> {
    if (signal?.aborted) throw new QueryCancelled();
    if (this.ended) throw this.ended;
    const id = this.nextId++;
    this.busy();
    let killed = false;
    const watchdog = setTimeout(
      () => {
        killed = true;
        this.kill();
      },
      Math.min(limitMs + ANSWER_GRACE_MS, MAX_TIMER_MS),
    );
    // The loop in flight cannot be stopped from outside but by ending the process (the next request starts another).
    const abort = () => this.kill(new QueryCancelled());
    signal?.addEventListener('abort', abort, { once: true });
    try {
      const reply = await new Promise<Reply>((resolve, reject) => {
        this.waiting.set(id, { resolve, reject });
        this.child.stdin!.write(JSON.stringify({ id, ...message }) + '\n');
      });
      if (reply.error !== undefined) {
        throw new Error(
          reply.kind === 'memory'
            ? `${what} ran out of memory: Python's fetchall needed more than the timing process's ${PYTHON_MEMORY_LIMIT_MIB} MiB`
            : `Python's sqlite3: ${reply.error}`,
        );
      }
      return reply;
    } catch (error) {
      // Killed for not answering: the loop outlasted its limit and its interruption.
      if (killed) return { id, timed_out: true };
      throw error;
    } finally {
      clearTimeout(watchdog);
      signal?.removeEventListener('abort', abort);
      if (this.waiting.size === 0) this.idle();
    }
  }

  kill(reason: Error = new Error('the Python timing process was stopped')): void {
    this.fail(reason);
    this.child.kill('SIGKILL');
  }

  private fail(error: Error): void {
    this.ended ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }

  /** While a request waits, the process keeps this one alive; idle, it does not hold the command line open. */
  private busy(): void {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr]) (handle as { ref?: () => void })?.ref?.();
  }

  private idle(): void {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr])
      (handle as { unref?: () => void })?.unref?.();
  }
}

type StartedProcess = { process: PythonTimingProcess; python: string; sqlite: string };
let running: Promise<StartedProcess> | undefined;
let clockAnswer: Promise<OfficialClock> | undefined;

function timingProcess(): Promise<StartedProcess> {
  const current = running;
  if (current) {
    return current.then((started) => {
      if (started.process.alive) return started;
      running = undefined;
      return timingProcess();
    });
  }
  const starting = PythonTimingProcess.start(pythonExecutable());
  running = starting;
  starting.catch(() => (running = undefined));
  return starting;
}

/**
 * Which clock times SQLite in this process (`--timing official`'s loops, `--timing fast`'s blocks), decided once:
 * Python's sqlite3 when the interpreter starts and imports sqlite3, else node-sqlite3 with the reason.
 */
export function officialTimingClock(): Promise<OfficialClock> {
  clockAnswer ??= timingProcess().then<OfficialClock, OfficialClock>(
    ({ process, python, sqlite }): OfficialClock => ({ clock: 'python-sqlite3', python, sqlite, executable: process.executable }),
    (error: Error): OfficialClock => ({ clock: 'node-sqlite3', reason: error.message }),
  );
  return clockAnswer;
}

/** Whether SQLite version `a` ("3.40.1") is older than `b`. */
export function olderSqlite(a: string, b: string): boolean {
  const parts = (version: string) => version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return false;
}

let fastClockAnswer: Promise<OfficialClock> | undefined;

/**
 * The clock of `--timing fast`'s blocks: Python's sqlite3 as for `--timing official`, unless its SQLite is older than
 * VES Lens's own. Fast mode is VES Lens's protocol, not a copy of the scripts: a pair scored correct by VES Lens's
 * SQLite must not fail in the timer (an older SQLite lacks functions, IIF before 3.32, that a gold may call), so its
 * blocks then run in node-sqlite3 and the run says why. `--timing official` keeps the Python the scripts would use.
 */
export function fastTimingClock(): Promise<OfficialClock> {
  fastClockAnswer ??= Promise.all([officialTimingClock(), sqliteVersion().catch(() => undefined)]).then(([clock, ours]): OfficialClock =>
    clock.clock === 'python-sqlite3' && ours !== undefined && olderSqlite(clock.sqlite, ours)
      ? { clock: 'node-sqlite3', reason: `python3's SQLite ${clock.sqlite} is older than VES Lens's SQLite ${ours}` }
      : clock,
  );
  return fastClockAnswer;
}

/** Times one pair in the Python process (started again if a previous pair ended it). */
export async function timeWithPython(request: PythonTimingRequest): Promise<PythonTimes> {
  const { process } = await timingProcess();
  return process.time(request);
}

/** Times one block of `--timing fast` in the Python process (started again if a previous request ended it). */
export async function timeBlockWithPython(request: PythonBlockRequest): Promise<PythonBlockTimes> {
  const { process } = await timingProcess();
  return process.timeBlock(request);
}

/** How the terminal names the clock of a timed run (official or fast). */
export function describeOfficialClock(clock: OfficialClock): string {
  return clock.clock === 'python-sqlite3'
    ? `timed by Python ${clock.python}'s sqlite3 (SQLite ${clock.sqlite}), as the scripts`
    : `timed by VES Lens's node-sqlite3, not as the scripts (${clock.reason}): ratios of sub-millisecond queries can differ from the scripts' (README, "Timing")`;
}

/** Ends the timing process now (tests; the command line needs not: an idle process does not hold it open). */
export async function stopPythonTiming(): Promise<void> {
  const current = running;
  running = undefined;
  clockAnswer = undefined;
  fastClockAnswer = undefined;
  if (current) await current.then(({ process }) => process.kill()).catch(() => undefined);
}

/** What a timed run on SQLite says about its clock: the JSON's inputs and the terminal's line. */
export interface RunClock {
  /** `timing_clock` (`python-sqlite3` | `node-sqlite3`) and, timed by Python, `timing_runtime`. */
  inputs: { timing_clock?: OfficialClock['clock']; timing_runtime?: string };
  /** The line the terminal prints before the scores; `fallback` when it is VES Lens's own clock. */
  line?: { text: string; fallback: boolean };
}

/**
 * The clock of a whole run: a timed metric on SQLite (`--timing official` or `fast`) is timed by Python where it runs
 * (the PostgreSQL engines time with VES Lens's own loop, whose differences the README states).
 */
export async function runClock(engine: string, timing: string, metrics: readonly string[]): Promise<RunClock> {
  const timed = (timing === 'official' || timing === 'fast') && metrics.some((m) => m === 'ves' || m === 'rves');
  if (!timed || engine !== 'sqlite') return { inputs: {} };
  const clock = timing === 'fast' ? await fastTimingClock() : await officialTimingClock();
  return {
    inputs:
      clock.clock === 'python-sqlite3'
        ? { timing_clock: clock.clock, timing_runtime: `Python ${clock.python}, SQLite ${clock.sqlite}` }
        : { timing_clock: clock.clock },
    line: { text: `${timing} timing: ${describeOfficialClock(clock)}`, fallback: clock.clock !== 'python-sqlite3' },
  };
}
