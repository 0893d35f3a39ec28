import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { temporaryOwner } from '../../src/core/io/atomicFile';
import { CLI, cliEnv, REPO_ROOT, runCli, sha256, tempDir } from '../helpers';

/** Issue 20, item 1: no output path reaches an input; writes are atomic; temporaries never outlive a run. */

const SAMPLE = path.join(REPO_ROOT, 'sample');

/** A copy of the sample (questions, gold, predictions, the superhero database): a failing test must never harm the repo's. */
function sampleCopy() {
  const dir = tempDir('ves-lens-safety-');
  const dbRoot = path.join(dir, 'databases');
  fs.mkdirSync(path.join(dbRoot, 'superhero'), { recursive: true });
  fs.copyFileSync(path.join(SAMPLE, 'superhero', 'superhero.sqlite'), path.join(dbRoot, 'superhero', 'superhero.sqlite'));
  const files = {
    questions: path.join(dir, 'questions.json'),
    gold: path.join(dir, 'gold.sql'),
    predictions: path.join(dir, 'predictions.json'),
  };
  fs.copyFileSync(path.join(SAMPLE, 'mini_dev_superhero.json'), files.questions);
  fs.copyFileSync(path.join(SAMPLE, 'mini_dev_superhero_gold.sql'), files.gold);
  fs.copyFileSync(path.join(SAMPLE, 'predict_gpt-4_superhero.json'), files.predictions);
  const database = path.join(dbRoot, 'superhero', 'superhero.sqlite');
  const args = ['--questions', files.questions, '--gold', files.gold, '--predictions', files.predictions, '--db-root', dbRoot];
  return { dir, dbRoot, database, ...files, args };
}

/** Every file's hash under a folder: "nothing changed" is this map, before and after. */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    out[path.relative(dir, file)] = sha256(file);
  }
  return out;
}

