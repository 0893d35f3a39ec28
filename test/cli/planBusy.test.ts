import { strict as assert } from 'node:assert';
import { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { runCli } from '../helpers';
import { copiedRoot, holdExclusive } from '../lockedDatabase';

const QUERY = 'SELECT superhero_name FROM superhero WHERE height_cm = 180';

/** The commands that work on one --db file, each with the query. */
const DB_COMMANDS: readonly (readonly string[])[] = [
  ['explain', QUERY],
  ['indexes', QUERY],
  ['hints', QUERY],
];

// The message SQLite's busy handler ends in, past the wait (core/db/sqlite/sqliteConnection.ts).
const lockedPast = (seconds: string) =>
  new RegExp(`database is locked: another process held a lock on it for longer than the busy timeout \\(${seconds} s\\)`);

describe('explain, indexes, hints and scale on a database another process holds locked (issue 20)', () => {
  const lockers: ChildProcess[] = [];
  const roots: string[] = [];
  afterEach(() => lockers.splice(0).forEach((locker) => locker.kill()));
  after(() => roots.forEach((root) => fs.rmSync(root, { recursive: true, force: true })));
  const lockedCopy = async (seconds: number) => {
    const root = copiedRoot('ves-lens-plan-busy-');
    roots.push(root);
    const file = path.join(root, 'superhero', 'superhero.sqlite');
    lockers.push(await holdExclusive(file, seconds));
    return { root, file };
  };

  it('held past --busy-timeout: each waits that long, then exit 2 naming --db and the lock (no stack trace)', async () => {
    const { file } = await lockedCopy(120);
    for (const [command, sql] of DB_COMMANDS) {
      const started = performance.now();
      const run = runCli([command, '--db', file, '--busy-timeout', '0.4', sql], { timeout: 60_000 });
      const waited = performance.now() - started;
      assert.equal(run.status, 2, `${command}: ${run.stderr}`);
      // The wait given, not the 5 s default: --busy-timeout reaches a --db file as it reaches --db-root's.
      assert.match(run.stderr, new RegExp(`^error: --db: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `), command);
      assert.match(run.stderr, lockedPast('0.4'), command);
      assert.doesNotMatch(run.stderr, /\n\s+at /, `${command}: no stack trace`);
      assert.ok(waited >= 400, `${command} waited ${waited.toFixed(0)} ms`);
      assert.equal(run.stdout, '', `${command}: nothing printed as a result`);
    }
  });

  it('released within the wait: explain and indexes wait for it and answer as on an idle database', async () => {
    const { file } = await lockedCopy(120);
    const idle = runCli(['explain', '--db', file, '--busy-timeout', '0', QUERY]);
    assert.equal(idle.status, 2, 'a lock held and no wait: locked at once');
    assert.match(idle.stderr, /database is locked/);
    lockers.splice(0).forEach((locker) => locker.kill());

    const { file: second } = await lockedCopy(2);
    const explained = runCli(['explain', '--db', second, QUERY, '--json'], { timeout: 60_000 });
    assert.equal(explained.status, 0, explained.stderr);
    const plan = JSON.parse(explained.stdout);
    assert.ok(JSON.stringify(plan).includes('superhero'), 'the plan of the query, read once the lock was released');
    const { file: third } = await lockedCopy(2);
    const indexes = runCli(['indexes', '--db', third, QUERY], { timeout: 60_000 });
    assert.equal(indexes.status, 0, indexes.stderr);
    assert.match(indexes.stdout, /height_cm/);
  });

  it('scale waits the default 5 s, then exit 2 naming the database; no copy and no temporary left', async () => {
    const { root, file } = await lockedCopy(120);
    const outDir = path.join(root, 'out');
    fs.mkdirSync(outDir);
    const started = performance.now();
    const run = runCli(['scale', file, '--factor', '2', '--out', path.join(outDir, 'x2.sqlite'), '--no-progress'], { timeout: 90_000 });
    const waited = performance.now() - started;
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, new RegExp(`error: cannot read ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    assert.match(run.stderr, lockedPast('5'));
    assert.doesNotMatch(run.stderr, /\n\s+at /);
    assert.ok(waited >= 5000, `waited ${waited.toFixed(0)} ms, as Python's sqlite3 waits`);
    assert.deepEqual(fs.readdirSync(outDir), [], 'nothing written beside --out');
  });
});
