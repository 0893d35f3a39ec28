// `ves-lens audit --compare-gold`: every mini-dev gold of the three shared databases run in SQLite and, from the
// official PostgreSQL gold file, on a real PostgreSQL 15 server (a throwaway cluster loaded by `ves-lens load`),
// with question 281 (qid 788) flagged first among correctness findings in the terminal, the JSON and the HTML;
// digits past the 6th significant one said, not flagged; clear usage errors; a server that goes away mid-audit.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalCluster, localClusterMissing, startLocalCluster } from '../../src/core/db/postgres/localCluster';
import { BIRD_DATA, birdDataMissing, CLI, cliEnv, runCli, tempDir } from '../helpers';
import { startLoadedCluster, whenRunning } from '../pgCluster';

const QUESTIONS = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');
const SQLITE_GOLD = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql');
const POSTGRES_GOLD = path.join(BIRD_DATA, 'questions', 'mini_dev_postgresql_gold.sql');
const DB_ROOT = path.join(BIRD_DATA, 'databases');

interface CrossDialect {
  status: 'same' | 'different' | 'error';
  detail: string;
  precision_only?: true;
  evidence: { gold: { engine: string; rows: number | null; first_rows: unknown[][] }; compared: { engine: string; sql: string } | null };
}
interface Entry {
  question_id: number;
  status: string;
  reasons: string[];
  cross_dialect?: CrossDialect;
}
interface Audit {
  inputs: { compare_gold?: string; compare_engine?: { engine: string; location: string } };
  entries: Entry[];
  ranked: Entry[];
  cross_dialect?: { counts: { same: number; precision_only: number; different: number; error: number }; server_lost?: string };
}

const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Audit;

/** A question file and gold files for `count` superhero questions of mini-dev, the compared gold's lines edited by `edit`. */
function superheroSubset(folder: string, count: number, edit: (sql: string, i: number) => string = (sql) => sql) {
  const questions = (JSON.parse(fs.readFileSync(QUESTIONS, 'utf8')) as { db_id: string; SQL: string }[])
    .filter((q) => q.db_id === 'superhero')
    .slice(0, count);
  const files = {
    questions: path.join(folder, 'questions.json'),
    gold: path.join(folder, 'gold.sql'),
    compared: path.join(folder, 'compared.sql'),
  };
  fs.writeFileSync(files.questions, JSON.stringify(questions));
  const lines = questions.map((q) => q.SQL);
  fs.writeFileSync(files.gold, lines.map((sql) => `${sql}\tsuperhero\n`).join(''));
  fs.writeFileSync(files.compared, lines.map((sql, i) => `${edit(sql, i)}\tsuperhero\n`).join(''));
  return files;
}

