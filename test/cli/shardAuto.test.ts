// `--shard auto` under Slurm and Kubernetes: the scheduler's variables read for real, the sharding guide's Slurm
// script and Indexed Job manifest (docs/guide/sharding.md) run as written (real processes on the sample BIRD files), then `merge`.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as yaml from 'js-yaml';
import { autoShard, resolveShard } from '../../src/core/eval/shard';
import { CLI, cliEnv, REPO_ROOT, tempDir } from '../helpers';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const GUIDE = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'guide', 'sharding.md'), 'utf8');

/** The fenced block after `<!-- marker -->` in the sharding guide. */
function guideBlock(marker: string): string {
  const at = GUIDE.indexOf(`<!-- ${marker} -->`);
  assert.ok(at >= 0, `docs/guide/sharding.md has no ${marker} block`);
  const block = /```\w*\n([\s\S]*?)```/.exec(GUIDE.slice(at));
  assert.ok(block);
  return block[1];
}

/** The environment of a child with no scheduler variables of this machine's own, plus `extra`. */
function schedulerFree(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(cliEnv()).filter(([name]) => !/^SLURM_|^JOB_COMPLETION_INDEX$/.test(name)));
  return { ...env, ...extra };
}

/**
 * A folder laid out as the guide's examples expect (`dev.json`, `dev_gold.sql`, `predict_dev.json`,
 * `dev_databases/`), its files the sample's superhero questions, gold, GPT-4 predictions and database, and a
 * `ves-lens` on PATH that runs the built command line.
 */
