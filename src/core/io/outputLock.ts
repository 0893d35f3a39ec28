import * as fs from 'fs';
import * as path from 'path';
import { HOST_TAG, OTHER_HOST_STALE_MS, processAlive, trackTemporary } from './atomicFile';

/**
 * An output file is written by one run at a time: a run takes `<file>.lock` beside it (created exclusively, holding
 * `<pid>@<host>` and when it started) before any work, and drops it when it exits. A second run on the same output
 * is refused, naming the first (it would replace the first's live checkpoint, and both would say they wrote the
 * report). A lock left by a run that was killed (kill -9) is taken over: on this host its pid no longer runs; a lock
 * of another host (a shared folder) only once it is older than a day, as atomicFile.ts's temporaries.
 */

/** Another run holds the output: the message names the output, the holder and what to do. */
export class OutputLocked extends Error {}

/** What a lock file holds. */
interface LockOwner {
  pid: number;
  host: string;
  started: string;
}

/** Locks this process holds, by the real path of the output (a command may check one output twice). */
const held = new Set<string>();

export function lockPathFor(realOutput: string): string {
  return path.join(path.dirname(realOutput), `${path.basename(realOutput)}.lock`);
}

function readOwner(lock: string): LockOwner | undefined {
  try {
    const match = /^(\d+)@(\S+) (\S+)/.exec(fs.readFileSync(lock, 'utf8'));
    return match ? { pid: Number(match[1]), host: match[2], started: match[3] } : undefined;
  } catch {
    return undefined;
  }
}

/** True when the lock's run has ended (its pid is gone here, or another host's lock is older than a day). */
function isStale(lock: string, owner: LockOwner | undefined): boolean {
  if (owner && owner.host === HOST_TAG) return !processAlive(owner.pid);
  try {
    // Another host's lock, or one that cannot be read (cut off by a crash while it was written).
    return Date.now() - fs.statSync(lock).mtimeMs > (owner ? OTHER_HOST_STALE_MS : 60_000);
  } catch {
    return true; // gone meanwhile
  }
}

/**
 * Takes the lock of the output at `realOutput` (a real path) for this process, until it exits. Returns the owner of
 * a stale lock it took over, to be said; throws OutputLocked when a live run holds it.
 */
export function lockOutput(realOutput: string, shownAs: string): string | undefined {
  if (held.has(realOutput)) return undefined;
  const lock = lockPathFor(realOutput);
  let tookOver: string | undefined;
  // Two runs may find the same stale lock: each removes it and creates its own exclusively; one of them wins.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lock, `${process.pid}@${HOST_TAG} ${new Date().toISOString()}\n`, { flag: 'wx' });
      held.add(realOutput);
      trackTemporary(lock);
      return tookOver;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(lock);
    if (!isStale(lock, owner)) {
      const who = owner ? `pid ${owner.pid} on ${owner.host}, since ${owner.started}` : 'a run that is starting';
      throw new OutputLocked(
        `${shownAs} is being written by another run (${who}; its lock is ${lock}): wait for it to end, or choose another file`,
      );
    }
    tookOver = owner ? `${owner.pid}@${owner.host}` : 'an unreadable lock';
    setAside(lock, owner);
  }
  throw new OutputLocked(`${shownAs}: cannot take its lock ${lock}: other runs keep taking it`);
}

/**
 * Removes a stale lock. It is renamed first (only one run can move a given file) and read again: if another run
 * had meanwhile replaced it with its own live lock, that one is put back.
 */
function setAside(lock: string, stale: LockOwner | undefined): void {
  const aside = `${lock}.${process.pid}@${HOST_TAG}.stale`;
  try {
    fs.renameSync(lock, aside);
  } catch {
    return; // another run moved it first
  }
  const moved = readOwner(aside);
  const same = moved?.pid === stale?.pid && moved?.host === stale?.host && moved?.started === stale?.started;
  if (!same)
    try {
      fs.linkSync(aside, lock);
    } catch {
      // A third run has taken the lock meanwhile: it holds it.
    }
  fs.rmSync(aside, { force: true });
}
