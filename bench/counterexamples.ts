// The cost of `eval --counterexamples` on the 140 mini-dev questions of the shared databases, for each of the
// four official prediction files: how many EX-correct pairs, proved equivalent, searched, with a witness, how
// small the witnesses are, and how long the search took (scoring EX itself not counted).
// Usage: npx tsx bench/counterexamples.ts [--files N] [--pair-seconds S] [--out bench/results/counterexamples.md]
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadGold } from '../src/core/bird/gold';
import { loadPredictions } from '../src/core/bird/predictions';
import { loadQuestions } from '../src/core/bird/questions';
import { buildTasks } from '../src/core/bird/tasks';
import { sqliteFolder } from '../src/core/db/source';
import { evaluateTasks } from '../src/core/eval/evaluate';
import { checkRobustness } from '../src/core/eval/robustnessStep';
import { robustnessSummary } from '../src/core/eval/robustnessSummary';
import { machineLine, median } from './machine.cjs';
import { DATA } from './sharedSql';

const SHARED = ['student_club', 'superhero', 'toxicology'];

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

async function main() {
  const fileLimit = Number(option('--files', '4'));
  const pairSeconds = Number(option('--pair-seconds', '3'));
  const outFile = option('--out', path.join(__dirname, 'results', 'counterexamples.md'));
  const predictionDir = path.join(DATA, 'predictions', 'minidev-official');
  const files = fs
    .readdirSync(predictionDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .slice(0, fileLimit);
  const questions = loadQuestions(path.join(DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'));
  const gold = loadGold(path.join(DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'));
  const dbRoot = path.join(DATA, 'databases');
  const lines = [
    '# Counterexample databases: cost of `eval --counterexamples`',
    '',
    machineLine(),
    '',
    `The 140 mini-dev v1 questions on the shared databases (${SHARED.join(', ')}), gold from mini_dev_sqlite_gold.v1-2024.sql; ` +
      `${pairSeconds} s search budget a pair (the default), 10 min for a file. Seconds: the robustness step only (equivalence, ` +
      'searches, shrinking, writing and re-checking witnesses, ex_fragile re-runs), not the EX scoring before it. Rows: all tables of a witness.',
    '',
    '| predictions | EX-correct | proved equivalent | searched | with counterexample | none found (all variations tried) | budget spent | witness rows (median, max) | witness KB (median) | mismatches | EX-fragile | step s | slowest pair s |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const file of files) {
    const tasks = buildTasks(questions.questions, loadPredictions(path.join(predictionDir, file)), gold, []).filter((t) =>
      SHARED.includes(t.question.dbId),
    );
    const results = await evaluateTasks(tasks, {
      source: sqliteFolder(dbRoot),
      metrics: ['ex'],
      timing: 'fast',
      timeoutMs: 30_000,
      maxRows: 500_000,
    });
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-bench-cx-'));
    const started = performance.now();
    await checkRobustness(results, tasks, {
      dbRoot,
      outDir,
      pairBudgetMs: pairSeconds * 1000,
      totalBudgetMs: 600_000,
      timeoutMs: 30_000,
      maxRows: 500_000,
    });
    const seconds = (performance.now() - started) / 1000;
    const summary = robustnessSummary(results)!;
    const witnesses = results.filter((r) => r.counterexample).map((r) => r.counterexample!);
    const rows = witnesses.map((w) => Object.values(w.rows_by_table).reduce((a, b) => a + b, 0));
    const kb = witnesses.map((w) => fs.statSync(w.database).size / 1024);
    const searches = results.map((r) => r.counterexample_search).filter((s) => s && s.result !== 'not_searched');
    const count = (result: string) => searches.filter((s) => s!.result === result).length;
    lines.push(
      `| ${file.replace(/^predict_mini_dev_|\.json$/g, '')} | ${summary.ex_correct} | ${summary.provably_equivalent} | ${summary.searched} | ${summary.with_counterexample} | ${count('none_found')} | ${count('budget_spent')} | ` +
        `${rows.length ? `${median(rows)}, ${Math.max(...rows)}` : '-'} | ${kb.length ? median(kb).toFixed(0) : '-'} | ${summary.mismatches} | ${summary.ex_fragile} | ${seconds.toFixed(1)} | ` +
        `${Math.max(0, ...searches.map((s) => s!.seconds)).toFixed(1)} |`,
    );
    process.stderr.write(lines[lines.length - 1] + '\n');
    fs.rmSync(outDir, { recursive: true, force: true });
  }
  lines.push('', `Command: \`npx tsx bench/counterexamples.ts\` (add \`--files 1\` for a quick look).`, '');
  fs.writeFileSync(outFile, lines.join('\n'));
  process.stderr.write(`wrote ${outFile}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
