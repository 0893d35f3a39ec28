// Issue 30, item 10: the Report panel's Export JSON writes the eval report `ves-lens eval --json` writes (the run's
// EvaluateFileResult.report), which Compare in the editor and the real `ves-lens compare` take; and an exported
// report, or the bare list of rows an earlier Export JSON wrote, is never taken for a prediction file: no lenses,
// no problems. Driven in-process (src/server/service.ts) on the superhero sample; compare runs as a real process.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { looksLikeEvalReportText, looksLikePredictionText } from '../../src/core/bird/predictionFields';
import { loadEvalReport } from '../../src/core/eval/reportFile';
import { VesLensService } from '../../src/server/service';
import type { EvaluateFileResult } from '../../src/shared/protocol';
import { REPO_ROOT, runCli, tempDir, testCacheHome } from '../helpers';
import { InMemoryDocuments } from './inMemoryDocuments';

process.env.XDG_CACHE_HOME = testCacheHome();

const SAMPLE = path.join(REPO_ROOT, 'sample');
const QUESTIONS = path.join(SAMPLE, 'mini_dev_superhero.json');
const GOLD = path.join(SAMPLE, 'mini_dev_superhero_gold.sql');
const PREDICTIONS = path.join(SAMPLE, 'predict_gpt-4_superhero.json');

/** The real `ves-lens eval --json` of a prediction file (EX and Soft-F1), in a child process. */
function cliEval(predictions: string, report: string): string {
  const args = ['eval', '--questions', QUESTIONS, '--gold', GOLD, '--predictions', predictions, '--db-root', SAMPLE];
  const ran = runCli([...args, '--metrics', 'ex,f1', '--json', report, '--no-progress']);
  assert.equal(ran.status, 0, ran.stderr);
  return report;
}

describe('Export JSON of the Report panel (issue 30)', () => {
  const dir = tempDir();
  const documents = new InMemoryDocuments();
  const service = new VesLensService({ documents, log: () => {}, docsRoot: path.join(REPO_ROOT, 'docs', 'rules') });
  let result: EvaluateFileResult;
  let exported = '';

  before(async () => {
    await service.initialize({ trusted: true, dataset: { questionsFile: QUESTIONS, goldFile: GOLD, dbRoot: SAMPLE } });
    result = await service.evaluateFile({ predictionsFile: PREDICTIONS, metrics: ['ex', 'f1'] });
    // What the extension writes on Export JSON: the report as the server returned it.
    exported = path.join(dir, 'predict_gpt-4_superhero.eval.json');
    fs.writeFileSync(exported, `${JSON.stringify(result.report, null, 2)}\n`);
  });
  after(() => service.dispose());

  it('is the eval --json report of the run: tool, complete, inputs, summary, every question', () => {
    const report = result.report;
    assert.equal(report.tool?.name, 'ves-lens');
    assert.equal(report.complete, true);
    assert.equal(report.inputs?.predictions, PREDICTIONS);
    assert.equal(report.inputs?.questions, QUESTIONS);
    assert.equal(report.inputs?.gold, GOLD);
    assert.deepEqual(report.inputs?.metrics, ['ex', 'f1']);
    assert.equal(report.questions.length, result.questions.length);
    assert.equal(report.questions.length, 52);
    // The same scores as the rows the panel shows, and the summary as the CLI's (total EX in percent).
    assert.deepEqual(
      report.questions.map((q) => q.ex),
      result.questions.map((q) => q.ex),
    );
    const total = (report.summary as Record<string, { count: number; ex: number }>).total;
    assert.equal(total.count, 52);
    assert.ok(Math.abs(total.ex - (100 * result.questions.filter((q) => q.ex === 1).length) / 52) < 1e-9, String(total.ex));
    // Read back as compare, merge and the HTML report read one.
    assert.equal(loadEvalReport(exported).report.questions.length, 52);
  });

  it('has the keys `ves-lens eval --json` writes for the same run, and the same per-question scores', () => {
    const cliReport = cliEval(PREDICTIONS, path.join(dir, 'cli.json'));
    const cli = JSON.parse(fs.readFileSync(cliReport, 'utf8'));
    const editor = JSON.parse(fs.readFileSync(exported, 'utf8'));
    assert.deepEqual(Object.keys(editor), Object.keys(cli));
    assert.deepEqual(Object.keys(editor.inputs).sort(), Object.keys(cli.inputs).sort());
    // Every field of a question but the plan costs the CLI's HTML page draws (not read by compare, merge or audit).
    const cliFields = Object.keys(cli.questions[0]).filter((key) => key !== 'plan_cost');
    assert.deepEqual(Object.keys(editor.questions[0]).sort(), cliFields.sort());
    assert.deepEqual(
      editor.questions.map((q: { question_id: number; ex: number; f1: number }) => [q.question_id, q.ex, q.f1]),
      cli.questions.map((q: { question_id: number; ex: number; f1: number }) => [q.question_id, q.ex, q.f1]),
    );
    assert.deepEqual(editor.summary, cli.summary);
  });

  it('is taken by the real `ves-lens compare` and by Compare in the editor', () => {
    const predictions = JSON.parse(fs.readFileSync(PREDICTIONS, 'utf8')) as Record<string, string>;
    const gold = fs.readFileSync(GOLD, 'utf8').split('\n');
    for (let i = 0; i < 5; i++) predictions[String(i)] = gold[i].replace('\t', '\t----- bird -----\t');
    const better = path.join(dir, 'better.json');
    fs.writeFileSync(better, JSON.stringify(predictions));
    const cliReport = cliEval(better, path.join(dir, 'cli-compare.json'));
    const compared = runCli(['compare', exported, cliReport, '--json', '-']);
    assert.equal(compared.status, 0, compared.stderr);
    const comparison = JSON.parse(compared.stdout);
    assert.equal(comparison.runs.length, 2);
    assert.equal(comparison.runs[0].summary.total.count, 52);
    const inEditor = service.compareReports({ files: [exported, cliReport] });
    assert.equal(inEditor.compared, 52);
    assert.equal(inEditor.incomplete, undefined);
  });

  it('is never a prediction file: no lenses, no problems; nor is the bare list of rows an earlier Export JSON wrote', async () => {
    const bareRows = JSON.stringify(result.questions, null, 2);
    for (const [name, text] of [
      ['exported.eval.json', fs.readFileSync(exported, 'utf8')],
      ['old-export.report.json', bareRows],
    ]) {
      assert.equal(looksLikePredictionText(text.slice(0, 4000)), false, name);
      const document = documents.open(`file:///ws/${name}`, 'json', text);
      assert.deepEqual(await service.codeLenses(document), [], `${name}: no lenses`);
      assert.deepEqual(await service.diagnostics(document), [], `${name}: no problems`);
    }
    assert.equal(looksLikeEvalReportText(fs.readFileSync(exported, 'utf8')), true, 'offered to Compare as a report');
    // The prediction file itself still is one, with a Score lens per entry.
    const predictions = documents.open('file:///ws/predict.json', 'json', fs.readFileSync(PREDICTIONS, 'utf8'));
    assert.equal(looksLikePredictionText(predictions.getText()), true);
    assert.ok((await service.codeLenses(predictions)).length >= 52);
  });
});
