import { Duplex } from 'node:stream';
import type { WorkingCopy } from './embeddedCopy';
import { PgliteThread } from './pgliteThread';
import {
  commandComplete,
  errorResponse,
  MessageSplitter,
  NO_ENCRYPTION,
  optionSettings,
  QUERY,
  queryMessage,
  queryText,
  readStartupPacket,
  readyForQuery,
  ReadyForQueryWatcher,
  startupReply,
  SYNC,
  SYNC_MESSAGE,
  TERMINATE,
  TransactionStatus,
} from './wireProtocol';

/** SQLSTATEs of what a session answers itself: a stopped statement, memory past the ceiling, a thread that died. */
const QUERY_CANCELED = '57014';
const OUT_OF_MEMORY = '53200';
const SYSTEM_ERROR = '58000';

/**
 * The memory PostgreSQL's WASM module may take in a sessions' thread: a statement needing more fails with
 * PostgreSQL's `out of memory` (pgliteWorker.ts), so the process stays under 1 GiB with the rest of VES Lens.
 */
const WASM_MEMORY_LIMIT_BYTES = 512 * 2 ** 20;
/**
 * A WASM memory never shrinks: a thread whose statement grew it past this is ended once its session is free
 * (and another started at once, see Executor.shedNow), so what one statement took is not held beside a second thread, where
 * the two would pass the ceiling below and stop the next statement, whatever it does.
 */
const SHED_THREAD_ABOVE_BYTES = 256 * 2 ** 20;
/** The process's resident memory past which a running statement is stopped anyway (ending its thread). */
const MEMORY_CEILING_BYTES = 960 * 2 ** 20;
const MEMORY_CHECK_MS = 50;

/**
 * Settings the sessions never pass on: statement_timeout cannot fire in a WASM engine (no timer signal), so a
 * statement past its deadline is stopped by ending the thread (EmbeddedSession.cancel) instead.
 */
const SETTINGS_LEFT_OUT = new Set(['statement_timeout']);

/** The parameters a session reports at startup (what node-postgres and psycopg2 read). */
const REPORTED_PARAMETERS = { client_encoding: 'UTF8', DateStyle: 'ISO, MDY', integer_datetimes: 'on', standard_conforming_strings: 'on' };

