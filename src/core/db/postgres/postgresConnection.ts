import * as net from 'net';
import * as path from 'path';
import { Client, ClientConfig, FieldDef } from 'pg';
import Cursor from 'pg-cursor';
import {
  DatabaseError,
  MEMORY_BOUNDS,
  NUL_MESSAGE,
  QueryCancelled,
  QueryTimeout,
  ResultTooLarge,
  Row,
  RunLimits,
  ServerUnavailable,
  SqlValue,
  TooManyRows,
  TypedValue,
  VALUE_OVERHEAD_BYTES,
} from '../database';
import { ColumnNames, DatabaseConnection, DatabaseEngine, SameWork } from '../engine';
import { MeasuredPlanTree, PlanNode } from '../planTree';
import { SchemaInfo } from '../schema';
import { clientConfig, redactText, serverSetting } from './connectionTarget';
import { measuredPlanOfJson, planTreeOfJson } from './postgresPlan';
import { readPostgresSchema } from './postgresSchema';
import { PYTHON_TYPE_PARSERS } from './pythonValues';

/**
 * Settings of every session: read-only by default (so even a statement outside VES Lens's own READ ONLY
 * transactions cannot write), and dates in ISO, as psycopg2 sets them and reads them.
 */
export const SESSION_SETTINGS = [
  serverSetting('default_transaction_read_only', 'on'),
  serverSetting('DateStyle', 'ISO'),
  serverSetting('IntervalStyle', 'postgres'),
];

/** Rows asked of the server at a time: results arrive in batches, never whole. */
const BATCH_ROWS = 1000;
/** How long after its deadline a statement the server has not stopped is cancelled from here. */
export const CANCEL_GRACE_MS = 250;

/** The protocol fields node-postgres keeps for a cancel request and the socket it reads; its typings leave them out. */
interface ClientInternals {
  processID: number | null;
  secretKey: number | null;
  connection: { stream: NodeJS.EventEmitter & { destroy(): void } };
}

/** pg-cursor's protocol handlers and state, which its typings leave out. */
interface CursorInternals {
  handleRowDescription(message: { fields: FieldDef[] }): void;
  handleError(error: Error): void;
  _ifNoData(): void;
  submit(connection: WireConnection): void;
  handleCommandComplete(message: { text: string }): void;
  state: string;
  connection: WireConnection;
  _portal: string;
  _result: { addCommandComplete(message: unknown): void };
}

/** The extended protocol's messages as node-postgres's connection sends them; its typings leave them out. */
interface WireConnection {
  parse(query: { text: string }): void;
  bind(config: object): void;
  execute(config: object): void;
  close(message: { type: 'P'; name: string }): void;
  sync(): void;
  stream: NodeJS.WritableStream & { cork(): void; uncork(): void };
}

/**
 * The messages written to the server in this tick leave as one write (issue 33): node-postgres writes each message
 * on its own, so a statement's dozen messages were a dozen system calls, each waking the server's process.
 */
function sendTogetherThisTick(wire: WireConnection): void {
  wire.stream.cork();
  process.nextTick(() => wire.stream.uncork());
}

/**
 * One statement's read-only transaction: the statements that open it (`BEGIN READ ONLY`, its `statement_timeout`),
 * sent ahead of the statement in the same exchange, and whether the exchange already rolled it back.
 */
interface Transaction {
  readonly begin: readonly string[];
  ended: boolean;
}

/**
 * A cursor that opens its transaction and ends it in the exchanges that carry its rows (issue 33: a round trip
 * is what a scored question waits for on a busy machine): the transaction's statements go ahead of the cursor's
 * in the first batch of messages (no Sync between, so they run in order and nothing waits for them), and once the
 * statement completed, a ROLLBACK goes ahead of the Sync that closes the exchange. A result within its first batch
 * takes two round trips where a BEGIN, the cursor and a ROLLBACK apart took four. Stopped early or failed, the
 * transaction stays open and the caller rolls it back (Transaction.ended is false).
 */
