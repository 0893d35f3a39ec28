// The HTML reports (`eval --html`, `compare --html`, the audit) opened in Debian's Chromium, offline: every
// request that is not file:// or data: is blocked and recorded, and none may be attempted. Checks the tables,
// the bars, the charts, the filter, the search and the sort, the table of contents, that files are named from the
// page's folder, that wide tables fit their column, and what printing gives (A4, Chromium's own PDF); screenshots
// (light and dark) and the PDFs go to test-results/report-html/.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Browser, Page } from 'playwright-core';
import type { GoldAudit, GoldAuditEntry } from '../../src/core/audit/goldAudit';
import { auditHtml, auditHtmlMeta } from '../../src/core/audit/auditHtml';
import { REPO_ROOT, runCli, tempDir } from '../helpers';
import { chromiumMissing, launchChromium } from './harness';

// Functions passed to page.evaluate run in the page; the project's tsconfig has no DOM types.
declare const document: any;

const SHOTS = path.join(REPO_ROOT, 'test-results', 'report-html');
const SAMPLE = path.join(REPO_ROOT, 'sample');
const run = (args: string[]) => runCli(args);
const skip = chromiumMissing;

/** 12 sample questions; a: GPT-4's predictions with the first four broken; b: GPT-4's predictions as they are. */
function inputs(dir: string) {
  const questions = JSON.parse(fs.readFileSync(path.join(SAMPLE, 'mini_dev_superhero.json'), 'utf8')).slice(0, 12);
  const predictions = Object.values(JSON.parse(fs.readFileSync(path.join(SAMPLE, 'predict_gpt-4_superhero.json'), 'utf8'))).slice(
    0,
    12,
  ) as string[];
  fs.writeFileSync(path.join(dir, 'q.json'), JSON.stringify(questions));
  const worse = predictions.map((p, i) => (i < 4 ? 'SELECT 1\t----- bird -----\tsuperhero' : p));
  fs.writeFileSync(path.join(dir, 'a.json'), JSON.stringify(Object.fromEntries(worse.map((p, i) => [String(i), p]))));
  fs.writeFileSync(path.join(dir, 'b.json'), JSON.stringify(Object.fromEntries(predictions.map((p, i) => [String(i), p]))));
}

function auditEntry(index: number, extra: Partial<GoldAuditEntry>): GoldAuditEntry {
  return {
    index,
    question_id: 700 + index,
    db_id: 'superhero',
    difficulty: 'simple',
    gold_sql: `SELECT ${index} FROM superhero`,
    status: 'ok',
    plan: { rule: 100, work: 750, scans: 1, temp_btrees: 0, correlated_subqueries: 0 },
    rewrites: [],
    indexes: [],
    reasons: [],
    score: 0,
    ...extra,
  };
}