function readmeLayout(): { data: string; bin: string } {
  const data = tempDir('ves-lens-shard-data-');
  fs.symlinkSync(path.join(SAMPLE, 'mini_dev_superhero.json'), path.join(data, 'dev.json'));
  fs.symlinkSync(path.join(SAMPLE, 'mini_dev_superhero_gold.sql'), path.join(data, 'dev_gold.sql'));
  fs.symlinkSync(path.join(SAMPLE, 'predict_gpt-4_superhero.json'), path.join(data, 'predict_dev.json'));
  fs.mkdirSync(path.join(data, 'dev_databases'));
  fs.symlinkSync(path.join(SAMPLE, 'superhero'), path.join(data, 'dev_databases', 'superhero'));
  const bin = tempDir('ves-lens-shard-bin-');
  fs.writeFileSync(path.join(bin, 'ves-lens'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  return { data, bin };
}

/** One run over every question, the reference the merged shards must equal (deterministic fields: EX, Soft-F1). */
function wholeRun(data: string): { questions: unknown[]; summary: unknown } {
  const out = path.join(tempDir(), 'whole.json');
  const result = spawnSync(
    process.execPath,
    [CLI, 'eval', '--questions', path.join(data, 'dev.json'), '--gold', path.join(data, 'dev_gold.sql')]
      .concat(['--predictions', path.join(data, 'predict_dev.json'), '--db-root', path.join(data, 'dev_databases')])
      .concat(['--metrics', 'ex,f1', '--no-progress', '--json', out]),
    { encoding: 'utf8', env: schedulerFree() },
  );
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(fs.readFileSync(out, 'utf8'));
}

/** What a merged report and one run share exactly: every question and the summary (the inputs name other files). */
function deterministic(report: { questions: unknown[]; summary: unknown }) {
  return { questions: report.questions, summary: report.summary };
}

describe('--shard auto: the shard from the scheduler', () => {
  it('reads a Slurm array (with MIN/MAX, COUNT, a step) and a Kubernetes Indexed Job, and says what is wrong otherwise', () => {
    assert.deepEqual(autoShard({ SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '8' }), {
      index: 3,
      count: 8,
      from: 'Slurm array task 3 of 1-8',
    });
    // 0-based arrays, and COUNT alone.
    assert.deepEqual(autoShard({ SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_COUNT: '4' }), {
      index: 1,
      count: 4,
      from: 'Slurm array task 0 of 0-3',
    });
    const stepped = { SLURM_ARRAY_TASK_ID: '20', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_MAX: '30', SLURM_ARRAY_TASK_STEP: '10' };
    assert.deepEqual(autoShard(stepped), { index: 3, count: 4, from: 'Slurm array task 20 of 0-30' });
    assert.deepEqual(autoShard({ JOB_COMPLETION_INDEX: '0' }, 5), { index: 1, count: 5, from: 'Kubernetes completion index 0' });

    const errors: [NodeJS.ProcessEnv, number | undefined, RegExp][] = [
      [{}, undefined, /neither a Slurm array task \(SLURM_ARRAY_TASK_ID.*nor a Kubernetes Indexed Job \(JOB_COMPLETION_INDEX\)/],
      [{ SLURM_ARRAY_TASK_ID: '2' }, undefined, /not SLURM_ARRAY_TASK_MIN with SLURM_ARRAY_TASK_MAX or _COUNT/],
      [
        { SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '7', SLURM_ARRAY_TASK_COUNT: '3' },
        undefined,
        /has 3 tasks between 1 and 7.*contiguous range, e.g. sbatch --array=1-3/,
      ],
      [
        { SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '4' },
        8,
        /--shard-count 8, but the Slurm array has 4 tasks/,
      ],
      [{ JOB_COMPLETION_INDEX: '2' }, undefined, /give the Job's completions with --shard-count/],
      [{ JOB_COMPLETION_INDEX: '5' }, 5, /JOB_COMPLETION_INDEX 5 is not below --shard-count 5/],
    ];
    for (const [env, count, message] of errors) {
      const shard = autoShard(env, count);
      assert.ok('error' in shard, JSON.stringify(env));
      assert.match(shard.error, message);
    }
    assert.deepEqual(resolveShard('2/4', '4', {}), {
      option: '--shard-count',
      error: 'only with --shard auto (an explicit --shard i/n says the count itself)',
    });
  });

  it('eval --shard auto outside a scheduler: exit 2 with one clear line', () => {
    const result = spawnSync(
      process.execPath,
      [
        CLI,
        'eval',
        '--questions',
        path.join(SAMPLE, 'mini_dev_superhero.json'),
        '--predictions',
        path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
      ].concat(['--db-root', SAMPLE, '--shard', 'auto']),
      { encoding: 'utf8', env: schedulerFree() },
    );
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^error: --shard: auto: neither a Slurm array task .* give the shard as i\/n\n$/);
  });

  it("the sharding guide's Slurm script, run as Slurm runs each array task, then its merge line: one run's report", () => {
    const { data, bin } = readmeLayout();
    const script = guideBlock('slurm-script');
    const array = /#SBATCH --array=(\d+)-(\d+)/.exec(script);
    assert.ok(array, 'the script declares its array');
    const [min, max] = [Number(array[1]), Number(array[2])];
    const work = tempDir('ves-lens-slurm-');
    fs.writeFileSync(path.join(work, 'eval-shards.sh'), script, { mode: 0o755 });
    for (let task = min; task <= max; task++) {
      const env = schedulerFree({
        PATH: `${bin}:${process.env.PATH}`,
        DATA: data,
        SLURM_ARRAY_JOB_ID: '4242',
        SLURM_ARRAY_TASK_ID: String(task),
        SLURM_ARRAY_TASK_MIN: String(min),
        SLURM_ARRAY_TASK_MAX: String(max),
        SLURM_ARRAY_TASK_COUNT: String(max - min + 1),
        SLURM_ARRAY_TASK_STEP: '1',
      });
      // sbatch passes its trailing arguments to the script: here, the deterministic metrics only.
      const result = spawnSync('bash', ['eval-shards.sh', '--metrics', 'ex,f1'], { cwd: work, encoding: 'utf8', env });
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stderr, new RegExp(`shard ${task - min + 1}/${max - min + 1} of 52: Slurm array task ${task} of ${min}-${max}`));
    }
    const merge = spawnSync('bash', ['-euo', 'pipefail', '-c', guideBlock('slurm-merge')], {
      cwd: work,
      encoding: 'utf8',
      env: schedulerFree({ PATH: `${bin}:${process.env.PATH}` }),
    });
    assert.equal(merge.status, 0, merge.stderr);
    assert.match(merge.stderr, new RegExp(`merged ${max - min + 1} shards: 52 questions`));
    assert.deepEqual(deterministic(JSON.parse(fs.readFileSync(path.join(work, 'all.json'), 'utf8'))), deterministic(wholeRun(data)));
    assert.ok(fs.statSync(path.join(work, 'all.html')).size > 0);

    // A shard that lacks a question: merge names that shard's file, and the position missing.
    const third = path.join(work, 'shards', `shard-${min + 2}.json`);
    const report = JSON.parse(fs.readFileSync(third, 'utf8'));
    const dropped = report.questions.splice(1, 1)[0];
    fs.writeFileSync(third, JSON.stringify(report));
    const incomplete = spawnSync(
      process.execPath,
      [
        CLI,
        'merge',
        ...fs
          .readdirSync(path.join(work, 'shards'))
          .filter((f) => f.endsWith('.json'))
          .map((f) => path.join('shards', f)),
        '--json',
        'again.json',
      ],
      {
        cwd: work,
        encoding: 'utf8',
        env: schedulerFree(),
      },
    );
    assert.equal(incomplete.status, 2, incomplete.stderr);
    assert.match(
      incomplete.stderr,
      new RegExp(
        `error: shards/shard-${min + 2}\\.json \\(questions\\): ${report.questions.length} questions, but shard 3/8 of 52 questions has ${report.questions.length + 1} \\(the question at position ${dropped.index} is missing\\)`,
      ),
    );
  });

  it("the sharding guide's Kubernetes Indexed Job: --shard-count equals completions, each pod its own file, run per index, merged", () => {
    const job = yaml.load(guideBlock('k8s-job')) as {
      kind: string;
      spec: {
        completionMode: string;
        completions: number;
        parallelism: number;
        template: { spec: { containers: { command: string[]; args: string[] }[] } };
      };
    };
    assert.equal(job.kind, 'Job');
    assert.equal(job.spec.completionMode, 'Indexed');
    const [container] = job.spec.template.spec.containers;
    const args = container.args;
    assert.deepEqual(container.command, ['ves-lens']);
    assert.equal(args[0], 'eval');
    assert.equal(args[args.indexOf('--shard') + 1], 'auto');
    assert.equal(Number(args[args.indexOf('--shard-count') + 1]), job.spec.completions, "--shard-count is the Job's completions");
    assert.ok(job.spec.parallelism <= job.spec.completions);
    assert.match(args[args.indexOf('--json') + 1], /\$\(JOB_COMPLETION_INDEX\)/, 'every pod writes its own file');

    // Each pod, here: /data and /shards are the volumes; $(JOB_COMPLETION_INDEX) is expanded by Kubernetes from the env.
    const { data } = readmeLayout();
    const shards = tempDir('ves-lens-k8s-shards-');
    for (let index = 0; index < job.spec.completions; index++) {
      const podArgs = args.map((arg) =>
        arg
          .replace('$(JOB_COMPLETION_INDEX)', String(index))
          .replace(/^\/data\//, `${data}/`)
          .replace(/^\/shards\//, `${shards}/`),
      );
      const result = spawnSync(process.execPath, [CLI, ...podArgs, '--metrics', 'ex,f1'], {
        encoding: 'utf8',
        env: schedulerFree({ JOB_COMPLETION_INDEX: String(index) }),
      });
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stderr, new RegExp(`shard ${index + 1}/${job.spec.completions} of 52: Kubernetes completion index ${index}`));
    }
    const merged = path.join(shards, 'all.json');
    const files = fs.readdirSync(shards).map((f) => path.join(shards, f));
    assert.equal(files.length, job.spec.completions);
    const merge = spawnSync(process.execPath, [CLI, 'merge', ...files, '--json', merged], { encoding: 'utf8', env: schedulerFree() });
    assert.equal(merge.status, 0, merge.stderr);
    assert.deepEqual(deterministic(JSON.parse(fs.readFileSync(merged, 'utf8'))), deterministic(wholeRun(data)));
  });
});
