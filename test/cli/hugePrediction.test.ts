import { strict as assert } from 'node:assert';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, cliEnv, REPO_ROOT, tempDir } from '../helpers';

const GiB = 2 ** 30;
const SAMPLE = path.join(REPO_ROOT, 'sample');
/** MEMORY_BOUNDS.statementBytes, as the refusal states it. */
const STATEMENT_BYTES = 2 ** 18;

const question = (id: number) => ({
  question_id: id,
  db_id: 'superhero',
  question: '',
  evidence: '',
  SQL: 'SELECT count(*) FROM superhero',
  difficulty: 'simple',
});

/** The official prediction file's shape: {"0": "SQL\t----- bird -----\tdb_id", …}. */
const birdPredictions = (sqls: readonly string[]) =>
  JSON.stringify(Object.fromEntries(sqls.map((sql, i) => [String(i), `${sql}\t----- bird -----\tsuperhero`])));

/**
 * `ves-lens eval` in a process of its own with bench/peak-rss.cjs preloaded: its report's questions and its peak
 * resident memory (the kernel's maxrss: every thread's, SQLite's included).
 */
function evalPeak(dir: string, jobs: number): { questions: { outcome: string; error: string | null }[]; peak: number } {
  const rss = path.join(dir, `rss-${jobs}`);
  const json = path.join(dir, `out-${jobs}.json`);
  const run = spawnSync(
    process.execPath,
    [
      ...['--require', path.join(REPO_ROOT, 'bench', 'peak-rss.cjs'), CLI, 'eval'],
      ...['--questions', path.join(dir, 'q.json'), '--predictions', path.join(dir, 'p.json'), '--db-root', SAMPLE],
      ...['--jobs', String(jobs), '--json', json, '--no-progress'],
    ],
    { encoding: 'utf8', env: cliEnv({ VES_LENS_RSS_FILE: rss, NO_COLOR: '1' }), timeout: 300_000 },
  );
  assert.equal(run.status, 0, run.stderr);
  return { questions: JSON.parse(fs.readFileSync(json, 'utf8')).questions, peak: Number(fs.readFileSync(rss, 'utf8')) };
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

describe('memory at the edge (issue 30, case 8): < 1 GiB peak whatever the prediction and --jobs, under load', () => {
  const dir = tempDir('ves-lens-huge-prediction-');
  // Two busy processes beside the run (the machine's two cores taken): a loaded machine once took it to 1.4 GiB.
  const load: ChildProcess[] = [];
  before(() => {
    for (let i = 0; i < 2; i++) load.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  });
  after(() => {
    for (const child of load) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a 31 MB `SELECT 1,1,…` in a BIRD prediction file is refused unread, with --jobs 1, 2 and 4', () => {
    const huge = `SELECT 1${',1'.repeat((31 * 2 ** 20 - 8) / 2)}`;
    fs.writeFileSync(path.join(dir, 'q.json'), JSON.stringify([question(1)]));
    fs.writeFileSync(path.join(dir, 'p.json'), birdPredictions([huge]));
    for (const jobs of [1, 2, 4]) {
      const { questions, peak } = evalPeak(dir, jobs);
      assert.ok(peak > 0 && peak < GiB, `--jobs ${jobs}: peak RSS ${mib(peak)}`);
      assert.equal(questions.length, 1);
      assert.equal(questions[0].outcome, 'refused');
      assert.match(questions[0].error ?? '', /^the SQL has 32,505,856 bytes, past the 262,144 VES Lens runs .*: not run$/);
    }
  });

  it('statements just within the bound, in the shape that costs SQLite most to compile, run, in a row (--jobs 1) or four at once (--jobs 4)', () => {
    // `VALUES (1),(1),…`: about 150 bytes of SQLite's heap per byte of SQL, kept by glibc for each thread that ran it.
    const values = `VALUES (1)${',(1)'.repeat(Math.floor((STATEMENT_BYTES - 64) / 4))}`;
    const sqls = Array.from({ length: 6 }, (_, i) => `SELECT ${i} + count(*) FROM (${values})`);
    assert.ok(sqls.every((sql) => sql.length > STATEMENT_BYTES - 64 && sql.length <= STATEMENT_BYTES));
    fs.writeFileSync(path.join(dir, 'q.json'), JSON.stringify(sqls.map((_, i) => question(i))));
    fs.writeFileSync(path.join(dir, 'p.json'), birdPredictions(sqls));
    for (const jobs of [1, 4]) {
      const { questions, peak } = evalPeak(dir, jobs);
      assert.ok(peak > 0 && peak < GiB, `--jobs ${jobs}: peak RSS ${mib(peak)}`);
      // Run and compared (a count of 65 thousand against the gold's 750): not refused, not out of memory.
      assert.deepEqual(
        questions.map((q) => q.outcome),
        sqls.map(() => 'mismatch'),
      );
    }
  });
});
