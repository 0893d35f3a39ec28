/**
 * A MariaDB server of our own (Debian has no MySQL 8; scripts/setup-mysql.sh installs mariadb-server): a data
 * folder made by mariadb-install-db, a mariadbd listening on a unix socket only (skip-networking), started by
 * the run and stopped when it ends. `localBirdServer` serves the BIRD SQLite files of a folder as the official
 * mini_dev set-up has them: one database `BIRD`, loaded once and kept in the cache (keyed by each file's size
 * and modification time, the loader's version and the server's), each run starting its server on a copy of its
 * own, so a run can never change the kept one and two runs never share a server.
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createConnection } from 'mysql2/promise';
import { databasePath } from '../../bird/layout';
import { cacheFolder } from '../../io/cacheHome';
import { databasesUnder, LoadError } from '../postgres/loadFromSqlite';
import { loadIntoMysql, MYSQL_LOADER_VERSION, MysqlLoadReport } from './loadFromSqlite';

export const MARIADBD = process.env.VES_LENS_MARIADBD ?? '/usr/sbin/mariadbd';
const INSTALL_DB = process.env.VES_LENS_MARIADB_INSTALL_DB ?? '/usr/bin/mariadb-install-db';

/** The database the official dump loads every BIRD database into (`mysql BIRD < BIRD_dev.sql`). */
export const BIRD_DATABASE = 'BIRD';
/** The account VES Lens's connections use on a local server: SELECT on BIRD, nothing else. */
export const READER_USER = 'ves_lens_reader';

/**
 * mini_dev's set-up: MySQL 8.4's default sql_mode with ONLY_FULL_GROUP_BY removed. Collation: MariaDB's nearest
 * to MySQL 8's utf8mb4_0900_ai_ci (Unicode 14 weights, accents and case ignored, trailing spaces counted).
 */
const SERVER_SETTINGS = [
  '--sql-mode=STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION',
  '--character-set-server=utf8mb4',
  '--collation-server=utf8mb4_uca1400_nopad_ai_ci',
  // Names and aliases without regard to case, as on the servers the official gold was checked on (`FROM molecule t
  // ... T.label` in questions 208, 212, 227 and 327 fails where they are case-sensitive, Linux's default).
  '--lower-case-table-names=1',
];

/** Why a local server cannot start on this machine, or false. */
export function localServerMissing(): string | false {
  return fs.existsSync(MARIADBD) && fs.existsSync(INSTALL_DB)
    ? false
    : `MariaDB's server is not installed (${MARIADBD}; run scripts/setup-mysql.sh, or give a server with --db-url mysql://…)`;
}

export interface LocalServer {
  /** `mysql://root@localhost/<database>?socket=<socket>` (the administrator; tests and loads use it). */
  adminUrl: string;
  /** The read-only account's URL (what VES Lens's connections use). */
  url: string;
  socket: string;
  /** Kills the server and removes its folder (it holds a throwaway copy). */
  stop(): void;
  /** Shuts the server down cleanly (its data folder is kept: a copy being built). */
  shutdown(): Promise<void>;
}

const asRoot = () => process.getuid?.() === 0;

/**
 * MariaDB refuses to run as root unless told to: as root it runs as root (the folders may sit under a private
 * 0700 folder, such as a test's cache, which Debian's `mysql` user could not enter).
 */
const RUN_AS = (): string[] => (asRoot() ? ['--user=root'] : []);

