// Build time and size of scaled copies (ves-lens scale) of the shared superhero and toxicology databases,
// ×1, ×10 and ×100, median of 3 builds each. Usage: npx tsx bench/scale.ts
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { scaleDatabase, ScaleReport } from '../src/core/scale/scaleDatabase';
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
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
  const report = lines.join('\n') + '\n';
  fs.writeFileSync(path.join(__dirname, 'results', 'scale.md'), report);
  process.stdout.write(report);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
