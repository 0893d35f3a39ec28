// The README's "real output" blocks are rewritten by scripts/readme-outputs.mjs between markers; every block the
// script makes must have its markers in the README (else a regeneration would fail), and every marked block must
// be one the script makes (else it would go stale unnoticed). The numbers need the shared data: not checked here.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'readme-outputs.mjs');
const README = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

function scriptBlocks(): string[] {
  const result = spawnSync(process.execPath, [SCRIPT, '--list'], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim().split('\n');
}

describe('scripts/readme-outputs.mjs and the README markers', () => {
  it('every block the script makes is marked once in the README, opened then closed, around one fenced block', () => {
    const names = scriptBlocks();
    assert.ok(names.length >= 5, names.join(', '));
    for (const name of names) {
      const open = `<!-- output:${name} -->\n`;
      const close = `<!-- /output:${name} -->`;
      assert.equal(README.split(open).length, 2, `one ${open.trim()} in README.md`);
      assert.equal(README.split(close).length, 2, `one ${close} in README.md`);
      const inside = README.slice(README.indexOf(open) + open.length, README.indexOf(close));
      assert.match(inside, /^```\n[\s\S]+\n```\n$/, `${name}: a fenced block between the markers`);
      assert.equal(inside.split('\n').filter((line) => line.startsWith('```')).length, 2, `${name}: one fenced block, not more`);
    }
  });

  it('every marked block in the README is one the script makes', () => {
    const names = new Set(scriptBlocks());
    const marked = [...README.matchAll(/^<!-- output:([\w-]+) -->$/gm)].map((m) => m[1]);
    assert.deepEqual(
      marked.filter((name) => !names.has(name)),
      [],
    );
  });

  it('refuses a block name it does not know, naming the ones it has (exit 2)', () => {
    const result = spawnSync(process.execPath, [SCRIPT, 'no-such-block'], { encoding: 'utf8' });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /no block named no-such-block \(blocks: eval-sample, /);
  });
});
