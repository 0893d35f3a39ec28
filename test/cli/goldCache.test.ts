// `ves-lens eval` keeps gold results between runs (core/eval/goldResultCache.ts): said in the terminal and the
// JSON's inputs, the same scores with it or without it, and turned off by --no-gold-cache or VES_LENS_NO_GOLD_CACHE.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing, runCli, tempDir } from '../helpers';

const DATA = BIRD_DATA;

describe('eval with the gold-result cache (a real process on the real BIRD files)', { skip: birdDataMissing() }, () => {
  const work = tempDir('ves-lens-gold-cli-');
  const cacheHome = path.join(work, 'xdg');
  const evalRun = (name: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) => {
    const json = path.join(work, `${name}.json`);
    const run = runCli(
      [
        'eval',
        '--questions',
        path.join(DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'),
        '--predictions',
        path.join(DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json'),
        '--db-root',
        path.join(DATA, 'databases'),
        '--metrics',
        'ex,f1',
        '--no-progress',
        '--json',
        json,
        ...extra,
      ],
      { env: { XDG_CACHE_HOME: cacheHome, ...env } },
    );
    assert.equal(run.status, 0, run.stderr);
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    return { stderr: run.stderr, report, verdicts: report.questions.map((q: Record<string, unknown>) => [q.outcome, q.ex, q.f1, q.error]) };
  };

  it('stores the gold results once, takes them from the cache the next time, and scores the same either way', () => {
    const folder = path.join(cacheHome, 'ves-lens', 'gold-results');
    const first = evalRun('first');
    const stored = first.report.inputs.gold_cache.stored;
    assert.ok(stored > 100, `${stored} stored`);
    assert.deepEqual(first.report.inputs.gold_cache, { folder, hits: 0, stored });
    assert.match(
      first.stderr,
      new RegExp(`^gold results: 0 taken from the cache, ${stored} stored \\(${folder}\\); --no-gold-cache runs every gold$`, 'm'),
    );
    assert.equal(fs.readdirSync(folder).filter((f) => f.endsWith('.v8')).length, stored);

    const second = evalRun('second');
    assert.deepEqual(second.report.inputs.gold_cache, { folder, hits: stored, stored: 0 });
    assert.match(second.stderr, new RegExp(`^gold results: ${stored} taken from the cache, 0 stored`, 'm'));
    assert.deepEqual(second.verdicts, first.verdicts);

    for (const [name, extra, env, reason] of [
      ['flag', ['--no-gold-cache'], {}, '--no-gold-cache'],
      ['env', [], { VES_LENS_NO_GOLD_CACHE: '1' }, 'VES_LENS_NO_GOLD_CACHE=1'],
      ['env true', [], { VES_LENS_NO_GOLD_CACHE: 'true' }, 'VES_LENS_NO_GOLD_CACHE=true'],
    ] as const) {
      const off = evalRun(name, [...extra], env);
      assert.equal(off.report.inputs.gold_cache, null, name);
      // Said, so that a variable left set in a shell is seen.
      assert.match(off.stderr, new RegExp(`^gold results: not cached in this run, every gold runs \\(${reason}\\)$`, 'm'), name);
      assert.deepEqual(off.verdicts, first.verdicts, name);
    }
    // 0, false, no and off leave it on.
    const on = evalRun('env false', [], { VES_LENS_NO_GOLD_CACHE: 'false' });
    assert.deepEqual(on.report.inputs.gold_cache, { folder, hits: stored, stored: 0 });
    assert.equal(fs.readdirSync(folder).filter((f) => f.endsWith('.v8')).length, stored, 'the runs without it stored nothing');
  });

  it('lists --no-gold-cache in the help', () => {
    const help = runCli(['eval', '--help']);
    assert.match(help.stdout, /--no-gold-cache\s+run every gold query/);
  });
});
