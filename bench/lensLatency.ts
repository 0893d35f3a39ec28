// Code lenses of a 500-entry prediction file as VS Code gets them from a language server it has just started:
// the process spawned, `initialize` with the dataset to attach (the mini-dev question file, gold and databases),
// then, as vscode-languageclient does once initialize answers, the document opened and its lenses asked for.
// Measured from the spawn: the initialize answer, the first lens response, and (for a client that can refresh
// lenses, as VS Code can) the lenses with their hint counts after the server's refresh.
// Usage: npm run build && npx tsx bench/lensLatency.ts [runs]
import * as fs from 'fs';
import * as path from 'path';
import { median } from 'simple-statistics';
import { ServerProcess } from '../test/server/lspClient';

const MINI_DEV_ROOT = path.join(__dirname, '..', '..', 'shared', 'data', 'bird-minidev');
const PREDICTIONS = path.join(MINI_DEV_ROOT, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json');
const DATASET = {
  questionsFile: path.join(MINI_DEV_ROOT, 'questions', 'mini_dev_sqlite.v1-2024.json'),
  goldFile: path.join(MINI_DEV_ROOT, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
  dbRoot: path.join(MINI_DEV_ROOT, 'databases'),
};

type Lens = { command?: { title: string } };
const hintLenses = (lenses: Lens[]) => lenses.filter((lens) => /Hints \(\d+\)/.test(lens.command?.title ?? '')).length;

async function once(run: number, refreshSupport: boolean) {
  const text = fs.readFileSync(PREDICTIONS, 'utf8');
  const started = performance.now();
  const server = new ServerProcess();
  const uri = `file:///bench/lenses-${run}.json`;
  let refreshed: () => void = () => {};
  const refresh = new Promise<void>((resolve) => (refreshed = resolve));
  server.connection.onRequest('workspace/codeLens/refresh', () => {
    refreshed();
    return null;
  });
  await server.connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: { workspace: { codeLens: { refreshSupport } } },
    initializationOptions: { trusted: true, dataset: DATASET },
  });
  const initialized = performance.now() - started;
  await server.connection.sendNotification('initialized', {});
  await server.open(uri, 'json', text);
  const ask = () => server.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } }) as Promise<Lens[]>;
  const first = await ask();
  const firstLenses = performance.now() - started;
  let complete = firstLenses;
  let hints = hintLenses(first);
  const firstHints = hints;
  if (refreshSupport && hints === 0) {
    await Promise.race([refresh, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    hints = hintLenses(await ask());
    complete = performance.now() - started;
  }
  await server.stop();
  return { initialized, firstLenses, complete, lenses: first.length, firstHints, hints };
}

async function main() {
  if (!fs.existsSync(PREDICTIONS)) throw new Error(`the shared mini-dev data is missing: ${PREDICTIONS}`);
  const runs = Number(process.argv[2] ?? 5);
  for (const refreshSupport of [true, false]) {
    const results: Awaited<ReturnType<typeof once>>[] = [];
    for (let run = 0; run < runs; run++) results.push(await once(run, refreshSupport));
    const ms = (key: 'initialized' | 'firstLenses' | 'complete') => median(results.map((r) => r[key])).toFixed(0);
    process.stdout.write(
      `${refreshSupport ? 'client refreshes lenses (VS Code)' : 'client without lens refresh'}: ` +
        `initialize answered ${ms('initialized')} ms, first lenses ${ms('firstLenses')} ms (${results[0].lenses} lenses, ` +
        `${results[0].firstHints} Hints lenses), all ${results[0].hints} Hints lenses ${ms('complete')} ms after the spawn ` +
        `(median of ${runs})\n`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
