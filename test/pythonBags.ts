import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';

/**
 * Each query's rows as Python's own sqlite3 reads them on `file` opened read-only, sorted (a bag: duplicates
 * counted, order ignored): what a rewrite must return the same of, checked outside VES Lens.
 */
export function pythonBags(file: string, ...sql: string[]): string[][] {
  const script = [
    'import json, sqlite3, sys',
    "db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)",
    'print(json.dumps([sorted(json.dumps(list(r)) for r in db.execute(q).fetchall()) for q in sys.argv[2:]]))',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script, file, ...sql], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as string[][];
}
