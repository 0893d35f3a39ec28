import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BIRD_SEPARATOR } from '../../src/core/bird/predictions';
import { BIRD_DATA, birdDataMissing, REPO_ROOT, runCli, tempDir } from '../helpers';

/**
 * Issue 8: inputs and verdicts that never mislead. Each test runs the real command line on files a new user
 * could give it, broken ones included, and checks the exit code, the message and what is scored.
 */

const SAMPLE = path.join(REPO_ROOT, 'sample');
const QUESTIONS = path.join(SAMPLE, 'mini_dev_superhero.json');
const GOLD = path.join(SAMPLE, 'mini_dev_superhero_gold.sql');
const PREDICTIONS = path.join(SAMPLE, 'predict_gpt-4_superhero.json');
const DB = path.join(SAMPLE, 'superhero', 'superhero.sqlite');

const run = (args: string[]) => runCli(args, { timeout: 120_000 });

/** No stack trace: no "    at fn (file.js:1:2)" lines. */
function assertNoStack(text: string) {
  assert.doesNotMatch(text, /^\s+at .*(\.js|\.ts|node:internal)/m, `stack trace in:\n${text}`);
}

function write(dir: string, name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

const questions = (n: number) => JSON.parse(fs.readFileSync(QUESTIONS, 'utf8')).slice(0, n) as Record<string, unknown>[];
const predictionObject = () => JSON.parse(fs.readFileSync(PREDICTIONS, 'utf8')) as Record<string, string>;
const evalArgs = (q: string, p: string, extra: string[] = []) => [
  'eval',
  '--questions',
  q,
  '--predictions',
  p,
  '--db-root',
  SAMPLE,
  '--metrics',
  'ex',
  '--no-progress',
  ...extra,
];

describe("item 1: a NUL character in SQL is that question's error, in every input format", () => {
  const NUL_MESSAGE = 'the query contains a null character';

  it("official object, JSON list, and one-SQL-a-line predictions: prediction error with Python's message, the rest scored", () => {
    const dir = tempDir();
    const q = write(dir, 'q.json', JSON.stringify(questions(4)));
    const object = predictionObject();
    object['1'] = `SELECT superhero_name\u0000 FROM superhero${BIRD_SEPARATOR}superhero`;
    const list = questions(4).map((x, i) => ({
      question_id: x.question_id,
      predicted_sql: i === 1 ? 'SELECT 1 -- \u0000' : String(x.SQL),
    }));
    const lines =
      questions(4)
        .map((x, i) => (i === 1 ? 'SELECT \0 1' : String(x.SQL)))
        .join('\n') + '\n';
    for (const file of [
      write(dir, 'object.json', JSON.stringify(object)),
      write(dir, 'list.json', JSON.stringify(list)),
      write(dir, 'lines.sql', lines),
    ]) {
      const json = path.join(dir, 'out.json');
      const result = run(evalArgs(q, file, ['--json', json]));
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stdout, /│ EX/, `the table is printed for ${file}`);
      assertNoStack(result.stderr);
      const report = JSON.parse(fs.readFileSync(json, 'utf8'));
      assert.equal(report.questions[1].outcome, 'prediction_error');
      assert.equal(report.questions[1].error, NUL_MESSAGE);
      assert.equal(report.questions.length, 4);
      assert.ok(report.questions.filter((r: { outcome: string }) => r.outcome === 'correct').length >= 2, 'the other questions are scored');
    }
  });

  it("a NUL in gold SQL (question file or gold file) is that question's gold error", () => {
    const dir = tempDir();
    const qs = questions(3);
    qs[0].SQL = 'SELECT 1\u0000';
    const q = write(dir, 'q.json', JSON.stringify(qs));
    const json = path.join(dir, 'out.json');
    let result = run(evalArgs(q, PREDICTIONS, ['--json', json]));
    assert.equal(result.status, 0, result.stderr);
    let report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.equal(report.questions[0].outcome, 'gold_error');
    assert.match(report.questions[0].error, /gold: the query contains a null character/);

    const gold = fs.readFileSync(GOLD, 'utf8').split('\n').slice(0, 3);
    gold[2] = gold[2].replace('SELECT', 'SELECT \0');
    result = run(
      evalArgs(write(dir, 'q2.json', JSON.stringify(questions(3))), PREDICTIONS, [
        '--gold',
        write(dir, 'gold.sql', gold.join('\n') + '\n'),
        '--json',
        json,
      ]),
    );
    assert.equal(result.status, 0, result.stderr);
    report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.equal(report.questions[2].outcome, 'gold_error');
    assert.equal(report.questions[0].outcome, 'correct');
  });

  it('rerank, explain and hints report a NUL candidate and go on', () => {
    const dir = tempDir();
    const candidates = write(dir, 'c.json', JSON.stringify(['SELECT 1\u0000', 'SELECT COUNT(*) FROM superhero']));
    let result = run(['rerank', '--db', DB, '--candidates', candidates, '--json']);
    assert.equal(result.status, 0, result.stderr);
    const ranked = JSON.parse(result.stdout).ranked;
    assert.equal(ranked.length, 2);
    assert.equal(ranked[1].error, NUL_MESSAGE);
    // (A command-line argument cannot hold a NUL: files can.)
    result = run(['explain', '--db', DB, '--file', write(dir, 'e.sql', 'SELECT 1\0;\nSELECT 2;\n')]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /no plan: the query contains a null character/);
    const file = write(dir, 'q.sql', "SELECT id FROM superhero WHERE superhero_name LIKE 'A\0';\nSELECT 1;\n");
    result = run(['hints', '--db', DB, '--file', file, '--verify']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /original does not run: the query contains a null character/);
  });
});

