// Timing protocol v2 against the official protocol, side by side in one run (issue 7's "done when"):
// the four official mini-dev prediction files on superhero + toxicology, `eval --metrics ves,rves`, official ×3
// and fast ×3, and the scripts' own protocol in Python ×3 (bench/minidev_sqlite_ves.py: mini_dev's R-VES and
// DAMO's VES loops, issue 23's "done when"), runs interleaved so machine drift hits every mode alike. Reports wall time, VES and R-VES
// totals with their run-to-run spread, how often a later fast run's ratio falls inside an earlier fast run's
// interval (coverage), the intervals' median width, and R-VES rewards that flip between fast runs among
// questions not flagged uncertain.
// Usage: npx tsx bench/timing.mjs [--runs 3] [--data ../shared/data/bird-minidev] [--files substring] [--no-python]
//        npx tsx bench/timing.mjs --fast-only [--runs 2] [--files substring]   (a quick check: fast mode alone, its
//        intervals' width and coverage and its wall time; nothing written to bench/results)
//        npx tsx bench/timing.mjs --from /tmp/ves-lens-timing-XXXX   (the tables again from a finished run's files)
//        --baseline <checkout>: also that checkout's `--timing fast` (its bin/ves-lens.js, built), interleaved with the
//        rest, for a before/after in one run; --out <file>: the report there instead of bench/results/timing.md.
//        The machine's 1-minute load average is read at each eval and reported (a shared machine's share of the noise).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rvesContribution, rvesOutlook, vesContribution } from '../src/core/metrics/efficiency';
import { probabilityBelowFor } from '../src/core/timing/fast';
import { machineLine, median } from './machine.cjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const from = option('--from', undefined);
// Wall times of each eval, kept beside its JSON so that --from can rebuild the tables (its files and runs too).
if (from && !fs.existsSync(path.join(from, 'wall.json'))) {
  process.stderr.write(`--from ${from}: no wall.json there (it is written by a finished run of this script)\n`);
  process.exit(2);
}
const fromWall = from ? JSON.parse(fs.readFileSync(path.join(from, 'wall.json'), 'utf8')) : undefined;
const runs = fromWall ? Object.values(fromWall)[0].fast.length : Number(option('--runs', '3'));
const data = path.resolve(option('--data', path.join(import.meta.dirname, '..', '..', 'shared', 'data', 'bird-minidev')));
const root = path.resolve(import.meta.dirname, '..');
const predictionDir = path.join(data, 'predictions', 'minidev-official');
const files = fromWall
  ? Object.keys(fromWall).sort()
  : fs
      .readdirSync(predictionDir)
      .filter((f) => f.endsWith('.json') && f.includes(option('--files', '')))
      .sort();
// The reference column: the scripts' loops run by python3 itself (VES_LENS_PYTHON to pick another interpreter).
const fastOnly = !fromWall && args.includes('--fast-only');
const withPython = fromWall ? Object.values(fromWall)[0].python !== undefined : !fastOnly && !args.includes('--no-python');
const baseline = from ? undefined : option('--baseline', undefined);
const withBaseline = fromWall ? Object.values(fromWall)[0].baseline !== undefined : baseline !== undefined;
const modes = [
  ...(fastOnly ? ['fast'] : withPython ? ['python', 'official', 'fast'] : ['official', 'fast']),
  ...(withBaseline ? ['baseline'] : []),
];
const reportFile = path.resolve(option('--out', path.join(import.meta.dirname, 'results', 'timing.md')));
const scratch = from ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-timing-'));
// Only superhero and toxicology: the other questions are skipped (not timed) in both modes.
const dbRoot = path.join(scratch, 'databases');
for (const db of from ? [] : ['superhero', 'toxicology']) {
  fs.mkdirSync(path.join(dbRoot, db), { recursive: true });
  fs.symlinkSync(path.join(data, 'databases', db, `${db}.sqlite`), path.join(dbRoot, db, `${db}.sqlite`));
}
const wallFile = path.join(scratch, 'wall.json');
const loadFile = path.join(scratch, 'load.json');
/** The 1-minute load averages read at each eval (none on a system without /proc/loadavg). */
const loads = from && fs.existsSync(loadFile) ? JSON.parse(fs.readFileSync(loadFile, 'utf8')) : [];
const readLoad = () => {
  try {
    loads.push(Number(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]));
  } catch {
    // not Linux: no load to report
  }
};

