// snake_case in every JSON the command line writes: the conversion at the output boundary (cli/jsonCase.ts), and
// every command's real --json output (the built CLI in real processes, the shared BIRD databases, a loopback chat
// server for the judge, a throwaway PostgreSQL cluster where one can be started) walked for camelCase field names.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { snakeCaseJson, snakeCaseKey } from '../../src/cli/jsonCase';
import { localClusterMissing, LocalCluster, startLocalCluster } from '../../src/core/db/postgres/localCluster';
import { FakeChatServer, proverReply, refuterReply, roleOf, startChatServer } from '../fakeChatServer';
import { BIRD_DATA, birdDataMissing, CLI, cliEnv, tempDir } from '../helpers';

describe('snakeCaseJson: field names at the JSON output boundary', () => {
  it('converts camelCase field names and leaves every other key as it is', () => {
    const pairs: [string, string][] = [
      ['realTable', 'real_table'],
      ['logSe', 'log_se'],
      ['rowsRemovedByFilter', 'rows_removed_by_filter'],
      ['actualStartupMs', 'actual_startup_ms'],
      ['sqlURL', 'sql_url'],
      ['parseURLText', 'parse_url_text'],
      ['onlyA', 'only_a'],
      ['db_id', 'db_id'],
      ['EX', 'EX'],
      ['F1', 'F1'],
      ['0.75', '0.75'],
      ['Node Type', 'Node Type'],
      ['CDSCode', 'CDSCode'],
    ];
    for (const [key, expected] of pairs) assert.equal(snakeCaseKey(key), expected, key);
  });

  it('keeps the keys of data-keyed objects (and converts what is under them), calls toJSON, keeps order', () => {
    const value = {
      groupCount: 2,
      summary: { veryHard: { rowCount: 1 }, simple: { rowCount: 2 } },
      questions: [{ byScale: { '2': 1.5 }, techniques: { someTechnique: { EX: 1 } } }, { when: new Date(0) }],
    };
    const converted = snakeCaseJson(value, { dataKeyed: ['summary', 'questions[].techniques'] });
    assert.deepEqual(converted, {
      group_count: 2,
      summary: { veryHard: { row_count: 1 }, simple: { row_count: 2 } },
      questions: [{ by_scale: { '2': 1.5 }, techniques: { someTechnique: { EX: 1 } } }, { when: '1970-01-01T00:00:00.000Z' }],
    });
    assert.deepEqual(Object.keys(converted as object), ['group_count', 'summary', 'questions']);
    // A pattern matches its own place only: a `techniques` elsewhere has field names, converted.
    assert.deepEqual(snakeCaseJson({ inputs: { techniques: { penalizeExtra: true } } }, { dataKeyed: ['questions[].techniques'] }), {
      inputs: { techniques: { penalize_extra: true } },
    });
    assert.deepEqual(snakeCaseJson({ a: { x: { keepMe: 1 } } }, { dataKeyed: ['a.*'] }), { a: { x: { keepMe: 1 } } });
  });

  it('refuses two fields that would end with the same name instead of dropping one', () => {
    assert.throws(
      () => snakeCaseJson({ rowCount: 1, row_count: 2 }),
      /fields "row_count" and another both become "row_count"|both become "row_count"/,
    );
  });
});

/** Objects whose keys are data (difficulty groups, technique names, scale factors, tables, branches, metrics, kinds). */
const DATA_KEYED_BY_NAME = new Set([
  'summary',
  'techniques',
  'rves_bucket_probabilities',
  'time_ratio_by_scale',
  'rows_by_table',
  'ex_fragile_by_kind',
  'by_kind',
  'by_scale',
  'by_branch',
  'branches',
  'deltas',
]);
const CAMEL = /^[a-z][a-z0-9]*[A-Z]/;

/** Every camelCase field name in a JSON value, with where it is; the keys of data-keyed objects are not field names. */
function camelFields(value: unknown, at = '$', keysAreData = false): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => camelFields(item, `${at}[]`, keysAreData));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(!keysAreData && CAMEL.test(key) ? [`${at}.${key}`] : []),
    ...camelFields(inner, `${at}.${key}`, !keysAreData && DATA_KEYED_BY_NAME.has(key)),
  ]);
}

/** Every field name in a JSON value, at any depth. */
function fieldNames(value: unknown): Set<string> {
  const names = new Set<string>();
  const walk = (inner: unknown): void => {
    if (Array.isArray(inner)) inner.forEach(walk);
    else if (typeof inner === 'object' && inner !== null)
      for (const [key, child] of Object.entries(inner)) {
        names.add(key);
        walk(child);
      }
  };
  walk(value);
  return names;
}

