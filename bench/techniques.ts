// What SQLMorph's techniques cost on top of EX: the four official mini-dev prediction files (560 questions on
// the three shared databases) scored with EX alone, with EX and the four embedding-free techniques, and with
// all seven (local model; cold and warm embedding cache). Then the partial matching at its bound.
//   npx tsx bench/techniques.ts            (writes bench/results/techniques.md)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadGold } from '../src/core/bird/gold';
import { loadPredictions } from '../src/core/bird/predictions';
import { loadQuestions } from '../src/core/bird/questions';
import { techniqueStep } from '../src/core/eval/techniqueStep';
import { exactColumnTechnique } from '../src/core/results/sqlmorph/exactColumn';
import { MAX_PARTIAL_PAIRS } from '../src/core/results/sqlmorph/greedy';
import { noColumnTechnique } from '../src/core/results/sqlmorph/noColumn';
import { TechniqueName } from '../src/core/results/sqlmorph/types';
import { CachedEmbeddings } from '../src/core/embeddings/diskCache';
import { LocalEmbeddings, localModelInstalled } from '../src/core/embeddings/localModel';
import { evaluateTasks } from '../src/core/eval/evaluate';
import { sqliteFolder } from '../src/core/db/source';
import { buildTasks, EvalTask } from '../src/core/bird/tasks';
import { databaseExists } from '../src/core/bird/layout';
import { machineLine, median } from './machine.cjs';

const DATA = process.env.VES_LENS_BIRD_DATA ?? path.resolve(__dirname, '..', '..', 'shared', 'data', 'bird-minidev');
const dbRoot = path.join(DATA, 'databases');
const REPEATS = 3;

function tasks(): EvalTask[] {
  const questions = loadQuestions(path.join(DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'));
  const gold = loadGold(path.join(DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'));
  const dir = path.join(DATA, 'predictions', 'minidev-official');
  return fs
    .readdirSync(dir)
    .sort()
    .flatMap((file) =>
      buildTasks(questions.questions, loadPredictions(path.join(dir, file)), gold, []).filter((t) =>
        databaseExists(dbRoot, t.question.dbId),
      ),
    );
}

async function timeRun(all: EvalTask[], techniques?: ReturnType<typeof techniqueStep>): Promise<number> {
  const start = performance.now();
  await evaluateTasks(all, {
    source: sqliteFolder(dbRoot),
    metrics: ['ex'],
    timing: 'fast',
    timeoutMs: 30_000,
    maxRows: 500_000,
    techniques,
  });
  return performance.now() - start;
}

async function main() {
  const all = tasks();
  const lines = [
    `# SQLMorph's techniques against EX alone`,
    '',
    machineLine(),
    '',
    `${all.length} questions (the four official mini-dev prediction files on the three shared databases); median of ${REPEATS} runs.`,
    '',
  ];
  lines.push('| scoring | ms | ms per question | × EX alone |', '|---|---|---|---|');
  const alone: number[] = [];
  for (let i = 0; i < REPEATS; i++) alone.push(await timeRun(all));
  const exAlone = median(alone);
  const row = (label: string, ms: number) =>
    lines.push(`| ${label} | ${ms.toFixed(0)} | ${(ms / all.length).toFixed(2)} | ${(ms / exAlone).toFixed(2)} |`);
  row('EX alone', exAlone);
  const exactOnes: TechniqueName[] = [
    'execution_accuracy',
    'exact_column_and_exact_cell',
    'exact_column_and_partial_cell',
    'no_column_and_partial_cell',
  ];
  const exact: number[] = [];
  for (let i = 0; i < REPEATS; i++) exact.push(await timeRun(all, techniqueStep({ techniques: exactOnes })));
  row('EX + the 4 embedding-free techniques', median(exact));
  if (localModelInstalled()) {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-bench-embeddings-'));
    const provider = new CachedEmbeddings(new LocalEmbeddings(), cache);
    row('EX + all 7, local model, cold cache (model load included)', await timeRun(all, techniqueStep({ embeddings: provider })));
    const asked = provider.requested;
    const warm: number[] = [];
    for (let i = 0; i < REPEATS; i++) warm.push(await timeRun(all, techniqueStep({ embeddings: provider })));
    row('EX + all 7, local model, warm cache', median(warm));
    lines.push(
      '',
      `The cold run embedded ${asked} distinct texts (column texts and row texts of the mismatches); the warm runs asked for ${provider.requested - asked}.`,
    );
    fs.rmSync(cache, { recursive: true, force: true });
  }

  // The partial matching at its bound: leftover rows that share cells pairwise, one column differing.
  lines.push('', `## Partial matching at the bound (${MAX_PARTIAL_PAIRS.toLocaleString('en-US')} leftover row pairs)`, '');
  lines.push('| technique | gold × predicted rows, columns | ms |', '|---|---|---|');
  for (const [rows, columns] of [
    [1000, 4],
    [3162, 4],
    [3162, 12],
  ] as const) {
    const gold = {
      columns: Array.from({ length: columns }, (_, c) => `c${c}`),
      rows: Array.from({ length: rows }, (_, r) => Array.from({ length: columns }, (_, c) => (c === 0 ? r : (r * 7 + c) % 50))),
    };
    const predicted = { columns: gold.columns, rows: gold.rows.map((row) => [-1 - (row[0] as number), ...row.slice(1)]) };
    for (const [label, score] of [
      ['exact_column_and_partial_cell', () => exactColumnTechnique(gold, predicted, { partial: true, penalize: true })],
      ['no_column_and_partial_cell', () => noColumnTechnique(gold, predicted)],
    ] as const) {
      const start = performance.now();
      score();
      lines.push(
        `| ${label} | ${rows.toLocaleString('en-US')} × ${rows.toLocaleString('en-US')}, ${columns} | ${(performance.now() - start).toFixed(0)} |`,
      );
    }
  }
  lines.push(
    '',
    "SQLMorph's own loop rescans every remaining pair for each pair it takes: O(rows³ × columns); at 3,162 × 3,162 rows that is about 3 × 10¹⁰ cell comparisons.",
  );
  const out = path.join(__dirname, 'results', 'techniques.md');
  fs.writeFileSync(out, lines.join('\n') + '\n');
  console.log(lines.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
