// "VES Lens: Compare Two Evaluation Reports...": the language server compares eval reports as `ves-lens compare`
// does (the same page as `compare --html`), and names what is wrong with a file that is not one.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { comparisonBar, comparisonStatusLine } from '../../src/extension/panels/compareSummary';
import { reportWebviewPage } from '../../src/extension/reportPage';
import { VesLensService } from '../../src/server/service';
import { VesLensErrorCodes } from '../../src/shared/protocol';
import { REPO_ROOT, runCli, tempDir } from '../helpers';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const QUESTIONS = path.join(SAMPLE, 'mini_dev_superhero.json');
const GOLD = path.join(SAMPLE, 'mini_dev_superhero_gold.sql');
const PREDICTIONS = path.join(SAMPLE, 'predict_gpt-4_superhero.json');

/** `ves-lens eval --json` of a prediction file (EX and Soft-F1: no timing, a second or two). */
function evalReport(predictions: string, report: string): string {
  const result = runCli([
    'eval',
    '--questions',
    QUESTIONS,
    '--gold',
    GOLD,
    '--predictions',
    predictions,
    '--db-root',
    SAMPLE,
    '--metrics',
    'ex,f1',
    '--json',
    report,
    '--no-progress',
  ]);
  assert.equal(result.status, 0, result.stderr);
  return report;
}

describe('comparing eval reports in the editor (the language server)', () => {
  const dir = tempDir();
  const service = new VesLensService({
    documents: { get: () => undefined, all: () => [] },
    log: () => {},
    docsRoot: path.join(REPO_ROOT, 'docs', 'rules'),
  });
  let gpt4 = '';
  let improved = '';
  before(async () => {
    await service.initialize({ trusted: true });
    gpt4 = evalReport(PREDICTIONS, path.join(dir, 'gpt-4.json'));
    // The same predictions with the first ten questions answered by their gold: some become correct.
    const predictions = JSON.parse(fs.readFileSync(PREDICTIONS, 'utf8')) as Record<string, string>;
    const gold = fs.readFileSync(GOLD, 'utf8').split('\n');
    for (let i = 0; i < 10; i++) predictions[String(i)] = gold[i].replace('\t', '\t----- bird -----\t');
    const better = path.join(dir, 'better-predictions.json');
    fs.writeFileSync(better, JSON.stringify(predictions));
    improved = evalReport(better, path.join(dir, 'improved.json'));
  });
  after(() => service.dispose());

  it("gives the page `ves-lens compare --html` writes, with each run's label and the questions compared", () => {
    const result = service.compareReports({ files: [gpt4, improved] });
    const cli = runCli(['compare', gpt4, improved, '--html', path.join(dir, 'cli.html')]);
    assert.equal(cli.status, 0, cli.stderr);
    // The same page, but for how it names the files: the CLI's from the folder it is written to, the panel's by name.
    const cliHtml = fs.readFileSync(path.join(dir, 'cli.html'), 'utf8');
    const withoutHeader = (html: string) => html.replace(/<header>[\s\S]*?<\/header>/, '<header></header>');
    assert.equal(withoutHeader(result.html), withoutHeader(cliHtml));
    assert.ok(result.html.includes('gpt-4: predictions predict_gpt-4_superhero.json · questions mini_dev_superhero.json'));
    assert.ok(cliHtml.includes(`gpt-4: predictions ${path.relative(dir, PREDICTIONS)} · questions ${path.relative(dir, QUESTIONS)}`));
    assert.deepEqual(result.labels, ['gpt-4', 'improved']);
    assert.deepEqual([result.compared, result.questions], [52, 52]);
    assert.match(result.html, /VES Lens comparison: gpt-4 vs improved[\s\S]*What changed/);
    assert.equal(comparisonStatusLine(result), 'improved against gpt-4 (the baseline) · 52 questions compared');
  });

  it("shows in a webview with the webview's policy: every inline script and style with the nonce, the bar keeping the files", () => {
    const result = service.compareReports({ files: [gpt4, improved] });
    const options = {
      nonce: 'n0nce',
      cspSource: 'https://webview.test',
      media: (file: string) => `https://webview.test/${file}`,
      stylesheet: 'reportPage.css',
      script: 'compare.js',
    };
    const page = reportWebviewPage(result.html, { ...options, bar: comparisonBar(result, [gpt4, improved]) });
    assert.doesNotMatch(page, /unsafe-inline/);
    for (const tag of page.match(/<(script|style)\b[^>]*>/g) ?? []) assert.match(tag, /nonce="n0nce"/, tag);
    const files = /data-files="([^"]*)"/.exec(page)?.[1].replace(/&quot;/g, '"');
    assert.deepEqual(JSON.parse(files ?? 'null'), [gpt4, improved]);
  });

  it('names the file and what it is when it is not an eval report, or covers other questions', () => {
    const refused = (files: string[], said: RegExp) => {
      assert.throws(
        () => service.compareReports({ files }),
        (error: Error & { code?: number }) => {
          assert.equal(error.code, VesLensErrorCodes.badInput);
          assert.match(error.message, said);
          return true;
        },
      );
    };
    refused([gpt4, PREDICTIONS], /predict_gpt-4_superhero\.json.*a prediction file, not an eval report/);
    refused([QUESTIONS, gpt4], /mini_dev_superhero\.json.*a BIRD question file, not an eval report/);
    const fewer = path.join(dir, 'fewer.json');
    const report = JSON.parse(fs.readFileSync(gpt4, 'utf8')) as { questions: unknown[] };
    fs.writeFileSync(fewer, JSON.stringify({ ...report, questions: report.questions.slice(0, 20) }));
    refused([gpt4, fewer], /fewer\.json.*does not cover the same questions as .*gpt-4\.json: 20 questions against 52/);
    refused([gpt4], /at least two eval JSON reports/);
    refused([gpt4, gpt4], /gpt-4\.json is chosen twice/);
  });
});
