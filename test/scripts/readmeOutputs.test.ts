// The "real output" blocks of the README and of docs/ are rewritten by scripts/readme-outputs.mjs between markers;
// every block the script makes must have its markers in exactly one page (else a regeneration would fail), and
// every marked block must be one the script makes (else it would go stale unnoticed). The numbers need the shared
// data: not checked here.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'readme-outputs.mjs');

/** README.md and every Markdown page under docs/, each with its text. */
function pages(): { file: string; text: string }[] {
  const files = [
    'README.md',
    ...fs.readdirSync(path.join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).map((f) => path.join('docs', f)),
  ];
  return files.filter((f) => f.endsWith('.md')).map((file) => ({ file, text: fs.readFileSync(path.join(REPO_ROOT, file), 'utf8') }));
}

function scriptBlocks(): string[] {
  const result = spawnSync(process.execPath, [SCRIPT, '--list'], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim().split('\n');
}

describe('scripts/readme-outputs.mjs and the markers in README.md and docs/', () => {
  it('every block the script makes is marked in exactly one page, opened then closed, around one fenced block', () => {
    const names = scriptBlocks();
    assert.ok(names.length >= 5, names.join(', '));
    const all = pages();
    for (const name of names) {
      const open = `<!-- output:${name} -->\n`;
      const close = `<!-- /output:${name} -->`;
      const holding = all.filter((page) => page.text.includes(open));
      assert.deepEqual(
        holding.map((page) => page.file),
        holding.slice(0, 1).map((page) => page.file),
        `${name}: marked in one page only`,
      );
      assert.equal(holding.length, 1, `${name}: marked in no page`);
      const { file, text } = holding[0];
      assert.equal(text.split(open).length, 2, `one ${open.trim()} in ${file}`);
      assert.equal(text.split(close).length, 2, `one ${close} in ${file}`);
      const inside = text.slice(text.indexOf(open) + open.length, text.indexOf(close));
      assert.match(inside, /^```\n[\s\S]+\n```\n$/, `${name}: a fenced block between the markers in ${file}`);
      assert.equal(inside.split('\n').filter((line) => line.startsWith('```')).length, 2, `${name}: one fenced block, not more`);
    }
  });

  it("the README keeps the eval quick start's real output", () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    assert.ok(readme.includes('<!-- output:eval-sample -->\n```\n┌'), 'README.md shows the eval-sample block');
  });

  it('every marked block in the README and docs/ is one the script makes', () => {
    const names = new Set(scriptBlocks());
    const marked = pages().flatMap(({ file, text }) => [...text.matchAll(/^<!-- output:([\w-]+) -->$/gm)].map((m) => `${file}: ${m[1]}`));
    assert.deepEqual(
      marked.filter((entry) => !names.has(entry.split(': ')[1])),
      [],
    );
  });

  it('refuses a block name it does not know, naming the ones it has (exit 2)', () => {
    const result = spawnSync(process.execPath, [SCRIPT, 'no-such-block'], { encoding: 'utf8' });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /no block named no-such-block \(blocks: eval-sample, /);
  });
});
