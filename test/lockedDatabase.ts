/**
 * A database another process holds locked, for real: a copy of the sample superhero database (the shared file is
 * never locked) and a second process, Python's sqlite3, holding BEGIN EXCLUSIVE on it.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SAMPLE_SUPERHERO, tempDir } from './helpers';

/** A copy of the real superhero database in a folder of its own, laid out as a --db-root (`<root>/superhero/superhero.sqlite`). */
export function copiedRoot(prefix = 'ves-lens-busy-'): string {
  const root = tempDir(prefix);
  fs.mkdirSync(path.join(root, 'superhero'));
  fs.copyFileSync(SAMPLE_SUPERHERO, path.join(root, 'superhero', 'superhero.sqlite'));
  return root;
}

/** A second process (Python's sqlite3) holding BEGIN EXCLUSIVE on `file` for `seconds`; resolves once it holds it. */
export async function holdExclusive(file: string, seconds: number): Promise<ChildProcess> {
  const script = [
    'import sqlite3, sys, time',
    'c = sqlite3.connect(sys.argv[1], isolation_level=None)',
    "c.execute('BEGIN EXCLUSIVE')",
    "print('locked', flush=True)",
    'time.sleep(float(sys.argv[2]))',
    "c.execute('COMMIT')",
  ].join('\n');
  const locker = spawn('python3', ['-c', script, file, String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    locker.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
    locker.on('exit', (code) => reject(new Error(`the locking process exited (${code}) before it held the lock`)));
  });
  return locker;
}
