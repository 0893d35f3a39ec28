// The optimizer on the slowest statements of the shared data (issue 28): every distinct gold and predicted
// statement of mini-dev (v1) on the three shared databases is timed once on a ×10 copy (Python's sqlite3, as the
// official scripts); the N slowest are given to `optimize` (rules only, no model) at ×10; then each original and
// its verified rewrite are timed again, interleaved, 3 times each (medians), by Python's sqlite3.
// Usage: npx tsx bench/optimize.ts [--top 20] [--scale 10] [--limit 120] [--out bench/results/optimize.md]
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as readline from 'readline';
import { ConnectionCache } from '../src/core/db/connectionCache';
import { DEFAULT_OPTIMIZE_OPTIONS, defaultWitnessDir, optimizeStatement } from '../src/core/optimize/optimizeStatement';
import { StatementOptimization } from '../src/core/optimize/types';
import { scaledCopy } from '../src/core/scale/scaledCopy';
import { DATA, machineLine, sharedSql } from './sharedSql';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const TOP = Number(arg('--top', '20'));
const SCALE = Number(arg('--scale', '10'));
const LIMIT_S = Number(arg('--limit', '120'));
const OUT = arg('--out', path.join(__dirname, 'results', 'optimize.md'));

/** A long-lived python3 timing statements one at a time. */
class PythonTimer {
  private readonly child = spawn('python3', [path.join(__dirname, 'python', 'time_statements.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
  private readonly lines = readline.createInterface({ input: this.child.stdout! })[Symbol.asyncIterator]();
  /** Seconds; null when stopped at the limit; 'error' when the statement fails (it is not a slow statement). */
  async time(db: string, sql: string, limit = LIMIT_S): Promise<number | null | 'error'> {
    this.child.stdin!.write(JSON.stringify({ db, sql, limit }) + '\n');
    const { value } = await this.lines.next();
    const answer = JSON.parse(value as string) as { seconds: number | null; error?: string };
    if (answer.seconds !== null) return answer.seconds;
    return answer.error === 'interrupted' ? null : 'error';
  }
  /** As time(), a failure counted as stopped at the limit (a rewrite that failed would not have been kept). */
  async timeOrLimit(db: string, sql: string): Promise<number | null> {
    const t = await this.time(db, sql);
    return t === 'error' ? null : t;
  }
  close() {
    this.child.stdin!.end();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const seconds = (s: number | null) => (s === null ? `> ${LIMIT_S} s` : s >= 1 ? `${s.toFixed(2)} s` : `${(s * 1000).toFixed(1)} ms`);

async function main() {
  const statements = sharedSql();
  const copies = new Map<string, string>();
  for (const s of statements)
    if (!copies.has(s.dbId))
      copies.set(s.dbId, await scaledCopy(s.dbPath, SCALE, { schemaFile: path.join(DATA, 'schema', 'dev_tables.json'), dbId: s.dbId }));
  const python = new PythonTimer();
  process.stderr.write(`timing ${statements.length} statements once at ×${SCALE}\n`);
  const first: { item: (typeof statements)[number]; s: number }[] = [];
  for (const item of statements) {
    const s = await python.time(copies.get(item.dbId)!, item.sql, 60);
    if (s !== 'error') first.push({ item, s: s ?? 60 }); // a statement that fails is not a slow one
  }
  const slowest = first.sort((a, b) => b.s - a.s).slice(0, TOP);
  const cache = ConnectionCache.withSchema();
  const results: { item: (typeof statements)[number]; result: StatementOptimization; before: number | null; after: number | null }[] = [];
  for (const [n, { item }] of slowest.entries()) {
    process.stderr.write(`optimize ${n + 1}/${slowest.length}: q${item.questionId} ${item.source} (${item.dbId})\n`);
    const one = await cache.open(item.dbPath);
    const ten = await cache.open(copies.get(item.dbId)!);
    const result = await optimizeStatement(
      item.sql,
      { db: one.db, schema: one.schema, scaled: { factor: SCALE, db: ten.db } },
      { ...DEFAULT_OPTIMIZE_OPTIONS, timeoutMs: LIMIT_S * 1000, witnessDir: defaultWitnessDir() },
      { dbId: item.dbId, questionId: item.questionId, source: item.source },
    );
    // Before and after, interleaved, by Python's sqlite3: 3 runs each (an original over 20 s once; past the limit, counted at it).
    const rounds = slowest[n].s > 20 ? 1 : 3;
    const before: number[] = [];
    const after: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const b = await python.timeOrLimit(copies.get(item.dbId)!, item.sql);
      if (b === null) {
        before.length = 0;
        break;
      }
      before.push(b);
      if (result.best) after.push((await python.timeOrLimit(copies.get(item.dbId)!, result.best.sql)) ?? LIMIT_S);
    }
    if (result.best) while (after.length < 3) after.push((await python.timeOrLimit(copies.get(item.dbId)!, result.best.sql)) ?? LIMIT_S);
    const beforeS = before.length ? median(before) : null;
    results.push({ item, result, before: beforeS, after: result.best ? median(after) : beforeS });
  }
  python.close();
  await cache.closeAll();

  const cut = results.some((r) => r.before === null);
  const total = (pick: (r: (typeof results)[number]) => number | null) => results.reduce((sum, r) => sum + (pick(r) ?? LIMIT_S), 0);
  const beforeTotal = total((r) => r.before);
  const afterTotal = total((r) => r.after);
  const lines = [
    '# The optimizer on the slowest statements of the shared data',
    '',
    machineLine(),
    '',
    `\`npx tsx bench/optimize.ts --top ${TOP} --scale ${SCALE} --limit ${LIMIT_S}\`: the ${statements.length} distinct gold and predicted statements of mini-dev (v1) on the three shared databases, each timed once on a ×${SCALE} copy; the ${TOP} slowest given to \`optimize\` (rules only, no model; search at ×${SCALE}, kept only with the same rows at ×1 and ×${SCALE}, no counterexample, and a repeat interval above 1 at ×${SCALE}); then each original and its kept rewrite timed again by Python's sqlite3, interleaved: 3 runs each, medians (an original over 20 s once; one past ${LIMIT_S} s counted at ${LIMIT_S} s). Statements that fail on their own are not among the slowest.`,
    '',
    `**Total of the ${TOP} at ×${SCALE}: ${seconds(beforeTotal)}${cut ? ' (at least)' : ''} → ${seconds(afterTotal)}: ${((1 - afterTotal / beforeTotal) * 100).toFixed(1)} % saved** by rewrites alone (no index), ${results.filter((r) => r.result.best).length} of ${TOP} statements with a verified faster rewrite.`,
    '',
    "| # | question | source | db | before | after | speed-up (optimize's interval at ×" + SCALE + ') | rules | proof | tried |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(({ item, result, before, after }, i) => {
      const best = result.best;
      const interval = best
        ? `${best.speedup.toFixed(1)}× (${best.low.toFixed(1)}–${best.high === null ? '∞' : best.high.toFixed(1)})`
        : '—';
      return `| ${i + 1} | ${item.questionId} | ${item.source.replace(/^predict_mini_dev_|_sqlite\.json$/g, '')} | ${item.dbId} | ${seconds(before)} | ${seconds(after)} | ${interval} | ${best ? best.patterns.join(' + ') : result.status} | ${best?.verification.proof ?? '—'} | ${result.tried} |`;
    }),
    '',
    'The rewrites kept:',
    '',
    ...results.flatMap(({ item, result }, i) =>
      result.best
        ? [
            `${i + 1}. q${item.questionId} (${item.source}): \`${result.best.sql.replace(/\s+/g, ' ')}\` — ${result.best.verification.summary}`,
          ]
        : [],
    ),
    '',
  ];
  fs.writeFileSync(OUT, lines.join('\n'));
  process.stdout.write(lines.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
