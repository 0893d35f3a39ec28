// Build time and size of scaled copies (ves-lens scale) of the shared superhero and toxicology databases,
// ×1, ×10 and ×100, median of 3 builds each. Usage: npx tsx bench/scale.ts
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { scaleDatabase, ScaleReport } from '../src/core/scale/scaleDatabase';
import { DEFAULT_FAST_TIMING, freshConnectionTimer, measurePair } from '../src/core/timing/fast';
import { machineLine, median } from './machine.cjs';
import { DATA } from './sharedSql';

const DATABASES = ['superhero', 'toxicology'];
const FACTORS = [1, 10, 100];
const BUILDS = 3;

async function main() {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-bench-scale-'));
  const schemaFile = path.join(DATA, 'schema', 'dev_tables.json');
  const lines = [
    '# Scaled copies: build time and size',
    '',
    machineLine(),
    '',
    `\`scaleDatabase\` (\`ves-lens scale --schema dev_tables.json\`), median of ${BUILDS} builds each, output on the local disk. Rows: all tables together.`,
    '',
    '| database | factor | rows | key columns shifted | build s (median) | build s (min–max) | output MB |',
    '|---|---|---|---|---|---|---|',
  ];
  try {
    for (const dbId of DATABASES) {
      const source = path.join(DATA, 'databases', dbId, `${dbId}.sqlite`);
      for (const factor of FACTORS) {
        const reports: ScaleReport[] = [];
        for (let build = 0; build < BUILDS; build++) {
          const out = path.join(folder, `${dbId}-x${factor}.sqlite`);
          reports.push(await scaleDatabase(source, factor, out, { schemaFile, overwrite: true }));
        }
        const seconds = reports.map((r) => r.seconds);
        const [report] = reports;
        const rows = report.tables.reduce((sum, t) => sum + t.rowsAfter, 0);
        const keys = report.tables.reduce((sum, t) => sum + t.keyColumns.length, 0);
        const line = `| ${dbId} | ×${factor} | ${rows.toLocaleString('en-US')} | ${keys} | ${median(seconds).toFixed(2)} | ${Math.min(...seconds).toFixed(2)}–${Math.max(...seconds).toFixed(2)} | ${(report.outputBytes / 1e6).toFixed(1)} |`;
        lines.push(line);
        process.stderr.write(line + '\n');
      }
    }
    lines.push(...(await growthOf738(folder, schemaFile)));
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
  const report = lines.join('\n') + '\n';
  fs.writeFileSync(path.join(__dirname, 'results', 'scale.md'), report);
  process.stdout.write(report);
}

// Question 738's gold: a correlated EXISTS that rescans hero_attribute for every hero; the prediction a JOIN.
const GOLD_738 =
  "SELECT superhero_name FROM superhero AS T1 WHERE EXISTS (SELECT 1 FROM hero_attribute AS T2 INNER JOIN attribute AS T3 ON T2.attribute_id = T3.id WHERE T3.attribute_name = 'Durability' AND T2.attribute_value < 50 AND T1.id = T2.hero_id)";
const JOIN_738 =
  "SELECT s.superhero_name FROM superhero s JOIN hero_attribute ha ON s.id = ha.hero_id JOIN attribute a ON ha.attribute_id = a.id WHERE a.attribute_name = 'Durability' AND ha.attribute_value < 50";

/** Gold 738 against its JOIN form on superhero ×1, ×10, ×100: the ratio `eval --scales` reports, and its cost. */
async function growthOf738(folder: string, schemaFile: string): Promise<string[]> {
  const source = path.join(DATA, 'databases', 'superhero', 'superhero.sqlite');
  const timeoutMs = 30_000;
  const lines = [
    '',
    '## Question 738 as the data grows',
    '',
    `Gold (a correlated EXISTS per hero) against the JOIN prediction, full execution, fast protocol (2–3 blocks, as \`eval --scales\`), time limit ${timeoutMs / 1000} s per execution.`,
    '',
    '| scale | copy built in s | gold ms | JOIN ms | ratio t_gold / t_join (repeat interval) | timing s |',
    '|---|---|---|---|---|---|',
  ];
  for (const factor of FACTORS) {
    const out = path.join(folder, `superhero-738-x${factor}.sqlite`);
    const built = factor === 1 ? { seconds: 0 } : await scaleDatabase(source, factor, out, { schemaFile, overwrite: true });
    const db = factor === 1 ? source : out;
    const started = performance.now();
    try {
      const timing = (
        await measurePair(freshConnectionTimer(db, GOLD_738), freshConnectionTimer(db, JOIN_738), {
          ...DEFAULT_FAST_TIMING,
          quantities: ['full'],
          settle: { ratioOf: ['full'], bucketOf: [] },
          minBlocks: 2,
          maxBlocks: 3,
          timeoutMs,
        })
      ).full!;
      lines.push(
        `| ×${factor} | ${built.seconds.toFixed(2)} | ${timing.goldMs.toFixed(1)} | ${timing.predMs.toFixed(2)} | ${timing.ratio.toFixed(1)}× (${timing.low.toFixed(1)}–${timing.high.toFixed(1)}) | ${((performance.now() - started) / 1000).toFixed(1)} |`,
      );
    } catch (error) {
      lines.push(
        `| ×${factor} | ${built.seconds.toFixed(2)} | over the ${timeoutMs / 1000} s limit: ${(error as Error).message} | – | – | ${((performance.now() - started) / 1000).toFixed(1)} |`,
      );
    }
    process.stderr.write(lines.at(-1) + '\n');
  }
  return lines;
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
