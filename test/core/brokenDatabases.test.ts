import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { dbRootProblems } from '../../src/core/bird/layout';
import { REPO_ROOT, runCli, SAMPLE_SUPERHERO, tempDir } from '../helpers';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const QUESTIONS = path.join(SAMPLE, 'mini_dev_superhero.json');
const PREDICTIONS = path.join(SAMPLE, 'predict_gpt-4_superhero.json');

const scratch: string[] = [];
/** A folder in BIRD's layout holding a writable copy of the real superhero database. */
function copiedRoot(): { root: string; file: string } {
  const root = tempDir('ves-lens-broken-');
  scratch.push(root);
  const file = path.join(root, 'superhero', 'superhero.sqlite');
  fs.mkdirSync(path.dirname(file));
  fs.copyFileSync(SAMPLE_SUPERHERO, file);
  fs.chmodSync(file, 0o644);
  return { root, file };
}

const evalOn = (dbRoot: string, extra: string[] = []) =>
  runCli(
    ['eval', '--questions', QUESTIONS, '--predictions', PREDICTIONS, '--db-root', dbRoot, '--metrics', 'ex', '--no-progress', ...extra],
    {
      timeout: 120_000,
    },
  );

/** The one line a run that scored nothing ends with, and its exit code. */
function assertNothingScored(run: ReturnType<typeof runCli>): void {
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /^error: nothing was scored: all 52 questions were skipped \(first: .+\)$/m);
  assert.doesNotMatch(run.stderr, /unexpected error|\n\s+at /);
}

describe('broken databases and a misplaced --db-root, each diagnosed for what it is (issue 20)', () => {
  after(() => scratch.forEach((folder) => fs.rmSync(folder, { recursive: true, force: true })));

  it('corrupt pages behind an intact header: "malformed" gold errors and a headline saying the file is damaged', () => {
    const { root, file } = copiedRoot();
    // Overwrite the start of every page after the tables' root pages (page 1, the header and schema, stays intact).
    const data = fs.readFileSync(file);
    const pageSize = data.readUInt16BE(16);
    for (let page = 13; page * pageSize <= data.length; page++)
      data.fill(0xa5, (page - 1) * pageSize, (page - 1) * pageSize + pageSize / 4);
    fs.writeFileSync(file, data);
    const run = evalOn(root);
    assert.equal(run.status, 0, run.stderr);
    const malformed = /damaged: SQLite reports "database disk image is malformed" on (\d+) of its 52 questions/.exec(run.stdout);
    assert.ok(malformed, run.stdout);
    assert.ok(Number(malformed[1]) > 0);
    assert.match(run.stdout, /gold: database disk image is malformed/);
  });

  it('a WAL-mode database on a read-only mount: said for what it is, in eval and in explain', (t) => {
    const { root, file } = copiedRoot();
    const wal = spawnSync('python3', ['-c', `import sqlite3; sqlite3.connect(${JSON.stringify(file)}).execute('PRAGMA journal_mode=WAL')`]);
    assert.equal(wal.status, 0, String(wal.stderr));
    const mounted = tempDir('ves-lens-readonly-');
    scratch.push(mounted);
    const mount = spawnSync('mount', ['--bind', root, mounted], { encoding: 'utf8' });
    if (mount.status !== 0) return t.skip(`mounting is not permitted here (${(mount.stderr || mount.error?.message || '').trim()})`);
    try {
      const remount = spawnSync('mount', ['-o', 'remount,ro,bind', mounted], { encoding: 'utf8' });
      if (remount.status !== 0) return t.skip(`a read-only remount is not permitted here (${remount.stderr.trim()})`);
      const run = evalOn(mounted);
      assertNothingScored(run);
      const wording = /a WAL-mode database on a read-only file system: SQLite must create .*superhero\.sqlite-shm beside it/;
      assert.match(run.stdout, wording);
      const explain = runCli(['explain', '--db', path.join(mounted, 'superhero', 'superhero.sqlite'), 'SELECT 1']);
      assert.equal(explain.status, 2, explain.stderr);
      assert.match(explain.stderr, wording);
    } finally {
      spawnSync('umount', [mounted]);
    }
  });

  it('a symbolic link loop: "a loop of symbolic links", not "not under --db-root"', () => {
    const root = tempDir('ves-lens-loop-');
    scratch.push(root);
    fs.symlinkSync('superhero', path.join(root, 'superhero'));
    const run = evalOn(root);
    assertNothingScored(run);
    assert.match(run.stderr, /cannot open .*superhero\.sqlite: a loop of symbolic links/);
    assert.doesNotMatch(run.stdout + run.stderr, /not under --db-root/);
  });

  it('--db-root one folder too deep, one too high, empty: what was found and what was expected', () => {
    const deep = evalOn(path.join(SAMPLE, 'superhero'));
    assertNothingScored(deep);
    assert.match(
      deep.stderr,
      /found .*sample\/superhero\/superhero\.sqlite, expected .*sample\/superhero\/superhero\/superhero\.sqlite: --db-root is one folder too deep/,
    );

    const high = tempDir('ves-lens-high-');
    scratch.push(high);
    fs.mkdirSync(path.join(high, 'dev_databases', 'superhero'), { recursive: true });
    fs.copyFileSync(SAMPLE_SUPERHERO, path.join(high, 'dev_databases', 'superhero', 'superhero.sqlite'));
    const problems = dbRootProblems(high, ['superhero']);
    assert.equal(problems.length, 1);
    assert.match(
      problems[0].message,
      /found .*dev_databases\/superhero\/superhero\.sqlite, .*--db-root is one folder too high\? \(give .*dev_databases\)/,
    );
    assertNothingScored(evalOn(high));
    // Only some of the named databases at hand (mini-dev's 3 of 11): the hint comes from one that is there.
    const partial = dbRootProblems(high, ['debit_card_specializing', 'superhero']);
    assert.match(partial[0]?.message ?? '', /found .*dev_databases\/superhero\/superhero\.sqlite, .*one folder too high\?/);
    const partialDeep = dbRootProblems(path.join(SAMPLE, 'superhero'), ['debit_card_specializing', 'superhero']);
    assert.match(partialDeep[0]?.message ?? '', /found .*sample\/superhero\/superhero\.sqlite, .*one folder too deep\?/);

    const empty = tempDir('ves-lens-empty-');
    scratch.push(empty);
    const run = evalOn(empty);
    assertNothingScored(run);
    assert.match(run.stderr, /--db-root: the folder is empty \(expected .*superhero\/superhero\.sqlite, one folder per db_id\)/);
    // The right folder has no such problem.
    assert.deepEqual(dbRootProblems(SAMPLE, ['superhero']), []);
  });
});
