// Runs every hint rule with verification over the gold and predicted SQL of the shared data, on the databases or
// on copies scaled ×N, and (at ×1) times hint analysis of a 1,000-statement file. Each scale's table replaces its
// own section of bench/results/hints.md, so the ×1 and ×10 runs can be made apart.
// Usage: npx tsx bench/hints.ts [--scale 10] [--passes 2] [--timeout-ms 10000]
import * as path from 'path';
import { median } from 'simple-statistics';
import { analyzeSql } from '../src/core/hints/analyze';
import { clearParseCache } from '../src/core/sql/ast';
import { RULES } from '../src/core/hints/rules';
import { Verdict, verifyHint } from '../src/core/hints/verify';
import { scaledCopy } from '../src/core/scale/scaledCopy';
import { countOption, sectionEnd, sectionStart, writeScaleSection } from './scaleSections';
import { DatabaseCache, machineLine, SharedSql, sharedSql } from './sharedSql';

/** A rule faster in under this share of its fires (at ×10) is a note, not a warning (issue 34). */
const NOTE_BELOW = 0.25;

const RESULTS = path.join(__dirname, 'results', 'hints.md');

async function main() {
  const scale = countOption('--scale', 1);
  const passes = countOption('--passes', 1);
  const timeoutMs = countOption('--timeout-ms', 10_000);
  const shared = sharedSql();
  const statements: SharedSql[] = [];
  for (const item of shared) statements.push(scale === 1 ? item : { ...item, dbPath: await scaledCopy(item.dbPath, scale) });
  const databases = new DatabaseCache();
  // verdicts[pass] holds each rule's verdicts in statement order: a second pass shows whether a verdict holds on a repeat run.
  const verdicts = Array.from({ length: passes }, () => new Map<string, Verdict[]>(RULES.map((r) => [r.id, []])));
  const started = performance.now();
  for (const [n, pass] of verdicts.entries()) {
    for (const item of statements) {
      const { db, schema } = await databases.get(item);
      for (const { statement, hints } of analyzeSql(item.sql, { schema })) {
        for (const hint of hints) {
          const verdict = await verifyHint(db, statement.text, hint, { timeoutMs, maxRows: 500_000 });
          pass.get(hint.rule)!.push(verdict);
          process.stderr.write(`×${scale} ${n + 1} ${hint.rule} q${item.questionId} ${verdict.status}: ${verdict.message}\n`);
        }
      }
    }
  }
  const minutes = (performance.now() - started) / 60_000;

  const lines = [
    sectionStart(scale),
    `## ×${scale}${scale === 1 ? ' (the shared databases)' : ` (copies scaled ×${scale} with \`ves-lens scale\`)`}`,
    '',
    `${machineLine()} · ${minutes.toFixed(0)} min · **the machine was shared with other engineers' work while this ran: timings are noisy, which is what the repeat measurement guards against**`,
    '',
    `${statements.length} distinct gold and predicted statements; each query limited to ${timeoutMs / 1000} s ("original fails" counts those past it or failing on their own).`,
    '',
    '| rule | level | fired | original fails | same work | faster | no difference | slower | changes rows | rewrite fails | faster / fires that ran | median speed-up (timed) |' +
      (passes > 1 ? ' same verdict in pass 2 |' : ''),
    '|---|---|---|---|---|---|---|---|---|---|---|---|' + (passes > 1 ? '---|' : ''),
  ];
  for (const rule of RULES) {
    const v = verdicts[0].get(rule.id)!;
    const count = (s: string) => v.filter((x) => x.status === s).length;
    // A correctness rule without a rewrite (VL011 says what a column binds to) is only counted as fired.
    const noRewrite = v.filter((x) => /no rewrite to verify/.test(x.message)).length;
    const originalFails = v.filter((x) => /original does not run/.test(x.message)).length;
    const speedups = v.flatMap((x) => (x.sameSet && x.speedup ? [x.speedup.ratio] : []));
    const faster = count('faster');
    // The share among fires whose original ran within the limit: a fire past it says nothing either way.
    const ran = v.length - originalFails - noRewrite;
    const share = ran ? faster / ran : undefined;
    const level = rule.kind === 'correctness' ? 'warning (correctness)' : rule.note ? 'note' : 'information';
    const flag =
      share !== undefined && share < NOTE_BELOW && rule.kind === 'speed' && scale > 1 && !rule.note ? ' (under ¼: should be a note)' : '';
    let row = `| ${rule.id} | ${level} | ${v.length} | ${originalFails} | ${count('same-work')} | ${faster} | ${count('no-difference')} | ${count('slower')} | ${count('changes-results')} | ${noRewrite ? `- (no rewrite: ${noRewrite})` : count('failed') - originalFails} | ${share === undefined ? '-' : `${(share * 100).toFixed(0)} %${flag}`} | ${speedups.length ? `${median(speedups).toFixed(2)}×` : '-'} |`;
    if (passes > 1) {
      const again = verdicts[1].get(rule.id)!;
      row += ` ${v.length ? `${v.filter((x, i) => again[i]?.status === x.status).length} of ${v.length}` : '-'} |`;
    }
    lines.push(row);
  }

  if (scale === 1) {
    // Analysis speed: a 1,000-statement file built from the shared SQL, with and without a schema.
    const file = Array.from({ length: 1000 }, (_, i) => shared[i % shared.length].sql.trim().replace(/;\s*$/, '')).join(';\n') + ';\n';
    const superhero = (await databases.get(shared.find((s) => s.dbId === 'superhero')!)).schema;
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
    lines.push(
      '',
      `Hint analysis of a 1,000-statement file (median of 7): ${withSchema.toFixed(0)} ms with the schema; ${withParse.toFixed(0)} ms when node-sql-parser also checks every statement (to report the ones it cannot read).`,
    );
  }
  lines.push(sectionEnd(scale));
  const section = lines.join('\n');
  writeScaleSection(RESULTS, HEADER, scale, section);
  process.stdout.write(section + '\n');
  await databases.closeAll();
}

const HEADER = `# Hint rules over the shared data, verified

Every hint of every rule on the gold and predicted SQL of mini-dev (v1) on the 3 shared databases, run with
\`verifyHint\` as \`hints --verify\` runs it: the rewrite against the original (set and bag comparison); when the rows
agree, **same work** if SQLite compiles both to the same program or makes the same plan step for step (not timed);
otherwise timed with the fast protocol (t_original / t_rewrite), where faster or slower needs the whole repeat
interval past 1, a 10 % change, **and a second interleaved measurement that says the same** (else: no difference).
A speed rule faster in under a quarter of its fires at ×10 is a **note** (the editor's quietest level), not a
warning. Regenerate a scale's section with \`npx tsx bench/hints.ts --scale N\`.
`;

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
