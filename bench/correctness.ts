// What `audit --correctness` costs: the 140 mini-dev gold of the three shared databases audited without
// measurements (plans, hints and index advice: `audit --no-measure`), with and without the correctness checks,
// run alternately REPEATS times; the wall time of each, the median and the spread. The prediction files' part
// (predictions_disagree re-runs the mismatching predictions) is timed apart, with their evidence gathered once.
//   npx tsx bench/correctness.ts              (writes bench/results/correctness.md)
//   npx tsx bench/correctness.ts --quick      (20 questions, one repeat, printed only: a try on a busy machine)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { auditGold, goldItems, GoldItem } from '../src/core/audit/goldAudit';
import { PredictionEvidence } from '../src/core/audit/predictionEvidence';
import { gatherEvidence, readPredictionSources } from '../src/core/audit/predictionSources';
import { correctnessSummaryText } from '../src/core/audit/correctness/kinds';
import { loadGold } from '../src/core/bird/gold';
import { loadQuestions } from '../src/core/bird/questions';
import { databaseExists } from '../src/core/bird/layout';
import { machineLine, median } from './machine.cjs';

const DATA = process.env.VES_LENS_BIRD_DATA ?? path.resolve(__dirname, '..', '..', 'shared', 'data', 'bird-minidev');
const dbRoot = path.join(DATA, 'databases');
const quick = process.argv.includes('--quick');
const REPEATS = quick ? 1 : 5;
const LIMITS = { timeoutMs: 30_000, maxRows: 100_000 };

async function timeAudit(items: GoldItem[], correctness: boolean, predictions?: PredictionEvidence[]) {
  const start = performance.now();
  const audit = await auditGold(items, { dbRoot, ...LIMITS, measure: false, correctness, predictions });
  return { ms: performance.now() - start, audit };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const spread = (values: number[]) => `${seconds(Math.min(...values))}–${seconds(Math.max(...values))}`;

async function main() {
  const questionsFile = path.join(DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');
  const questions = loadQuestions(questionsFile).questions;
  const gold = loadGold(path.join(DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'));
  const shared = goldItems(questions, gold).filter((item) => databaseExists(dbRoot, item.question.dbId));
  const items = quick ? shared.slice(0, 20) : shared;

  await timeAudit(items, true); // warm-up: the files' pages and schemas read once, outside the timed runs
  const plain: number[] = [];
  const checked: number[] = [];
  let summary = '';
  for (let i = 0; i < REPEATS; i++) {
    plain.push((await timeAudit(items, false)).ms);
    const run = await timeAudit(items, true);
    checked.push(run.ms);
    summary = correctnessSummaryText(run.audit.correctness!);
  }

  // The prediction files' part: their evidence is gathered once (scoring them is `audit --predictions`' own cost).
  const predictionDir = path.join(DATA, 'predictions', 'minidev-official');
  const files = fs
    .readdirSync(predictionDir)
    .sort()
    .map((f) => path.join(predictionDir, f));
  const evidence = await gatherEvidence(readPredictionSources(files, questions), questions, gold, [], {
    dbRoot,
    ...LIMITS,
    questionsFile,
  });
  const withPredictions: number[] = [];
  const withoutPredictions: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    withoutPredictions.push((await timeAudit(items, false, evidence)).ms);
    withPredictions.push((await timeAudit(items, true, evidence)).ms);
  }

  const n = items.length;
  const cost = median(checked) - median(plain);
  const lines = [
    '# The cost of `audit --correctness`',
    '',
    machineLine(),
    '',
    `${n} mini-dev gold (mini_dev_sqlite.v1-2024.json, the three shared databases), \`audit --no-measure\` with and without`,
    `\`--correctness\`, run alternately ${REPEATS} time${REPEATS === 1 ? '' : 's'} after a warm-up: wall time of the whole audit (plans, hints, index advice), median and range.`,
    '',
    '| audit | median | range | per gold |',
    '|---|---|---|---|',
    `| plain (\`--no-measure\`) | ${seconds(median(plain))} | ${spread(plain)} | ${(median(plain) / n).toFixed(1)} ms |`,
    `| with \`--correctness\` | ${seconds(median(checked))} | ${spread(checked)} | ${(median(checked) / n).toFixed(1)} ms |`,
    `| with 4 prediction files' evidence | ${seconds(median(withoutPredictions))} | ${spread(withoutPredictions)} | ${(median(withoutPredictions) / n).toFixed(1)} ms |`,
    `| with the evidence and \`--correctness\` | ${seconds(median(withPredictions))} | ${spread(withPredictions)} | ${(median(withPredictions) / n).toFixed(1)} ms |`,
    '',
    Math.min(...checked) > Math.max(...plain)
      ? `The checks add ${seconds(cost)} (${(cost / n).toFixed(1)} ms a gold, ${((median(checked) / median(plain) - 1) * 100).toFixed(0)} % of the plain audit);`
      : `The checks' cost is within the runs' spread here (median difference ${seconds(cost)}): the ranges overlap;`,
    `with the prediction files' evidence the checks take ${seconds(median(withPredictions) - median(withoutPredictions))} ` +
      '(their mismatching predictions re-run and grouped included).',
    '',
    `What they found: ${summary}.`,
    '',
    'Run: `npx tsx bench/correctness.ts` (on a quiet machine; it writes this file).',
  ];
  const text = lines.join('\n') + '\n';
  process.stdout.write(text);
  if (!quick) fs.writeFileSync(path.join(__dirname, 'results', 'correctness.md'), text);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
