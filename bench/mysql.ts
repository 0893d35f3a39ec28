// MySQL against mini_dev's own pymysql scoring (issue 32), on a throwaway local MariaDB 10.11 (Debian has no MySQL 8;
// the server on a unix socket, the three shared databases in one database BIRD as the official dump has them,
// loaded from the SQLite files and kept in the cache, see src/core/db/mysql/localServer.ts): EX of the three
// official MySQL prediction files against evaluation_ex.py with pymysql, and R-VES fast and official against
// evaluation_ves.py's loop with pymysql (bench/python/minidev_mysql.py). The parts and the report are
// bench/serverMinidev.ts's, as for PostgreSQL. Writes bench/results/mysql.md.
// Usage: node esbuild.js && npx tsx bench/mysql.ts [--runs 3] [--data ../shared/data/bird-minidev] [--only ex|rves]
import * as path from 'node:path';
import { BIRD_DATABASE, READER_USER, startBirdServer } from '../src/core/db/mysql/localServer';
import { openDatabase } from '../src/core/db/engines';
import { benchOptions, pythonModuleVersion, runServerBench } from './serverMinidev';

const root = path.resolve(__dirname, '..');

async function main() {
  const dbRoot = path.join(benchOptions().data, 'databases');
  // Started (and the kept copy built, if missing) before any timing: the load is not part of either tool's time.
  const started = performance.now();
  const server = await startBirdServer(dbRoot);
  const startSeconds = (performance.now() - started) / 1000;
  try {
    const db = await openDatabase(server.url);
    const version = String((await db.all('SELECT VERSION() AS v'))[0].v);
    await db.close();
    runServerBench({
      title: 'MySQL',
      engine: 'mysql',
      driver: 'pymysql',
      questions: 'mini_dev_mysql.json',
      gold: 'mini_dev_mysql_gold.sql',
      predictions: 'minidev-mysql',
      engineArgs: ['--db-url', server.url],
      python: path.join(root, 'bench', 'python', 'minidev_mysql.py'),
      pythonArgs: [server.socket, READER_USER, BIRD_DATABASE],
      versionLine: `MariaDB ${version} (Debian; no MySQL 8 here) · pymysql ${pythonModuleVersion('pymysql')}`,
      setup:
        `A throwaway MariaDB server on a unix socket started from the kept copy in ${startSeconds.toFixed(1)} s (one database BIRD, ` +
        "mini_dev's sql_mode, utf8mb4_uca1400_nopad_ai_ci, lower_case_table_names=1; both tools connect as its read-only account); " +
        "pymysql's side has the server's max_statement_time = 30 s for mini_dev's func_timeout, VES Lens its --timeout 30",
      sameWork: 'the same `EXPLAIN FORMAT=JSON` plan and rewritten statement',
      resultFile: 'mysql.md',
    });
  } finally {
    server.stop();
  }
}

void main();
