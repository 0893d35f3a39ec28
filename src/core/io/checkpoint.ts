import { createHash } from 'crypto';
import * as fs from 'fs';
import { writeFileAtomic } from './atomicFile';
import { redactSecrets } from '../text/redact';

/**
 * A run's checkpoint: a JSON-lines file beside its report (`<report>.checkpoint.jsonl`). The first line says
 * which command made it from which inputs and options (a fingerprint, and what went into it, so a refusal can
 * say what changed); every later line is one finished question. Lines are appended as questions finish, so a
 * run killed at any point (kill -9 included) loses at most the line being written, which a resume drops.
 */

export const CHECKPOINT_FORMAT = 1;

/** What a checkpoint is made from: each part hashed on its own, so a refusal names the part that differs. */
export type FingerprintParts = Record<string, unknown>;

export interface CheckpointHeader {
  ves_lens_checkpoint: number;
  command: string;
  fingerprint: string;
  /** The hash of each part (an input file's contents, an option's value). */
  parts: Record<string, string>;
}

interface CheckpointLine<T> {
  key: number;
  result: T;
}

/** A checkpoint that cannot be resumed (other inputs or options, another command, not a checkpoint). */
export class CheckpointMismatch extends Error {}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** The hash of a file's contents, streamed in blocks (prediction files can be large); `missing` when absent. */
export function fileHash(file: string | undefined): string {
  if (!file) return 'none';
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return 'missing';
  }
  const hash = createHash('sha256');
  const block = Buffer.alloc(1 << 20);
  try {
    for (let n = fs.readSync(fd, block); n > 0; n = fs.readSync(fd, block)) hash.update(block.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

/** A large file that is only read (a database): its size and modification time stand for its contents. */
export function fileStamp(file: string): string {
  try {
    const { size, mtimeMs } = fs.statSync(file);
    return `${size}:${mtimeMs}`;
  } catch {
    return 'missing';
  }
}

export function checkpointHeader(command: string, parts: FingerprintParts): CheckpointHeader {
  const hashed = Object.fromEntries(Object.entries(parts).map(([name, value]) => [name, sha256(JSON.stringify(value ?? null))]));
  return { ves_lens_checkpoint: CHECKPOINT_FORMAT, command, fingerprint: sha256(JSON.stringify(hashed)), parts: hashed };
}

/** The checkpoint beside an output file. */
export function checkpointPathFor(output: string): string {
  return `${output}.checkpoint.jsonl`;
}

/** Reads a checkpoint's finished results, refusing one made by another command or from other inputs or options. */
function readCheckpoint<T>(file: string, header: CheckpointHeader): { results: Map<number, T>; goodBytes: number } {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  let found: CheckpointHeader | undefined;
  try {
    found = JSON.parse(lines[0]) as CheckpointHeader;
  } catch {
    found = undefined;
  }
  if (!found || found.ves_lens_checkpoint !== CHECKPOINT_FORMAT || typeof found.parts !== 'object' || found.parts === null)
    throw new CheckpointMismatch(`${file} is not a checkpoint this version of ves-lens wrote`);
  if (found.command !== header.command) throw new CheckpointMismatch(`${file} was made by \`${found.command}\`, not \`${header.command}\``);
  if (found.fingerprint !== header.fingerprint) {
    const changed = Object.keys({ ...header.parts, ...found.parts }).filter((name) => header.parts[name] !== found.parts[name]);
    throw new CheckpointMismatch(
      `${file} was made from other inputs or options (changed: ${changed.join(', ') || 'the fingerprint'}); ` +
        'run without --resume to start over',
    );
  }
  const results = new Map<number, T>();
  let goodBytes = Buffer.byteLength(lines[0]) + 1;
  for (const line of lines.slice(1)) {
    // The last line may be cut off by a kill: it and anything after it are dropped (that question runs again).
    let parsed: CheckpointLine<T> | undefined;
    try {
      parsed = JSON.parse(line) as CheckpointLine<T>;
    } catch {
      break;
    }
    if (!parsed || typeof parsed.key !== 'number' || parsed.result === undefined) break;
    results.set(parsed.key, parsed.result);
    goodBytes += Buffer.byteLength(line) + 1;
  }
  return { results, goodBytes: Math.min(goodBytes, Buffer.byteLength(text)) };
}

/** An open checkpoint: the results a resumed run takes over, and the appends of this run. */
export class Checkpoint<T> {
  private fd: number | undefined;
  /** Set when an append failed (disk full): the run goes on without a checkpoint, said once. */
  failure: string | undefined;

  private constructor(
    readonly file: string,
    /** Results taken over from an earlier run, by key. */
    readonly resumed: Map<number, T>,
    fd: number,
  ) {
    this.fd = fd;
  }

  /**
   * Starts a checkpoint (replacing an earlier one), or with `resume` continues the one at `file`: its finished
   * results are returned and a cut-off last line dropped. Throws CheckpointMismatch for one that cannot be resumed.
   */
  static open<T>(file: string, header: CheckpointHeader, resume: boolean): Checkpoint<T> {
    if (resume) {
      if (!fs.existsSync(file))
        throw new CheckpointMismatch(`no checkpoint at ${file}: nothing to resume (a run with the same output writes it as it goes)`);
      const { results, goodBytes } = readCheckpoint<T>(file, header);
      fs.truncateSync(file, goodBytes);
      return new Checkpoint(file, results, fs.openSync(file, 'a'));
    }
    writeFileAtomic(file, JSON.stringify(header) + '\n');
    return new Checkpoint(file, new Map(), fs.openSync(file, 'a'));
  }

  /** Appends one finished result; a failure (disk full) stops the checkpoint, not the run. */
  append(key: number, result: T): void {
    if (this.fd === undefined) return;
    try {
      fs.writeSync(this.fd, redactSecrets(JSON.stringify({ key, result } satisfies CheckpointLine<T>)) + '\n');
    } catch (error) {
      this.failure = (error as Error).message;
      this.close();
    }
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  /** The run is complete and its report written: the checkpoint has served. */
  remove(): void {
    this.close();
    fs.rmSync(this.file, { force: true });
  }
}