/** Makes an empty data folder with the system tables and a root@localhost without password. */
function installDataDir(dataDir: string): void {
  const result = spawnSync(
    INSTALL_DB,
    ['--no-defaults', `--datadir=${dataDir}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...RUN_AS()],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`mariadb-install-db failed: ${(result.stderr || result.stdout || String(result.error)).trim()}`);
}

/**
 * A shell that waits on a pipe from this process and, when the pipe closes without it being stopped first (this
 * process died: SIGKILL, a crash, where no exit handler runs), kills the server and removes its throwaway folder.
 * The kernel closes the pipe for us, so no polling; `read` returns at its end of file.
 */
function watchServer(server: ChildProcess, folder: string | undefined): ChildProcess | undefined {
  if (server.pid === undefined) return undefined;
  const watchdog = spawn(
    '/bin/sh',
    [
      '-c',
      'read -r _; kill -9 "$1" 2>/dev/null; [ -z "$2" ] || { sleep 1; rm -rf "$2"; }',
      'ves-lens-mariadb-watchdog',
      String(server.pid),
      folder ?? '',
    ],
    { stdio: ['pipe', 'ignore', 'ignore'] },
  );
  // Neither the shell nor its pipe keeps this process alive.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  watchdog.on('error', () => undefined);
  return watchdog;
}

/** Starts mariadbd on `dataDir` with its socket, pid and log in `folder`; resolves when it takes connections. */
async function startServer(
  folder: string,
  dataDir: string,
  database: string | undefined,
  onStop: () => void,
  throwaway = true,
): Promise<LocalServer> {
  const socket = path.join(folder, 'mysqld.sock');
  const log = path.join(folder, 'server.log');
  const child: ChildProcess = spawn(
    MARIADBD,
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      `--socket=${socket}`,
      '--skip-networking',
      `--pid-file=${path.join(folder, 'mysqld.pid')}`,
      `--log-error=${log}`,
      '--skip-log-bin',
      '--innodb-buffer-pool-size=64M',
      '--innodb-log-file-size=16M',
      '--innodb-flush-log-at-trx-commit=0',
      '--skip-name-resolve',
      '--max-connections=500',
      ...SERVER_SETTINGS,
      ...RUN_AS(),
    ],
    { stdio: 'ignore' },
  );
  // The server never keeps this process alive: it is killed when the process exits (below), or by its watchdog
  // when this process dies without exiting (SIGKILL, a crash).
  child.unref();
  let exited = false;
  child.once('exit', () => (exited = true));
  const watchdog = watchServer(child, throwaway ? folder : undefined);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = () => {
    process.removeListener('exit', killOnExit);
    if (!exited) child.kill('SIGKILL');
    watchdog?.kill('SIGKILL');
    onStop();
  };
  const deadline = performance.now() + 60_000;
  const adminUrl = `mysql://root@localhost/${database ?? ''}?socket=${encodeURIComponent(socket)}`;
  for (;;) {
    if (exited || performance.now() > deadline) {
      const said = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').slice(-5).join('\n') : '';
      stop();
      throw new Error(`mariadbd did not start${said ? `: ${said}` : ''}`);
    }
    if (fs.existsSync(socket)) {
      try {
        const probe = await createConnection({ socketPath: socket, user: 'root' });
        await probe.end();
        break;
      } catch {
        // not ready yet
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const shutdown = async () => {
    process.removeListener('exit', killOnExit);
    watchdog?.kill('SIGKILL');
    child.ref(); // waited for now
    const done = new Promise((resolve) => (exited ? resolve(undefined) : child.once('exit', resolve)));
    const admin = await createConnection({ socketPath: socket, user: 'root' });
    await admin.query('SHUTDOWN').catch(() => undefined);
    await admin.end().catch(() => undefined);
    await done;
  };
  return {
    adminUrl,
    url: `mysql://${READER_USER}@localhost/${database ?? ''}?socket=${encodeURIComponent(socket)}`,
    socket,
    stop,
    shutdown,
  };
}

/** An empty throwaway server (tests): a fresh data folder, `database` created, removed when stopped. */
export async function startLocalServer(options: { database?: string } = {}): Promise<LocalServer> {
  const missing = localServerMissing();
  if (missing) throw new Error(missing);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-mysql-'));
  const remove = () => fs.rmSync(folder, { recursive: true, force: true });
  try {
    installDataDir(path.join(folder, 'data'));
    const server = await startServer(folder, path.join(folder, 'data'), options.database, remove);
    const admin = await createConnection({ socketPath: server.socket, user: 'root' });
    try {
      if (options.database) await admin.query(`CREATE DATABASE IF NOT EXISTS \`${options.database.replace(/`/g, '``')}\``);
      await createReader(admin);
    } finally {
      await admin.end();
    }
    return server;
  } catch (error) {
    remove();
    throw error;
  }
}

/** The read-only account: SELECT and SHOW VIEW on every database, and nothing that writes. */
async function createReader(admin: import('mysql2/promise').Connection): Promise<void> {
  await admin.query(`CREATE USER IF NOT EXISTS '${READER_USER}'@'localhost'`);
  await admin.query(`GRANT SELECT, SHOW VIEW ON *.* TO '${READER_USER}'@'localhost'`);
}

/** The server's version line (`10.11.19-MariaDB-0+deb12u1`), asked of the binary. */
function serverBinaryVersion(): string {
  const result = spawnSync(MARIADBD, ['--version'], { encoding: 'utf8' });
  return /Ver\s+(\S+)/.exec(result.stdout ?? '')?.[1] ?? 'unknown';
}

/** What a kept copy was built from: each SQLite file's identity, the loader's version and the server's. */
export function birdCopyKey(dbRoot: string): { key: string; dbIds: string[] } {
  if (!fs.existsSync(dbRoot) || !fs.statSync(dbRoot).isDirectory()) throw new LoadError(`${dbRoot} is not a folder`);
  const dbIds = databasesUnder(dbRoot);
  if (dbIds.length === 0) throw new LoadError(`${dbRoot} holds no <db_id>/<db_id>.sqlite`);
  const files = dbIds.map((dbId) => {
    const stat = fs.statSync(databasePath(dbRoot, dbId));
    return { dbId, size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino };
  });
  const key = createHash('sha256')
    .update(JSON.stringify({ loader: MYSQL_LOADER_VERSION, server: serverBinaryVersion(), settings: SERVER_SETTINGS, files }))
    .digest('hex')
    .slice(0, 16);
  return { key, dbIds };
}

/** Where kept copies are: $XDG_CACHE_HOME/ves-lens/mariadb. */
export function defaultMysqlCacheDir(): string {
  return cacheFolder('mariadb');
}

export interface BirdServerOptions {
  cacheDir?: string;
  /** An empty folder of this run's for the server's copy and socket (default: a new temporary folder). */
  folder?: string;
  /** Told when a copy is built (nothing is said when one is reused). */
  onBuild?: (event: { kind: 'start'; cacheDir: string; databases: number } | { kind: 'done'; report: MysqlLoadReport }) => void;
}

/** Builds the kept copy of `dbRoot` in `finalDir` (in a folder of its own, renamed into place when complete). */
async function buildCopy(dbRoot: string, dbIds: string[], finalDir: string, options: BirdServerOptions): Promise<void> {
  const parent = path.dirname(finalDir);
  fs.mkdirSync(parent, { recursive: true });
  const building = fs.mkdtempSync(path.join(parent, `.building-${process.pid}-`));
  try {
    installDataDir(path.join(building, 'data'));
    options.onBuild?.({ kind: 'start', cacheDir: parent, databases: dbIds.length });
    const server = await startServer(building, path.join(building, 'data'), undefined, () => undefined, false);
    try {
      const admin = await createConnection({ socketPath: server.socket, user: 'root', charset: 'utf8mb4' });
      try {
        const report = await loadIntoMysql(admin, { from: dbRoot, database: BIRD_DATABASE, dbIds });
        await createReader(admin);
        fs.writeFileSync(path.join(building, 'load.json'), JSON.stringify(report, null, 2));
        options.onBuild?.({ kind: 'done', report });
      } finally {
        await admin.end();
      }
      await server.shutdown();
    } catch (error) {
      server.stop();
      throw error;
    }
    for (const name of ['mysqld.sock', 'mysqld.pid']) fs.rmSync(path.join(building, name), { force: true });
    try {
      fs.renameSync(building, finalDir);
    } catch (error) {
      // Another run built the same copy meanwhile: theirs is as good.
      if (!fs.existsSync(path.join(finalDir, 'load.json'))) throw error;
      fs.rmSync(building, { recursive: true, force: true });
    }
  } catch (error) {
    fs.rmSync(building, { recursive: true, force: true });
    throw error;
  }
}

/** The load report of a kept copy (notes on what was loaded differently). */
export function keptLoadReport(copyDir: string): MysqlLoadReport | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(copyDir, 'load.json'), 'utf8')) as MysqlLoadReport;
  } catch {
    return undefined;
  }
}

