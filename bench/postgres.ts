// PostgreSQL against mini_dev's own psycopg2 scoring (issue 18), on a throwaway local cluster (Debian's PostgreSQL 15
// on a unix socket) holding the three shared databases, loaded by `ves-lens load`; only the 140 mini-dev questions
// of those databases (the other 360 would fail alike in both):
// (a) EX of the three official PostgreSQL prediction files: `eval --engine postgres --metrics ex` against mini_dev's
//     evaluation_ex.py computed with psycopg2 (bench/postgres_minidev.py: a process pool, one worker per core, as
//     the script), per-question agreement and wall time, medians of the alternating runs;
// (b) R-VES of gpt-4's file: fast and official timing against evaluation_ves.py's own loop with psycopg2, totals
//     with their spread over the runs, the coverage of fast's intervals, per-question rewards, wall time.
// Writes bench/results/postgres.md.
// Usage: node esbuild.js && npx tsx bench/postgres.ts [--runs 3] [--data ../shared/data/bird-minidev] [--only ex|rves]
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { LocalCluster, POSTGRES_BIN, startLocalCluster } from '../src/core/db/postgres/localCluster';
import { benchOptions, pythonModuleVersion, runServerBench, timed } from './serverMinidev';

const root = path.resolve(__dirname, '..');

// The parts and the report are bench/serverMinidev.ts's (bench/mysql.ts runs them on MySQL).
let cluster: LocalCluster | undefined;
try {
  cluster = startLocalCluster({ database: 'bird' });
  const load = timed(process.execPath, [
    path.join(root, 'bin', 'ves-lens.js'),
    'load',
    '--from',
    path.join(benchOptions().data, 'databases'),
    '--to',
    cluster.url,
    '--no-progress',
  ]);
  const version = spawnSync(path.join(POSTGRES_BIN, 'postgres'), ['--version'], { encoding: 'utf8' }).stdout.trim();
  runServerBench({
    title: 'PostgreSQL',
    engine: 'postgres',
    driver: 'psycopg2',
    questions: 'mini_dev_sqlite.v1-2024.json',
    gold: 'mini_dev_postgresql_gold.sql',
    predictions: 'minidev-postgresql',
    engineArgs: ['--db-url', cluster.url],
    python: path.join(root, 'bench', 'postgres_minidev.py'),
    pythonArgs: [cluster.socketDir, String(cluster.port), 'postgres', 'bird'],
    versionLine: `${version} · psycopg2 ${pythonModuleVersion('psycopg2')}`,
    setup: `A throwaway cluster on a unix socket (fsync off), the three shared databases loaded by \`ves-lens load\` in ${load.seconds.toFixed(1)} s`,
    sameWork: 'identical `EXPLAIN (VERBOSE, COSTS OFF)` plans',
    resultFile: 'postgres.md',
  });
} finally {
  cluster?.stop();
}