describe('item 2: mis-paired files are said at the top and under the tables, never cut off', () => {
  const headline = /5 predictions for 52 questions: paired by position, 47 questions have no prediction/;

  it('a shorter file', () => {
    const dir = tempDir();
    const lines = write(
      dir,
      'short.txt',
      questions(5)
        .map((x) => x.SQL)
        .join('\n') + '\n',
    );
    const json = path.join(dir, 'out.json');
    const result = run(evalArgs(QUESTIONS, lines, ['--json', json]));
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, headline, 'at the top (before scoring starts)');
    const [, under] = result.stdout.split(/└[─┴]+┘\n(?!┌)/);
    assert.match(under ?? '', headline, 'again under the tables');
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.match(report.problems[0], headline, 'first in the JSON problems');
    assert.match(report.headline_problems[0], headline);
  });

  it('stays visible when the single entries have more problems than are listed (the 55-warning case)', () => {
    const dir = tempDir();
    const object: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) object[String(i)] = i < 30 ? 42 : `SELECT 1${BIRD_SEPARATOR}superhero`;
    const result = run(evalArgs(QUESTIONS, write(dir, 'p.json', JSON.stringify(object))));
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /40 predictions for 52 questions: paired by position, 12 questions have no prediction/);
    assert.match(result.stdout, /\.\.\. and 18 more \(all in --json\)/, 'the single-entry problems are the ones cut off');
    assert.ok(
      result.stdout.indexOf('40 predictions for 52') < result.stdout.indexOf('input problems in single entries'),
      'the headline comes first',
    );
  });

  it('an empty JSON list, and a 0-byte .txt', () => {
    const dir = tempDir();
    for (const [name, content, what] of [
      ['empty.json', '[]', 'an empty list or object'],
      ['empty.txt', '', 'empty'],
    ] as const) {
      const result = run(evalArgs(QUESTIONS, write(dir, name, content)));
      assert.equal(result.status, 0, result.stderr);
      const message = new RegExp(`no predictions \\(the file is ${what}\\) for 52 questions: every question scores 0`);
      assert.match(result.stderr, message);
      assert.match(result.stdout, message);
    }
  });

  it('predictions naming other databases (a file for another question set)', () => {
    const dir = tempDir();
    const object = predictionObject();
    for (const key of Object.keys(object)) object[key] = object[key].replace(/superhero$/, 'california_schools');
    const result = run(evalArgs(QUESTIONS, write(dir, 'p.json', JSON.stringify(object))));
    assert.equal(result.status, 0, result.stderr);
    assert.match(
      result.stderr,
      /52 of 52 predictions name another database than their question \(first: key "0" names california_schools, question 717 is on superhero\)/,
    );
  });

  it('a mini-dev prediction file given with the dev questions', { skip: birdDataMissing() }, () => {
    const predictions = path.join(BIRD_DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json');
    const result = run([
      'eval',
      '--questions',
      path.join(BIRD_DATA, 'questions', 'dev.rose.json'),
      '--predictions',
      predictions,
      '--db-root',
      path.join(BIRD_DATA, 'databases'),
      '--metrics',
      'ex',
      '--no-progress',
    ]);
    assert.equal(result.status, 0, result.stderr);
    for (const text of [result.stderr, result.stdout]) {
      assert.match(text, /500 predictions for 1534 questions: paired by position, 1034 questions have no prediction/);
      assert.match(text, /of 500 predictions name another database than their question/);
    }
  });
});

