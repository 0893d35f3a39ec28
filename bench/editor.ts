// Editor responsiveness, measured through the real language server process over stdio:
// - diagnostics for a 1,000-statement SQL file after a change (goal: within half a second);
// - "Score against gold" first result (EX / Soft-F1) for the sample's real mini-dev predictions (goal: two seconds);
// - how fast a runaway prediction is cancelled;
// - code lenses of a 500-entry prediction file after opening it (goal: under a second), with the shared mini-dev data.
// Usage: npm run build && npx tsx bench/editor.ts
import * as fs from 'fs';
import * as path from 'path';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { median, quantile } from 'simple-statistics';
import { loadPredictions } from '../src/core/bird/predictions';
import { ScoreRequest } from '../src/shared/protocol';
import { ServerProcess } from '../test/server/lspClient';
import { machineLine } from './sharedSql';

const ROOT = path.join(__dirname, '..');
const SAMPLE = path.join(ROOT, 'sample');
const MINI_DEV_ROOT = path.join(ROOT, '..', 'shared', 'data', 'bird-minidev');
const MINI_DEV = {
  predictions: path.join(MINI_DEV_ROOT, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json'),
  dataset: {
    questionsFile: path.join(MINI_DEV_ROOT, 'questions', 'mini_dev_sqlite.v1-2024.json'),
    goldFile: path.join(MINI_DEV_ROOT, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
    dbRoot: path.join(MINI_DEV_ROOT, 'databases'),
  },
};

async function main() {
  const server = new ServerProcess();
  await server.initialize({
    trusted: true,
    dataset: {
      questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
      goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
      dbRoot: SAMPLE,
    },
  });

  // 1,000 statements: the sample's gold SQL over and over, bound to the superhero schema.
  const gold = fs
    .readFileSync(path.join(SAMPLE, 'mini_dev_superhero_gold.sql'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t')[0]);
  const statements = Array.from({ length: 1000 }, (_, i) => `${gold[i % gold.length]};`);
  const text = `-- db: superhero\n${statements.join('\n')}\n`;
  const uri = 'file:///bench/thousand.sql';
  await server.open(uri, 'sql', text);
  await server.diagnosticsFor(uri, 1, 60_000); // first open: schema read, caches warm
  const latencies: number[] = [];
  for (let version = 2; version <= 21; version++) {
    const edited = text.replace(`${gold[0]};`, `${gold[0]}${' '.repeat(version)};`); // a typing-sized edit
    const started = performance.now();
    await server.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: [{ text: edited }],
    });
    await server.diagnosticsFor(uri, version, 60_000);
    latencies.push(performance.now() - started);
  }
  const diagnosticCount = server.diagnostics.get(uri)?.diagnostics.length ?? 0;

  // Score against gold, first result (correctness phase), for each real prediction of the sample.
  const predictions = loadPredictions(path.join(SAMPLE, 'predict_gpt-4_superhero.json')).predictions;
  const firstResult: number[] = [];
  for (const [index, prediction] of predictions.entries()) {
    const started = performance.now();
    await server.connection.sendRequest(ScoreRequest, { sql: prediction.sql, questionIndex: index, phase: 'correctness' });
    firstResult.push(performance.now() - started);
  }

  // Cancel a runaway cross join 300 ms after it starts.
  const cancelLatency: number[] = [];
  for (let i = 0; i < 5; i++) {
    const source = new CancellationTokenSource();
    const pending = server.connection.sendRequest(
      ScoreRequest,
      { sql: 'SELECT count(*) FROM hero_power a, hero_power b, hero_power c', questionIndex: 0, phase: 'correctness' },
      source.token,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancelledAt = performance.now();
    source.cancel();
    await pending.catch(() => undefined);
    cancelLatency.push(performance.now() - cancelledAt);
  }
  await server.stop();

  // Code lenses on a 500-entry prediction file, from opening it (a fresh server: nothing analysed yet), when the
  // shared mini-dev data is there.
  const lensLatency: number[] = [];
  let lensCount = 0;
  if (fs.existsSync(MINI_DEV.predictions)) {
    const text = fs.readFileSync(MINI_DEV.predictions, 'utf8');
    for (let run = 0; run < 5; run++) {
      const fresh = new ServerProcess();
      await fresh.initialize({ trusted: true, dataset: MINI_DEV.dataset });
      const predictionsUri = `file:///bench/predict-${run}.json`;
      const started = performance.now();
      await fresh.open(predictionsUri, 'json', text);
      const lenses = (await fresh.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: predictionsUri } })) as unknown[];
      lensLatency.push(performance.now() - started);
      lensCount = lenses.length;
      await fresh.stop();
    }
  }

  const row = (label: string, values: number[], goal: string) =>
    `| ${label} | ${values.length} | ${median(values).toFixed(0)} | ${quantile(values, 0.9).toFixed(0)} | ${Math.max(...values).toFixed(0)} | ${goal} |`;
  const report = [
    '# Editor responsiveness (through the real language server over stdio)',
    '',
    machineLine(),
    '',
    '| what | samples | median ms | p90 ms | max ms | goal |',
    '|---|---|---|---|---|---|',
    row(`diagnostics after an edit, 1,000-statement file (${diagnosticCount} hints)`, latencies, '< 500 ms'),
    row('"Score against gold": first result (EX, Soft-F1, plans), real mini-dev predictions', firstResult, '< 2000 ms'),
    row('cancel a runaway cross join: cancel → request ended', cancelLatency, 'prompt'),
    ...(lensLatency.length
      ? [row(`code lenses of a 500-entry prediction file from opening it, fresh server (${lensCount} lenses)`, lensLatency, '< 1000 ms')]
      : []),
    '',
  ].join('\n');
  fs.writeFileSync(path.join(__dirname, 'results', 'editor.md'), report);
  process.stdout.write(report);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
