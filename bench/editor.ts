// Editor responsiveness, measured through the real language server process over stdio:
// - diagnostics for a 1,000-statement SQL file after a change (goal: within half a second);
// - "Score against gold" first result (EX / Soft-F1) for the sample's real mini-dev predictions (goal: two seconds);
// - how fast a runaway prediction is cancelled;
// - code lenses of a 500-entry prediction file after opening it (goal: under a second), with the shared mini-dev data;
// - typing during a whole-file evaluation (Evaluate, EX and Soft-F1 of the four official mini-dev files, over and
//   over): keystroke → diagnostics, and the evaluations' wall time, with the correctness pass one question at a time
//   (VES_LENS_JOBS=1, as before issue 21) and on every core (the default).
// Usage: npm run build && npx tsx bench/editor.ts [--only typing]
import * as fs from 'fs';
import * as path from 'path';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { median, quantile } from 'simple-statistics';
import { loadPredictions } from '../src/core/bird/predictions';
import { EvaluateFileRequest, ScoreRequest } from '../src/shared/protocol';
import { defaultJobs } from '../src/core/eval/parallelEval';
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

/** The 1,000-statement SQL file: the sample's gold SQL over and over, bound to the superhero schema. */
function thousandStatements(): { text: string; edited: (version: number) => string } {
  const gold = fs
    .readFileSync(path.join(SAMPLE, 'mini_dev_superhero_gold.sql'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t')[0]);
  const statements = Array.from({ length: 1000 }, (_, i) => `${gold[i % gold.length]};`);
  const text = `-- db: superhero\n${statements.join('\n')}\n`;
  // A typing-sized edit: spaces before the first statement's semicolon, one more each version.
  return { text, edited: (version) => text.replace(`${gold[0]};`, `${gold[0]}${' '.repeat(version)};`) };
}

/** Milliseconds from an edit to its diagnostics. */
async function keystroke(server: ServerProcess, uri: string, text: string, version: number): Promise<number> {
  const started = performance.now();
  await server.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
  await server.diagnosticsFor(uri, version, 60_000);
  return performance.now() - started;
}

interface TypingDuringEvaluation {
  jobs: number;
  idle: number[];
  during: number[];
  /** Wall seconds of each whole-file evaluation (EX, Soft-F1) while typing. */
  evaluations: number[];
}

/**
 * Keystroke latency while the server evaluates the official mini-dev files one after another (EX and Soft-F1: the
 * correctness pass, the part issue 21 spread over the cores), against the same server idle.
 */
async function typingDuringEvaluation(jobs: number, keystrokes = 30): Promise<TypingDuringEvaluation> {
  const server = new ServerProcess({ VES_LENS_JOBS: String(jobs) });
  await server.initialize({ trusted: true, dataset: MINI_DEV.dataset });
  const { text, edited } = thousandStatements();
  const uri = 'file:///bench/typing.sql';
  await server.open(uri, 'sql', text);
  await server.diagnosticsFor(uri, 1, 60_000);
  let version = 1;
  const idle: number[] = [];
  for (let i = 0; i < 10; i++) idle.push(await keystroke(server, uri, edited(++version), version));
  const directory = path.dirname(MINI_DEV.predictions);
  const files = fs
    .readdirSync(directory)
    .filter((f) => f.endsWith('.json'))
    .sort();
  let typing = true;
  const evaluations: number[] = [];
  const evaluating = (async () => {
    for (let i = 0; typing; i++) {
      const started = performance.now();
      const params = { predictionsFile: path.join(directory, files[i % files.length]), metrics: ['ex', 'f1'] };
      await server.connection.sendRequest(EvaluateFileRequest, params);
      evaluations.push((performance.now() - started) / 1000);
    }
  })();
  const during: number[] = [];
  await new Promise((resolve) => setTimeout(resolve, 100)); // the first evaluation under way
  for (let i = 0; i < keystrokes; i++) {
    during.push(await keystroke(server, uri, edited(++version), version));
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100)); // a typist's pace
  }
  typing = false;
  await evaluating;
  await server.stop();
  return { jobs, idle, during, evaluations };
}

async function main() {
  if (process.argv.includes('--only') && process.argv[process.argv.indexOf('--only') + 1] === 'typing') {
    process.stdout.write(typingTable(await typingRuns()).join('\n') + '\n');
    return;
  }
  const server = new ServerProcess();
  await server.initialize({
    trusted: true,
    dataset: {
      questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
      goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
      dbRoot: SAMPLE,
    },
  });

  const { text, edited } = thousandStatements();
  const uri = 'file:///bench/thousand.sql';
  await server.open(uri, 'sql', text);
  await server.diagnosticsFor(uri, 1, 60_000); // first open: schema read, caches warm
  const latencies: number[] = [];
  for (let version = 2; version <= 21; version++) latencies.push(await keystroke(server, uri, edited(version), version));
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

  const typing = fs.existsSync(MINI_DEV.predictions) ? await typingRuns() : [];

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
    ...(typing.length ? typingTable(typing) : []),
  ].join('\n');
  fs.writeFileSync(path.join(__dirname, 'results', 'editor.md'), report);
  process.stdout.write(report);
}

/** Typing during evaluations with one lane (as before issue 21) and with the default, alternately (2 rounds each). */
async function typingRuns(): Promise<TypingDuringEvaluation[]> {
  const jobs = defaultJobs();
  const runs: TypingDuringEvaluation[] = [];
  for (let round = 0; round < 2; round++) for (const j of round % 2 ? [jobs, 1] : [1, jobs]) runs.push(await typingDuringEvaluation(j));
  return runs;
}

function typingTable(runs: TypingDuringEvaluation[]): string[] {
  const pooled = (jobs: number, pick: (run: TypingDuringEvaluation) => number[]) => runs.filter((r) => r.jobs === jobs).flatMap(pick);
  const ms = (values: number[]) => `${median(values).toFixed(0)} | ${quantile(values, 0.9).toFixed(0)} | ${Math.max(...values).toFixed(0)}`;
  const line = (jobs: number) => {
    const evaluations = pooled(jobs, (r) => r.evaluations);
    return (
      `| ${jobs === 1 ? '1 (one question at a time, before issue 21)' : `${jobs} (default: the cores)`} | ` +
      `${ms(pooled(jobs, (r) => r.idle))} | ${ms(pooled(jobs, (r) => r.during))} | ${evaluations.length} | ${median(evaluations).toFixed(2)} |`
    );
  };
  const jobsSeen = [...new Set(runs.map((r) => r.jobs))].sort((a, b) => a - b);
  return [
    '## Typing during a whole-file evaluation (Evaluate: EX and Soft-F1 of the four official mini-dev files, in turn)',
    '',
    "Keystroke → diagnostics of the 1,000-statement file, idle and while the server evaluates (a typist's pace: 50–150 ms",
    "between edits); each evaluation's wall time. Runs alternate between the two settings (VES_LENS_JOBS).",
    '',
    '| correctness lanes | idle median ms | idle p90 | idle max | evaluating median ms | evaluating p90 | evaluating max | evaluations | evaluation median s |',
    '|---|---|---|---|---|---|---|---|---|',
    ...jobsSeen.map(line),
    '',
  ];
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