/** The built CLI in a real process; asynchronous, so the loopback chat server answers from this process. */
function run(args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv({ OPENAI_API_KEY: '' }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs a command with `--json` (standard output), checks it succeeded, and returns the parsed JSON. */
async function jsonOf(args: readonly string[]): Promise<unknown> {
  const result = await run([...args, '--json']);
  assert.equal(result.status, 0, `${args[0]}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

function assertSnakeCase(command: string, value: unknown): void {
  assert.deepEqual(camelFields(value), [], `${command} --json has camelCase field names`);
}

describe('every command writes snake_case JSON (real processes, the shared BIRD databases)', () => {
  const skip = birdDataMissing();
  const dir = tempDir('ves-lens-snake-');
  const databases = path.join(BIRD_DATA, 'databases');
  const superhero = path.join(databases, 'superhero', 'superhero.sqlite');
  const schema = path.join(BIRD_DATA, 'schema', 'dev_tables.json');
  const files = {
    questions: path.join(dir, 'questions.json'),
    predictions: path.join(dir, 'predictions.json'),
    worse: path.join(dir, 'worse.json'),
    report: path.join(dir, 'eval.json'),
    worseReport: path.join(dir, 'worse-eval.json'),
    judged: path.join(dir, 'judged.json'),
    labels: path.join(dir, 'labels.json'),
    candidates: path.join(dir, 'candidates.sql'),
    batchCandidates: path.join(dir, 'batch-candidates.json'),
    statements: path.join(dir, 'statements.sql'),
  };
  const scoring = () => ['--questions', files.questions, '--db-root', databases];
  let server: FakeChatServer;

  before(async () => {
    if (skip) return;
    // Four mini-dev questions of two shared databases with the official GPT-4 predictions for them (toxicology's
    // golds take the audit's measurements minutes); one question's difficulty is `veryHard`, a camelCase group name:
    // data, kept as it is in every summary.
    const all = JSON.parse(fs.readFileSync(path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'), 'utf8')) as {
      db_id: string;
      difficulty: string;
    }[];
    const official = JSON.parse(
      fs.readFileSync(path.join(BIRD_DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json'), 'utf8'),
    ) as Record<string, string>;
    const picked = ['superhero', 'student_club'].flatMap((db) =>
      all
        .map((question, index) => ({ question, index }))
        .filter(({ question }) => question.db_id === db)
        .slice(0, 4),
    );
    picked[0].question = { ...picked[0].question, difficulty: 'veryHard' };
    fs.writeFileSync(files.questions, JSON.stringify(picked.map(({ question }) => question)));
    const predictions = Object.fromEntries(picked.map(({ index }, position) => [String(position), official[String(index)]]));
    fs.writeFileSync(files.predictions, JSON.stringify(predictions));
    const worse = Object.fromEntries(
      Object.entries(predictions).map(([k, v], i) => [k, i % 3 === 0 ? v.replace(/^[^\t]*/, 'SELECT 0') : v]),
    );
    fs.writeFileSync(files.worse, JSON.stringify(worse));
    fs.writeFileSync(
      files.candidates,
      'SELECT superhero_name FROM superhero WHERE height_cm > 200;\nSELECT superhero_name FROM superhero WHERE height_cm + 0 > 200;\n',
    );
    fs.writeFileSync(
      files.statements,
      [
        'SELECT T1.superhero_name FROM superhero AS T1 WHERE EXISTS (SELECT 1 FROM hero_power AS T2 WHERE T2.hero_id = T1.id AND T2.power_id = 18)',
        'SELECT COUNT(*) FROM superhero WHERE height_cm > 180',
        'SELECT s.superhero_name, c.colour FROM superhero s JOIN colour c ON s.eye_colour_id = c.id WHERE s.weight_kg > 300',
      ].join(';\n') + ';\n',
    );
    server = await startChatServer((request) => ({ content: roleOf(request) === 'refuter' ? refuterReply(false) : proverReply(true) }));
  });
  after(() => server?.close());

  it('eval (every metric, techniques, scales, counterexamples), merge and compare', async (t) => {
    if (skip) return t.skip(skip);
    const evalArgs = [...scoring(), '--predictions', files.predictions, '--no-progress'];
    const full = await run([
      'eval',
      ...evalArgs,
      '--techniques',
      'all',
      '--scales',
      '2',
      '--schema',
      schema,
      '--counterexamples',
      path.join(dir, 'counterexamples'),
      '--counterexample-seconds',
      '0.3',
      '--json',
      files.report,
    ]);
    assert.equal(full.status, 0, full.stderr);
    const report = JSON.parse(fs.readFileSync(files.report, 'utf8'));
    assertSnakeCase('eval', report);
    assert.ok(report.summary.veryHard, 'the difficulty group veryHard keeps its name');
    assert.ok(report.summary.total.techniques.execution_accuracy, 'technique names are kept');
    assert.ok(report.questions.some((q: { time_ratio_by_scale?: object }) => q.time_ratio_by_scale && '2' in q.time_ratio_by_scale));
    assert.ok(fieldNames(report).has('rves_bucket_probabilities'));

    const worse = await run([
      'eval',
      ...evalArgs.map((a) => (a === files.predictions ? files.worse : a)),
      '--metrics',
      'ex,f1',
      '--json',
      files.worseReport,
    ]);
    assert.equal(worse.status, 0, worse.stderr);
    const comparison = await jsonOf(['compare', files.report, files.worseReport]);
    assertSnakeCase('compare', comparison);
    assert.ok((comparison as { runs: { summary: object }[] }).runs.every((r) => 'veryHard' in r.summary));

    const shards = [0, 1].map((i) => path.join(dir, `shard-${i}.json`));
    for (const [i, shard] of ['1/2', '2/2'].entries()) {
      const result = await run(['eval', ...evalArgs, '--metrics', 'ex', '--shard', shard, '--json', shards[i]]);
      assert.equal(result.status, 0, result.stderr);
    }
    const merged = await jsonOf(['merge', ...shards]);
    assertSnakeCase('merge', merged);
    assert.ok('veryHard' in (merged as { summary: object }).summary);
  });

  it('audit (measured, scaled, correctness), judge and agree', async (t) => {
    if (skip) return t.skip(skip);
    const audit = await jsonOf([
      'audit',
      ...scoring(),
      '--predictions',
      files.predictions,
      '--scales',
      '2',
      '--schema',
      schema,
      '--correctness',
    ]);
    assertSnakeCase('audit', audit);

    const judged = await run([
      'judge',
      ...scoring(),
      '--predictions',
      files.predictions,
      '--endpoint',
      server.url,
      '--model',
      'scripted',
      '--cache-dir',
      path.join(dir, 'judge-cache'),
      '--no-progress',
      '--json',
      files.judged,
    ]);
    assert.equal(judged.status, 0, judged.stderr);
    const judge = JSON.parse(fs.readFileSync(files.judged, 'utf8'));
    assertSnakeCase('judge', judge);
    assert.ok('veryHard' in judge.summary);

    const labels = judge.questions.map((q: { question_id: number; predicted_sql: string }, i: number) => ({
      question_id: q.question_id,
      predicted_sql: q.predicted_sql,
      label: i % 2 === 0,
    }));
    fs.writeFileSync(files.labels, JSON.stringify(labels));
    for (const verdicts of [files.judged, files.report])
      assertSnakeCase('agree', await jsonOf(['agree', '--labels', files.labels, '--verdicts', verdicts]));
  });

  it('explain, indexes --measure, hints --verify --scales, rerank (one question and a question file), scale', async (t) => {
    if (skip) return t.skip(skip);
    const explain = await jsonOf(['explain', '--db', superhero, '--file', files.statements]);
    assertSnakeCase('explain', explain);
    const scan = (explain as { plans: { nodes: { real_table?: string; row_count?: number }[] }[] }).plans[0].nodes[0];
    assert.equal(scan.real_table, 'superhero', 'realTable is real_table, its value kept');
    assert.equal(scan.row_count, 750);

    const indexes = await jsonOf(['indexes', '--db', superhero, 'SELECT * FROM superhero WHERE height_cm = 180', '--measure']);
    assertSnakeCase('indexes', indexes);
    assert.ok(fieldNames(indexes).has('create_sql') && fieldNames(indexes).has('gold_ms'));

    const hints = await jsonOf(['hints', '--db', superhero, '--file', files.statements, '--verify', '--scales', '1,2']);
    assertSnakeCase('hints', hints);
    assert.ok(fieldNames(hints).has('same_set') && fieldNames(hints).has('by_scale'));

    assertSnakeCase('rerank', await jsonOf(['rerank', '--db', superhero, '--candidates', files.candidates]));
    const batch = await jsonOf(['rerank', ...scoring(), '--predictions', files.predictions, files.worse, '--measure', '--no-progress']);
    assertSnakeCase('rerank --questions', batch);

    const scaled = await jsonOf(['scale', superhero, '--factor', '2', '--out', path.join(dir, 'superhero-x2.sqlite'), '--no-progress']);
    assertSnakeCase('scale', scaled);
  });

  it('on PostgreSQL: load, explain --analyze, hints --verify (the planner fields)', async (t) => {
    const missing = skip || localClusterMissing();
    if (missing) return t.skip(missing);
    let cluster: LocalCluster | undefined;
    try {
      cluster = startLocalCluster({ database: 'bird' });
      const url = cluster.url;
      const loaded = await jsonOf(['load', '--from', databases, '--db', 'superhero', '--to', url, '--no-progress']);
      assertSnakeCase('load', loaded);
      assert.equal((loaded as { databases: { db_id: string }[] }).databases[0].db_id, 'superhero');

      const explain = await jsonOf(['explain', '--db-url', url, '--analyze', '--file', files.statements]);
      assertSnakeCase('explain --analyze (PostgreSQL)', explain);
      assert.ok(fieldNames(explain).has('node_type') && fieldNames(explain).has('total_cost'));

      const hints = await jsonOf(['hints', '--db-url', url, '--verify', 'SELECT count(*) FROM superhero WHERE height_cm > 180']);
      assertSnakeCase('hints --verify (PostgreSQL)', hints);
      assert.ok(fieldNames(hints).has('same_plan'));
    } finally {
      cluster?.stop();
    }
  });
});
