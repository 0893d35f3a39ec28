// A report an interrupted eval wrote ("complete": false) is never shown as a whole run in the editor's comparison:
// the bar carries "incomplete run: N of M questions", and a refusal says it first.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { comparisonBar } from '../../src/extension/panels/compareSummary';
import { VesLensService } from '../../src/server/service';
import { VesLensErrorCodes } from '../../src/shared/protocol';
import { BIRD_DATA, birdDataMissing, CLI, cliEnv, REPO_ROOT, runCli, tempDir } from '../helpers';

const skip = birdDataMissing();
const evalArgs = () => [
  'eval',
  '--questions',
  path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'),
  '--gold',
  path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
  '--predictions',
  path.join(BIRD_DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json'),
  '--db-root',
  path.join(BIRD_DATA, 'databases'),
  '--metrics',
  'ex,f1',
  '--no-progress',
];

/** A real eval, stopped with Ctrl-C once its checkpoint holds `after` questions: the partial report it writes. */
async function interruptedEval(report: string, after: number): Promise<void> {
  const child = spawn(process.execPath, [CLI, ...evalArgs(), '--json', report], {
    stdio: 'ignore',
    env: cliEnv(),
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let running = true;
  void exited.then(() => (running = false));
  const lines = () =>
    fs.existsSync(`${report}.checkpoint.jsonl`) ? fs.readFileSync(`${report}.checkpoint.jsonl`, 'utf8').split('\n').length - 1 : 0;
  while (running && lines() < after + 1) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(running, 'the eval ended before it could be interrupted');
  child.kill('SIGINT');
  assert.equal(await exited, 130);
}

describe('an incomplete run compared in the editor (the language server)', { skip }, () => {
  const dir = tempDir('ves-lens-compare-incomplete-');
  const service = new VesLensService({
    documents: { get: () => undefined, all: () => [] },
    log: () => {},
    docsRoot: path.join(REPO_ROOT, 'docs', 'rules'),
  });
  const partial = path.join(dir, 'partial.json');
  const full = path.join(dir, 'full.json');
  let held = 0;
  before(async () => {
    await service.initialize({ trusted: true });
    await interruptedEval(partial, 1 + Math.floor(Math.random() * 100));
    held = JSON.parse(fs.readFileSync(partial, 'utf8')).questions.length;
    assert.ok(held > 0 && held < 500);
    assert.equal(runCli([...evalArgs(), '--json', full]).status, 0);
  });
  after(() => service.dispose());

  it('two partial reports of the same questions: compared, and the bar says "incomplete run: N of 500 questions" of each', () => {
    const copy = path.join(dir, 'partial-again.json');
    fs.copyFileSync(partial, copy);
    const result = service.compareReports({ files: [partial, copy] });
    const said = (label: string) =>
      `${label}: incomplete run: ${held} of 500 questions (interrupted; the same command with --resume finishes it)`;
    assert.deepEqual(result.incomplete, [said('partial'), said('partial-again')]);
    const bar = comparisonBar(result, [partial, copy]);
    assert.match(
      bar,
      new RegExp(`<span class="vl-partial vl-incomplete" role="status">\u26a0 partial: incomplete run: ${held} of 500 questions`),
    );
    assert.equal(bar.match(/vl-incomplete/g)?.length, 2);
  });

  it('a partial report against a whole run: refused, saying first that it is an incomplete run', () => {
    assert.throws(
      () => service.compareReports({ files: [full, partial] }),
      (error: Error & { code?: number }) => {
        assert.equal(error.code, VesLensErrorCodes.badInput);
        assert.match(
          error.message,
          new RegExp(`^partial: incomplete run: ${held} of 500 questions .*; .*partial\\.json.*does not cover the same questions`),
        );
        return true;
      },
    );
  });

  it('whole runs get no banner', () => {
    const copy = path.join(dir, 'full-again.json');
    fs.copyFileSync(full, copy);
    const result = service.compareReports({ files: [full, copy] });
    assert.equal(result.incomplete, undefined);
    assert.doesNotMatch(comparisonBar(result, [full, copy]), /vl-incomplete|incomplete run/);
  });
});
