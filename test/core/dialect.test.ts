// The SQL dialect of a gold or prediction file (core/sql/dialect.ts), measured on every file of the shared mini-dev
// data: each gold and question file read as its own dialect, no prediction file taken for another dialect, and the
// confusion table printed (undecided: too mixed to say, nothing refused for it). Then eval as users run it: a
// mismatch with the engine refused (exit 2) with the --engine to pass, and --dialect-check off scoring anyway.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { loadGold } from '../../src/core/bird/gold';
import { loadPredictions } from '../../src/core/bird/predictions';
import { Dialect, DIALECTS, readDialect } from '../../src/core/sql/dialect';
import { BIRD_DATA, birdDataMissing, runCli } from '../helpers';

interface Measured {
  file: string;
  expected: Dialect;
  read: Dialect | 'undecided';
}

/** Every gold file, question file and prediction file of mini-dev, with the dialect its name says. */
function measure(): Measured[] {
  const dialectOf = (name: string): Dialect => (/mysql/i.test(name) ? 'mysql' : /postgres/i.test(name) ? 'postgres' : 'sqlite');
  const files: { file: string; queries: string[] }[] = [];
  const questions = path.join(BIRD_DATA, 'questions');
  for (const name of fs.readdirSync(questions).sort()) {
    const file = path.join(questions, name);
    if (name.endsWith('.sql')) files.push({ file, queries: loadGold(file).entries.map((entry) => entry?.sql ?? '') });
    else files.push({ file, queries: (JSON.parse(fs.readFileSync(file, 'utf8')) as { SQL?: string }[]).map((q) => q.SQL ?? '') });
  }
  const predictions = path.join(BIRD_DATA, 'predictions');
  for (const folder of fs
    .readdirSync(predictions)
    .filter((name) => name.startsWith('minidev-'))
    .sort())
    for (const name of fs.readdirSync(path.join(predictions, folder)).sort()) {
      const file = path.join(predictions, folder, name);
      files.push({ file, queries: loadPredictions(file).predictions.map((p) => p.sql) });
    }
  return files.map(({ file, queries }) => ({
    file: path.relative(BIRD_DATA, file),
    expected: dialectOf(path.relative(BIRD_DATA, file)),
    read: readDialect(queries).dialect ?? 'undecided',
  }));
}

describe('the dialect of the shared mini-dev files', { skip: birdDataMissing() }, () => {
  it('reads every gold and question file as its dialect, never a prediction file as another; prints the confusion table', (t) => {
    const measured = measure();
    const columns = [...DIALECTS, 'undecided'] as const;
    const table = [`${'file is \\ read as'.padEnd(20)}${columns.map((c) => c.padStart(11)).join('')}`];
    for (const expected of DIALECTS)
      table.push(
        expected.padEnd(20) +
          columns.map((read) => String(measured.filter((m) => m.expected === expected && m.read === read).length).padStart(11)).join(''),
      );
    t.diagnostic(`dialect confusion over ${measured.length} files:`);
    for (const line of table) t.diagnostic(line);
    for (const m of measured.filter((x) => x.read !== x.expected)) t.diagnostic(`${m.file}: ${m.read}`);

    const goldAndQuestions = measured.filter((m) => m.file.startsWith('questions'));
    assert.ok(goldAndQuestions.length >= 11);
    assert.deepEqual(
      goldAndQuestions.filter((m) => m.read !== m.expected),
      [],
    );
    const predictions = measured.filter((m) => m.file.startsWith('predictions'));
    assert.equal(predictions.length, 10);
    assert.deepEqual(
      predictions.filter((m) => m.read !== m.expected && m.read !== 'undecided'),
      [],
      'no prediction file is taken for another dialect',
    );
    assert.ok(predictions.filter((m) => m.read === m.expected).length >= 7, 'most prediction files are recognised');
    for (const dialect of DIALECTS)
      assert.ok(
        predictions.some((m) => m.expected === dialect && m.read === dialect),
        `a ${dialect} prediction file is recognised`,
      );
  });

  it('says nothing about plain SQL every engine runs, or a few queries', () => {
    assert.equal(readDialect(['SELECT COUNT(*) FROM superhero', 'SELECT name FROM hero WHERE id = 1']).dialect, undefined);
    assert.equal(readDialect(['SELECT IFNULL(a, 0) FROM t']).dialect, undefined);
  });
});

describe('eval refuses SQL of another dialect than its engine', { skip: birdDataMissing() }, () => {
  const file = (...parts: string[]) => path.join(BIRD_DATA, ...parts);
  const evalOn = (questions: string, gold: string | undefined, predictions: string, ...more: string[]) =>
    runCli([
      'eval',
      '--questions',
      file('questions', questions),
      ...(gold ? ['--gold', file('questions', gold)] : []),
      '--predictions',
      file('predictions', predictions),
      '--db-root',
      file('databases'),
      '--metrics',
      'ex',
      '--no-progress',
      ...more,
    ]);

  it("MySQL's gold and predictions on SQLite (no --engine): refused, --engine mysql suggested", () => {
    const run = evalOn('mini_dev_mysql.json', 'mini_dev_mysql_gold.sql', 'minidev-mysql/predict_mini_dev_gpt-4_mysql.json');
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /--gold \S*mini_dev_mysql_gold\.sql reads as MySQL SQL \(backquoted names in 489 of 500 queries/);
    assert.match(run.stderr, /the engine is SQLite: pass --engine mysql --db-url mysql:\/\//);
    assert.doesNotMatch(run.stdout + run.stderr, /EX|wrote/);
  });

  it("PostgreSQL's gold or predictions on SQLite: refused, --engine postgres suggested", () => {
    for (const [gold, predictions, what] of [
      ['mini_dev_postgresql_gold.sql', 'minidev-postgresql/predict_mini_dev_gpt-4_postgresql.json', '--gold'],
      [undefined, 'minidev-postgresql/predict_mini_dev_gpt-4_postgresql.json', '--predictions'],
    ] as const) {
      const run = evalOn('mini_dev_sqlite.v1-2024.json', gold, predictions);
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, new RegExp(`${what} \\S+ reads as PostgreSQL SQL .*the engine is SQLite: pass --engine postgres`));
    }
  });

  it('audit refuses a MySQL gold on SQLite too', () => {
    const run = runCli(
      ['audit', '--questions', file('questions', 'mini_dev_mysql.json'), '--gold', file('questions', 'mini_dev_mysql_gold.sql')].concat([
        '--db-root',
        file('databases'),
        '--no-measure',
        '--no-progress',
      ]),
    );
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /--gold \S+ reads as MySQL SQL .*pass --engine mysql/);
  });

  it('--dialect-check off scores them on SQLite anyway; the matching files are not refused', () => {
    const off = evalOn(
      'mini_dev_sqlite.v1-2024.json',
      undefined,
      'minidev-postgresql/predict_mini_dev_gpt-4_postgresql.json',
      '--dialect-check',
      'off',
    );
    assert.equal(off.status, 0, off.stderr);
    const same = evalOn(
      'mini_dev_sqlite.v1-2024.json',
      'mini_dev_sqlite_gold.v1-2024.sql',
      'minidev-official/predict_mini_dev_gpt-4_sqlite.json',
    );
    assert.equal(same.status, 0, same.stderr);
  });
});
