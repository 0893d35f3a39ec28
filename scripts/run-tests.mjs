// Runs every test/**/*.test.ts with Node's own test runner (TypeScript through tsx). Its output passes through
// as it comes; at the end, the failing tests are listed again with their errors, because a long run's log is
// often read only from its end (CI keeps the tail).
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? find(full) : name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The lines of a failure's YAML block kept in the summary (its error and location come first). */
const DETAIL_LINES = 25;

/**
 * Reads TAP as Node's runner writes it (each level of subtests 4 spaces further in) and keeps every test that
 * failed: the names of the suites around it, its own, and the start of its YAML block. TAP is Node 20's and 22's
 * output to a pipe; Node 23 and later write their spec report there, which ends with its own list of failures
 * (then this one finds nothing to add).
 */
function failureCollector() {
  const failures = [];
  const names = []; // the `# Subtest:` names open at each depth
  let current; // the failure whose YAML block is being read
  return {
    failures,
    line(text) {
      const indent = text.length - text.trimStart().length;
      const depth = Math.floor(indent / 4);
      const trimmed = text.trim();
      if (current) {
        if (trimmed === '...' && indent === current.indent + 2) current = undefined;
        else if (trimmed !== '---' && current.detail.length < DETAIL_LINES) current.detail.push(text.slice(current.indent));
        return;
      }
      const subtest = /^# Subtest: (.*)$/.exec(trimmed);
      if (subtest) {
        names.length = depth;
        names[depth] = subtest[1];
        return;
      }
      const failed = /^not ok \d+ - (.*?)(?: # .*)?$/.exec(trimmed);
      if (failed) {
        current = { path: [...names.slice(0, depth), failed[1]].join(' › '), indent, detail: [] };
        failures.push(current);
      }
    },
  };
}

const only = process.argv.slice(2);
const files = only.length ? only : find('test').sort();
const child = spawn(process.execPath, ['--import', 'tsx', '--test', ...files], { stdio: ['inherit', 'pipe', 'inherit'] });
const collector = failureCollector();
child.stdout.pipe(process.stdout);
createInterface({ input: child.stdout }).on('line', (text) => collector.line(text));
const status = await new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
// A suite fails with its failing tests: list only the failures nothing failing sits under.
const leaves = collector.failures.filter((f) => !collector.failures.some((other) => other !== f && other.path.startsWith(`${f.path} › `)));
if (leaves.length > 0) {
  process.stdout.write(`\n== failing tests (${leaves.length}) ==\n`);
  for (const failure of leaves) process.stdout.write(`not ok - ${failure.path}\n${failure.detail.map((l) => `    ${l}`).join('\n')}\n`);
}
process.exit(status);
