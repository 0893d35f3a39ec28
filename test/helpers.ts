import { spawn, spawnSync, SpawnSyncReturns } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, before } from 'node:test';
import { DatabaseConnection } from '../src/core/db/engine';
import { openDatabase } from '../src/core/db/engines';
import { readSchema, SchemaInfo } from '../src/core/db/schema';
import { WritableDatabase } from '../src/core/db/sqlite/writableDatabase';
import { scaledCopy } from '../src/core/scale/scaledCopy';

export const REPO_ROOT = path.resolve(__dirname, '..');

/** The built command-line tool, as users run it (bin/ loads dist/cli.js). */
export const CLI = path.join(REPO_ROOT, 'bin', 'ves-lens.js');

let cacheHome: string | undefined;

/**
 * XDG_CACHE_HOME for the tool and the language server a test starts: a folder of this test process (removed when it
 * exits), so they neither read a developer's caches (gold results, V8's code cache) nor leave files in ~/.cache.
 */
export function testCacheHome(): string {
  if (!cacheHome) {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-test-cache-'));
    process.on('exit', () => fs.rmSync(folder, { recursive: true, force: true }));
    cacheHome = folder;
  }
  return cacheHome;
}

/** The environment a test runs the command-line tool in: colours off, testCacheHome; `extra` adds to it (a test of a cache gives its own). */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', XDG_CACHE_HOME: testCacheHome(), ...extra };
}

/** Runs the command-line tool in a real process (cliEnv); `env` adds to its environment. */
export function runCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; timeout?: number } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: cliEnv(options.env),
    timeout: options.timeout,
  });
}

/** runCli without blocking this process: a loopback server this process runs (a fake chat endpoint) can answer it. */
export function runCliAsync(args: readonly string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<SpawnedCli> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export interface SpawnedCli {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The shared BIRD data beside the clone (CI puts shared/ there), or VES_LENS_BIRD_DATA. */
export const BIRD_DATA = process.env.VES_LENS_BIRD_DATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'data', 'bird-minidev');

/** Skip reason when the shared data is absent on a developer machine; in CI its absence is a failure. */
export function birdDataMissing(): string | false {
  if (fs.existsSync(BIRD_DATA)) return false;
  if (process.env.CI) throw new Error(`shared BIRD data not found at ${BIRD_DATA}`);
  return `shared BIRD data not found at ${BIRD_DATA}`;
}

/** A shared BIRD database scaled ×factor (as `ves-lens scale` builds it), made once into this test process's cache folder. */
export function scaledShared(dbId: string, factor: number): Promise<string> {
  return scaledCopy(path.join(BIRD_DATA, 'databases', dbId, `${dbId}.sqlite`), factor, { cacheDir: path.join(testCacheHome(), 'scaled') });
}

/** The sample superhero database every engine test reads (the real BIRD file, 750 heroes). */
export const SAMPLE_SUPERHERO = path.join(REPO_ROOT, 'sample', 'superhero', 'superhero.sqlite');

/** Opens the sample superhero database read-only with its schema before a describe block's tests, closes it after. */
export function useSampleSuperhero(receive: (opened: { db: DatabaseConnection; schema: SchemaInfo }) => void): void {
  let db: DatabaseConnection | undefined;
  before(async () => {
    db = await openDatabase(SAMPLE_SUPERHERO);
    receive({ db, schema: await readSchema(db) });
  });
  after(() => db?.close());
}

export function tempDir(prefix = 'ves-lens-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Creates a database file from SQL (a writable connection, for fixtures only). */
export async function makeDatabase(file: string, sql: string): Promise<string> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = await WritableDatabase.file(file);
  try {
    await db.exec(sql);
  } finally {
    await db.close();
  }
  return file;
}

export function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}