class TransactionCursor extends Cursor<SqlValue[]> {
  constructor(text: string, transaction: Transaction) {
    super(text, undefined, { rowMode: 'array', types: PYTHON_TYPE_PARSERS as never });
    const self = this as unknown as CursorInternals;
    const submit = self.submit.bind(this);
    /** CommandCompletes of the transaction's own statements still to come, which are not the cursor's. */
    let own = transaction.begin.length;
    self.submit = (wire) => {
      // The first read's Execute, sent in the same tick, joins them.
      sendTogetherThisTick(wire);
      for (const text of transaction.begin) {
        wire.parse({ text });
        wire.bind({});
        wire.execute({});
      }
      submit(wire);
    };
    self.handleCommandComplete = (message) => {
      if (own > 0) {
        own--;
        if (message.text === 'ROLLBACK') transaction.ended = true;
        return;
      }
      // The statement is done: its portal closed and the transaction rolled back before the Sync (pg-cursor's
      // own handler sends only the Close and the Sync).
      self._result.addCommandComplete(message);
      if (self.state === 'done') return;
      sendTogetherThisTick(self.connection);
      self.connection.close({ type: 'P', name: self._portal });
      self.connection.parse({ text: 'ROLLBACK' });
      self.connection.bind({});
      self.connection.execute({});
      self.connection.sync();
      self.state = 'done';
      own = 1;
    };
  }
}

/** A cursor that only describes its statement: the server parses and plans it, and nothing runs. */
class DescribingCursor extends TransactionCursor {
  readonly fields: Promise<FieldDef[]>;

  constructor(text: string, transaction: Transaction) {
    super(text, transaction);
    const handlers = this as unknown as CursorInternals;
    const described = handlers.handleRowDescription.bind(this);
    const failed = handlers.handleError.bind(this);
    const noData = handlers._ifNoData.bind(this);
    this.fields = new Promise((resolve, reject) => {
      handlers.handleRowDescription = (message) => {
        described(message);
        resolve(message.fields);
      };
      handlers.handleError = (error) => {
        failed(error);
        reject(error);
      };
      handlers._ifNoData = () => {
        noData();
        resolve([]);
      };
    });
  }
}

/**
 * A server that went away or takes no connections: PostgreSQL's SQLSTATEs for it (class 08, 57P01-57P03), the
 * socket's errors (refused, reset, closed, no such socket) and node-postgres's words for a closed connection.
 */
function serverGone(error: Error & { code?: string }): boolean {
  if (error.code && /^[0-9A-Z]{5}$/.test(error.code)) return /^08/.test(error.code) || /^57P0[123]$/.test(error.code);
  return /Connection terminated|ECONNREFUSED|ECONNRESET|ENOENT|EPIPE|ETIMEDOUT|EHOSTUNREACH|Client has encountered a connection error|not queryable/i.test(
    `${error.code ?? ''} ${error.message}`,
  );
}

/** A driver error as VES Lens words it: the server's message, any password masked, and ServerUnavailable when it went away. */
export function toDatabaseError(error: unknown): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const cause = error as Error & { code?: string };
  const message = redactText(cause.message || String(cause.code ?? error));
  return serverGone(cause) ? new ServerUnavailable(message) : new DatabaseError(message);
}

/** Memory one row costs as SQLite's bound counts it: its values' bytes plus a fixed overhead per value. */
export function rowBytes(row: Row): number {
  let bytes = VALUE_OVERHEAD_BYTES * row.length;
  for (const value of row) {
    if (typeof value === 'string') bytes += value.length;
    else if (Buffer.isBuffer(value)) bytes += value.length;
    else if (value instanceof TypedValue) bytes += value.text.length;
    else if (typeof value === 'number') bytes += 8;
  }
  return bytes;
}

/** Sends PostgreSQL's cancel request for a backend: a message on a connection of its own, which needs no login. */
export function sendCancelRequest(client: Client): void {
  const { processID, secretKey } = client as unknown as ClientInternals;
  if (processID === null || secretKey === null) return;
  const socket = client.host.startsWith('/')
    ? net.connect(path.join(client.host, `.s.PGSQL.${client.port}`))
    : net.connect(client.port, client.host);
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(80877102, 4);
  packet.writeInt32BE(processID, 8);
  packet.writeInt32BE(secretKey, 12);
  socket.on('connect', () => socket.end(packet));
  socket.on('error', () => socket.destroy());
}

/** A connected client with the session settings and psycopg2's value types; fails with the server's reason. */
export async function connectClient(target: string, settings: readonly string[] = SESSION_SETTINGS): Promise<Client> {
  const client = new Client({ ...clientConfig(target, settings), types: PYTHON_TYPE_PARSERS } as ClientConfig);
  client.on('error', () => undefined); // a dropped connection fails the next query instead of the process
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw toDatabaseError(error);
  }
  return client;
}

/**
 * How a connection reaches its PostgreSQL: a server over a socket (the default), or the embedded engine's
 * sessions (pglite/), which speak the same protocol to the same client.
 */
