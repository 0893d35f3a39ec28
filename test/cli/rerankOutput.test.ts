import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT, runCli, sha256, tempDir } from '../helpers';

/** Issue 20, item 1 for `rerank --out`: checked against --db-root like every other output (a real process). */
describe('rerank --out and --json never land in a database folder', () => {
  it('the database itself, a new file beside it, or a link into its folder: exit 2 naming --db-root, the database unchanged', () => {
    const dir = tempDir('ves-lens-rerank-out-');
    const dbRoot = path.join(dir, 'databases');
    const database = path.join(dbRoot, 'superhero', 'superhero.sqlite');
    fs.mkdirSync(path.dirname(database), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, 'sample', 'superhero', 'superhero.sqlite'), database);
    const before = sha256(database);
    const link = path.join(dir, 'picked.json');
    fs.symlinkSync(path.join(dbRoot, 'superhero', 'picked.json'), link);
    const predictions = path.join(REPO_ROOT, 'sample', 'predict_gpt-4_superhero.json');
    const rerank = (...output: string[]) =>
      runCli([
        'rerank',
        '--questions',
        path.join(REPO_ROOT, 'sample', 'mini_dev_superhero.json'),
        '--db-root',
        dbRoot,
        '--predictions',
        predictions,
        predictions,
        ...output,
      ]);
    for (const [flag, target] of [
      ['--out', database],
      ['--out', path.join(dbRoot, 'superhero', 'picked.json')],
      ['--out', link],
      ['--json', database],
    ]) {
      const result = rerank(flag, target);
      assert.equal(result.status, 2, `${flag} ${target}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`error: ${flag}: .* is inside the database folder .*databases \\(--db-root\\)`));
    }
    assert.equal(sha256(database), before);
    assert.deepEqual(fs.readdirSync(path.join(dbRoot, 'superhero')), ['superhero.sqlite']);
    // Outside the database folder it writes, as before.
    const ok = rerank('--out', path.join(dir, 'out.json'));
    assert.equal(ok.status, 0, ok.stderr);
    assert.ok(fs.existsSync(path.join(dir, 'out.json')));
  });
});