const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * One client connection to the embedded PostgreSQL, as node-postgres sees a socket: it writes the protocol and
 * reads the answers. PGlite has a single session, so EmbeddedPostgres lends it to one connection at a time, for
 * as long as that connection is inside a transaction or an unfinished exchange, with the connection's own
 * settings (from its startup packet's options) applied when the session changes hands.
 */
export class EmbeddedSession extends Duplex {
  readonly processId: number;
  /** Server settings from the startup packet, as `SET` would take them. */
  settings: [string, string][] = [];
  /** Whole messages received and not yet run. */
  pending: Buffer[] = [];
  status: TransactionStatus = 'I';
  /** Queries and Syncs sent whose ReadyForQuery has not come back. */
  awaitingReady = 0;
  /** An extended-protocol exchange sent without its Sync yet (a cursor between reads). */
  openExchange = false;
  /** When the messages now waiting were queued for a thread (undefined: none wait). */
  queuedSince: number | undefined;
  /** The thread it is lent to (Executor.owner): no other takes its messages meanwhile. */
  lentTo: Executor | undefined;
  /** How long, in all, its transactions waited to start for a thread another connection held, ms (DatabaseConnection.executorWaitMs). */
  waitedMs = 0;
  /** After a stopped exchange, messages are dropped up to the next Sync, as a server does after an error. */
  private discardUntilSync = false;
  /**
   * Its transaction went with a stopped engine, and nothing has run since: the ROLLBACK a client sends next is
   * answered here, as a server answers it with no transaction open, without waiting for the engine to start again.
   */
  private transactionLost = false;
  private started = false;
  /** The answers have ended (the connection terminated or closed): nothing more is pushed. */
  private finished = false;
  /** Answers waiting for a push in progress to return (send). */
  private readonly unsent: Buffer[] = [];
  private sending = false;
  private startupBytes = Buffer.alloc(0);
  private readonly splitter = new MessageSplitter();
  readonly watcher = new ReadyForQueryWatcher((status) => {
    this.status = status;
    this.awaitingReady = Math.max(0, this.awaitingReady - 1);
  });

  constructor(
    private readonly instance: EmbeddedPostgres,
    processId: number,
  ) {
    super({ allowHalfOpen: false });
    this.processId = processId;
  }

  /** Whether the session is this connection's until it finishes (a transaction, an exchange, answers still due). */
  get holdsSession(): boolean {
    return this.status !== 'I' || this.awaitingReady > 0 || this.openExchange;
  }

  /** The settings as one key: the session is set up again only when the next connection's differ. */
  get settingsKey(): string {
    return JSON.stringify(this.settings);
  }

  // node-postgres's socket calls: the connection is in this process, so there is nothing to connect or tune.
  connect(): this {
    process.nextTick(() => this.emit('connect'));
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  /** Stops what this connection runs now, as PostgreSQL's cancel request does. */
  cancel(): void {
    this.instance.stop(this, QUERY_CANCELED, 'canceling statement due to user request');
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (!this.started) {
      this.startup(chunk, done);
      return;
    }
    this.receive(this.splitter.push(chunk));
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.finish();
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.finished = true;
    this.instance.closed(this);
    done(error);
  }

  /**
   * Passes answer bytes to the client, unless the connection has ended. node-postgres reads them as they are
   * pushed, and may write (a Sync after an error) before the push returns: what is sent meanwhile waits until
   * it does, as its reader cannot take a message within another.
   */
  send(bytes: Buffer): void {
    this.unsent.push(bytes);
    if (this.sending) return;
    this.sending = true;
    try {
      for (let next = this.unsent.shift(); next; next = this.unsent.shift()) if (!this.finished && !this.destroyed) this.push(next);
    } finally {
      this.sending = false;
    }
  }

  /** The connection ends: whatever it runs stops, and its reader sees the end. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.instance.closed(this);
    this.push(null);
  }

  /** The startup packet: answered once the engine runs (a thread stopped earlier starts again here, outside any timed span). */
  private startup(chunk: Buffer, done: (error?: Error | null) => void): void {
    this.startupBytes = Buffer.concat([this.startupBytes, chunk]);
    let read: ReturnType<typeof readStartupPacket>;
    try {
      read = readStartupPacket(this.startupBytes);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (!read) return done();
    this.startupBytes = Buffer.alloc(0);
    if (read.packet.kind === 'encryption-request') {
      this.send(NO_ENCRYPTION);
      if (read.rest.length) return this.startup(read.rest, done);
      return done();
    }
    this.settings = optionSettings(read.packet.parameters.options).filter(([name]) => !SETTINGS_LEFT_OUT.has(name.toLowerCase()));
    this.started = true;
    const rest = read.rest;
    this.instance.version().then(
      (version) => {
        this.send(startupReply({ ...REPORTED_PARAMETERS, server_version: version }, this.processId));
        if (rest.length) this.receive(this.splitter.push(rest));
        done();
      },
      (error: Error) => {
        this.send(errorResponse(SYSTEM_ERROR, error.message));
        done();
      },
    );
  }

  private receive(messages: Buffer[]): void {
    let added = false;
    for (const message of messages) {
      const type = message[0];
      if (type === TERMINATE) {
        this.finish();
        return;
      }
      if (this.discardUntilSync) {
        if (type === SYNC) {
          this.discardUntilSync = false;
          this.send(readyForQuery('I'));
        }
        continue;
      }
      const rollback = this.transactionLost && type === QUERY && /^\s*ROLLBACK\s*;?\s*$/i.test(queryText(message));
      this.transactionLost = false;
      if (rollback) {
        this.send(Buffer.concat([commandComplete('ROLLBACK'), readyForQuery('I')]));
        continue;
      }
      this.pending.push(message);
      added = true;
    }
    if (added) this.instance.ready(this);
  }

  /** A thread took its waiting messages (or they were answered unrun): their wait is added up. */
  noteTaken(): void {
    if (this.queuedSince === undefined) return;
    this.waitedMs += performance.now() - this.queuedSince;
    this.queuedSince = undefined;
  }

  /** Takes the pending messages to run, noting the answers they are owed and how long they waited. */
  takePending(): Buffer {
    this.noteTaken();
    for (const message of this.pending) {
      if (message[0] === QUERY || message[0] === SYNC) {
        this.awaitingReady++;
        this.openExchange = false;
      } else this.openExchange = true;
    }
    const batch = Buffer.concat(this.pending);
    this.pending = [];
    return batch;
  }

  /**
   * What the connection is told when its statement was stopped (or the engine died under it): the error, and the
   * ReadyForQuery a Query or Sync is owed; an exchange without its Sync drops what follows up to it, as a server
   * does. The transaction went with the stopped engine: the session is idle.
   */
  answerStopped(code: string, message: string): void {
    const owed = this.awaitingReady > 0 || this.pending.some((m) => m[0] === QUERY || m[0] === SYNC);
    const exchangeOpen = this.openExchange || this.pending.some((m) => m[0] !== QUERY && m[0] !== SYNC);
    this.pending = [];
    this.status = 'I';
    this.awaitingReady = 0;
    this.openExchange = false;
    this.watcher.reset();
    this.transactionLost = true;
    // Set before the error goes out: the client may answer it (a Sync) within the same call.
    this.discardUntilSync = !owed && exchangeOpen;
    this.send(owed ? Buffer.concat([errorResponse(code, message), readyForQuery('I')]) : errorResponse(code, message));
  }
}

/**
 * Threads the embedded PostgreSQL runs at most, each on a working copy of its own: the lanes of a scoring pass
 * (DatabaseEngine.maxLanes). Each holds about 200 MiB once started, so two leave a statement room under 1 GiB.
 */
export const EMBEDDED_THREADS = 2;
/** A thread beyond the first that has had nothing to run for this long is ended, its memory and copy given back. */
const EXTRA_THREAD_IDLE_MS = 5_000;
/**
 * Another thread starts only for a connection that has waited this long with every thread taken: one connection
 * sending its next statement as its last one's answer arrives must not start a thread (a second and 200 MiB).
 */
const GROW_AFTER_MS = 3_000;

/** Whether a waiting connection may be taken by a thread (by `executor`): messages to run, not lent to another. */
function isFree(session: EmbeddedSession, executor?: Executor): boolean {
  return session.pending.length > 0 && !session.holdsSession && (session.lentTo === undefined || session.lentTo === executor);
}

/**
 * The embedded PostgreSQL of one data folder: PGlite threads (Executor), the first started when first needed,
 * more (up to EMBEDDED_THREADS) while every one is taken and a connection waits. Any number of client connections
 * (EmbeddedSession) share them; each is lent one for as long as it is inside a transaction or an exchange.
 * A statement is stopped by ending its thread: past its deadline or on a cancel (the session's connection is told
 * as a server tells it), when the connection reading it goes away, or when the process's memory passes
 * MEMORY_CEILING_BYTES, after which one thread serves everyone (see memoryTight).
 */
export class EmbeddedPostgres {
  /** Connections with messages to run that no thread has taken yet. */
  readonly waiting: EmbeddedSession[] = [];
  private readonly executors: Executor[] = [];
  private nextProcessId = 1;
  /** EMBEDDED_THREADS, or 1 once memory was tight. */
  private maxThreads = EMBEDDED_THREADS;
  private growTimer: NodeJS.Timeout | undefined;
  closing = false;

  constructor(
    /** Makes a working copy of the data for each thread (the kept copy is never run on). */
    private readonly makeCopy: () => Promise<WorkingCopy>,
    /** Settings of the whole instance, given at every start (default_transaction_read_only). */
    readonly instanceSettings: [string, string][],
  ) {}

  /** The process's resident memory past which a running statement is stopped. */
  memoryCeilingBytes = MEMORY_CEILING_BYTES;

  /** A new client connection (what node-postgres reads and writes instead of a socket). */
  openSession(): EmbeddedSession {
    return new EmbeddedSession(this, this.nextProcessId++);
  }

  /** PostgreSQL's version (`18.6`), starting the first thread if none runs. */
  async version(): Promise<string> {
    if (this.closing) throw new Error('the embedded PostgreSQL was closed');
    return (await this.first().started()).ready;
  }

  /** Threads started and not ended since (what the tests read). */
  get threadsRunning(): number {
    return this.executors.filter((executor) => executor.alive).length;
  }

  /** Ends every thread for good (what still waits fails) and removes the working copies. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.growTimer);
    for (const session of this.waiting.splice(0))
      if (session.pending.length) session.answerStopped(SYSTEM_ERROR, 'the embedded PostgreSQL was closed');
    await Promise.all(this.executors.splice(0).map((executor) => executor.close()));
  }

  /** A connection has messages to run: its own thread runs them, or the first free one, or a new one. */
  ready(session: EmbeddedSession): void {
    if (!this.waiting.includes(session)) this.waiting.push(session);
    // Only a transaction's start waits for another connection: inside one, the thread is its own (what it waits
    // for then is its own statement).
    if (!session.holdsSession) session.queuedSince ??= performance.now();
    this.dispatch();
  }

  /** A connection went away (ended, or destroyed by its reader past a bound): whatever it runs is stopped. */
  closed(session: EmbeddedSession): void {
    const index = this.waiting.indexOf(session);
    if (index >= 0) this.waiting.splice(index, 1);
    session.pending = [];
    for (const executor of this.executors) executor.sessionClosed(session);
    this.dispatch();
  }

  /** Stops what `session` runs, or drops what it waits to run, answering it with `code` and `message`. */
  stop(session: EmbeddedSession, code: string, message: string): void {
    const running = this.executors.find((executor) => executor.runs(session));
    if (running) running.stopThread({ code, message });
    else if (session.pending.length) {
      const index = this.waiting.indexOf(session);
      if (index >= 0) this.waiting.splice(index, 1);
      session.noteTaken();
      session.answerStopped(code, message);
    }
  }

  /** The next connection `executor` may take: the first waiting one not lent to another thread. */
  takeWaiting(executor: Executor): EmbeddedSession | undefined {
    const index = this.waiting.findIndex((session) => isFree(session, executor));
    return index < 0 ? undefined : this.waiting.splice(index, 1)[0];
  }

  /**
   * The process passed the memory ceiling: from now on one thread serves every connection, so a statement run
   * again alone (eval/parallelEval.ts does so after the pass) has the room it would have had in a run of one lane.
   */
  memoryTight(): void {
    this.maxThreads = 1;
    for (const executor of this.executors.slice(1)) executor.retire();
  }

  /** A thread ended for good (idle too long, or retired): it takes nothing more. */
  removed(executor: Executor): void {
    const index = this.executors.indexOf(executor);
    if (index >= 0) this.executors.splice(index, 1);
  }

  private first(): Executor {
    return this.executors[0] ?? this.addExecutor();
  }

  private addExecutor(): Executor {
    const executor = new Executor(this, this.makeCopy, this.executors.length > 0);
    this.executors.push(executor);
    return executor;
  }

  /** Each thread takes what is its own or waits; once a connection has waited GROW_AFTER_MS with every thread taken, one more starts. */
  private dispatch(): void {
    if (this.closing) return;
    for (const executor of this.executors) void executor.pump();
    this.watchForGrowth();
  }

  /** Once a free connection has waited GROW_AFTER_MS (now, or when it will have), another thread starts. */
  private watchForGrowth(): void {
    if (this.growTimer || this.closing || this.executors.length >= this.maxThreads) return;
    const waited = this.longestWait();
    if (waited === undefined) return;
    if (waited >= GROW_AFTER_MS) {
      void this.addExecutor().pump();
      return;
    }
    this.growTimer = setTimeout(() => {
      this.growTimer = undefined;
      this.watchForGrowth();
    }, GROW_AFTER_MS - waited);
    this.growTimer.unref();
  }

  /** How long the free connection waiting longest has waited, ms (undefined: none waits). */
  private longestWait(): number | undefined {
    const since = this.waiting.filter((session) => isFree(session)).map((session) => session.queuedSince ?? performance.now());
    return since.length ? performance.now() - Math.min(...since) : undefined;
  }
}

/**
 * One PGlite thread on a working copy of its own, lent to one connection at a time (PGlite has one session): for
 * as long as that connection is inside a transaction or an unfinished exchange, with its settings (from its
 * startup packet's options) applied when the session changes hands. Started when first needed, and again after
 * it was stopped.
 */
class Executor {
  private thread: PgliteThread | undefined;
  private copy: Promise<WorkingCopy> | undefined;
  /** The connection the session is lent to (while it holds it, no other runs). */
  private owner: EmbeddedSession | undefined;
  /** A closed owner whose transaction is to be rolled back before the session changes hands. */
  private abandoned: EmbeddedSession | undefined;
  /** The settings the thread's session has now (EmbeddedSession.settingsKey). */
  private configured: string | undefined;
  private running: { session: EmbeddedSession; stopped?: { code: string; message: string } } | undefined;
  private busy = false;
  private retiring = false;
  private ended = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly instance: EmbeddedPostgres,
    private readonly makeCopy: () => Promise<WorkingCopy>,
    /** A thread beyond the first: ended when idle for EXTRA_THREAD_IDLE_MS. */
    private readonly extra: boolean,
  ) {}

  get alive(): boolean {
    return this.thread?.alive ?? false;
  }

  runs(session: EmbeddedSession): boolean {
    return this.running?.session === session;
  }

  /** The thread, started on this executor's working copy if none runs. */
  async started(): Promise<PgliteThread> {
    if (this.ended || this.instance.closing) throw new Error('the embedded PostgreSQL was closed');
    const { dataDir } = await (this.copy ??= this.makeCopy());
    if (this.ended) throw new Error('the embedded PostgreSQL was closed');
    if (!this.thread?.alive) {
      this.thread = new PgliteThread({ dataDir, settings: this.instance.instanceSettings, memoryLimitBytes: WASM_MEMORY_LIMIT_BYTES });
      this.configured = undefined;
    }
    return this.thread;
  }

  /** Ends the thread for good and removes the working copy. */
  async close(): Promise<void> {
    this.ended = true;
    clearTimeout(this.idleTimer);
    this.lend(undefined);
    this.instance.removed(this);
    const thread = this.thread;
    this.thread = undefined;
    await thread?.terminate();
    const copy = await this.copy?.catch(() => undefined);
    copy?.remove();
  }

  /** Ends once it has nothing to run (now, if idle). */
  retire(): void {
    this.retiring = true;
    if (!this.occupied) void this.close();
  }

  /**
   * A connection went away: what it runs here stops, and its open transaction is rolled back before the next (or,
   * on a thread to be shed, ends with the thread: a timing's fresh client closes inside its BEGIN, and the next
   * one's startup then waits for the new thread, outside its timed span).
   */
  sessionClosed(session: EmbeddedSession): void {
    if (this.running?.session === session) this.stopThread({ code: QUERY_CANCELED, message: 'the connection went away' });
    else if (this.owner === session && session.holdsSession) {
      if (this.bloated) this.shedNow();
      else this.abandoned = session;
    }
    if (this.owner === session) this.lend(undefined);
  }

  stopThread(stopped: { code: string; message: string }): void {
    if (this.running) this.running.stopped ??= stopped;
    this.endThread();
  }

  /** Ends the thread (its WASM memory with it); the next run starts another. */
  private endThread(): void {
    const thread = this.thread;
    this.thread = undefined;
    this.configured = undefined;
    void thread?.terminate();
  }

  /** Whether the thread's WASM memory grew past SHED_THREAD_ABOVE_BYTES. */
  private get bloated(): boolean {
    return (this.thread?.memoryBytes ?? 0) > SHED_THREAD_ABOVE_BYTES;
  }

  /** Sheds a bloated thread, unless a connection's transaction lives in it. */
  private shedMemory(): void {
    if (this.bloated && !this.owner?.holdsSession && !this.abandoned) this.shedNow();
  }

  /**
   * Ends the thread and starts its successor at once: a connection's startup waits for it (EmbeddedSession
   * startup, through version()), and one already connected waits before its messages are taken (pump).
   */
  private shedNow(): void {
    this.endThread();
    this.started().catch(() => undefined);
  }

  /** Running, or lent to a connection inside a transaction or exchange. */
  private get occupied(): boolean {
    return this.busy || (this.owner?.holdsSession ?? false) || this.abandoned !== undefined;
  }

  /** The next connection to serve: its owner while it holds the session, else the first one waiting. */
  private next(): EmbeddedSession | undefined {
    if (this.owner?.holdsSession) return this.owner.pending.length ? this.owner : undefined;
    this.lend(undefined);
    return this.retiring ? undefined : this.instance.takeWaiting(this);
  }

  /** Lends the session to `session` (undefined: to no one), marking it so no other thread takes its messages. */
  private lend(session: EmbeddedSession | undefined): void {
    if (this.owner?.lentTo === this) this.owner.lentTo = undefined;
    this.owner = session;
    if (session) session.lentTo = this;
  }

  /** Starts the thread before it takes anyone (false: it could not start, and this executor is ended). */
  private async warmed(): Promise<boolean> {
    try {
      await (
        await this.started()
      ).ready;
      return !this.ended;
    } catch {
      void this.close();
      return false;
    }
  }

  async pump(): Promise<void> {
    if (this.busy || this.ended || this.instance.closing) return;
    this.busy = true;
    clearTimeout(this.idleTimer);
    try {
      // A thread beyond the first takes no connection before it runs: the others may be free long before.
      if (this.extra && !this.alive && !(await this.warmed())) return;
      for (;;) {
        this.shedMemory();
        if (this.abandoned) {
          // Its transaction ends here, before anyone else is served: a Sync closes an exchange, then ROLLBACK.
          this.abandoned = undefined;
          await this.run(undefined, Buffer.concat([SYNC_MESSAGE, queryMessage('ROLLBACK')]));
          continue;
        }
        // A thread starting again (after a shed) takes no one until it runs: another thread may take them meanwhile.
        if (this.thread && !this.owner?.holdsSession) await this.thread.ready.catch(() => undefined);
        const session = this.next();
        if (!session) break;
        const index = this.instance.waiting.indexOf(session);
        if (index >= 0) this.instance.waiting.splice(index, 1);
        this.lend(session);
        // A thread stopped earlier starts again before the messages are taken: its start is waiting, not the
        // statement's time (a failure to start is answered by run).
        if (!this.alive)
          await this.started()
            .then((thread) => thread.ready)
            .catch(() => undefined);
        if (session.settingsKey !== this.configured) {
          const set = session.settings.map(
            ([name, value]) => `pg_catalog.set_config(${quoteLiteral(name)}, ${quoteLiteral(value)}, false)`,
          );
          await this.run(undefined, queryMessage(`RESET ALL${set.length ? `; SELECT ${set.join(', ')}` : ''}`));
          this.configured = session.settingsKey;
        }
        // Its messages may have been answered meanwhile (stopped while the session was being set up).
        if (session.pending.length) await this.run(session, session.takePending());
      }
      this.shedMemory();
    } finally {
      this.busy = false;
    }
    if (this.ended || this.occupied) return;
    if (this.retiring) void this.close();
    else if (this.extra) {
      this.idleTimer = setTimeout(() => void (this.occupied || this.close()), EXTRA_THREAD_IDLE_MS);
      this.idleTimer.unref();
    }
  }

  /** Runs protocol bytes on the thread for `session` (undefined: the engine's own, its answer dropped). */
  private async run(session: EmbeddedSession | undefined, bytes: Buffer): Promise<void> {
    let thread: PgliteThread | undefined;
    const running: NonNullable<Executor['running']> | undefined = session ? { session } : undefined;
    this.running = running;
    const ceiling = this.instance.memoryCeilingBytes;
    const watchdog = setInterval(() => {
      if (process.memoryUsage.rss() > ceiling && session) {
        this.instance.memoryTight();
        this.stopThread({
          code: OUT_OF_MEMORY,
          message: `out of memory: the embedded PostgreSQL took the process past ${Math.round(ceiling / 2 ** 20)} MiB, and was stopped (VES Lens stays under 1 GiB)`,
        });
      }
    }, MEMORY_CHECK_MS);
    watchdog.unref();
    // Each chunk is passed on when the next one comes, the last one once the run is over: a client that answers
    // the end of its result (closing, or asking something else) then finds no run of its own still going.
    let held: Uint8Array | undefined;
    const pass = (chunk: Uint8Array | undefined) => {
      if (!session || !chunk || running?.stopped) return;
      session.watcher.push(chunk);
      session.send(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    };
    try {
      thread = await this.started();
      await thread.request({ kind: 'protocol', bytes }, (chunk) => {
        pass(held);
        held = chunk;
      });
      if (this.running === running) this.running = undefined;
      pass(held);
    } catch (error) {
      // The thread ended under the statement (stopped on purpose, or PostgreSQL died), or PGlite failed in a way
      // that leaves its state unknown: that thread is done either way.
      if (session) {
        const stopped = running?.stopped ?? { code: SYSTEM_ERROR, message: (error as Error).message };
        session.answerStopped(stopped.code, stopped.message);
      }
      if (thread && this.thread === thread) this.thread = undefined;
      void thread?.terminate();
      this.configured = undefined;
    } finally {
      clearInterval(watchdog);
      if (this.running === running) this.running = undefined;
    }
  }
}