export interface PostgresTransport {
  /** A connected client whose session has `settings`, reading psycopg2's value types; fails as a DatabaseError. */
  connect(target: string, settings?: readonly string[]): Promise<Client>;
  /** Stops what the client's session runs now (on a server: PostgreSQL's cancel request). */
  cancel(client: Client): void;
  /** How long, in all, the session waited for an executor another session held (DatabaseConnection.executorWaitMs). */
  executorWaitMs?(client: Client): number;
}

/** A PostgreSQL server, over its socket. */
export const SERVER_TRANSPORT: PostgresTransport = { connect: connectClient, cancel: sendCancelRequest };

/**
 * A read-only PostgreSQL connection (node-postgres). Every statement runs in a `BEGIN READ ONLY` transaction
 * that is rolled back, in a session whose default is read-only too; its deadline is the transaction's
 * `statement_timeout`, with a cancel request as a backstop and on the caller's abort signal; rows are read
 * through a cursor in batches, within the same row and byte bounds as SQLite, and a batch whose bytes on the
 * wire pass the byte bound closes the connection before it fills memory (the next statement reconnects).
 */
export class PostgresConnection implements DatabaseConnection {
  private client: Client | undefined;
  private broken = false;
  /**
   * Rejects when the client's connection ends or fails. pg-cursor can leave a read waiting forever on a connection
   * that died (a server killed between a statement's CommandComplete and its ReadyForQuery: the cursor is 'done'
   * and ignores the error), so every cursor wait races this.
   */
  private lost: Promise<never> = new Promise(() => undefined);
  /** Bytes received in the current batch, and the bound they must stay under (undefined: not guarded). */
  private batchBytes = 0;
  private batchLimit: number | undefined;
  /** The bound a batch passed, which closed the connection (undefined while none did). */
  private overflow: number | undefined;

  private constructor(
    readonly engine: DatabaseEngine,
    readonly path: string,
    private readonly transport: PostgresTransport,
  ) {}

  static async open(engine: DatabaseEngine, target: string, transport = SERVER_TRANSPORT): Promise<PostgresConnection> {
    const connection = new PostgresConnection(engine, target, transport);
    await connection.connected();
    return connection;
  }

  executorWaitMs(): number {
    return this.waitedOnEarlierClients + this.clientWaitMs(this.client);
  }

  /** What executorWaitMs added up on clients since replaced (a new client's session starts at 0). */
  private waitedOnEarlierClients = 0;

  private clientWaitMs(client: Client | undefined): number {
    return client && this.transport.executorWaitMs ? this.transport.executorWaitMs(client) : 0;
  }

