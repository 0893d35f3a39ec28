import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Where Debian's postgresql-15 package puts the server binaries (scripts/setup-postgres.sh installs it). */
export const POSTGRES_BIN = process.env.VES_LENS_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A PostgreSQL server of our own: a fresh cluster in a temporary folder, reached only on a unix socket. */
export interface LocalCluster {
  /** `postgresql://postgres@localhost:<port>/<database>?host=<socket folder>` */
  url: string;
  /** The socket folder and port, for clients that take them apart (psycopg2). */
  socketDir: string;
  port: number;
  /** Stops the server (immediate shutdown) and removes the folder. */
  stop(): void;
  /** Kills the server with SIGKILL, as a crash or an OOM killer would (its folder stays, for start()). */
  kill(): void;
  /** Starts the server again on its folder after kill(). */
  start(): void;
}

/** Why a local cluster cannot start on this machine, or false (the server binaries are missing, typically). */
export function localClusterMissing(): string | false {
  return fs.existsSync(path.join(POSTGRES_BIN, 'initdb'))
    ? false
    : `PostgreSQL's server binaries are not in ${POSTGRES_BIN} (run scripts/setup-postgres.sh)`;
}

/**
 * Starts a throwaway cluster: initdb with trust authentication for the `postgres` role, a server listening on no
 * TCP address (only a socket in the folder), and `database` created. PostgreSQL refuses to run as root, so as
 * root the folder is handed to Debian's `postgres` system user and the binaries run as that user.
 */
export function startLocalCluster(options: { database?: string; port?: number } = {}): LocalCluster {
  const missing = localClusterMissing();
  if (missing) throw new Error(missing);
  const database = options.database ?? 'bird';
  const port = options.port ?? 20000 + Math.floor(Math.random() * 20000);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-pg-'));
  const dataDir = path.join(folder, 'data');
  const socketDir = path.join(folder, 'run');
  fs.mkdirSync(socketDir);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    fs.chmodSync(folder, 0o755);
    execFileSync('chown', ['-R', 'postgres:postgres', folder]);
  }
  const run = (binary: string, args: string[]) => {
    const command = asRoot ? 'runuser' : path.join(POSTGRES_BIN, binary);
    const commandArgs = asRoot ? ['-u', 'postgres', '--', path.join(POSTGRES_BIN, binary), ...args] : args;
    const result = spawnSync(command, commandArgs, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${binary} failed: ${(result.stderr || result.stdout || String(result.error)).trim()}`);
  };
  const stop = () => {
    spawnSync(asRoot ? 'runuser' : path.join(POSTGRES_BIN, 'pg_ctl'), [
      ...(asRoot ? ['-u', 'postgres', '--', path.join(POSTGRES_BIN, 'pg_ctl')] : []),
      '-D',
      dataDir,
      '-m',
      'immediate',
      'stop',
    ]);
    fs.rmSync(folder, { recursive: true, force: true });
  };
  // No autovacuum: a throwaway cluster is loaded and analysed once (`ves-lens load`), and autovacuum's analyse a
  // minute later (the load's rows count as changed since its own ANALYZE, which ran inside the load's transaction)
  // would change the planner's estimates between two runs of a test or bench.
  const serverOptions = `-k ${socketDir} -p ${port} -c listen_addresses= -c fsync=off -c full_page_writes=off -c autovacuum=off`;
  const start = () => run('pg_ctl', ['-D', dataDir, '-w', '-o', serverOptions, '-l', path.join(folder, 'server.log'), 'start']);
  const kill = () => {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    // The postmaster and every backend, as a crash takes them; then wait until none is left.
    spawnSync('pkill', ['-KILL', '-P', String(pid)]);
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 200 && spawnSync('kill', ['-0', String(pid)]).status === 0; i++) spawnSync('sleep', ['0.05']);
  };
  try {
    run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8']);
    start();
    run('createdb', ['-h', socketDir, '-p', String(port), '-U', 'postgres', database]);
  } catch (error) {
    stop();
    throw error;
  }
  const url = `postgresql://postgres@localhost:${port}/${database}?host=${encodeURIComponent(socketDir)}`;
  return { url, socketDir, port, stop, kill, start };
}
