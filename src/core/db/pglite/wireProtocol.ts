/**
 * The few pieces of PostgreSQL's wire protocol (version 3) the embedded engine's sessions need: reading a client's
 * startup packet and its settings, splitting what a client sends into whole messages, following the backend's
 * ReadyForQuery messages in what the engine answers, and writing the messages a session answers itself
 * (authentication, an error for a stopped statement, ReadyForQuery).
 */

/** The protocol version a startup packet carries (3.0), and the codes of the packets that are no startup. */
const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** Transaction status in ReadyForQuery: idle, in a transaction, in a failed transaction. */
export type TransactionStatus = 'I' | 'T' | 'E';

/** A frontend message's type byte (`Q` query, `P` parse, `S` sync, `X` terminate, ...). */
export const SYNC = 'S'.charCodeAt(0);
export const QUERY = 'Q'.charCodeAt(0);
export const TERMINATE = 'X'.charCodeAt(0);
const READY_FOR_QUERY = 'Z'.charCodeAt(0);

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const int32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
};
const cString = (text: string) => Buffer.from(`${text}\0`, 'utf8');

/** What a session answers a startup packet with: no password, the parameters node-postgres reads, ready. */
export function startupReply(parameters: Record<string, string>, processId: number): Buffer {
  return Buffer.concat([
    message('R', int32(0)),
    ...Object.entries(parameters).map(([name, value]) => message('S', Buffer.concat([cString(name), cString(value)]))),
    message('K', Buffer.concat([int32(processId), int32(0)])),
    readyForQuery('I'),
  ]);
}

/** A simple Query message (frontend). */
export function queryMessage(sql: string): Buffer {
  return message('Q', cString(sql));
}

/** A Sync message (frontend). */
export const SYNC_MESSAGE = message('S', Buffer.alloc(0));

/** CommandComplete with its tag (`ROLLBACK`). */
export function commandComplete(tag: string): Buffer {
  return message('C', cString(tag));
}

/** The SQL of a simple Query message. */
export function queryText(query: Buffer): string {
  return query.subarray(5, query.length - 1).toString('utf8');
}

export function readyForQuery(status: TransactionStatus): Buffer {
  return message('Z', Buffer.from(status, 'latin1'));
}

/** An ErrorResponse with PostgreSQL's fields: severity, SQLSTATE and message. */
export function errorResponse(code: string, text: string): Buffer {
  const fields = [`SERROR`, `VERROR`, `C${code}`, `M${text}`].map(cString);
  return message('E', Buffer.concat([...fields, Buffer.from([0])]));
}

/** `N` for an SSL or GSS encryption request (the session is in this process: nothing to encrypt). */
export const NO_ENCRYPTION = Buffer.from('N', 'latin1');

/** A startup packet read: its parameters, or an encryption request to refuse before the real one. */
export type StartupPacket = { kind: 'startup'; parameters: Record<string, string> } | { kind: 'encryption-request' };

/** The first packet of `data` if it is whole (length-prefixed, no type byte), and the bytes after it. */
export function readStartupPacket(data: Buffer): { packet: StartupPacket; rest: Buffer } | undefined {
  if (data.length < 8) return undefined;
  const length = data.readInt32BE(0);
  if (data.length < length) return undefined;
  const code = data.readInt32BE(4);
  const rest = data.subarray(length);
  if (code === SSL_REQUEST || code === GSSENC_REQUEST) return { packet: { kind: 'encryption-request' }, rest };
  if (code !== PROTOCOL_3) throw new Error(`unsupported protocol ${code >> 16}.${code & 0xffff}`);
  const fields = data
    .subarray(8, length - 1)
    .toString('utf8')
    .split('\0');
  const parameters: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) parameters[fields[i]] = fields[i + 1];
  return { packet: { kind: 'startup', parameters }, rest };
}

/**
 * The `-c name=value` and `--name=value` settings of a startup packet's `options` (libpq's PGOPTIONS syntax:
 * arguments split at spaces, a backslash escaping the next character), in order.
 */
export function optionSettings(options: string | undefined): [string, string][] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < (options ?? '').length; i++) {
    const c = options![i];
    if (c === '\\' && i + 1 < options!.length) word = (word ?? '') + options![++i];
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  const settings: [string, string][] = [];
  for (let i = 0; i < words.length; i++) {
    const assignment = words[i] === '-c' ? words[++i] : words[i].startsWith('-c') ? words[i].slice(2) : words[i].replace(/^--/, '');
    const equals = assignment?.indexOf('=') ?? -1;
    if (equals > 0) settings.push([assignment.slice(0, equals).replace(/-/g, '_'), assignment.slice(equals + 1)]);
  }
  return settings;
}

/** Splits a frontend stream into whole messages (type byte, int32 length), keeping a partial one for later. */
export class MessageSplitter {
  private pending: Buffer = Buffer.alloc(0);

  push(data: Buffer): Buffer[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, data]) : data;
    const messages: Buffer[] = [];
    while (this.pending.length >= 5) {
      const length = this.pending.readInt32BE(1) + 1;
      if (this.pending.length < length) break;
      messages.push(this.pending.subarray(0, length));
      this.pending = this.pending.subarray(length);
    }
    return messages;
  }
}

/**
 * Follows the backend messages of an answer as it arrives in chunks, calling `onReady` with the transaction
 * status of each ReadyForQuery.
 */
export class ReadyForQueryWatcher {
  private header = Buffer.alloc(0);
  /** Bytes of the current message's body still to come. */
  private remaining = 0;
  private inReady = false;

  constructor(private readonly onReady: (status: TransactionStatus) => void) {}

  /** Forgets a message cut short (its engine was stopped mid-way): what comes next starts a message. */
  reset(): void {
    this.header = Buffer.alloc(0);
    this.remaining = 0;
    this.inReady = false;
  }

  push(chunk: Uint8Array): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, chunk.length - offset);
        if (this.inReady && this.remaining === 1) this.onReady(String.fromCharCode(chunk[offset]) as TransactionStatus);
        this.remaining -= take;
        offset += take;
        continue;
      }
      const take = Math.min(5 - this.header.length, chunk.length - offset);
      this.header = Buffer.concat([this.header, chunk.subarray(offset, offset + take)]);
      offset += take;
      if (this.header.length < 5) continue;
      this.inReady = this.header[0] === READY_FOR_QUERY;
      this.remaining = this.header.readInt32BE(1) - 4;
      this.header = Buffer.alloc(0);
    }
  }
}