describe('audit --compare-gold (cross-dialect gold check)', { skip: localClusterMissing() || birdDataMissing() }, () => {
  let cluster: LocalCluster;
  before(() => {
    cluster = startLoadedCluster(DB_ROOT);
  });
  after(() => cluster?.stop());

  it('flags question 281 (qid 788), whose PostgreSQL gold computes another quantity, first among correctness findings; the rest agree', () => {
    const folder = tempDir();
    const json = path.join(folder, 'audit.json');
    const html = path.join(folder, 'audit.html');
    const url = cluster.url.replace('postgres@', 'postgres:Sup3rSecretPw@');
    const run = runCli([
      'audit',
      '--questions',
      QUESTIONS,
      '--gold',
      SQLITE_GOLD,
      '--db-root',
      DB_ROOT,
      '--compare-gold',
      POSTGRES_GOLD,
      '--compare-engine',
      'postgres',
      '--compare-db-url',
      url,
      '--no-measure',
      '--json',
      json,
      '--html',
      html,
      '--no-progress',
    ]);
    assert.equal(run.status, 0, run.stderr);
    for (const output of [run.stdout, run.stderr, fs.readFileSync(json, 'utf8'), fs.readFileSync(html, 'utf8')])
      assert.ok(!output.includes('Sup3rSecretPw'), 'the password is never shown');
    assert.match(
      run.stderr,
      /each compared with .*mini_dev_postgresql_gold\.sql on PostgreSQL 15\.\d+.*\(server postgresql:\/\/postgres@localhost/,
    );

    const audit = read(json);
    const audited = audit.entries.filter((e) => e.status !== 'skipped');
    assert.equal(audited.length, 140);
    assert.ok(
      audited.every((e) => e.cross_dialect),
      'every audited gold is compared',
    );
    assert.ok(audit.entries.filter((e) => e.status === 'skipped').every((e) => !e.cross_dialect));
    const counts = audit.cross_dialect!.counts;
    assert.equal(counts.different, 1);
    assert.equal(counts.same, 139);
    assert.equal(counts.error, 0);
    assert.ok(counts.precision_only >= 3, 'the float digits the two golds compute differently are said, not flagged');

    const q788 = audit.entries.find((e) => e.question_id === 788)!;
    assert.equal(q788.cross_dialect!.status, 'different');
    assert.match(
      q788.reasons[0],
      /^cross-dialect check: the results differ: the SQLite gold returns 1 row, the PostgreSQL gold 1 row; no row in common/,
    );
    assert.equal(q788.cross_dialect!.evidence.gold.engine, 'sqlite');
    assert.equal(q788.cross_dialect!.evidence.compared!.engine, 'postgres');
    assert.match(q788.cross_dialect!.evidence.compared!.sql, /NULLIF\(COUNT\(T1\.id\), 0\)/);
    const [goldValue] = q788.cross_dialect!.evidence.gold.first_rows[0] as number[];
    assert.ok(Math.abs(goldValue - 28.68217054263566) < 1e-9);
    assert.equal(audit.ranked[0].question_id, 788, 'a cross-dialect difference ranks above speed findings');
    const precise = audited.filter((e) => e.cross_dialect!.precision_only);
    assert.ok(precise.every((e) => e.reasons.every((r) => !r.startsWith('cross-dialect'))));
    assert.match(precise[0].cross_dialect!.detail, /rounded to 6 significant digits .* not a defect/);
    assert.equal(audit.inputs.compare_gold, POSTGRES_GOLD);
    assert.equal(audit.inputs.compare_engine!.engine, 'postgres');

    assert.match(run.stdout, /140 gold SQL audited, 360 not audited \(database missing\): 0 fail, 1 differ from the PostgreSQL gold/);
    assert.match(
      run.stdout,
      /cross-dialect check against the PostgreSQL gold \(.*\): 139 same \(\d+ only past the 6th significant digit\), 1 different, 0 failed/,
    );
    assert.match(
      run.stdout,
      /1\. question 788 \(superhero, challenging\).*\n.*\n   - cross-dialect check: the results differ.*\n\s+the SQLite gold: 1 row, first \[\[28\.68/,
    );
    assert.match(run.stdout, /\s+the PostgreSQL gold: 1 row, first \[\[/);

    const page = fs.readFileSync(html, 'utf8');
    assert.match(page, /data-kind="cross_dialect"/);
    assert.match(page, /dialects differ/);
    assert.match(page, /both golds’ results/);
    assert.match(page, /compared gold .*mini_dev_postgresql_gold\.sql on PostgreSQL 15/);
  });

  it('compares two gold files on one engine by default, naming them the gold and the compared gold', () => {
    const folder = tempDir();
    const files = superheroSubset(folder, 3, (sql, i) => (i === 1 ? `${sql.replace(/;\s*$/, '')} LIMIT 0` : sql));
    const json = path.join(folder, 'audit.json');
    const run = runCli([
      'audit',
      '--questions',
      files.questions,
      '--gold',
      files.gold,
      '--db-root',
      DB_ROOT,
      '--compare-gold',
      files.compared,
      '--no-measure',
      '--json',
      json,
      '--no-progress',
    ]);
    assert.equal(run.status, 0, run.stderr);
    const audit = read(json);
    assert.deepEqual(
      audit.entries.map((e) => e.cross_dialect!.status),
      ['same', 'different', 'same'],
    );
    assert.match(audit.entries[1].cross_dialect!.detail, /the gold returns \d+ rows?, the compared gold 0 rows/);
  });

  it('refuses what cannot work before any question, naming the option, and never shows the password', () => {
    const folder = tempDir();
    const files = superheroSubset(folder, 2);
    const common = ['audit', '--questions', files.questions, '--db-root', DB_ROOT, '--no-measure', '--no-progress'];
    const unreachable = `postgresql://postgres:Sup3rSecretPw@localhost:1/bird?host=${encodeURIComponent(cluster.socketDir)}`;
    const cases: [string[], RegExp][] = [
      [['--compare-engine', 'postgres'], /--compare-engine: only with --compare-gold <file>/],
      [['--compare-db-url', cluster.url], /--compare-db-url: only with --compare-gold <file>/],
      [['--compare-gold', path.join(folder, 'nope.sql')], /--compare-gold: file not found: .*nope\.sql/],
      [
        ['--compare-gold', files.compared, '--compare-engine', 'sqlite', '--compare-db-url', cluster.url],
        /--compare-db-url: a PostgreSQL server; with --compare-engine sqlite/,
      ],
      [
        ['--compare-gold', files.compared, '--compare-db-url', 'http://x@y/z'],
        /--compare-db-url: expected postgresql:\/\/user@host:port\/database/,
      ],
      [
        ['--compare-gold', files.compared, '--compare-db-url', unreachable],
        /--compare-db-url: cannot reach the PostgreSQL server: .*ENOENT/,
      ],
      [['--compare-gold', files.compared, '--compare-engine', 'oracle'], /option '--compare-engine <engine>' argument 'oracle' is invalid/],
    ];
    for (const [args, message] of cases) {
      const run = runCli([...common, ...args]);
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.ok(!run.stderr.includes('Sup3rSecretPw') && !/\n\s+at /.test(run.stderr), run.stderr);
    }
  });

  it('a compared gold line for another database, or missing, is not compared (said per question and at the top)', () => {
    const folder = tempDir();
    const files = superheroSubset(folder, 3);
    fs.writeFileSync(
      files.compared,
      fs
        .readFileSync(files.compared, 'utf8')
        .split('\n')
        .slice(0, 2)
        .join('\n')
        .replace(/superhero$/, 'toxicology') + '\n',
    );
    const json = path.join(folder, 'audit.json');
    const run = runCli([
      'audit',
      '--questions',
      files.questions,
      '--db-root',
      DB_ROOT,
      '--compare-gold',
      files.compared,
      '--no-measure',
      '--json',
      json,
      '--no-progress',
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /compared\.sql: 2 lines for 3 questions: paired by position, questions without a line are not compared/);
    const [first, second, third] = read(json).entries.map((e) => e.cross_dialect!);
    assert.equal(first.status, 'same');
    assert.match(second.detail, /^not compared: .*compared\.sql line 2 names database toxicology, the question superhero$/);
    assert.match(third.detail, /^not compared: .*compared\.sql has no line for this question \(line 3\)$/);
    assert.equal(second.evidence.compared, null);
  });

  it('ends an audit whose compared server goes away: the rest not compared, the report written, exit 2 with one line', async () => {
    const doomed = startLocalCluster({ database: 'bird' });
    try {
      const load = runCli(['load', '--from', DB_ROOT, '--db', 'superhero', '--to', doomed.url, '--no-progress']);
      assert.equal(load.status, 0, load.stderr);
      const folder = tempDir();
      const files = superheroSubset(folder, 4, (sql, i) => (i === 1 ? 'SELECT pg_sleep(30), 1' : sql));
      const json = path.join(folder, 'audit.json');
      const child = spawn(
        process.execPath,
        [
          CLI,
          'audit',
          '--questions',
          files.questions,
          '--db-root',
          DB_ROOT,
          '--compare-gold',
          files.compared,
          '--compare-db-url',
          doomed.url,
        ].concat(['--no-measure', '--json', json, '--no-progress']),
        { env: cliEnv() },
      );
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      // The server stops while question 2's sleep runs on it (the first question compared by then, whatever the
      // machine's load made of the start-up), so exactly the 3 questions from there on are not compared.
      const closed = new AbortController();
      const stopped = whenRunning(doomed, 'pg_sleep(30)', { signal: closed.signal }).then((running) => running && doomed.stop());
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      closed.abort();
      await stopped;
      assert.equal(code, 2, stderr);
      const lines = stderr.split('\n').filter((line) => line.startsWith('error'));
      assert.equal(lines.length, 1, stderr);
      assert.match(
        lines[0],
        /^error: the compared gold's database server went away during the audit \(.+\): 3 questions were not compared; the report was written$/,
      );
      const audit = read(json);
      assert.deepEqual(
        audit.entries.map((e) => e.cross_dialect!.status),
        ['same', 'error', 'error', 'error'],
      );
      assert.ok(audit.cross_dialect!.server_lost);
    } finally {
      doomed.stop();
    }
  });
});