  private async connected(): Promise<Client> {
    if (this.client && !this.broken) return this.client;
    this.waitedOnEarlierClients += this.clientWaitMs(this.client);
    await this.client?.end().catch(() => undefined);
    this.client = undefined;
    const client = await this.transport.connect(this.path);
    this.broken = false;
    this.lost = new Promise<never>((_, reject) => {
      client.on('error', (error: Error) => {
        this.broken = true;
        reject(toDatabaseError(error));
      });
      client.on('end', () => {
        this.broken = true;
        reject(new ServerUnavailable('Connection terminated unexpectedly'));
      });
    });
    this.lost.catch(() => undefined); // nobody may be waiting when it ends
    (client as unknown as ClientInternals).connection.stream.on('data', (chunk: Buffer) => {
      if (this.batchLimit === undefined) return;
      this.batchBytes += chunk.length;
      if (this.batchBytes > this.batchLimit && this.overflow === undefined) {
        this.overflow = this.batchLimit;
        (client as unknown as ClientInternals).connection.stream.destroy();
      }
    });
    this.client = client;
    return client;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  interrupt(): void {
    if (this.client) this.transport.cancel(this.client);
  }

  async checkReadable(): Promise<void> {
    await this.all('SELECT count(*) FROM pg_catalog.pg_class');
  }

  /** The server's version (`SHOW server_version`). */
  async serverVersion(): Promise<string> {
    const [row] = await this.all('SHOW server_version');
    return String(row.server_version);
  }

  /**
   * Runs `work` in a READ ONLY transaction under the limits: statement_timeout from the deadline, a cancel
   * request past it or on the abort signal; always rolled back. `work` sends the transaction's statements ahead
   * of its own (TransactionCursor, inOneExchange) and says when its exchange rolled it back; otherwise it is
   * rolled back here. Failures come out as VES Lens's errors.
   */
  private async inTransaction<T>(limits: RunLimits, work: (client: Client, transaction: Transaction) => Promise<T>): Promise<T> {
    if (limits.deadline !== undefined && limits.deadline <= performance.now()) throw new QueryTimeout(limits.budgetMs ?? 0);
    if (limits.signal?.aborted) throw new QueryCancelled();
    let client: Client;
    try {
      client = await this.connected();
    } catch (error) {
      throw toDatabaseError(error);
    }
    // Again once connected: connecting anew (an embedded engine starting again) may have taken part of the budget.
    const remaining = limits.deadline === undefined ? undefined : limits.deadline - performance.now();
    if (remaining !== undefined && remaining <= 0) throw new QueryTimeout(limits.budgetMs ?? 0);
    if (limits.signal?.aborted) throw new QueryCancelled();
    this.overflow = undefined;
    const onAbort = () => this.interrupt();
    limits.signal?.addEventListener('abort', onAbort);
    const timer = remaining === undefined ? undefined : setTimeout(() => this.interrupt(), remaining + CANCEL_GRACE_MS);
    const transaction: Transaction = {
      begin: ['BEGIN READ ONLY', `SET LOCAL statement_timeout = ${remaining === undefined ? 0 : Math.max(1, Math.ceil(remaining))}`],
      ended: false,
    };
    try {
      return await work(client, transaction);
    } catch (error) {
      throw this.failure(error, limits);
    } finally {
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      this.batchLimit = undefined;
      if (!this.broken && !transaction.ended) await client.query('ROLLBACK').catch(() => (this.broken = true));
    }
  }

  /**
   * A statement's rows in one exchange: the transaction's statements, it and the ROLLBACK as one simple query
   * (the server parses the whole text before running any of it). A failure leaves the transaction to roll back.
   */
  private async inOneExchange(client: Client, transaction: Transaction, sql: string): Promise<Record<string, SqlValue>[]> {
    const results = (await client.query({
      text: `${transaction.begin.join('; ')};\n${sql}\n;ROLLBACK`,
      types: PYTHON_TYPE_PARSERS as never,
    })) as unknown as { rows: Record<string, SqlValue>[] }[];
    transaction.ended = true;
    return results[transaction.begin.length].rows;
  }

  private failure(error: unknown, limits: RunLimits): Error {
    if (error instanceof TooManyRows || error instanceof ResultTooLarge || error instanceof QueryCancelled || error instanceof QueryTimeout)
      return error;
    if (this.overflow !== undefined) return new ResultTooLarge(this.overflow);
    if ((error as { code?: string }).code === '57014') {
      if (limits.signal?.aborted) return new QueryCancelled();
      if (limits.deadline !== undefined) return new QueryTimeout(limits.budgetMs ?? 0);
    }
    const failure = toDatabaseError(error);
    if (failure instanceof ServerUnavailable) this.broken = true;
    return failure;
  }

  /** Reads the next batch of a cursor, with the bytes arriving for it bounded. */
  private readBatch(cursor: Cursor<SqlValue[]>, rows: number, maxBytes: number): Promise<SqlValue[][]> {
    this.batchBytes = 0;
    this.batchLimit = maxBytes;
    return this.unlessLost(cursor.read(rows));
  }

  /** `waiting`, or the connection's loss if that comes first (see `lost`). */
  private unlessLost<T>(waiting: Promise<T>): Promise<T> {
    return Promise.race([waiting, this.lost]);
  }

  /** Runs a query through a cursor, handing each batch to `onBatch`; closes the cursor when stopped early. */
  private async readCursor(
    client: Client,
    transaction: Transaction,
    body: string,
    batchRows: () => number,
    maxBytes: number,
    onBatch: (rows: Row[]) => void,
  ): Promise<void> {
    if (body.includes('\0')) throw new DatabaseError(NUL_MESSAGE);
    const cursor = client.query(new TransactionCursor(body, transaction));
    let finished = false;
    try {
      for (;;) {
        const wanted = batchRows();
        const rows = await this.readBatch(cursor, wanted, maxBytes);
        onBatch(rows);
        if (rows.length < wanted) break;
      }
      finished = true;
    } finally {
      // A failed cursor has ended its own exchange with the server; one stopped early is closed here.
      if (!finished && !this.broken && (cursor as unknown as { state: string }).state !== 'error')
        await this.unlessLost(cursor.close()).catch(() => undefined);
    }
  }

  async all(sql: string): Promise<Record<string, SqlValue>[]> {
    if (sql.includes('\0')) throw new DatabaseError(NUL_MESSAGE);
    return this.inTransaction({}, (client, transaction) => this.inOneExchange(client, transaction, sql));
  }

  /** The statement's result columns from the server's description of it: parsed and planned, not run. */
  private describe(body: string, limits: RunLimits = {}): Promise<FieldDef[]> {
    if (body.includes('\0')) return Promise.reject(new DatabaseError(NUL_MESSAGE));
    return this.inTransaction(limits, async (client, transaction) => {
      const cursor = client.query(new DescribingCursor(body, transaction));
      const fields = await this.unlessLost(cursor.fields);
      await this.unlessLost(cursor.close());
      return fields;
    });
  }

  async columnCount(body: string): Promise<number | undefined> {
    return (await this.describe(body)).length;
  }

  async streamRows(body: string, onRow: (row: Row) => void, limits: RunLimits & { maxRows: number; maxBytes?: number }): Promise<number> {
    const maxBytes = limits.maxBytes ?? MEMORY_BOUNDS.resultBytes;
    let count = 0;
    let bytes = 0;
    await this.inTransaction(limits, (client, transaction) =>
      this.readCursor(
        client,
        transaction,
        body,
        () => Math.min(BATCH_ROWS, limits.maxRows + 1 - count),
        maxBytes,
        (rows) => {
          for (const row of rows) {
            if (++count > limits.maxRows) throw new TooManyRows(limits.maxRows);
            bytes += rowBytes(row);
            if (bytes > maxBytes) throw new ResultTooLarge(maxBytes);
            onRow(row);
          }
        },
      ),
    );
    return count;
  }

  async drain(body: string, limits: RunLimits = {}): Promise<void> {
    await this.inTransaction(limits, (client, transaction) =>
      this.readCursor(
        client,
        transaction,
        body,
        () => BATCH_ROWS,
        MEMORY_BOUNDS.resultBytes,
        () => undefined,
      ),
    );
  }

  async firstRow(body: string, limits: RunLimits = {}): Promise<void> {
    if (body.includes('\0')) throw new DatabaseError(NUL_MESSAGE);
    await this.inTransaction(limits, async (client, transaction) => {
      const cursor = client.query(new TransactionCursor(body, transaction));
      await this.readBatch(cursor, 1, MEMORY_BOUNDS.resultBytes);
      await this.unlessLost(cursor.close());
    });
  }

  /** Names from the statement's row description (what psycopg2's cursor.description holds), repeated names kept. */
  async resultColumns(body: string, options: { hasRows: boolean; deadline?: number }): Promise<ColumnNames> {
    const fields = await this.describe(body, { deadline: options.deadline });
    return { names: fields.map((field) => field.name) };
  }

  async explainPlan(body: string): Promise<PlanNode[]> {
    const [row] = await this.all(`EXPLAIN (FORMAT JSON) ${body}`);
    const plan = Object.values(row)[0];
    return planTreeOfJson(plan instanceof TypedValue ? JSON.parse(plan.text) : JSON.parse(String(plan)));
  }

  /**
   * EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON): the query runs in the READ ONLY transaction, under its deadline
   * and signal, and only its plan with each step's measurements comes back (its rows are discarded by the server).
   */
  async explainAnalyze(body: string, limits: RunLimits): Promise<MeasuredPlanTree> {
    if (body.includes('\0')) throw new DatabaseError(NUL_MESSAGE);
    const rows = await this.inTransaction(limits, (client, transaction) =>
      this.inOneExchange(client, transaction, `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${body}`),
    );
    const plan = Object.values(rows[0])[0];
    return measuredPlanOfJson(plan instanceof TypedValue ? JSON.parse(plan.text) : JSON.parse(String(plan)));
  }

  /** EXPLAIN (VERBOSE, COSTS OFF): the plan with every output expression and literal, without estimates. */
  private async verbosePlan(body: string): Promise<string> {
    return (await this.all(`EXPLAIN (VERBOSE, COSTS OFF) ${body}`)).map((row) => String(Object.values(row)[0])).join('\n');
  }

  /**
   * The same work when both have the same verbose plan: the same operators on the same relations and indexes,
   * computing the same expressions with the same literals (a different literal shows, so it is not the same).
   * A different plan proves nothing either way: `unknown`. A statement that does not compile is `different`.
   */
  async sameWork(a: string, b: string): Promise<SameWork> {
    try {
      return (await this.verbosePlan(a)) === (await this.verbosePlan(b)) ? 'same' : 'unknown';
    } catch {
      return 'different';
    }
  }

  readSchema(): Promise<SchemaInfo> {
    return readPostgresSchema(this);
  }
}