/** A BIRD tables file (as dev_tables.json): a database's tables and columns, no SQL. */
const TABLES = [{ db_id: 'superhero', table_names_original: ['superhero'], column_names_original: [[-1, '*']] }];

describe('item 3: a file that is no prediction file stops with exit 2 and says what it is', () => {
  it('a SQLite database, a binary file, the question file itself, a BIRD tables file, {}', () => {
    const dir = tempDir();
    const binary = write(dir, 'noise.bin', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)));
    const cases: [string, RegExp][] = [
      [DB, /superhero\.sqlite: a SQLite database, not a prediction file/],
      [binary, /noise\.bin: a binary file, not a prediction file/],
      [QUESTIONS, /mini_dev_superhero\.json: a BIRD question file .* not a prediction file: scoring it would compare the gold with itself/],
      [write(dir, 'p.json.gz', Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3])), /p\.json\.gz: a gzip archive, not a prediction file/],
      [
        write(dir, 'utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('SELECT 1\n', 'utf16le')])),
        /utf16\.txt: UTF-16 text \(save it as UTF-8\), not a prediction file/,
      ],
      [write(dir, 'latin1.txt', Buffer.from("SELECT 'café'\n", 'latin1')), /latin1\.txt \(line 1, column 12\): not UTF-8 text/],
      [write(dir, 'empty-object.json', '{}'), /empty-object\.json: an empty JSON object, not a prediction file: it holds no SQL to score/],
      [write(dir, 'dev_tables.json', JSON.stringify(TABLES)), /dev_tables\.json: a BIRD tables file .*not a prediction file/],
    ];
    for (const [file, message] of cases) {
      const result = run(evalArgs(QUESTIONS, file));
      assert.equal(result.status, 2, `${file}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '', 'nothing scored');
      assertNoStack(result.stderr);
    }
  });

  it('the wrong file in the other roles too: a database as questions or gold, JSON as gold, predictions as questions', () => {
    const dir = tempDir();
    const cases: [string[], RegExp][] = [
      [['eval', '--questions', DB, '--predictions', PREDICTIONS, '--db-root', SAMPLE], /a SQLite database, not a question file/],
      [
        ['eval', '--questions', QUESTIONS, '--predictions', PREDICTIONS, '--gold', DB, '--db-root', SAMPLE],
        /a SQLite database, not a gold file/,
      ],
      [['eval', '--questions', QUESTIONS, '--predictions', PREDICTIONS, '--gold', QUESTIONS, '--db-root', SAMPLE], /JSON, not a gold file/],
      [
        ['eval', '--questions', PREDICTIONS, '--predictions', PREDICTIONS, '--db-root', SAMPLE],
        /a question file must be a JSON list .*an object: the official prediction format/,
      ],
      [
        [
          'eval',
          '--questions',
          write(dir, 'list.json', '[{"question_id": 1, "predicted_sql": "SELECT 1"}]'),
          '--predictions',
          PREDICTIONS,
          '--db-root',
          SAMPLE,
        ],
        /not a BIRD question file \(it looks like a prediction file\)/,
      ],
      [['rerank', '--db', DB, '--candidates', DB], /a SQLite database, not a candidate file/],
      [['hints', '--db', DB, '--file', DB], /a SQLite database, not a SQL file/],
      // A question file, or a BIRD gold file (no ";" between its lines: its queries would run together as one).
      [['explain', '--db', DB, '--file', QUESTIONS], /--file: .+ is JSON, not SQL \(a question, prediction or tables file\?\)/],
      [
        ['hints', '--db', DB, '--file', write(dir, 'gold.sql', 'SELECT 1 FROM superhero\tsuperhero\nSELECT 2 FROM superhero\tsuperhero\n')],
        /--file: .+gold\.sql is a BIRD gold file \(one "SQL<TAB>db_id" a line, no ";" between them\)/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = run(args);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assertNoStack(result.stderr);
    }
  });
});

describe('item 4: labels', () => {
  it("Markdown-fenced and garbage predictions are prediction errors with SQLite's message; writes are refused", () => {
    const dir = tempDir();
    const q = write(dir, 'q.json', JSON.stringify(questions(4)));
    const p = write(
      dir,
      'p.json',
      JSON.stringify({ 0: '```sql\nSELECT 1\n```', 1: 'The answer is: SELECT 1', 2: 'DELETE FROM superhero', 3: 'SELECT 1; SELECT 2' }),
    );
    const json = path.join(dir, 'out.json');
    const result = run(evalArgs(q, p, ['--json', json]));
    assert.equal(result.status, 0, result.stderr);
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.deepEqual(
      report.questions.map((r: { outcome: string }) => r.outcome),
      ['prediction_error', 'prediction_error', 'refused', 'refused'],
    );
    assert.equal(report.questions[0].error, 'near "```sql\nSELECT 1\n```": syntax error');
    assert.equal(report.questions[1].error, 'near "The": syntax error');
    assert.match(report.questions[2].error, /only read queries run; this statement is a DELETE/);
    assert.match(report.questions[3].error, /more than one statement/);
  });
});

describe('item 6: gold carried by the prediction file', () => {
  function roseStyle(dir: string, goldOverride: string): string {
    const items = questions(3).map((x, i) => ({
      question_id: x.question_id,
      db_id: x.db_id,
      predicted_sql: String(x.SQL),
      gold_sql: i === 2 ? goldOverride : String(x.SQL),
    }));
    return write(dir, 'rose.json', JSON.stringify(items, null, 1));
  }

  it("says which gold is used, warns where the two differ, and --gold-from predictions scores against the file's", () => {
    const dir = tempDir();
    const q = write(dir, 'q.json', JSON.stringify(questions(3)));
    const p = roseStyle(dir, 'SELECT 42');
    const json = path.join(dir, 'out.json');
    let result = run(evalArgs(q, p, ['--json', json]));
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /gold from the question file's SQL field/);
    assert.match(
      result.stderr,
      /carries its own gold \(gold_sql\) for 3 questions; it differs from the gold used \(the question file's SQL field\) for 1 \(question 723\).*--gold-from predictions/,
    );
    let report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.equal(report.inputs.gold_from, 'questions');
    assert.equal(report.questions[2].outcome, 'correct');
    assert.ok(report.questions[2].notes.some((n: string) => /prediction file's gold differs from the gold used/.test(n)));

    result = run(evalArgs(q, p, ['--json', json, '--gold-from', 'predictions']));
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /gold from the prediction file's gold_sql field/);
    assert.match(
      result.stderr,
      /scored against the prediction file's gold_sql, which differs from the question file's SQL for 1 question \(question 723\)/,
    );
    report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.equal(report.inputs.gold_from, 'predictions');
    assert.equal(report.questions[2].outcome, 'mismatch', 'scored against SELECT 42 now');
    assert.equal(report.questions[0].outcome, 'correct');
  });

  it('--gold-from predictions on a file without gold, or gold-file without --gold, is a usage error', () => {
    let result = run(evalArgs(QUESTIONS, PREDICTIONS, ['--gold-from', 'predictions']));
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--gold-from predictions: .*predict_gpt-4_superhero\.json carries no gold field/);
    result = run(evalArgs(QUESTIONS, PREDICTIONS, ['--gold-from', 'gold-file']));
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--gold-from gold-file: give the gold file with --gold/);
    result = run(evalArgs(QUESTIONS, PREDICTIONS, ['--gold-from', 'mine']));
    assert.equal(result.status, 2);
  });

  it('on ROSE-VEC with the 2023 dev questions, the two golds give different results', { skip: birdDataMissing() }, () => {
    const dir = tempDir();
    const args = [
      'eval',
      '--questions',
      path.join(BIRD_DATA, 'questions', 'dev.damo-2023.json'),
      '--predictions',
      path.join(BIRD_DATA, '..', 'rose', 'rose-vec-bird.json'),
      '--db-root',
      path.join(BIRD_DATA, 'databases'),
      '--metrics',
      'ex',
      '--no-progress',
    ];
    const outcomes = (extra: string[]) => {
      const json = path.join(dir, 'out.json');
      const result = run([...args, '--json', json, ...extra]);
      assert.equal(result.status, 0, result.stderr);
      return { stderr: result.stderr, questions: JSON.parse(fs.readFileSync(json, 'utf8')).questions as { outcome: string; ex: number }[] };
    };
    const questionsGold = outcomes([]);
    assert.match(questionsGold.stderr, /carries its own gold \(gold_sql\) for 322 questions; it differs from the gold used/);
    const fileGold = outcomes(['--gold-from', 'predictions']);
    const flipped = questionsGold.questions.filter((q, i) => q.ex !== fileGold.questions[i].ex);
    assert.ok(flipped.length >= 2, `${flipped.length} results flip with the other gold`);
  });
});

describe('item 7: outputs are checked before running; a wrong --db is named', () => {
  it('an unwritable --json path stops at once with exit 2, before any scoring', () => {
    const dir = tempDir();
    for (const [json, message] of [
      [path.join(dir, 'no', 'such', 'folder', 'out.json'), /--json: cannot write .*out\.json: folder .* does not exist/],
      [dir, /--json: .* is a folder; give a file name/],
      [PREDICTIONS, /--json: .* is also an input file; writing it would destroy it/],
    ] as const) {
      const started = Date.now();
      const result = run(['eval', '--questions', QUESTIONS, '--predictions', PREDICTIONS, '--db-root', SAMPLE, '--json', json]);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '', 'no table: nothing was scored');
      assert.ok(Date.now() - started < 10_000);
      assertNoStack(result.stderr);
    }
  });

  it('explain (and every --db command) on a file that is not a database names it and says what it is', () => {
    const dir = tempDir();
    const truncated = write(dir, 'cut.sqlite', fs.readFileSync(DB).subarray(0, 300));
    const corrupt = fs.readFileSync(DB);
    corrupt.fill(0x41, 100, 4096); // page 1 (the schema) overwritten
    const cases: [string, RegExp][] = [
      [QUESTIONS, /mini_dev_superhero\.json: a JSON file, not a SQLite database/],
      [GOLD, /mini_dev_superhero_gold\.sql: a text file \(it starts with "SELECT/],
      [write(dir, 'empty.sqlite', ''), /empty\.sqlite: empty \(0 bytes\), not a SQLite database/],
      [dir, /a folder, not a SQLite database/],
      [path.join(dir, 'absent.sqlite'), /absent\.sqlite: file not found/],
      [truncated, /cut\.sqlite: cut short \(300 bytes\)/],
      [write(dir, 'corrupt.sqlite', corrupt), /corrupt\.sqlite: .*(malformed|not a database)/],
    ];
    for (const [file, message] of cases) {
      for (const command of ['explain', 'hints', 'indexes']) {
        const result = run([command, '--db', file, 'SELECT 1']);
        assert.equal(result.status, 2, `${command} ${file}: ${result.stderr}`);
        assert.match(result.stderr, message);
        assertNoStack(result.stderr);
      }
    }
  });
});

describe('item 8: one exit rule for every command', () => {
  it("commander's own usage errors exit 2, help and version exit 0", () => {
    const cases: [string[], number, RegExp][] = [
      [['eval', '--questions', QUESTIONS], 2, /required option '--predictions <file>' not specified/],
      [['eval', '--questions', QUESTIONS, '--predictions', PREDICTIONS, '--db-root', SAMPLE, '--bogus'], 2, /unknown option '--bogus'/],
      [
        ['eval', '--questions', QUESTIONS, '--predictions', PREDICTIONS, '--db-root', SAMPLE, '--timing', 'slow'],
        2,
        /argument 'slow' is invalid/,
      ],
      [['explain', 'SELECT 1'], 2, /required option '--db <file>'/],
      [['rerank', '--db', DB], 2, /required option '--candidates <file>'/],
      [['hints', '--db', DB], 2, /give the SQL to work on, or --file/],
      [['nosuch'], 2, /unknown command 'nosuch'/],
      [[], 2, /Usage: ves-lens/],
      [['--help'], 0, /Usage: ves-lens/],
      [['eval', '--help'], 0, /--gold-from/],
      [['--version'], 0, /^\d+\.\d+\.\d+/],
    ];
    for (const [args, code, message] of cases) {
      const result = run(args);
      assert.equal(result.status, code, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stdout + result.stderr, message, args.join(' '));
      assertNoStack(result.stderr);
    }
  });

  it('input errors name the file and line; --debug (or VES_LENS_DEBUG) adds the stack trace', () => {
    const dir = tempDir();
    const bad = write(dir, 'bad.json', '[\n {"question_id": 1,\n  "db_id": superhero}\n]');
    let result = run(['eval', '--questions', bad, '--predictions', PREDICTIONS, '--db-root', SAMPLE]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /bad\.json \(line 3, column \d+\): not valid JSON/);
    assertNoStack(result.stderr);
    result = run(['eval', '--questions', bad, '--predictions', PREDICTIONS, '--db-root', SAMPLE, '--debug']);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^\s+at /m, 'the stack with --debug');
  });

  it('a failed question or a statement without a plan is no error of the command: exit 0', () => {
    assert.equal(run(['explain', '--db', DB, 'SELECT nope']).status, 0);
    const result = run(['rerank', '--db', DB, '--candidates', write(tempDir(), 'c.sql', 'SELECT nope;\nSELECT 1;')]);
    assert.equal(result.status, 0, result.stderr);
  });
});

describe('item 9: option values are checked before any work', () => {
  it('rejects non-numbers, zero, negatives, fractions where a count is meant, and limits no timer can hold', () => {
    const cases: [string[], RegExp][] = [
      [['hints', '--db', DB, '--timeout', 'abc', 'SELECT 1'], /--timeout: expected a positive number, got "abc"/],
      [['hints', '--db', DB, '--max-rows', '0', 'SELECT 1'], /--max-rows: expected a positive number, got "0"/],
      [['indexes', '--db', DB, '--timeout', '-5', 'SELECT 1'], /--timeout: expected a positive number, got "-5"/],
      [['rerank', '--db', DB, '--candidates', PREDICTIONS, '--max-rows', '1.5'], /--max-rows: expected a positive whole number, got "1.5"/],
      [['rerank', '--db', DB, '--candidates', PREDICTIONS, '--timeout', ''], /--timeout: expected a positive number, got ""/],
      [[...evalArgs(QUESTIONS, PREDICTIONS), '--timeout', '1e99'], /--timeout: at most \d+ seconds, got "1e99"/],
      [[...evalArgs(QUESTIONS, PREDICTIONS), '--timeout', 'NaN'], /--timeout: expected a positive number, got "NaN"/],
      [[...evalArgs(QUESTIONS, PREDICTIONS), '--iterations', 'many'], /--iterations: expected a positive number, got "many"/],
      [[...evalArgs(QUESTIONS, PREDICTIONS), '--max-rows', '0x10'], /--max-rows: expected a positive number, got "0x10"/],
      [
        ['eval', '--questions', QUESTIONS, '--predictions', PREDICTIONS, '--db-root', SAMPLE, '--metrics', ''],
        /--metrics: name at least one metric/,
      ],
      [['eval', '--questions', QUESTIONS, '--predictions', PREDICTIONS, '--db-root', QUESTIONS], /--db-root: not a folder/],
    ];
    for (const [args, message] of cases) {
      const result = run(args);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '', 'nothing ran');
    }
  });
});

describe('item 10: a question without db_id keeps its place, with no false warnings', () => {
  it('the others still pair by position; with --gold its database comes from the gold line, without it is skipped', () => {
    const dir = tempDir();
    const qs = questions(4);
    delete qs[1].db_id;
    const q = write(dir, 'q.json', JSON.stringify(qs, null, 1));
    const gold = write(dir, 'gold.sql', fs.readFileSync(GOLD, 'utf8').split('\n').slice(0, 4).join('\n') + '\n');
    const predictions = write(dir, 'p.json', JSON.stringify(Object.fromEntries(Object.entries(predictionObject()).slice(0, 4))));
    const json = path.join(dir, 'out.json');

    let result = run(evalArgs(q, predictions, ['--gold', gold, '--json', json]));
    assert.equal(result.status, 0, result.stderr);
    let report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.equal(report.questions.length, 4);
    assert.equal(report.questions[1].db_id, 'superhero', 'from its gold line');
    assert.notEqual(report.questions[1].outcome, 'skipped');
    assert.doesNotMatch(result.stdout + result.stderr, /predictions for|gold lines for/, 'no false pairing warning');
    assert.match(result.stdout, /q\.json \(item 1, line \d+\): no "db_id" string; it keeps its place/);

    result = run(evalArgs(q, predictions, ['--json', json]));
    assert.equal(result.status, 0, result.stderr);
    report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.equal(report.questions[1].outcome, 'skipped');
    assert.match(report.questions[1].error, /no db_id in the question file/);
    assert.deepEqual(
      report.questions.map((r: { question_id: number }) => r.question_id),
      qs.map((x) => x.question_id),
      'every question in its place',
    );
    assert.equal(report.questions[2].outcome, 'correct', 'the next question still gets its own prediction');
    assert.match(result.stderr, /1 question has no db_id and no gold line naming a database: skipped \(question 719\)/);
    assert.doesNotMatch(result.stdout + result.stderr, /predictions for/);
  });
});
