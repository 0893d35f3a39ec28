// Benchmark of `ves-lens eval` over the shared mini-dev prediction files: wall time and peak memory of a full
// run per timing mode, and the run-to-run spread of VES and R-VES over repeated runs (the paper reports 0.043).
// Usage: node bench/eval.mjs [--runs 5] [--modes fast,official] [--data ../shared/data/bird-minidev]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { machineLine, median } from './machine.cjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const runs = Number(option('--runs', '5'));
const modes = option('--modes', 'fast,official').split(',');
const data = path.resolve(option('--data', path.join(import.meta.dirname, '..', '..', 'shared', 'data', 'bird-minidev')));
const root = path.resolve(import.meta.dirname, '..');
const predictionDir = path.join(data, 'predictions', 'minidev-official');
const files = fs.readdirSync(predictionDir).filter((f) => f.endsWith('.json')).sort();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-bench-'));

function evalOnce(file, mode) {
  const json = path.join(scratch, 'out.json');
  const rss = path.join(scratch, 'rss');
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [
    '--require', path.join(root, 'bench', 'peak-rss.cjs'), path.join(root, 'bin', 'ves-lens.js'), 'eval',
    '--questions', path.join(data, 'questions', 'mini_dev_sqlite.v1-2024.json'),
    '--gold', path.join(data, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
    '--predictions', path.join(predictionDir, file),
    '--db-root', path.join(data, 'databases'),
    '--timing', mode, '--json', json, '--no-progress',
  ], { encoding: 'utf8', env: { ...process.env, VES_LENS_RSS_FILE: rss } });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0) throw new Error(`eval failed on ${file} (${mode}): ${result.stderr}`);
  const report = JSON.parse(fs.readFileSync(json, 'utf8'));
  return { seconds, rss: Number(fs.readFileSync(rss, 'utf8')), ves: report.summary.total.ves, rves: report.summary.total.rves, ex: report.summary.total.ex, timed: report.questions.filter((q) => q.time_ratio !== null).length };
}

const spread = (values) => {
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - m) ** 2, 0) / (values.length - 1));
};

const header = (mode) => [
  `# ves-lens eval benchmark: --timing ${mode}`,
  '',
  machineLine(),
  '',
  `${files.length} official mini-dev prediction files × ${runs} runs; questions on the 3 shared databases are scored (140 per file), the other 360 skipped.`,
  '',
  '| timing | prediction file | timed questions | median wall s | median peak RSS MiB | EX | VES mean | VES sd | VES range | R-VES mean | R-VES sd | R-VES range |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
];
for (const mode of modes) {
  const lines = header(mode);
  // Interleave files within each round so slow drift of the machine spreads over all of them.
  const perFile = Object.fromEntries(files.map((f) => [f, []]));
  for (let run = 0; run < runs; run++) {
    for (const file of files) {
      perFile[file].push(evalOnce(file, mode));
      process.stderr.write(`${mode} run ${run + 1}/${runs} ${file}: ${perFile[file].at(-1).seconds.toFixed(1)} s\n`);
    }
  }
  for (const file of files) {
    const r = perFile[file];
    const ves = r.map((x) => x.ves);
    const rves = r.map((x) => x.rves);
    lines.push(`| ${mode} | ${file.replace(/^predict_mini_dev_|\.json$/g, '')} | ${r[0].timed} | ${median(r.map((x) => x.seconds)).toFixed(1)} | ${(median(r.map((x) => x.rss)) / 2 ** 20).toFixed(0)} | ${r[0].ex.toFixed(2)} | ${(ves.reduce((a, b) => a + b) / runs).toFixed(2)} | ${spread(ves).toFixed(2)} | ${(Math.max(...ves) - Math.min(...ves)).toFixed(2)} | ${(rves.reduce((a, b) => a + b) / runs).toFixed(2)} | ${spread(rves).toFixed(2)} | ${(Math.max(...rves) - Math.min(...rves)).toFixed(2)} |`);
  }
  const report = lines.join('\n') + '\n';
  process.stdout.write(report);
  const out = path.join(root, 'bench', 'results', `eval-${mode}.md`);
  fs.writeFileSync(out, report);
  process.stderr.write(`wrote ${out}\n`);
}