/** The pid of a process that has ended. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('outputs never reach inputs (real processes)', () => {
  it('--json through a symbolic link to the prediction file: exit 2 naming both, nothing changed', () => {
    const s = sampleCopy();
    const link = path.join(s.dir, 'report.json');
    fs.symlinkSync(s.predictions, link);
    const before = hashes(s.dir);
    const result = runCli(['eval', ...s.args, '--metrics', 'ex', '--json', link]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(
      result.stderr,
      /error: --json: .*report\.json \(through .*predictions\.json\) is also an input file; .* \(--predictions .*predictions\.json\)/,
    );
    assert.deepEqual(hashes(s.dir), before);
    assert.ok(fs.lstatSync(link).isSymbolicLink());
  });

  it('--json (eval, audit) or --html into a database folder, the database itself included: exit 2, the database unchanged', () => {
    const s = sampleCopy();
    const before = hashes(s.dir);
    for (const [command, flag, target] of [
      ['eval', '--json', s.database],
      ['eval', '--html', path.join(s.dbRoot, 'superhero', 'report.html')],
      ['audit', '--json', s.database],
    ]) {
      const args =
        command === 'audit' ? ['--questions', s.questions, '--db-root', s.dbRoot, '--no-measure'] : [...s.args, '--metrics', 'ex'];
      const result = runCli([command, ...args, flag, target]);
      assert.equal(result.status, 2, `${command} ${flag}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`error: ${flag}: .* is inside the database folder .*databases \\(--db-root\\)`));
    }
    assert.deepEqual(hashes(s.dir), before);
  });

  it('a hard link to the gold file is the gold file', () => {
    const s = sampleCopy();
    const hard = path.join(s.dir, 'out.json');
    fs.linkSync(s.gold, hard);
    const result = runCli(['eval', ...s.args, '--metrics', 'ex', '--json', hard]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--json: .*out\.json is also an input file; writing it would destroy it \(--gold .*gold\.sql\)/);
    assert.equal(sha256(hard), sha256(path.join(SAMPLE, 'mini_dev_superhero_gold.sql')));
  });

  it('merge refuses a shard report written over one of the shards through a link', () => {
    const s = sampleCopy();
    const shard = path.join(s.dir, 'shard1.json');
    assert.equal(runCli(['eval', ...s.args, '--metrics', 'ex', '--shard', '1/1', '--json', shard]).status, 0);
    fs.symlinkSync(shard, path.join(s.dir, 'all.json'));
    const result = runCli(['merge', shard, '--json', path.join(s.dir, 'all.json')]);
    assert.equal(result.status, 2);
    assert.match(
      result.stderr,
      /--json: .*all\.json \(through .*shard1\.json\) is also an input file; writing it would destroy it \(.*shard1\.json\)/,
    );
  });
});

describe('atomic writes (real processes)', () => {
  it('a full disk (a file-size limit, ulimit -f): exit 2, the earlier report intact, no temporary left', () => {
    const s = sampleCopy();
    const out = path.join(s.dir, 'out');
    fs.mkdirSync(out);
    const report = path.join(out, 'report.json');
    fs.writeFileSync(report, '{"earlier": "report"}\n');
    // 8 KiB: the report of 52 questions is larger; the checkpoint beside it outgrows it too, said once.
    const cli = [process.execPath, CLI, 'eval', ...s.args, '--metrics', 'ex,f1', '--no-progress', '--json', report];
    const result = spawnSync('bash', ['-c', 'ulimit -f 8; exec "$@"', 'bash', ...cli], {
      encoding: 'utf8',
      env: cliEnv(),
    });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /error: --json: cannot write .*report\.json: EFBIG.*; the earlier .*report\.json is unchanged/);
    assert.match(result.stderr, /warning: cannot write the checkpoint .*report\.json\.checkpoint\.jsonl \(EFBIG/);
    assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace');
    assert.equal(fs.readFileSync(report, 'utf8'), '{"earlier": "report"}\n');
    assert.deepEqual(
      fs.readdirSync(out).filter((name) => name.includes('.ves-lens-')),
      [],
      'no temporary',
    );
  });

  it("a stale temporary of a killed run is recognised and removed by the next run; a live process's is kept", () => {
    const s = sampleCopy();
    const stale = path.join(s.dir, `.report.json.ves-lens-${deadPid()}-1.tmp`);
    const live = path.join(s.dir, `.report.json.ves-lens-${process.pid}-1.tmp`);
    fs.writeFileSync(stale, '{"half": ');
    fs.writeFileSync(live, '{"half": ');
    const result = runCli(['eval', ...s.args, '--metrics', 'ex', '--no-progress', '--json', path.join(s.dir, 'report.json')]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /removed .*\.report\.json\.ves-lens-\d+-1\.tmp, a temporary left by a run that was killed/);
    assert.ok(!fs.existsSync(stale));
    assert.ok(fs.existsSync(live));
    assert.ok(!fs.existsSync(path.join(s.dir, 'report.json.checkpoint.jsonl')), 'the checkpoint is removed when the run completes');
  });

  it('scale: Ctrl-C removes its temporary copy (exit 130); after kill -9 the next scale removes the stale one', async () => {
    const s = sampleCopy();
    const out = path.join(s.dir, 'scaled');
    fs.mkdirSync(out);
    const temporaries = () => fs.readdirSync(out).filter((name) => name.endsWith('.tmp') && temporaryOwner(name) !== undefined);
    for (const signal of ['SIGINT', 'SIGKILL'] as const) {
      const child = spawn(
        process.execPath,
        [CLI, 'scale', s.database, '--factor', '400', '--no-progress', '--out', path.join(out, `x-${signal}.sqlite`)],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const deadline = Date.now() + 30_000;
      while (temporaries().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(temporaries().length, 1, `the copy is built as a temporary: ${stderr}`);
      child.kill(signal);
      const code = await exited;
      if (signal === 'SIGINT') {
        assert.equal(code, 130, stderr);
        assert.deepEqual(temporaries(), [], 'Ctrl-C leaves nothing');
      } else {
        assert.equal(temporaries().length, 1, 'kill -9 runs no handler: the temporary stays');
      }
    }
    const again = runCli(['scale', s.database, '--factor', '2', '--no-progress', '--out', path.join(out, 'x2.sqlite')]);
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(temporaries(), [], 'the next scale into the folder removes the stale temporary');
    assert.deepEqual(fs.readdirSync(out), ['x2.sqlite']);
  });
});
