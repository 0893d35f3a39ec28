import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../src/core/db/engines';
import { REPO_ROOT, runCli, sha256, tempDir } from '../helpers';

const DB = path.join(REPO_ROOT, 'sample', 'superhero', 'superhero.sqlite');
const run = (args: string[]) => runCli(args);

async function count(file: string, sql: string): Promise<number> {
  const db = await openDatabase(file);
  try {
    return Number(Object.values((await db.all(sql))[0])[0]);
  } finally {
    await db.close();
  }
}

describe('ves-lens scale (a real process)', () => {
  const dir = tempDir('ves-lens-scale-cli-');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes a copy with 3 times the rows and prints the report as JSON', async () => {
    const out = path.join(dir, 'superhero-x3.sqlite');
    const hash = sha256(DB);
    const result = run(['scale', DB, '--factor', '3', '--out', out, '--json']);
    assert.equal(result.status, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.equal(report.tool.name, 'ves-lens');
    assert.equal(report.factor, 3);
    assert.equal(report.db_id, 'superhero');
    for (const t of report.tables) assert.equal(t.rows_after, 3 * t.rows_before, t.name);
    assert.equal(await count(out, 'SELECT count(*) FROM superhero'), 3 * (await count(DB, 'SELECT count(*) FROM superhero')));
    const join = 'SELECT count(*) FROM superhero s JOIN hero_power hp ON hp.hero_id = s.id';
    assert.equal(await count(out, join), 3 * (await count(DB, join)));
    assert.equal(sha256(DB), hash);
  });

  it('prints a table of row counts and the shifted keys, and replaces the copy only with --overwrite', () => {
    const out = path.join(dir, 'superhero-x2.sqlite');
    const result = run(['scale', DB, '--factor', '2', '--out', out, '--no-progress']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /│ superhero\s+│\s+750 │\s+1,500 │ id, gender_id/);
    assert.match(result.stdout, /superhero\.id, hero_attribute\.hero_id, hero_power\.hero_id: numbers \+ 756 × replica/);
    assert.match(result.stdout, /wrote .*superhero-x2\.sqlite \(\d+\.\d MiB\) in \d+\.\d s/);

    const again = run(['scale', DB, '--factor', '2', '--out', out]);
    assert.equal(again.status, 2);
    assert.match(again.stderr, /error: output exists: .*--overwrite/);
    assert.equal(run(['scale', DB, '--factor', '2', '--out', out, '--overwrite', '--json']).status, 0);
  });

  it('exits 2 with a message, and no stack, for a missing or non-database source, a bad --factor or the source as --out', () => {
    const out = path.join(dir, 'x.sqlite');
    const cases: [string[], RegExp][] = [
      [['scale', path.join(dir, 'missing.sqlite'), '--factor', '2', '--out', out], /error: .*missing\.sqlite: file not found/],
      [
        ['scale', path.join(REPO_ROOT, 'README.md'), '--factor', '2', '--out', out],
        /error: .*README\.md: a text file .*not a SQLite database/,
      ],
      [['scale', DB, '--factor', '0', '--out', out], /error: --factor: expected an integer of at least 1, got "0"/],
      [['scale', DB, '--factor', 'ten', '--out', out], /error: --factor: expected an integer of at least 1, got "ten"/],
      [['scale', DB, '--factor', '2.5', '--out', out], /error: --factor: expected an integer of at least 1, got "2.5"/],
      [['scale', DB, '--factor', '2', '--out', DB, '--overwrite'], /error: the copy would replace its source/],
      [['scale', DB, '--factor', '2', '--out', path.join(dir, 'no', 'such', 'folder.sqlite')], /error: output folder not found/],
    ];
    for (const [args, message] of cases) {
      const result = run(args);
      assert.equal(result.status, 2, `${args.join(' ')}\n${result.stderr}`);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    }
    assert.ok(!fs.existsSync(out));
  });
});
