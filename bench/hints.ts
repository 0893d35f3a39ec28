// Runs every hint rule with verification over the gold and predicted SQL of the shared data, twice in separate
// passes (are the verdicts reproducible?), and times hint analysis of a 1,000-statement file.
// Usage: npx tsx bench/hints.ts
import * as fs from 'fs';
import * as path from 'path';
import { median } from 'simple-statistics';
import { analyzeSql } from '../src/core/hints/analyze';
import { clearParseCache } from '../src/core/sql/ast';
import { RULES } from '../src/core/hints/rules';
import { Verdict, verifyHint } from '../src/core/hints/verify';
import { DatabaseCache, machineLine, sharedSql } from './sharedSql';

async function main() {
  const statements = sharedSql();
  const databases = new DatabaseCache();
  const verdicts = new Map<string, Verdict[]>(RULES.map((r) => [r.id, []]));
  // The second pass's verdict of each hint, in the same order, to see whether a verdict holds on a repeat run.
  const repeats = new Map<string, Verdict[]>(RULES.map((r) => [r.id, []]));
  for (const pass of [verdicts, repeats]) {
    for (const item of statements) {
      const { db, schema } = await databases.get(item);
      for (const { statement, hints } of analyzeSql(item.sql, { schema })) {
        for (const hint of hints) {
          const verdict = await verifyHint(db, statement.text, hint, { timeoutMs: 10_000, maxRows: 500_000 });
          pass.get(hint.rule)!.push(verdict);
          process.stderr.write(`${pass === verdicts ? 1 : 2} ${hint.rule} q${item.questionId} ${verdict.status}: ${verdict.message}\n`);
        }
      }
    }
  }

  // Analysis speed: a 1,000-statement file built from the shared SQL, with and without a schema.
  const file =
    Array.from({ length: 1000 }, (_, i) => statements[i % statements.length].sql.trim().replace(/;\s*$/, '')).join(';\n') + ';\n';
  const superhero = (await databases.get(statements.find((s) => s.dbId === 'superhero')!)).schema;
  const timeIt = (fn: () => void) => {
    const runs: number[] = [];
    for (let i = 0; i < 7; i++) {
      const start = performance.now();
      fn();
      runs.push(performance.now() - start);
    }
    return median(runs);
  };
  const withSchema = timeIt(() => analyzeSql(file, { schema: superhero }));
  const withParse = timeIt(() => {
    clearParseCache(); // every statement parsed cold, as on first opening a file
    analyzeSql(file, { schema: superhero, reportParseErrors: true });
  });

  const lines = [
    '# Hint rules over the shared data, verified',
    '',
    machineLine(),
    '',
    `${statements.length} distinct gold and predicted statements of mini-dev (v1) on the 3 shared databases. Each hint's rewrite is run against the original (set and bag comparison) and, when the rows agree, timed with the fast protocol (t_original / t_rewrite): faster or slower need the whole repeat interval past 1 and a 10 % change. "original runs" leaves out predictions that fail on their own. Every hint is verified twice, in two separate passes over all statements; "same verdict" counts the hints whose two verdicts agree.`,
    '',
    '| rule | title | fired | original runs | same rows (set) | same rows (bag) | faster | no difference | slower | changes results | rewrite fails | same verdict in a second pass | median speed-up (same rows) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const rule of RULES) {
    const v = verdicts.get(rule.id)!;
    const same = v.filter((x) => x.sameSet);
    const speedups = same.flatMap((x) => (x.speedup ? [x.speedup.ratio] : []));
    const count = (s: string) => v.filter((x) => x.status === s).length;
    const originalFails = v.filter((x) => /original does not run/.test(x.message)).length;
    const again = repeats.get(rule.id)!;
    const agree = v.filter((x, i) => again[i]?.status === x.status).length;
    lines.push(
      `| ${rule.id} | ${rule.title} | ${v.length} | ${v.length - originalFails} | ${same.length} | ${v.filter((x) => x.sameBag).length} | ${count('faster')} | ${count('no-difference')} | ${count('slower')} | ${count('changes-results')} | ${count('failed') - originalFails} | ${v.length ? `${agree} of ${v.length}` : '-'} | ${speedups.length ? `${median(speedups).toFixed(2)}×` : '-'} |`,
    );
  }
  lines.push(
    '',
    `Hint analysis of a 1,000-statement file (median of 7): ${withSchema.toFixed(0)} ms with the schema; ${withParse.toFixed(0)} ms when node-sql-parser also checks every statement (to report the ones it cannot read).`,
  );
  const report = lines.join('\n') + '\n';
  fs.writeFileSync(path.join(__dirname, 'results', 'hints.md'), report);
  process.stdout.write(report);
  await databases.closeAll();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
