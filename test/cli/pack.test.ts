// The command line as npm installs it (issue 31): `npm pack` gives a tarball that installs into an empty prefix and
// runs `ves-lens eval` on the sample with the same report as from the clone. Without its native module built (no
// compiler, install scripts not allowed: here --ignore-scripts) it runs SQLite as WebAssembly and says so;
// VES_LENS_PACK_NATIVE=1 also installs it as a user would, building node-sqlite3 (minutes on a small machine).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { cliEnv, REPO_ROOT, runCli, tempDir } from '../helpers';

interface Report {
  inputs: { engine: { build?: string } };
  questions: { question_id: number; outcome: string; ex?: number | null; f1?: number | null }[];
}

const readReport = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Report;
const scores = (report: Report) => report.questions.map((q) => [q.question_id, q.outcome, q.ex, q.f1]);
const npm = (args: string[], cwd: string, timeout = 900_000) => {
  const run = spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    timeout,
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' },
  });
  assert.equal(run.status, 0, `npm ${args.join(' ')}: ${run.stderr}`);
  return run;
};

/** `eval --metrics ex,f1` on the sample, the sample's files found where `root` has them. */
const sampleEval = (root: string, json: string) => [
  'eval',
  '--questions',
  path.join(root, 'sample', 'mini_dev_superhero.json'),
  '--gold',
  path.join(root, 'sample', 'mini_dev_superhero_gold.sql'),
  '--predictions',
  path.join(root, 'sample', 'predict_gpt-4_superhero.json'),
  '--db-root',
  path.join(root, 'sample'),
  '--metrics',
  'ex,f1',
  '--json',
  json,
];

/** Installs the tarball into a new, empty prefix; returns the prefix and where the package landed. */
function install(tarball: string, extra: string[]): { bin: string; root: string } {
  const prefix = tempDir('ves-lens-prefix-');
  npm(['install', '--global', '--prefix', prefix, ...extra, tarball], prefix);
  const root = path.join(prefix, process.platform === 'win32' ? '' : 'lib', 'node_modules', 'ves-lens');
  return { bin: path.join(prefix, process.platform === 'win32' ? 'ves-lens.cmd' : path.join('bin', 'ves-lens')), root };
}

describe('npm pack, installed into an empty prefix', { timeout: 1_200_000 }, () => {
  let tarball: string;
  let clone: Report;

  before(() => {
    const destination = tempDir('ves-lens-pack-');
    const packed = npm(['pack', '--json', '--pack-destination', destination], REPO_ROOT);
    const [{ filename, files }] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    tarball = path.join(destination, filename);
    // What runs: the bundle and its worker and WebAssembly files, no source, no tests.
    const paths = files.map((f) => f.path);
    for (const needed of [
      'bin/ves-lens.js',
      'dist/cli.js',
      'dist/sqliteWasmWorker.mjs',
      'dist/sqlite3.wasm',
      'sample/superhero/superhero.sqlite',
    ])
      assert.ok(paths.includes(needed), `${needed} in the tarball`);
    assert.deepEqual(
      paths.filter((p) => /^(src|test|node_modules)\//.test(p)),
      [],
    );
    const json = path.join(destination, 'clone.json');
    const run = runCli(sampleEval(REPO_ROOT, json));
    assert.equal(run.status, 0, run.stderr);
    clone = readReport(json);
  });

  it('is publishable: not private, a bin, no runtime dependency but the optional native SQLite', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    assert.equal(manifest.private, undefined);
    assert.equal(manifest.bin['ves-lens'], 'bin/ves-lens.js');
    assert.deepEqual(Object.keys(manifest.dependencies ?? {}), []);
    assert.ok(manifest.optionalDependencies['@vscode/sqlite3']);
  });

  it('without its native module built: eval on SQLite as WebAssembly, said on the first line, the same scores as the clone', () => {
    const { bin, root } = install(tarball, ['--ignore-scripts']);
    assert.ok(!fs.existsSync(path.join(root, 'node_modules', '@vscode', 'sqlite3', 'build')), 'node-sqlite3 not built');
    const help = spawnSync(bin, ['--help'], { encoding: 'utf8', env: cliEnv() });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /Usage: ves-lens/);
    const json = path.join(tempDir(), 'installed.json');
    const run = spawnSync(bin, sampleEval(root, json), { encoding: 'utf8', env: cliEnv({ VES_LENS_SQLITE: '' }) });
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stderr.split('\n')[0],
      /^note: SQLite runs as WebAssembly .*does not load here: Cannot find module .*vscode-sqlite3\.node/,
    );
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    const installed = readReport(json);
    assert.equal(installed.inputs.engine.build, 'WebAssembly');
    assert.deepEqual(scores(installed), scores(clone));
  });

  it(
    'as a user installs it: node-sqlite3 built at install, the same report as the clone',
    { skip: process.env.VES_LENS_PACK_NATIVE !== '1' && 'VES_LENS_PACK_NATIVE=1 builds node-sqlite3 (minutes)' },
    () => {
      const { bin, root } = install(tarball, ['--allow-scripts=@vscode/sqlite3']);
      assert.ok(fs.existsSync(path.join(root, 'node_modules', '@vscode', 'sqlite3', 'build', 'Release', 'vscode-sqlite3.node')));
      const json = path.join(tempDir(), 'installed.json');
      const run = spawnSync(bin, sampleEval(root, json), { encoding: 'utf8', env: cliEnv({ VES_LENS_SQLITE: '' }) });
      assert.equal(run.status, 0, run.stderr);
      assert.doesNotMatch(run.stderr, /WebAssembly/);
      const installed = readReport(json);
      assert.equal(installed.inputs.engine.build, undefined);
      assert.deepEqual(scores(installed), scores(clone));
    },
  );
});
