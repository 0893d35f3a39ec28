import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  cleanStaleTemporaries,
  HOST_TAG,
  OTHER_HOST_STALE_MS,
  processAlive,
  temporaryOwner,
  temporaryPathFor,
  writeFileAtomic,
} from '../../src/core/io/atomicFile';
import { Checkpoint, checkpointHeader } from '../../src/core/io/checkpoint';
import { checkOutputAgainstInputs, OutputClash, realOutputPath } from '../../src/core/io/outputPaths';
import { tempDir } from '../helpers';

/** The pid of a process that has ended (a stale temporary's owner). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const pid = Number(child.stdout);
  assert.ok(pid > 0 && !processAlive(pid));
  return pid;
}

/** A small tmpfs (we run as root in CI and here); undefined where mounting is not allowed. */
function smallDisk(kib: number): { folder: string; unmount: () => void } | undefined {
  const folder = tempDir('ves-lens-tmpfs-');
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k`, 'tmpfs', folder]);
  if (mounted.status !== 0) return undefined;
  return { folder, unmount: () => spawnSync('umount', [folder]) };
}

describe('writeFileAtomic', () => {
  it('replaces a file whole, keeps its permissions, and leaves no temporary', () => {
    const dir = tempDir();
    const file = path.join(dir, 'report.json');
    fs.writeFileSync(file, 'old');
    fs.chmodSync(file, 0o640);
    writeFileAtomic(file, '{"new": true}\n');
    assert.equal(fs.readFileSync(file, 'utf8'), '{"new": true}\n');
    assert.equal(fs.statSync(file).mode & 0o777, 0o640);
    assert.deepEqual(fs.readdirSync(dir), ['report.json']);
  });

  it('writes through a symbolic link: the link stays, its target gets the new text', () => {
    const dir = tempDir();
    const target = path.join(dir, 'real.json');
    const link = path.join(dir, 'link.json');
    fs.writeFileSync(target, 'old');
    fs.symlinkSync(target, link);
    writeFileAtomic(link, 'new');
    assert.ok(fs.lstatSync(link).isSymbolicLink());
    assert.equal(fs.readFileSync(target, 'utf8'), 'new');
  });

  it('a full disk (a real 64 KiB tmpfs): the error is thrown, the earlier file is intact, no temporary is left', (t) => {
    const disk = smallDisk(64);
    if (!disk) return t.skip('mount -t tmpfs is not allowed here');
    try {
      const file = path.join(disk.folder, 'report.json');
      fs.writeFileSync(file, '{"earlier": "report"}\n');
      assert.throws(() => writeFileAtomic(file, 'x'.repeat(200_000)), /ENOSPC/);
      assert.equal(fs.readFileSync(file, 'utf8'), '{"earlier": "report"}\n');
      assert.deepEqual(fs.readdirSync(disk.folder), ['report.json']);
    } finally {
      disk.unmount();
    }
  });
});

describe('stale temporaries', () => {
  it("removes those of a process that no longer runs, keeps a live process's and anything else", () => {
    const dir = tempDir();
    const dead = deadPid();
    const names = {
      staleFile: `.report.json.ves-lens-${dead}-3.tmp`,
      staleCopy: `ves-lens-copy-${dead}-Ab12Cd`,
      live: `.report.json.ves-lens-${process.pid}-1.tmp`,
      other: '.report.json.tmp',
      report: 'report.json',
    };
    for (const name of [names.staleFile, names.live, names.other, names.report]) fs.writeFileSync(path.join(dir, name), 'x');
    fs.mkdirSync(path.join(dir, names.staleCopy));
    fs.writeFileSync(path.join(dir, names.staleCopy, 'superhero.sqlite'), 'x');
    assert.equal(temporaryOwner(names.staleFile), dead);
    assert.equal(temporaryOwner(names.staleCopy), dead);
    assert.equal(temporaryOwner(names.other), undefined);
    const removed = cleanStaleTemporaries(dir);
    assert.deepEqual(removed.map((file) => path.basename(file)).sort(), [names.staleFile, names.staleCopy].sort());
    assert.deepEqual(fs.readdirSync(dir).sort(), [names.live, names.other, names.report].sort());
  });
});

describe('stale temporaries in a folder shared by hosts (Slurm, Kubernetes)', () => {
  it("names this host in a temporary; another host's is left while young (its pid means nothing here), removed past a day", () => {
    const dir = tempDir();
    const dead = deadPid();
    const ownName = path.basename(temporaryPathFor(path.join(dir, 'report.json')));
    assert.ok(ownName.includes(`-${process.pid}@${HOST_TAG}-`), ownName);
    assert.equal(temporaryOwner(ownName), process.pid);
    // Host names with dashes and digits: the pid and host are still read right.
    const otherHost = 'node-12.cluster';
    const names = {
      otherYoungFile: `.report.json.ves-lens-${dead}@${otherHost}-4.tmp`,
      otherYoungCopy: `ves-lens-copy-${dead}@${otherHost}-Ab12Cd`,
      otherOldFile: `.report.json.ves-lens-${dead}@${otherHost}-5.tmp`,
      thisHostDead: `.report.json.ves-lens-${dead}@${HOST_TAG}-6.tmp`,
      thisHostLive: `.report.json.ves-lens-${process.pid}@${HOST_TAG}-7.tmp`,
    };
    for (const name of Object.values(names)) {
      if (name.startsWith('ves-lens-copy-')) fs.mkdirSync(path.join(dir, name));
      else fs.writeFileSync(path.join(dir, name), 'x');
      assert.equal(temporaryOwner(name), name === names.thisHostLive ? process.pid : dead);
    }
    const dayAndMore = (Date.now() - OTHER_HOST_STALE_MS - 60_000) / 1000;
    fs.utimesSync(path.join(dir, names.otherOldFile), dayAndMore, dayAndMore);
    const removed = cleanStaleTemporaries(dir).map((file) => path.basename(file));
    assert.deepEqual(removed.sort(), [names.otherOldFile, names.thisHostDead].sort());
    assert.deepEqual(fs.readdirSync(dir).sort(), [names.otherYoungCopy, names.otherYoungFile, names.thisHostLive].sort());
  });
});

describe('output paths by real path', () => {
  it('resolves a file that does not exist yet through its symlinked folder, and a dangling link to its target', () => {
    const dir = fs.realpathSync(tempDir());
    fs.mkdirSync(path.join(dir, 'real'));
    fs.symlinkSync(path.join(dir, 'real'), path.join(dir, 'alias'));
    assert.equal(realOutputPath(path.join(dir, 'alias', 'new.json')), path.join(dir, 'real', 'new.json'));
    fs.symlinkSync(path.join(dir, 'real', 'missing.json'), path.join(dir, 'dangling.json'));
    assert.equal(realOutputPath(path.join(dir, 'dangling.json')), path.join(dir, 'real', 'missing.json'));
  });

  it('a loop of symbolic links is said as such', () => {
    const dir = tempDir();
    fs.symlinkSync(path.join(dir, 'b'), path.join(dir, 'a'));
    fs.symlinkSync(path.join(dir, 'a'), path.join(dir, 'b'));
    assert.throws(
      () => realOutputPath(path.join(dir, 'a')),
      (error: Error) => error instanceof OutputClash && /loop/.test(error.message),
    );
  });

  it('refuses an output that is an input under another name (symbolic or hard link) or lies in a database folder', () => {
    const dir = tempDir();
    const predictions = path.join(dir, 'predictions.json');
    fs.writeFileSync(predictions, '{}');
    fs.symlinkSync(predictions, path.join(dir, 'soft.json'));
    fs.linkSync(predictions, path.join(dir, 'hard.json'));
    const inputs = [{ label: '--predictions', file: predictions }];
    for (const name of ['soft.json', 'hard.json'])
      assert.throws(
        () => checkOutputAgainstInputs('--json', path.join(dir, name), inputs),
        new RegExp(`--json: .*${name}.* is also an input file; writing it would destroy it \\(--predictions .*predictions\\.json\\)`),
      );
    fs.mkdirSync(path.join(dir, 'dbs', 'superhero'), { recursive: true });
    assert.throws(
      () =>
        checkOutputAgainstInputs(
          '--json',
          path.join(dir, 'dbs', 'superhero', 'superhero.sqlite'),
          [],
          [{ label: '--db-root', folder: path.join(dir, 'dbs') }],
        ),
      /inside the database folder .*dbs \(--db-root\)/,
    );
    checkOutputAgainstInputs('--json', path.join(dir, 'report.json'), inputs, [{ label: '--db-root', folder: path.join(dir, 'dbs') }]);
  });
});

describe('checkpoint', () => {
  it('keeps the results appended, drops a line cut off by a kill, and refuses other inputs naming what differs', () => {
    const file = path.join(tempDir(), 'r.json.checkpoint.jsonl');
    const header = checkpointHeader('eval', { '--predictions': 'hash-a', options: { metrics: ['ex'] } });
    const first = Checkpoint.open<{ ex: number }>(file, header, false);
    first.append(0, { ex: 1 });
    first.append(2, { ex: 0 });
    first.close();
    fs.appendFileSync(file, '{"key": 3, "resu'); // the write a kill -9 cut short
    const resumed = Checkpoint.open<{ ex: number }>(file, header, true);
    assert.deepEqual(
      [...resumed.resumed],
      [
        [0, { ex: 1 }],
        [2, { ex: 0 }],
      ],
    );
    resumed.append(3, { ex: 1 });
    resumed.close();
    assert.equal(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length, 4, 'header, 2 results, and the new one');
    const other = checkpointHeader('eval', { '--predictions': 'hash-b', options: { metrics: ['ex'] } });
    assert.throws(
      () => Checkpoint.open(file, other, true),
      /other inputs or options \(changed: --predictions\); run without --resume to start over/,
    );
    assert.throws(() => Checkpoint.open(file, checkpointHeader('judge', {}), true), /made by `eval`, not `judge`/);
  });
});
