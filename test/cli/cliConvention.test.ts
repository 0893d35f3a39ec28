// One command-line convention (real processes, the built CLI): `--json [file]` everywhere (no value or `-`:
// standard output), the value that would silently misread the command line refused, snake_case keys, and
// every command's help with an example.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { REPO_ROOT, runCli, sha256, tempDir } from '../helpers';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const DB = path.join(SAMPLE, 'superhero', 'superhero.sqlite');
const QUERY = 'SELECT superhero_name FROM superhero WHERE height_cm > 200';
const EVAL = [
  'eval',
  '--questions',
  path.join(SAMPLE, 'mini_dev_superhero.json'),
  '--gold',
  path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
  '--db-root',
  SAMPLE,
  '--metrics',
  'ex,f1',
  '--no-progress',
];

/** Every key of a JSON value, at any depth. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
}

describe('--json [file] in every command (real processes)', () => {
  const dir = tempDir('ves-lens-convention-');
  const reports = { a: path.join(dir, 'a.json'), b: path.join(dir, 'b.json') };

  before(() => {
    // Two eval reports: the same predictions, and the predictions with the first 10 replaced by a wrong query.
    const predictions = JSON.parse(fs.readFileSync(path.join(SAMPLE, 'predict_gpt-4_superhero.json'), 'utf8')) as Record<string, string>;
    const worse = Object.fromEntries(Object.entries(predictions).map(([k, v], i) => [k, i < 10 ? v.replace(/^[^\t]*/, 'SELECT 0') : v]));
    fs.writeFileSync(path.join(dir, 'worse.json'), JSON.stringify(worse));
    const first = runCli([...EVAL, '--predictions', path.join(SAMPLE, 'predict_gpt-4_superhero.json'), '--json', reports.a]);
    assert.equal(first.status, 0, first.stderr);
    const second = runCli([...EVAL, '--predictions', path.join(dir, 'worse.json'), '--json', reports.b]);
    assert.equal(second.status, 0, second.stderr);
  });

  it('eval --json alone prints the report on standard output (the tables go to standard error); --json - too', () => {
    for (const flag of [['--json'], ['--json', '-']]) {
      const result = runCli([...EVAL, '--predictions', path.join(SAMPLE, 'predict_gpt-4_superhero.json'), ...flag]);
      assert.equal(result.status, 0, result.stderr);
      const report = JSON.parse(result.stdout);
      const fromFile = JSON.parse(fs.readFileSync(reports.a, 'utf8'));
      // Only the gold-result cache's counts differ: the first run stored the gold results this one takes.
      assert.deepEqual(report, { ...fromFile, tool: report.tool, inputs: { ...fromFile.inputs, gold_cache: report.inputs.gold_cache } });
      assert.match(result.stderr, /│ EX/);
      assert.ok(!fs.existsSync(path.join(REPO_ROOT, '-')), 'no file named "-"');
    }
  });

  it('compare --json FILE writes the comparison and prints the text; --json alone prints only JSON', () => {
    const out = path.join(dir, 'comparison.json');
    const written = runCli(['compare', reports.a, reports.b, '--json', out]);
    assert.equal(written.status, 0, written.stderr);
    assert.match(written.stdout, /EX/);
    assert.match(written.stderr, new RegExp(`wrote ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const fromFile = JSON.parse(fs.readFileSync(out, 'utf8'));
    const printed = runCli(['compare', reports.a, reports.b, '--json']);
    assert.equal(printed.status, 0, printed.stderr);
    assert.deepEqual(JSON.parse(printed.stdout), fromFile);
    assert.ok(fromFile.runs.length === 2 && typeof fromFile.ex_mcnemar_p === 'number');
  });

  it('refuses, before any work, a --json value followed by more inputs: nothing is written or read as a report', () => {
    const hashes = [sha256(reports.a), sha256(reports.b)];
    const result = runCli(['compare', '--json', reports.a, reports.b, reports.b]);
    assert.equal(result.status, 2, result.stderr);
    // The value is quoted shortened when long (a long TMPDIR), then given whole in the way to write that file.
    const said = result.stderr.match(
      /error: --json: "(.*)" would be the file written, yet more compare inputs follow it; write --json=(.*) to write/,
    );
    assert.ok(said, result.stderr);
    assert.ok(said[1] === reports.a || (said[1].endsWith('…') && reports.a.startsWith(said[1].slice(0, -1))), said[1]);
    assert.equal(said[2], reports.a);
    assert.deepEqual([sha256(reports.a), sha256(reports.b)], hashes);
    // Said explicitly, the same file is the output.
    const out = path.join(dir, 'explicit.json');
    assert.equal(runCli(['compare', `--json=${out}`, reports.a, reports.b]).status, 0);
    assert.ok(JSON.parse(fs.readFileSync(out, 'utf8')).runs);
  });

  it('hints, explain and indexes take --json FILE after the query; a query given to --json is refused, not analysed', () => {
    for (const command of ['hints', 'explain', 'indexes']) {
      const out = path.join(dir, `${command}.json`);
      const result = runCli([command, '--db', DB, QUERY, '--json', out]);
      assert.equal(result.status, 0, `${command}: ${result.stderr}`);
      assert.ok(result.stdout.length > 0, `${command} prints its text too`);
      const report = JSON.parse(fs.readFileSync(out, 'utf8'));
      assert.equal(report.tool.name, 'ves-lens');
      const printed = runCli([command, '--db', DB, QUERY, '--json']);
      assert.deepEqual(JSON.parse(printed.stdout), { ...report, tool: JSON.parse(printed.stdout).tool });

      const misread = runCli([command, '--db', DB, '--json', QUERY]);
      assert.equal(misread.status, 2, misread.stderr);
      assert.match(
        misread.stderr,
        /error: --json: "SELECT superhero_name .*" is a query, not a file to write; .*put the query before --json/,
      );
      assert.equal(misread.stdout, '');
    }
  });

  it('merge, agree, rerank, scale: --json FILE writes the file, --json alone prints it', () => {
    const scaled = path.join(dir, 'x2.sqlite');
    const out = path.join(dir, 'scale.json');
    const result = runCli(['scale', DB, '--factor', '2', '--out', scaled, '--json', out, '--no-progress']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /│ superhero\s+│\s+750 │\s+1,500 │/);
    const report = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.equal(report.db_id, 'superhero');
    assert.equal(report.tables.find((t: { name: string }) => t.name === 'superhero').rows_after, 1500);
    const camel = keysOf(report).filter((key) => /[a-z][A-Z]/.test(key));
    assert.deepEqual(camel, [], 'scale --json keys are snake_case');

    const candidates = path.join(dir, 'candidates.sql');
    fs.writeFileSync(candidates, `${QUERY};\nSELECT superhero_name FROM superhero WHERE height_cm + 0 > 200;\n`);
    const rerankFile = path.join(dir, 'rerank.json');
    const reranked = runCli(['rerank', '--db', DB, '--candidates', candidates, '--json', rerankFile]);
    assert.equal(reranked.status, 0, reranked.stderr);
    assert.equal(JSON.parse(fs.readFileSync(rerankFile, 'utf8')).ranked.length, 2);
    assert.match(reranked.stdout, /cheapest executable candidate/);

    const merged = runCli(['merge', path.join(dir, 'nope.json'), '--json']);
    assert.equal(merged.status, 2, 'merge accepts --json alone as its output (then reads its inputs)');
    assert.doesNotMatch(merged.stderr, /say where to write/);
  });

  it('every command says --json [file] and ends its help with an example', () => {
    for (const command of [
      'eval',
      'merge',
      'audit',
      'judge',
      'compare',
      'agree',
      'explain',
      'indexes',
      'hints',
      'rerank',
      'scale',
      'load',
    ]) {
      const help = runCli([command, '--help']);
      assert.equal(help.status, 0, command);
      assert.match(help.stdout, /--json \[file\]/, command);
      assert.match(help.stdout, new RegExp(`Examples?:\\n  \\$ ves-lens ${command} `), command);
    }
  });
});