describe('HTML reports in Chromium, offline', { skip, timeout: 180_000 }, () => {
  let browser: Browser;
  const dir = tempDir();
  const pages: Record<string, string> = {};

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    inputs(dir);
    const base = ['--questions', path.join(dir, 'q.json'), '--db-root', SAMPLE, '--no-progress'];
    for (const name of ['a', 'b']) {
      const result = run([
        'eval',
        ...base,
        '--predictions',
        path.join(dir, `${name}.json`),
        '--json',
        path.join(dir, `${name}-report.json`),
        '--html',
        path.join(dir, `${name}.html`),
      ]);
      assert.equal(result.status, 0, result.stderr);
    }
    pages.eval = path.join(dir, 'a.html');
    pages.compare = path.join(dir, 'compare.html');
    const compared = run(['compare', path.join(dir, 'a-report.json'), path.join(dir, 'b-report.json'), '--html', pages.compare]);
    assert.equal(compared.status, 0, compared.stderr);
    const entries = [
      auditEntry(0, {
        status: 'gold_error',
        error: 'no such column: x',
        plan: null,
        reasons: ['the gold SQL fails: no such column: x'],
        score: 1000,
      }),
      auditEntry(1, {
        rewrites: [
          {
            rule: 'VL001',
            title: 'IN / EXISTS subquery that can be a JOIN',
            kind: 'speed',
            sql: 'SELECT 1',
            status: 'faster',
            message: 'same rows',
            gain: { ratio: 40, low: 30, high: 50, verdict: 'faster' },
          },
        ],
        faster_predictions: { files: 2, of: 4, factor: 2, best: 60, sources: [] },
        reasons: [
          '2 of 4 prediction files have a correct prediction at least 2× faster (best 60×)',
          'VL001 rewrite is 40× as fast, same rows',
        ],
        score: 120,
      }),
      auditEntry(2, {}),
    ];
    const audit: GoldAudit = {
      entries,
      ranked: [entries[0], entries[1]],
      measured: true,
      scales: [],
      prediction_files: [path.join(dir, 'a.json')],
    };
    pages.audit = path.join(dir, 'audit.html');
    const meta = auditHtmlMeta(
      { questions: path.join(dir, 'q.json'), dbRoot: SAMPLE },
      { sqlite: '3.39.4', version: '0.1.0' },
      pages.audit,
    );
    fs.writeFileSync(pages.audit, auditHtml(audit, meta, pages.audit));
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  /** Opens a report with every non-local request blocked; returns the page and what it tried to fetch. */
  async function open(
    file: string,
    colorScheme: 'light' | 'dark' = 'light',
    viewport = { width: 1280, height: 900 },
  ): Promise<{ page: Page; attempted: string[]; errors: string[] }> {
    const context = await browser.newContext({ viewport, colorScheme, offline: true });
    const attempted: string[] = [];
    const errors: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
      attempted.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`file://${file}`);
    return { page, attempted, errors };
  }

  const visibleRows = (page: Page, table: string) =>
    page.$$eval(`#${table} tbody tr`, (rows: any[]) =>
      rows
        .filter((r) => !r.hidden)
        .map((r) => ({
          id: r.id,
          outcome: r.getAttribute('data-outcome'),
          change: r.getAttribute('data-change'),
          kind: r.getAttribute('data-kind'),
        })),
    );

  it('eval --html: summary, per-difficulty bars, ratio distribution, cost scatter, and a question table that filters, searches and sorts', async () => {
    const { page, attempted, errors } = await open(pages.eval);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'a-report.json'), 'utf8'));
    const summary = await page.$$eval('table.summary tbody tr', (rows: any[]) =>
      rows.map((r) => [...r.cells].map((c: any) => c.textContent)),
    );
    assert.deepEqual(summary[0], [
      'count',
      ...Object.entries(report.summary)
        .filter(([g]) => g !== 'skipped')
        .map(([, g]: [string, any]) => String(g.count)),
    ]);
    assert.equal(summary[1][0], 'EX');
    assert.equal(summary[1][summary[1].length - 1], report.summary.total.ex.toFixed(2));
    // Bars: one per difficulty and total, for each of the four metrics; their values are the summary's.
    const exBars = await page.$$eval('#bars-ex rect.bar', (bars: any[]) => bars.map((b) => Number(b.getAttribute('data-value'))));
    assert.deepEqual(
      exBars,
      Object.entries(report.summary)
        .filter(([g]) => g !== 'skipped')
        .map(([, g]: [string, any]) => g.ex),
    );
    assert.equal(await page.locator('#bars-rves rect.bar').count(), exBars.length);
    const timed = report.questions.filter((q: any) => q.rves_time_ratio > 0 || q.time_ratio > 0).length;
    const histogram = await page.$$eval('#ratio-histogram rect.bar', (bars: any[]) =>
      bars.reduce((s, b) => s + Number(b.getAttribute('data-value')), 0),
    );
    assert.equal(histogram, timed);
    assert.ok((await page.locator('#cost-scatter circle.dot').count()) > 0, 'cost against time has points');
    assert.match(await page.locator('#cost-rho').innerText(), /Spearman ρ estimate/);

    assert.equal((await visibleRows(page, 'questions')).length, 12);
    assert.equal(await page.locator('[data-count-for="questions"]').innerText(), '12 of 12 shown');
    await page.selectOption('select[data-filter="outcome"]', 'correct');
    const correct = await visibleRows(page, 'questions');
    assert.equal(correct.length, report.questions.filter((q: any) => q.outcome === 'correct').length);
    assert.ok(correct.every((r) => r.outcome.split(' ').includes('correct')));
    await page.selectOption('select[data-filter="outcome"]', '');
    await page.fill('input[data-search-for="questions"]', String(report.questions[5].question_id));
    assert.deepEqual(
      (await visibleRows(page, 'questions')).map((r) => r.id),
      ['q-5'],
    );
    await page.fill('input[data-search-for="questions"]', 'superpower');
    assert.ok((await visibleRows(page, 'questions')).length >= 1, 'the search reads the SQL too');
    await page.fill('input[data-search-for="questions"]', '');
    await page.click('#questions thead th:first-child button');
    await page.click('#questions thead th:first-child button');
    assert.equal((await visibleRows(page, 'questions'))[0].id, 'q-11', 'sorted by # descending');
    await page.screenshot({ path: path.join(SHOTS, 'eval-light.png'), fullPage: true });
    assert.deepEqual(attempted, [], 'no network request');
    assert.deepEqual(errors, []);
  });

  it('compare --html: the comparison with intervals and McNemar p, what changed, filter by change; dark scheme', async () => {
    const { page, attempted, errors } = await open(pages.compare, 'dark');
    const rows = await page.$$eval('#comparison tbody tr', (trs: any[]) => trs.map((r) => r.cells[0].textContent));
    assert.deepEqual(rows.slice(0, 4), ['EX', 'Soft-F1', 'VES', 'R-VES']);
    assert.match(
      await page.locator('#comparison tbody tr:first-child td[data-key="ex"]').innerText(),
      /^[+−±][\d.]+ \[[+−±][\d.]+, [+−±][\d.]+\]$/,
    );
    assert.match(await page.locator('[data-mcnemar]').innerText(), /^p [=<] [\d.]+$/);
    const nowCorrect = Number(/\((\d+)\)/.exec(await page.locator('h3[data-change="now_correct"]').innerText())![1]);
    assert.ok(nowCorrect >= 1, 'the four broken predictions of a are correct in b');
    await page.selectOption('select[data-filter="change"]', 'now_correct');
    const changed = await visibleRows(page, 'questions');
    assert.equal(changed.length, nowCorrect);
    assert.ok(changed.every((r) => r.change.includes('now_correct')));
    assert.equal(
      await page.locator('#bars-ex rect.bar').count(),
      2 * (await page.locator('#bars-ex text.tick[text-anchor="middle"]').count()),
      'one bar per run and group',
    );
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, 'rgb(13, 17, 23)', 'prefers-color-scheme: dark');
    await page.screenshot({ path: path.join(SHOTS, 'compare-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(255, 255, 255)');
    await page.locator('#summary').screenshot({ path: path.join(SHOTS, 'compare-summary-light.png') });
    assert.deepEqual(attempted, []);
    assert.deepEqual(errors, []);
  });

  it('the audit page: ranked gold first, filter by what was found', async () => {
    const { page, attempted, errors } = await open(pages.audit);
    const ranked = await visibleRows(page, 'audit');
    assert.deepEqual(
      ranked.map((r) => r.id),
      ['q-0', 'q-1', 'q-2'],
    );
    await page.selectOption('select[data-filter="kind"]', 'faster_rewrite');
    assert.deepEqual(
      (await visibleRows(page, 'audit')).map((r) => r.id),
      ['q-1'],
    );
    assert.deepEqual(
      await page.$$eval('#audit-kinds rect.bar', (bars: any[]) => bars.map((b) => Number(b.getAttribute('data-value')))),
      [1, 0, 1, 1, 0, 0],
    );
    await page.screenshot({ path: path.join(SHOTS, 'audit-light.png'), fullPage: true });
    assert.deepEqual(attempted, []);
    assert.deepEqual(errors, []);
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`in a narrow panel, each audit row is a card of labelled lines: "why" in view, no tall empty rows (${colorScheme})`, async () => {
      const { page, errors } = await open(pages.audit, colorScheme, { width: 420, height: 900 });
      const why = page.locator('#q-1 td[data-label="why"]');
      const box = (await why.boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= 420, `"why" spans ${box.x}–${box.x + box.width}px of 420`);
      assert.match(await why.innerText(), /2 of 4 prediction files have a correct prediction/);
      assert.equal(await why.getAttribute('data-label'), 'why');
      const rowHeight = (await page.locator('#q-1').boundingBox())!.height;
      assert.ok(rowHeight < 600, `the row is ${rowHeight}px tall`);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= 421), true, 'nothing sticks out sideways');
      // Filtering still hides rows in the card layout.
      await page.selectOption('select[data-filter="kind"]', 'faster_rewrite');
      assert.deepEqual(
        (await visibleRows(page, 'audit')).map((r) => r.id),
        ['q-1'],
      );
      assert.equal(await page.locator('#q-0').isVisible(), false);
      await page.screenshot({ path: path.join(SHOTS, `audit-narrow-${colorScheme}.png`), fullPage: true });
      assert.deepEqual(errors, []);
    });
  }

  /** How many pages a PDF has: Chromium writes one `/Type /Page` object per page. */
  const pdfPages = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type\s*\/Page(?![A-Za-z])/g) ?? []).length;
  /** A4's printable width at 96 px an inch, inside the page's 12 mm margins: (210 − 24) mm. */
  const A4_COLUMN = Math.floor(((210 - 24) / 25.4) * 96);

  /** What does not fit: the document's width past `width`, and every box whose content is wider than the box. */
  const overflows = (page: Page, width: number) =>
    page.evaluate((width: number) => {
      const out: string[] = [];
      if (document.documentElement.scrollWidth > width + 1) out.push(`the document is ${document.documentElement.scrollWidth}px wide`);
      for (const box of document.querySelectorAll('.scroll, section')) {
        if (box.scrollWidth > box.clientWidth + 1) out.push(`${box.id || box.className}: ${box.scrollWidth}px in ${box.clientWidth}px`);
      }
      for (const table of document.querySelectorAll('table')) {
        const right = table.getBoundingClientRect().right;
        if (right > width + 1) out.push(`table ${table.id || table.className} ends at ${Math.round(right)}px`);
      }
      return out;
    }, width);

  for (const name of ['eval', 'compare', 'audit'] as const) {
    it(`${name}: a table of contents of every section, and files named from the page's folder, never by this machine's paths`, async () => {
      const { page } = await open(pages[name]);
      const toc = await page.$$eval('nav#toc a', (links: any[]) => links.map((a) => a.getAttribute('href')));
      const sections = await page.$$eval('main > section', (all: any[]) => all.map((s) => `#${s.id}`));
      assert.ok(sections.length >= 2, sections.join(' '));
      assert.deepEqual(toc, sections);
      const html = fs.readFileSync(pages[name], 'utf8');
      // A relative path may pass through these folders (../../repo/sample); none may start at the root.
      for (const local of [dir, REPO_ROOT, SAMPLE])
        assert.deepEqual(
          html
            .split(local)
            .slice(0, -1)
            .filter((before) => !before.endsWith('..')),
          [],
          `${name}: ${local} is written in the page`,
        );
      const header = await page.locator('header').innerText();
      if (name === 'audit') assert.ok(header.includes(`questions q.json · databases ${path.relative(dir, SAMPLE)}`), header);
      else assert.ok(header.includes('predictions a.json · questions q.json'), header);
      if (name === 'audit') assert.match(await page.locator('#summary').innerText(), /Prediction files: a\.json\./);
    });

    it(`${name}: wide tables fit their column on screen (1280 px) and on A4 paper, nothing cut off`, async () => {
      const { page } = await open(pages[name]);
      assert.deepEqual(await overflows(page, 1280), [], 'on screen');
      await page.setViewportSize({ width: A4_COLUMN, height: 1000 });
      await page.emulateMedia({ media: 'print' });
      assert.deepEqual(await overflows(page, A4_COLUMN), [], 'printed');
      fs.writeFileSync(path.join(SHOTS, `${name}.pdf`), await page.pdf({ format: 'A4' }));
    });
  }

  it("eval: one run's summary prints on at most 2 A4 pages; the questions start on a page of their own", async () => {
    const { page } = await open(pages.eval);
    assert.ok((await page.locator('#cost-scatter').count()) === 1, 'a timed report: every chart is there');
    const whole = pdfPages(await page.pdf({ format: 'A4' }));
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('questions-section')).breakBefore), 'page');
    await page.evaluate(() => document.getElementById('questions-section').remove());
    const summary = pdfPages(await page.pdf({ format: 'A4' }));
    assert.ok(summary <= 2, `the summary prints on ${summary} pages`);
    assert.ok(whole > summary, `${whole} pages in all`);
  });

  it('blocks and records a request a page would make (the guard itself works)', async () => {
    const file = path.join(dir, 'network.html');
    fs.writeFileSync(file, '<!DOCTYPE html><img src="https://example.invalid/x.png">');
    const { page, attempted } = await open(file);
    await page.waitForTimeout(200);
    assert.deepEqual(attempted, ['https://example.invalid/x.png']);
  });
});

declare function getComputedStyle(element: unknown): { backgroundColor: string; breakBefore: string };