/**
 * A server holding the BIRD databases under `dbRoot` in database `BIRD`, on a throwaway copy of the kept copy
 * (built first when missing or out of date). Stopped by stop(), and when the process exits.
 */
export async function startBirdServer(
  dbRoot: string,
  options: BirdServerOptions = {},
): Promise<LocalServer & { dbIds: string[]; copyDir: string }> {
  const missing = localServerMissing();
  if (missing) throw new Error(missing);
  const { key, dbIds } = birdCopyKey(path.resolve(dbRoot));
  const copyDir = path.join(path.resolve(options.cacheDir ?? defaultMysqlCacheDir()), key);
  if (!fs.existsSync(path.join(copyDir, 'load.json'))) await buildCopy(path.resolve(dbRoot), dbIds, copyDir, options);
  const folder = options.folder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-mysql-'));
  const remove = () => fs.rmSync(folder, { recursive: true, force: true });
  try {
    execFileSync('cp', ['-a', '--reflink=auto', path.join(copyDir, 'data'), path.join(folder, 'data')]);
    const server = await startServer(folder, path.join(folder, 'data'), BIRD_DATABASE, remove);
    return { ...server, dbIds, copyDir };
  } catch (error) {
    remove();
    throw error;
  }
}

/** Local servers a target's socket names, started at the first connection to them (localBirdTarget). */
const lazyServers = new Map<string, { start: () => Promise<unknown>; started?: Promise<unknown> }>();

/**
 * The read-only URL of a server holding the BIRD databases under `dbRoot`, known before the server runs: it is
 * started (from the kept copy, built first when needed) by the first connection to it, and stopped when the
 * process exits. `ready` starts it now.
 */
export function localBirdTarget(
  dbRoot: string,
  options: BirdServerOptions = {},
): { url: string; ready: () => Promise<LocalServer & { dbIds: string[]; copyDir: string }> } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-mysql-'));
  process.once('exit', () => fs.rmSync(folder, { recursive: true, force: true }));
  const socket = path.join(folder, 'mysqld.sock');
  const entry: {
    start: () => Promise<LocalServer & { dbIds: string[]; copyDir: string }>;
    started?: Promise<LocalServer & { dbIds: string[]; copyDir: string }>;
  } = {
    start: () =>
      (entry.started ??= startBirdServer(dbRoot, { ...options, folder }).catch((error) => {
        entry.started = undefined;
        throw error;
      })),
  };
  lazyServers.set(socket, entry);
  return { url: `mysql://${READER_USER}@localhost/${BIRD_DATABASE}?socket=${encodeURIComponent(socket)}`, ready: entry.start };
}

/** Starts the local server a target names, if it is one not started yet (connections call it first). */
export async function localServerReady(socket: string | undefined): Promise<void> {
  if (socket === undefined) return;
  await lazyServers.get(socket)?.start();
}
