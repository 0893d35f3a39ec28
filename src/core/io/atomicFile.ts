import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * Atomic writes and the temporaries they leave behind. A file is written to a temporary beside it
 * (`.<name>.ves-lens-<pid>@<host>-<n>.tmp`), synced to disk and renamed over the target, so a reader (or a crash, a
 * full disk, a Ctrl-C) sees the old file or the new one, never half of one. Every temporary this process holds is
 * removed when it exits (`removeLiveTemporaries`, also called by the CLI's signal handlers); those of a process
 * that was killed (kill -9) carry its pid and host, so a later run on the same host recognises them as stale and
 * removes them. A pid says nothing about another host's processes (a folder shared by Slurm or Kubernetes shards):
 * another host's temporaries are removed only once they are older than a day.
 */

/**
 * `.<name>.ves-lens-<pid>@<host>-<n>.tmp` (a file), or `ves-lens-copy-<pid>@<host>-<random>` (a folder of temporary
 * database copies). Names without `@<host>` were written by earlier versions, which ran only the pid check.
 */
const TEMPORARY_FILE = /^\.(.+)\.ves-lens-(\d+)(?:@([A-Za-z0-9._-]+)-\d+|-\d+)?\.tmp$/;
const TEMPORARY_FOLDER = /^ves-lens-copy-(\d+)(?:@([A-Za-z0-9._-]+))?-[A-Za-z0-9]+$/;

/** Past this age a temporary of another host counts as left behind (no run writes one file for a day). */
export const OTHER_HOST_STALE_MS = 24 * 60 * 60 * 1000;

/** This host's name as it goes into a temporary's name (characters a file name and the patterns above can carry). */
export const HOST_TAG =
  os
    .hostname()
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 64) || 'host';

/** `<pid>@<host>`: who owns a temporary, in its name. */
const OWNER_TAG = `${process.pid}@${HOST_TAG}`;

/** Temporaries this process has open now: removed on exit, whatever the exit path. */
const live = new Set<string>();
let counter = 0;
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' runs on a normal end and on process.exit (the CLI's signal handlers end that way); only kill -9 skips it.
  process.on('exit', removeLiveTemporaries);
}

/** Where a temporary for `target` goes: the same folder (a rename within one file system is atomic). */
export function temporaryPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.ves-lens-${OWNER_TAG}-${++counter}.tmp`);
}

/**
 * A new folder for temporary copies in the system's temporary folder, named with this process's pid and host and
 * tracked (removed on exit; a killed run's is removed by a later run's cleaning). Stale ones are cleaned first.
 */
export function temporaryFolder(): string {
  cleanStaleTemporaries(os.tmpdir());
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `ves-lens-copy-${OWNER_TAG}-`));
  trackTemporary(folder);
  return folder;
}

/** Records a temporary file or folder so it is removed when the process exits, even on an error or a signal. */
export function trackTemporary(file: string): void {
  installExitHook();
  live.add(file);
}

/** The temporary was renamed into place or removed: nothing left to clean. */
export function untrackTemporary(file: string): void {
  live.delete(file);
}

/** Removes every temporary this process still holds (synchronous: it runs in exit and signal handlers). */
export function removeLiveTemporaries(): void {
  for (const file of live) {
    try {
      fs.rmSync(file, { recursive: true, force: true });
    } catch {
      // Nothing more can be done on the way out; a later run cleans it as stale.
    }
  }
  live.clear();
}

/** True while a process with this id runs (EPERM: it runs under another user). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid and host in a temporary's name (host undefined: an earlier version's name), or undefined for no temporary of ours. */
function ownerOf(name: string): { pid: number; host?: string } | undefined {
  const file = TEMPORARY_FILE.exec(name);
  const folder = file ? undefined : TEMPORARY_FOLDER.exec(name);
  if (file) return { pid: Number(file[2]), host: file[3] };
  if (folder) return { pid: Number(folder[1]), host: folder[2] };
  return undefined;
}

/** The pid in a temporary's name, or undefined for a name that is no temporary of ours. */
export function temporaryOwner(name: string): number | undefined {
  return ownerOf(name)?.pid;
}

/**
 * True for a temporary (a path whose name is one of ours) left by a run that ended: on this host, its pid no longer
 * runs; on another host (a shared folder), it is older than OTHER_HOST_STALE_MS, since its pid cannot be asked.
 */
export function isStaleTemporary(file: string, now = Date.now()): boolean {
  const owner = ownerOf(path.basename(file));
  if (owner === undefined) return false;
  if (owner.host === undefined || owner.host === HOST_TAG) return !processAlive(owner.pid);
  try {
    return now - fs.lstatSync(file).mtimeMs > OTHER_HOST_STALE_MS;
  } catch {
    return false; // gone already
  }
}

const cleanedFolders = new Set<string>();

/**
 * Removes the temporaries in `folder` left by runs that were killed (isStaleTemporary); returns their paths so the
 * caller can say so. A temporary of a live process (another run writing there now, here or on another host) is
 * left alone. Each folder is looked at once per process.
 */
export function cleanStaleTemporaries(folder: string): string[] {
  const resolved = path.resolve(folder);
  if (cleanedFolders.has(resolved)) return [];
  cleanedFolders.add(resolved);
  let names: string[];
  try {
    names = fs.readdirSync(resolved);
  } catch {
    return []; // a folder that cannot be listed holds nothing we could remove
  }
  const removed: string[] = [];
  for (const name of names) {
    const file = path.join(resolved, name);
    if (!isStaleTemporary(file)) continue;
    try {
      fs.rmSync(file, { recursive: true, force: true });
      removed.push(file);
    } catch {
      // Not ours to remove after all (permissions): leave it.
    }
  }
  return removed;
}

/**
 * The file a write to `file` lands in: through a symbolic link to its target (the link stays a link), so the
 * temporary goes beside the real file and the rename replaces that.
 */
function writeTarget(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.join(fs.realpathSync(path.dirname(path.resolve(file))), path.basename(file));
  }
}

/**
 * Writes `data` to `file` atomically: a temporary beside it, fsync, rename over the target (keeping the old
 * file's permissions), then a sync of the folder. On any failure (disk full, file too large, permissions) the
 * temporary is removed, the old file is untouched, and the error is thrown.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const target = writeTarget(file);
  const temporary = temporaryPathFor(target);
  trackTemporary(temporary);
  let fd: number | undefined;
  try {
    let mode = 0o666;
    try {
      mode = fs.statSync(target).mode & 0o7777;
    } catch {
      // a new file: the default mode, less the umask
    }
    fd = fs.openSync(temporary, 'wx', mode);
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temporary, target);
    untrackTemporary(temporary);
    syncFolder(path.dirname(target));
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(temporary, { force: true });
    untrackTemporary(temporary);
    throw error;
  }
}

/** Makes a rename durable (the folder's entry on disk); not every platform can open a folder, which is harmless. */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(folder, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Windows cannot fsync a folder; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