/** The scripts' protocol in Python on one file: {seconds, totals: {ves, rves, count, ...}}. */
function pythonOnce(file, run) {
  const json = path.join(scratch, `${file}.python.${run}.json`);
  const started = process.hrtime.bigint();
  const result = spawnSync(
    process.env.VES_LENS_PYTHON || 'python3',
    [
      path.join(root, 'bench', 'minidev_sqlite_ves.py'),
      path.join(predictionDir, file),
      path.join(data, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
      dbRoot,
    ],
    { encoding: 'utf8' },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0) throw new Error(`the Python protocol failed on ${file}: ${result.stderr || result.error}`);
  fs.writeFileSync(json, result.stdout);
  return { seconds, totals: JSON.parse(result.stdout) };
}

function evalOnce(file, mode, run) {
  if (mode === 'python') return pythonOnce(file, run);
  const json = path.join(scratch, `${file}.${mode}.${run}.json`);
  const started = process.hrtime.bigint();
  const result = spawnSync(
    process.execPath,
    [
      path.join(mode === 'baseline' ? path.resolve(baseline) : root, 'bin', 'ves-lens.js'),
      'eval',
      '--questions',
      path.join(data, 'questions', 'mini_dev_sqlite.v1-2024.json'),
      '--gold',
      path.join(data, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
      '--predictions',
      path.join(predictionDir, file),
      '--db-root',
      dbRoot,
      '--metrics',
      'ves,rves',
      '--timing',
      mode === 'baseline' ? 'fast' : mode,
      '--json',
      json,
      '--no-progress',
    ],
    { encoding: 'utf8' },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0) throw new Error(`eval failed on ${file} (${mode}): ${result.stderr}`);
  return { seconds, report: JSON.parse(fs.readFileSync(json, 'utf8')) };
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const sd = (values) => Math.sqrt(values.reduce((a, b) => a + (b - mean(values)) ** 2, 0) / (values.length - 1));
const pct = (n, d) => (d ? `${((100 * n) / d).toFixed(0)} %` : '–');

/** Coverage of run b's ratios by run a's intervals, widths, and certain-reward flips, over the timed pairs. */
function between(a, b) {
  const byId = new Map(b.questions.map((q) => [q.question_id, q]));
  const out = { timed: 0, same: 0, ves: 0, rves: 0, widths: [], flips: 0, certain: 0 };
  for (const q of a.questions) {
    const r = byId.get(q.question_id);
    if (q.time_ratio === null || r?.time_ratio == null) continue;
    if (q.same_program) {
      out.same++;
      continue;
    }
    out.timed++;
    if (q.time_ratio_interval[0] <= r.time_ratio && r.time_ratio <= q.time_ratio_interval[1]) out.ves++;
    if (q.rves_time_ratio_interval[0] <= r.rves_time_ratio && r.rves_time_ratio <= q.rves_time_ratio_interval[1]) out.rves++;
    out.widths.push(q.time_ratio_interval[1] / q.time_ratio_interval[0], q.rves_time_ratio_interval[1] / q.rves_time_ratio_interval[0]);
    if (!q.rves_uncertain && !r.rves_uncertain) {
      out.certain++;
      if (q.rves_reward !== r.rves_reward) out.flips++;
    }
  }
  return out;
}

/** between() summed over every ordered pair of fast runs. */
function acrossRuns(fast) {
  const agg = { timed: 0, same: 0, ves: 0, rves: 0, widths: [], flips: 0, certain: 0 };
  for (let i = 0; i < fast.length; i++) {
    for (let j = 0; j < fast.length; j++) {
      if (i === j) continue;
      const b = between(fast[i].report, fast[j].report);
      for (const key of ['timed', 'same', 'ves', 'rves', 'flips', 'certain']) agg[key] += b[key];
      agg.widths.push(...b.widths);
    }
  }
  return agg;
}

const results = Object.fromEntries(files.map((f) => [f, Object.fromEntries(modes.map((mode) => [mode, []]))]));
if (fromWall) {
  for (const file of files) {
    for (const mode of modes) {
      for (let run = 0; run < runs; run++) {
        const saved = JSON.parse(fs.readFileSync(path.join(scratch, `${file}.${mode}.${run}.json`), 'utf8'));
        results[file][mode].push({ seconds: fromWall[file][mode][run], ...(mode === 'python' ? { totals: saved } : { report: saved }) });
      }
    }
  }
} else {
  for (let run = 0; run < runs; run++) {
    for (const file of files) {
      for (const mode of modes) {
        readLoad();
        results[file][mode].push(evalOnce(file, mode, run));
        process.stderr.write(`run ${run + 1}/${runs} ${mode} ${file}: ${results[file][mode].at(-1).seconds.toFixed(1)} s\n`);
      }
    }
  }
  const wall = Object.fromEntries(
    files.map((f) => [f, Object.fromEntries(modes.map((mode) => [mode, results[f][mode].map((r) => r.seconds)]))]),
  );
  if (!fastOnly) fs.writeFileSync(wallFile, JSON.stringify(wall, null, 2));
  if (!fastOnly) fs.writeFileSync(loadFile, JSON.stringify(loads));
}
if (fastOnly) {
  process.stdout.write(fastOnlySummary());
  process.exit(0);
}

/** `--fast-only`: each file's intervals (coverage and widths over every ordered pair of runs) and wall time. */
function fastOnlySummary() {
  const out = [
    machineLine(),
    '',
    '| prediction file | timing clock | timed pairs | fast wall s | coverage VES | coverage R-VES | median interval width |',
  ];
  out.push('|---|---|---|---|---|---|---|');
  for (const file of files) {
    const fast = results[file].fast;
    const agg = acrossRuns(fast);
    const clock = fast[0].report.inputs.timing_clock ?? 'node-sqlite3';
    const wall = median(fast.map((r) => r.seconds)).toFixed(1);
    const name = file.replace(/^predict_mini_dev_|\.json$/g, '');
    const timed = agg.timed / (fast.length * (fast.length - 1));
    const cells = [name, clock, timed, wall, pct(agg.ves, agg.timed), pct(agg.rves, agg.timed), `×${median(agg.widths).toFixed(3)}`];
    out.push(`| ${cells.join(' | ')} |`);
  }
  return out.join('\n') + '\n';
}

// Totals recomputed from an official run's own samples on fast mode's quantity: the typical (Hodges–Lehmann)
// single-execution ratio, and same-program pairs at exactly 1. With `spreadOf` (a fast run's R-VES spread per
// question), an R-VES pair counts the expected reward over the buckets a ratio with fast's spread around the
// official typical ratio lands in, as fast mode counts it near an edge. Splits the official − fast gap into
// what each stated difference accounts for (README, "Timing").
function officialOnFastQuantity(report, metric, sameIds, { sameAtOne, spreadOf }) {
  let sum = 0;
  for (const q of report.questions) {
    const typical = metric === 'ves' ? q.time_ratio_typical : q.rves_time_ratio_typical;
    const measured = metric === 'ves' ? q.ves : q.rves;
    if (!q.ex || typical === undefined || !(q.time_ratio > 0)) {
      sum += measured ?? 0;
      continue;
    }
    const same = sameAtOne && sameIds.has(q.question_id);
    const ratio = same ? 1 : typical;
    const spread = same ? undefined : spreadOf?.get(q.question_id);
    if (metric === 'ves') sum += vesContribution(ratio);
    else if (spread) sum += rvesOutlook(probabilityBelowFor({ ratio, logSe: spread.log_se, df: spread.df })).expectedContribution;
    else sum += rvesContribution(ratio);
  }
  return (100 * sum) / report.summary.total.count;
}

const lines = [
  '# Timing protocol v2 vs the official protocol',
  '',
  machineLine(),
  '',
  `${files.length} official mini-dev prediction files on superhero + toxicology, \`eval --metrics ves,rves\`, ${runs} runs per mode, interleaved. Spread: standard deviation over the runs. Coverage: share of a later fast run's ratios inside an earlier fast run's 95 % repeat interval (all ordered pairs of runs), pairs with the same program left out. Flips: R-VES rewards that differ between two fast runs where neither flags the question uncertain.`,
  '',
  '| prediction file | timed pairs | same program | official wall s | fast wall s | fast / official | coverage VES | coverage R-VES | median interval width | uncertain | flips |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
];
const agreement = [
  '',
  '## Agreement with the official protocol',
  '',
  "Fast mode estimates each metric on its stated quantity: the **typical** ratio (the Hodges–Lehmann centre of the single-execution log ratios), with same-program pairs at exactly 1; a pair whose official 100-iteration loop would outlast its limit (100 × the time limit, as both scripts' func_timeout) scores 0 in both modes. The official scripts average single-execution ratios, and that mean also carries timing noise (a sub-millisecond query that stalls once makes one ratio 30× or 0.03×). \"Official, fast's quantity\" recomputes each official run from its own 100 samples per pair on fast's quantity (`time_ratio_typical`, `rves_time_ratio_typical` in its JSON); for R-VES it counts, as fast mode does, the expected reward over the buckets a ratio with fast's spread around that typical ratio lands in (near an edge, fast's 6 to 64 executions cannot tell 0.98× from 1.03× where 100 official ones can). The gap between the official total and fast splits into the noise part, the same-program part, the expected-reward part and a residual. Within spread: the residual is within two standard errors of a difference of two " +
    runs +
    '-run means, 2·√((sd₁² + sd₂²)/' +
    runs +
    '), from the run-to-run sd of the recomputed official totals and of the fast totals, each pooled over the files (an sd from ' +
    runs +
    ' runs of one file has ' +
    (runs - 1) +
    ' degrees of freedom).',
  '',
  "| prediction file | metric | official mean (sd) | official, fast's quantity (sd) | fast mean (sd) | fast − official | timing-noise part | same-program part | expected-reward part | residual | within spread |",
  '|---|---|---|---|---|---|---|---|---|---|---|',
];
const overall = { official: 0, fast: 0, python: 0 };
// Fast mode's intervals over every file (issue 21's "done when": median width ≤ ×1.25, coverage ≥ 90 %).
const fastIntervals = { timed: 0, ves: 0, rves: 0, widths: [] };
// Run-to-run variances of the totals, pooled over the files: an sd from 3 runs alone is too rough to compare.
const pooled = { ves: { official: [], fast: [], typical: [] }, rves: { official: [], fast: [], typical: [] } };
const rows = [];
for (const file of files) {
  const { official, fast } = results[file];
  const wall = (list) => median(list.map((r) => r.seconds));
  overall.official += wall(official);
  overall.fast += wall(fast);
  if (withPython) overall.python += wall(results[file].python);
  const total = (list, metric) => list.map((r) => r.report.summary.total[metric]);
  const fmt = (values) => `${mean(values).toFixed(2)} (${sd(values).toFixed(2)})`;
  const agg = acrossRuns(fast);
  fastIntervals.widths.push(...agg.widths);
  const pairs = fast.length * (fast.length - 1);
  for (const key of ['timed', 'ves', 'rves']) fastIntervals[key] += agg[key];
  const uncertain = mean(fast.map((r) => r.report.questions.filter((q) => q.rves_uncertain).length));
  const name = file.replace(/^predict_mini_dev_|\.json$/g, '');
  lines.push(
    `| ${name} | ${agg.timed / pairs + agg.same / pairs} | ${agg.same / pairs} | ${wall(official).toFixed(1)} | ${wall(fast).toFixed(1)} | ${pct(wall(fast), wall(official))} | ${pct(agg.ves, agg.timed)} | ${pct(agg.rves, agg.timed)} | ×${median(agg.widths).toFixed(3)} | ${uncertain.toFixed(1)} | ${agg.flips} of ${agg.certain} |`,
  );
  const sameIds = new Set(fast[0].report.questions.filter((q) => q.same_program).map((q) => q.question_id));
  // Each fast run's R-VES spread per question, for the expected reward near an edge.
  const spreads = fast.map((r) => new Map(r.report.questions.filter((q) => q.rves_spread).map((q) => [q.question_id, q.rves_spread])));
  for (const metric of ['ves', 'rves']) {
    const raw = total(official, metric);
    const typicalAsMeasured = official.map((r) => officialOnFastQuantity(r.report, metric, sameIds, { sameAtOne: false }));
    const onFastQuantity = official.map((r) => officialOnFastQuantity(r.report, metric, sameIds, { sameAtOne: true }));
    // R-VES near an edge: the expected reward under fast's spread (official run i with fast run i's spreads).
    const withFastSpread =
      metric === 'ves'
        ? onFastQuantity
        : official.map((r, i) =>
            officialOnFastQuantity(r.report, metric, sameIds, { sameAtOne: true, spreadOf: spreads[i % spreads.length] }),
          );
    const fastTotals = total(fast, metric);
    const residual = mean(fastTotals) - mean(withFastSpread);
    const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;
    pooled[metric].official.push(sd(raw) ** 2);
    pooled[metric].fast.push(sd(fastTotals) ** 2);
    pooled[metric].typical.push(sd(withFastSpread) ** 2);
    const expectedRewardPart = metric === 'ves' ? '–' : signed(mean(withFastSpread) - mean(onFastQuantity));
    rows.push({
      metric,
      residual,
      cells: `| ${name} | ${metric === 'ves' ? 'VES' : 'R-VES'} | ${fmt(raw)} | ${fmt(withFastSpread)} | ${fmt(fastTotals)} | ${signed(mean(fastTotals) - mean(raw))} | ${signed(mean(typicalAsMeasured) - mean(raw))} | ${signed(mean(onFastQuantity) - mean(typicalAsMeasured))} | ${expectedRewardPart} | ${signed(residual)}`,
    });
  }
}
// Two standard errors of a difference of two means of `runs` runs, each mode's run-to-run sd pooled over the files.
const pooledVariance = (variances) => mean(variances);
const pooledSd = (variances) => Math.sqrt(pooledVariance(variances)).toFixed(2);
for (const row of rows) {
  const limit = 2 * Math.sqrt((pooledVariance(pooled[row.metric].typical) + pooledVariance(pooled[row.metric].fast)) / runs);
  agreement.push(`${row.cells} | ${Math.abs(row.residual) <= limit ? 'yes' : 'no'} (±${limit.toFixed(2)}) |`);
}
lines.push(
  '',
  `All files: fast mode took ${pct(overall.fast, overall.official)} of the official protocol's wall time (${overall.fast.toFixed(1)} s vs ${overall.official.toFixed(1)} s, medians summed).` +
    (withPython
      ? ` Against the scripts' protocol in Python: fast took ${pct(overall.fast, overall.python)} of its wall time (${overall.fast.toFixed(1)} s vs ${overall.python.toFixed(1)} s), \`--timing official\` ${pct(overall.official, overall.python)}.`
      : ''),
);
if (loads.length) {
  const sorted = [...loads].sort((a, b) => a - b);
  lines.push(
    '',
    `Load average (1 minute) at the start of each eval: ${sorted[0].toFixed(1)}–${sorted.at(-1).toFixed(1)}, median ${median(sorted).toFixed(1)} (2 cores).`,
  );
}
if (withBaseline) lines.push(...againstBaseline());
if (withPython) lines.push(...againstScripts());
lines.push(...agreement);

/** `--baseline`: another checkout's fast mode in the same interleaving, its wall time and intervals beside this one's. */
function againstBaseline() {
  const out = [
    '',
    '## Against the baseline checkout',
    '',
    `\`--baseline\`: the same evals with another checkout's \`--timing fast\`, interleaved with the modes above (${runs} runs each).`,
    '',
    '| prediction file | mode | wall s (median) | / official | coverage VES | coverage R-VES | median interval width |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const file of files) {
    const official = median(results[file].official.map((r) => r.seconds));
    for (const mode of ['baseline', 'fast']) {
      const agg = acrossRuns(results[file][mode]);
      const wall = median(results[file][mode].map((r) => r.seconds));
      const cells = [file.replace(/^predict_mini_dev_|\.json$/g, ''), mode === 'fast' ? 'this checkout' : 'baseline', wall.toFixed(1)];
      cells.push(pct(wall, official), pct(agg.ves, agg.timed), pct(agg.rves, agg.timed), `×${median(agg.widths).toFixed(3)}`);
      out.push(`| ${cells.join(' | ')} |`);
    }
  }
  return out;
}

/**
 * `--timing official` against the scripts' own protocol in Python (issue 23): the difference of the means and two
 * standard errors of it, 2·√((sd_python² + sd_official²)/runs), each mode's run-to-run sd pooled over the files.
 */
function againstScripts() {
  const clocks = new Set(files.flatMap((f) => results[f].official.map((r) => r.report.inputs.timing_clock ?? 'node-sqlite3')));
  const out = [
    '',
    "## `--timing official` against the scripts' protocol in Python",
    '',
    `The reference: \`bench/minidev_sqlite_ves.py\`, mini_dev's R-VES loop and DAMO's VES loop as the scripts run them (python3's sqlite3, \`time.time()\`, a fresh connection per execution, 100 iterations, 3σ cleaning), ${runs} runs per file interleaved with VES Lens's. VES Lens's official runs were timed by: ${[...clocks].join(', ')}. Within spread: the difference is within two standard errors of a difference of two ${runs}-run means, each mode's run-to-run sd pooled over the files.`,
    '',
    '| prediction file | metric | scripts in Python, mean (sd) | `--timing official`, mean (sd) | difference | within spread |',
    '|---|---|---|---|---|---|',
  ];
  const variance = { ves: { python: [], official: [] }, rves: { python: [], official: [] } };
  const cells = [];
  for (const file of files) {
    for (const metric of ['ves', 'rves']) {
      const python = results[file].python.map((r) => r.totals[metric]);
      const official = results[file].official.map((r) => r.report.summary.total[metric]);
      variance[metric].python.push(sd(python) ** 2);
      variance[metric].official.push(sd(official) ** 2);
      cells.push({ file, metric, python, official });
    }
  }
  for (const { file, metric, python, official } of cells) {
    const difference = mean(official) - mean(python);
    const limit = 2 * Math.sqrt((pooledVariance(variance[metric].python) + pooledVariance(variance[metric].official)) / runs);
    const fmt = (values) => `${mean(values).toFixed(2)} (${sd(values).toFixed(2)})`;
    out.push(
      `| ${file.replace(/^predict_mini_dev_|\.json$/g, '')} | ${metric === 'ves' ? 'VES' : 'R-VES'} | ${fmt(python)} | ${fmt(official)} | ${difference >= 0 ? '+' : '−'}${Math.abs(difference).toFixed(2)} | ${Math.abs(difference) < limit ? 'yes' : 'no'} (±${limit.toFixed(2)}) |`,
    );
  }
  out.push(
    '',
    `Run-to-run sd pooled over the files: VES scripts ${pooledSd(variance.ves.python)}, official ${pooledSd(variance.ves.official)}; R-VES scripts ${pooledSd(variance.rves.python)}, official ${pooledSd(variance.rves.official)}.`,
  );
  return out;
}
lines.push(
  '',
  `Run-to-run sd of the totals, pooled over the ${files.length} files (an sd from ${runs} runs of one file is rough): VES official ${pooledSd(pooled.ves.official)}, fast ${pooledSd(pooled.ves.fast)}; R-VES official ${pooledSd(pooled.rves.official)}, fast ${pooledSd(pooled.rves.fast)}.`,
);
{
  const vesSd = { official: Math.sqrt(pooledVariance(pooled.ves.official)), fast: Math.sqrt(pooledVariance(pooled.ves.fast)) };
  const rvesSd = { official: Math.sqrt(pooledVariance(pooled.rves.official)), fast: Math.sqrt(pooledVariance(pooled.rves.fast)) };
  const { timed, ves, rves, widths } = fastIntervals;
  lines.push(
    '',
    `Fast mode over all files (issue 21): coverage ${pct(ves + rves, 2 * timed)} (VES ${pct(ves, timed)}, R-VES ${pct(rves, timed)}; target ≥ 90 %), median interval width ×${median(widths).toFixed(3)} (target ≤ ×1.25), wall time ${pct(overall.fast, overall.official)} of the official protocol's (target ≤ 10 %), run-to-run sd pooled over the files ≤ official's: VES ${vesSd.fast <= vesSd.official ? 'yes' : 'no'} (${vesSd.fast.toFixed(3)} vs ${vesSd.official.toFixed(3)}), R-VES ${rvesSd.fast <= rvesSd.official ? 'yes' : 'no'} (${rvesSd.fast.toFixed(3)} vs ${rvesSd.official.toFixed(3)}).`,
  );
}
const report = lines.join('\n') + '\n';
process.stdout.write(report);
fs.mkdirSync(path.dirname(reportFile), { recursive: true });
fs.writeFileSync(reportFile, report);
process.stderr.write(`wrote ${path.relative(process.cwd(), reportFile)}\n`);
