// SQLite compiled to WebAssembly, the fallback where the native module does not load: the same EX and Soft-F1 as
// the official scripts on every question, said once on the first line and in the report, and chosen for real when
// the native module's binary is missing.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing, cliEnv, REPO_ROOT, runCli, tempDir } from '../helpers';
import { MINIDEV_GOLD, MINIDEV_QUESTIONS } from '../evalReports';
import { installWithoutNativeSqlite } from '../nativeMissing';
import { OFFICIAL_PREDICTION_DIR, referenceDisagreements, referenceLines, ScoredQuestion } from '../referenceLines';

const SAMPLE_EVAL = [
  'eval',
  '--questions',
  path.join(REPO_ROOT, 'sample', 'mini_dev_superhero.json'),
  '--gold',
  path.join(REPO_ROOT, 'sample', 'mini_dev_superhero_gold.sql'),
  '--predictions',
  path.join(REPO_ROOT, 'sample', 'predict_gpt-4_superhero.json'),
  '--db-root',
  path.join(REPO_ROOT, 'sample'),
  '--metrics',
  'ex,f1',
];

interface Report {
  inputs: { engine: { engine: string; version: string; build?: string; note?: string } };
  questions: ScoredQuestion[];
}

const readReport = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Report;
const scores = (report: Report) => report.questions.map((q) => [q.question_id, q.outcome, q.ex, q.f1]);

const skip = birdDataMissing();

describe('SQLite as WebAssembly (VES_LENS_SQLITE=wasm)', () => {
  const files = skip ? [] : fs.readdirSync(OFFICIAL_PREDICTION_DIR).filter((f) => f.endsWith('.json'));

  it('has the four official prediction files', { skip }, () => assert.equal(files.length, 4));

  for (const file of files) {
    it(`EX and Soft-F1 equal the official scripts question by question: ${file}`, () => {
      const json = path.join(tempDir(), 'report.json');
      const args = ['eval', '--questions', MINIDEV_QUESTIONS, '--gold', MINIDEV_GOLD, '--db-root', path.join(BIRD_DATA, 'databases')];
      args.push('--predictions', path.join(OFFICIAL_PREDICTION_DIR, file), '--metrics', 'ex,f1', '--json', json, '--no-gold-cache');
      // A longer limit than the official 30 s: no official outcome is a timeout, and WebAssembly on a loaded machine
      // (CI's Node legs) ran mixtral's question 232 past 30 s.
      args.push('--timeout', '120');
      const run = runCli(args, { env: { VES_LENS_SQLITE: 'wasm' }, timeout: 300_000 });
      assert.equal(run.status, 0, run.stderr);
      const report = readReport(json);
      assert.equal(report.inputs.engine.build, 'WebAssembly');
      const reference = referenceLines(file);
      assert.equal(reference.length, 140);
      const disagreements = referenceDisagreements(reference, report.questions);
      // One outcome only, never a score: SQLite 3.54 reads mixtral's question 232 (`molecule_id` in a subquery on
      // a table without it) as the outer query's column, and runs it (EX 0: not the gold's rows), where the
      // official SQLite 3.40 and native node-sqlite3's 3.39 refuse it: `error` there, `mismatch` here.
      const newerSqlite = file.includes('mixtral') ? ['question 232: outcome mismatch, official error'] : [];
      assert.deepEqual(disagreements, newerSqlite, `${140 - disagreements.length}/140 agree`);
    });
  }

  it('says so once, on the first line, and the report names the build, its version and why', () => {
    const json = path.join(tempDir(), 'report.json');
    const run = runCli([...SAMPLE_EVAL, '--json', json], { env: { VES_LENS_SQLITE: 'wasm' } });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stderr.split('\n');
    assert.match(lines[0], /^note: SQLite runs as WebAssembly .*VES_LENS_SQLITE=wasm/);
    assert.equal(lines.filter((line) => /WebAssembly \(the same results/.test(line)).length, 1);
    assert.match(run.stderr, /SQLite 3\.\d+\.\d+ \(WebAssembly\)/);
    const { engine } = readReport(json).inputs;
    assert.equal(engine.engine, 'sqlite');
    assert.match(engine.version, /^3\.\d+\.\d+$/);
    assert.match(engine.note ?? '', /timings .* are WebAssembly's/);
  });

  it('a runaway query is stopped at --timeout and scored as a timeout; the other questions as on native SQLite', () => {
    const dir = tempDir();
    const predictions = path.join(dir, 'predictions.json');
    const sql = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'sample', 'predict_gpt-4_superhero.json'), 'utf8')) as Record<
      string,
      string
    >;
    const runaway = 'SELECT count(*) FROM superhero a, superhero b, superhero c, superhero d\t----- bird -----\tsuperhero';
    fs.writeFileSync(predictions, JSON.stringify({ ...sql, '0': runaway }));
    // 10 s: the runaway runs for hours, while the sample's slowest questions stay well within it on a loaded machine
    // (at 2 s, two of them timed out on WebAssembly in CI's Node 24 leg).
    const args = (json: string) => [...SAMPLE_EVAL, '--predictions', predictions, '--timeout', '10', '--json', json];
    const started = Date.now();
    const wasm = runCli(args(path.join(dir, 'wasm.json')), { env: { VES_LENS_SQLITE: 'wasm' }, timeout: 240_000 });
    assert.equal(wasm.status, 0, wasm.stderr);
    assert.ok(Date.now() - started < 120_000, 'the runaway query was stopped');
    const native = runCli(args(path.join(dir, 'native.json')), { env: { VES_LENS_SQLITE: 'native' }, timeout: 120_000 });
    assert.equal(native.status, 0, native.stderr);
    const wasmReport = readReport(path.join(dir, 'wasm.json'));
    assert.equal(wasmReport.questions[0].outcome, 'timeout');
    assert.deepEqual(scores(wasmReport), scores(readReport(path.join(dir, 'native.json'))));
  });
});

describe('the native module missing for real', () => {
  it("a copy whose @vscode/sqlite3 has no .node file runs eval on WebAssembly, with the loader's reason on the first line", () => {
    const root = installWithoutNativeSqlite();
    const json = path.join(root, 'report.json');
    const run = spawnSync(process.execPath, [path.join(root, 'bin', 'ves-lens.js'), ...SAMPLE_EVAL, '--json', json], {
      encoding: 'utf8',
      env: cliEnv({ VES_LENS_SQLITE: '' }),
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stderr.split('\n')[0],
      /^note: SQLite runs as WebAssembly .*\(@vscode\/sqlite3\) does not load here: Cannot find module .*vscode-sqlite3\.node/,
    );
    const report = readReport(json);
    assert.equal(report.inputs.engine.build, 'WebAssembly');
    // The same scores as the clone's native SQLite.
    const clone = runCli([...SAMPLE_EVAL, '--json', path.join(root, 'native.json')], { env: { VES_LENS_SQLITE: '' } });
    assert.equal(clone.status, 0, clone.stderr);
    const nativeReport = readReport(path.join(root, 'native.json'));
    assert.equal(nativeReport.inputs.engine.build, undefined);
    assert.deepEqual(scores(report), scores(nativeReport));
  });
});
