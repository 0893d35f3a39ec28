// What the editor waits for from a language server it has just started (issue 33, item 3), quiet and with both
// cores busy (a CPU burner this script starts and stops itself), over stdio as VS Code speaks to it:
// - the code lenses of a 500-entry prediction file: the process spawned, `initialize` with the dataset to attach
//   (the mini-dev question file, gold and databases), then, as vscode-languageclient does once initialize answers,
//   the document opened and its lenses asked for; from the spawn: the initialize answer, the first lens response,
//   and (a client that can refresh lenses, as VS Code can) the lenses with their hint counts after the refresh;
// - the Report panel's first row: Evaluate a Prediction File on the same file as the first thing done (the server
//   started by it), from the spawn and from the request to the first EvaluationProgress that carries rows (then the
//   run is cancelled).
// With `--before DIR`, DIR/dist/server.js (another build: the one before a change) is measured in turn with this
// checkout's, run by run, so that both see the same load.
// Usage: node esbuild.js && npx tsx bench/lensLatency.ts [--runs 5] [--before DIR] [--write]
//   --write: the table into bench/results/lensLatency.md (machine, date, load).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { EvaluateFileRequest, EvaluationProgressValue } from '../src/shared/protocol';
import { REPO_ROOT } from '../test/helpers';
import { ServerProcess } from '../test/server/lspClient';
import { burnCpu, machineLine, median } from './machine.cjs';

const MINI_DEV_ROOT = path.join(__dirname, '..', '..', 'shared', 'data', 'bird-minidev');
const PREDICTIONS = path.join(MINI_DEV_ROOT, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json');
const DATASET = {
  questionsFile: path.join(MINI_DEV_ROOT, 'questions', 'mini_dev_sqlite.v1-2024.json'),
  goldFile: path.join(MINI_DEV_ROOT, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
  dbRoot: path.join(MINI_DEV_ROOT, 'databases'),
};
const RESULTS = path.join(REPO_ROOT, 'bench', 'results', 'lensLatency.md');
const ANALYSIS = '<!-- analysis: kept when the figures above are rewritten -->';

type Lens = { command?: { title: string } };
const hintLenses = (lenses: Lens[]) => lenses.filter((lens) => /Hints \(\d+\)/.test(lens.command?.title ?? '')).length;

/** A fresh server of the build at `root`, initialized with the dataset; ms from the spawn to the initialize answer. */
async function started(root: string, refreshSupport: boolean) {
  const spawned = performance.now();
  const server = new ServerProcess({}, root);
  await server.connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: { workspace: { codeLens: { refreshSupport } } },
    initializationOptions: { trusted: true, dataset: DATASET },
  });
  const initialized = performance.now() - spawned;
  await server.connection.sendNotification('initialized', {});
  return { server, spawned, initialized };
}

async function lensesOnce(root: string, run: number, refreshSupport: boolean) {
  const text = fs.readFileSync(PREDICTIONS, 'utf8');
  const uri = `file:///bench/lenses-${run}.json`;
  let refreshed: () => void = () => {};
  const refresh = new Promise<void>((resolve) => (refreshed = resolve));
  const { server, spawned, initialized } = await started(root, refreshSupport);
  server.connection.onRequest('workspace/codeLens/refresh', () => {
    refreshed();
    return null;
  });
  await server.open(uri, 'json', text);
  const ask = () => server.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } }) as Promise<Lens[]>;
  const first = await ask();
  const firstLenses = performance.now() - spawned;
  let complete = firstLenses;
  let hints = hintLenses(first);
  if (refreshSupport && hints === 0) {
    await Promise.race([refresh, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    hints = hintLenses(await ask());
    complete = performance.now() - spawned;
  }
  await server.stop();
  return { initialized, firstLenses, complete, lenses: first.length, hints };
}

async function reportOnce(root: string) {
  const { server, spawned, initialized } = await started(root, true);
  const cancel = new CancellationTokenSource();
  const asked = performance.now();
  let firstRow = 0;
  // ServerProcess answers every $/progress itself: this handler replaces its (the rows are what is measured).
  server.connection.onNotification('$/progress', ({ value }: { value: EvaluationProgressValue }) => {
    if (!firstRow && value.rows?.length) {
      firstRow = performance.now();
      cancel.cancel(); // the rest of the run is not measured here (its ~10 s would only load the shared machine)
    }
  });
  const result = await server.connection.sendRequest(
    EvaluateFileRequest,
    { predictionsFile: PREDICTIONS, progressToken: 'bench' },
    cancel.token,
  );
  await server.stop();
  if (!firstRow || result.questions.length === 0) throw new Error('the evaluation sent no row');
  return { initialized, firstRowFromSpawn: firstRow - spawned, firstRow: firstRow - asked };
}

const builds = (before?: string) => [
  ...(before ? [{ name: 'before', root: path.resolve(before) }] : []),
  { name: 'this build', root: REPO_ROOT },
];

async function main() {
  if (!fs.existsSync(PREDICTIONS)) throw new Error(`the shared mini-dev data is missing: ${PREDICTIONS}`);
  const option = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const runs = Number(option('--runs') ?? 5);
  const before = option('--before');
  const rows: string[] = [];
  const loads: string[] = [];
  for (const condition of ['no burner', 'both cores busy'] as const) {
    loads.push(`${condition}: load average ${os.loadavg()[0].toFixed(1)} before`);
    const stop = condition === 'no burner' ? () => {} : burnCpu();
    try {
      for (const build of builds(before)) {
        const lenses: Awaited<ReturnType<typeof lensesOnce>>[] = [];
        const reports: Awaited<ReturnType<typeof reportOnce>>[] = [];
        // Builds in turn within a run would be fairer still; a whole build's runs at a time keep its caches as a user's.
        for (let run = 0; run < runs; run++) {
          lenses.push(await lensesOnce(build.root, run, true));
          reports.push(await reportOnce(build.root));
        }
        const ms = (values: number[]) =>
          `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
        rows.push(
          `| ${condition} | ${build.name} | ${ms(lenses.map((r) => r.initialized))} | ${ms(lenses.map((r) => r.firstLenses))} ` +
            `(${lenses[0].lenses}) | ${ms(lenses.map((r) => r.complete))} | ${ms(reports.map((r) => r.firstRow))} ` +
            `| ${ms(reports.map((r) => r.firstRowFromSpawn))} |`,
        );
        process.stdout.write(`${rows.at(-1)}\n`);
      }
    } finally {
      stop();
    }
    loads[loads.length - 1] += `, ${os.loadavg()[0].toFixed(1)} after`;
  }
  const table = [
    '| machine | build | initialize answered | first lenses (count) | lenses with hint counts | Evaluate → first report row | spawn → first report row |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ];
  if (!process.argv.includes('--write')) return;
  const report = [
    '# First lenses and the first report row, from a fresh language server (over stdio)',
    '',
    `${machineLine()} · ${runs} runs each · ${loads.join('; ')} · the machine is shared with other engineers' work`,
    `· \`npx tsx bench/lensLatency.ts --runs ${runs}${before ? ' --before DIR' : ''} --write\``,
    '',
    'Milliseconds, median (range). File: the mini-dev GPT-4 predictions (500 entries), dataset: mini-dev v1-2024 (questions, gold, ' +
      'the three databases). "Both cores busy": a busy loop per core, started and stopped by the bench. Lenses are timed ' +
      'from the spawn (as VS Code starts the server with the window); the report row from the Evaluate request (a server ' +
      'already started) and from the spawn (Evaluate as the first thing done).',
    '',
    ...table,
    '',
  ].join('\n');
  // A hand-written reading of the figures below ANALYSIS stays when the figures are rewritten.
  const previous = fs.existsSync(RESULTS) ? fs.readFileSync(RESULTS, 'utf8') : '';
  const analysis = previous.includes(ANALYSIS) ? previous.slice(previous.indexOf(ANALYSIS)) : '';
  fs.writeFileSync(RESULTS, analysis ? `${report}\n${analysis}` : report);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
