// The editor's latency as a person sees it, in the real VS Code (code-server + Chromium, the packaged .vsix), with
// the shared mini-dev data (question file, gold, the three databases) and the 500-entry GPT-4 prediction file:
// (a) opening the prediction file (quick open, Enter) → the first "Score against gold" lens drawn: cold (the first
//     thing done after the window loads, the extension still starting), warm (extension active, dataset attached,
//     the first JSON file opened in this window), a second 500-entry file (the JSON extensions active by then) and
//     the first file reopened (VS Code's lens cache);
// (b) clicking "Score against gold" on question 717 (superhero, a sub-millisecond pair) → EX / Soft-F1 drawn in the
//     Score panel's webview, → the timing drawn; with the panel created by the click, and with it already open.
// Times are taken inside the page (keydown / mousedown listeners, then a check on every animation frame), in epoch
// milliseconds so that the workbench, its webview frames and the extension host's log share one clock.
// (c) Evaluate a Prediction File on it → the Report panel's first row drawn (the panel created by the command).
// Usage: npx tsx bench/editorWalk.ts [--runs 5] [--busy] [--vsix FILE] [--trace] [--profile DIR] [--keep]
//   --busy: a busy loop on every core through the runs (started and stopped by the walk); figures in editorWalk-busy.md.
//   --vsix FILE: the package to install (default ves-lens.vsix at the repository's root, or $VES_LENS_VSIX).
//   --trace: the language client's messages (JSON, with times) in the VES Lens output channel: each open and score
//            is broken down (didOpen, the lens request, its answer; the score requests). Not for the figures.
//   --profile DIR: the workbench renderer's CPU profiles of the warm open, the reopen and the scores. Not for the
//            figures.
//   --settings JSON: more user settings, for an experiment (then no report is written).
//   --entries N: only the prediction file's first N entries (an experiment: with 1, what opening a JSON file costs
//            whatever its lenses; then no report is written).
//   --keep: leave the workspace, browser profile and code-server folders (their logs) in place.
// Needs scripts/setup-code-server.sh and ves-lens.vsix (npm run package).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BrowserContext, chromium, Frame, Page } from 'playwright-core';
import { CHROMIUM, editorMissing, RunningCodeServer, startCodeServer } from '../test/e2e/codeServer';
import { BIRD_DATA, REPO_ROOT, tempDir } from '../test/helpers';
import { burnCpu, machineLine, median } from './machine.cjs';

const DEFAULT_VSIX = path.join(REPO_ROOT, 'ves-lens.vsix');
// --busy: the same walk with a busy loop on every core (started once the dataset is attached, stopped at the end).
const BUSY = process.argv.includes('--busy');
const RESULTS = path.join(REPO_ROOT, 'bench', 'results', BUSY ? 'editorWalk-busy.md' : 'editorWalk.md');
const ANALYSIS = '<!-- analysis: kept when the figures above are rewritten -->';
const PREDICTIONS = 'predict_mini_dev_gpt-4_sqlite.json';
// The same 500 entries under another name: opened second in a window, with no lenses of its own in VS Code's cache.
const SECOND = 'second_500.json';
/**
 * The same 500 entries under a name never opened before in this workspace, one per run: a new user's first open.
 * VS Code keeps the lines that had lenses of the last files opened (workspace storage, across reloads) and draws a
 * file's lenses on them only after its resolve pass (at least 250 ms after the answer); a file never opened has none.
 */
const firstOpenFile = (run: number) => `first_open_${run}.json`;
const QUESTIONS = 'mini_dev_sqlite.v1-2024.json';
const GOLD = 'mini_dev_sqlite_gold.v1-2024.sql';
const DATABASES = ['student_club', 'superhero', 'toxicology'];
// Question 717 answered correctly (the e2e walk's prediction): both sides run in well under a millisecond.
const SCORE_FILE = 'score717.sql';
const SCORE_SQL =
  '-- bird: 717\nSELECT sp.power_name FROM superpower sp WHERE sp.id IN (SELECT hp.power_id FROM hero_power hp ' +
  "JOIN superhero s ON s.id = hp.hero_id WHERE s.superhero_name = '3-D Man');\n";
const SCORE_LENS = 'Score against gold';
/** Milliseconds as printed ('–' for a mark never reached). */
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '–');

/** BIRD's layout with the shared mini-dev files: questions/ (one version, so gold pairs by name), databases/, predictions/. */
function miniDevWorkspace(runs: number, entries?: number): string {
  const workspace = tempDir('ves-lens-walk-');
  const copy = (from: string, to: string) => {
    fs.mkdirSync(path.dirname(path.join(workspace, to)), { recursive: true });
    fs.copyFileSync(path.join(BIRD_DATA, from), path.join(workspace, to));
    fs.chmodSync(path.join(workspace, to), 0o644);
  };
  copy(`questions/${QUESTIONS}`, `questions/${QUESTIONS}`);
  copy(`questions/${GOLD}`, `questions/${GOLD}`);
  for (const db of DATABASES) copy(`databases/${db}/${db}.sqlite`, `databases/${db}/${db}.sqlite`);
  copy(`predictions/minidev-official/${PREDICTIONS}`, `predictions/${PREDICTIONS}`);
  copy(`predictions/minidev-official/${PREDICTIONS}`, `predictions/${SECOND}`);
  for (let run = 1; run <= runs; run++) copy(`predictions/minidev-official/${PREDICTIONS}`, `predictions/${firstOpenFile(run)}`);
  if (entries !== undefined) {
    // The official file's layout (one entry a line, four spaces in) with its first entries only.
    const all = Object.entries(
      JSON.parse(fs.readFileSync(path.join(workspace, 'predictions', PREDICTIONS), 'utf8')) as Record<string, string>,
    );
    const kept = JSON.stringify(Object.fromEntries(all.slice(0, entries)), null, 4);
    for (const file of [PREDICTIONS, SECOND, ...Array.from({ length: runs }, (_, i) => firstOpenFile(i + 1))])
      fs.writeFileSync(path.join(workspace, 'predictions', file), kept);
  }
  fs.writeFileSync(path.join(workspace, SCORE_FILE), SCORE_SQL);
  return workspace;
}

// ---- the workbench, driven as a person does (keyboard and clicks) -------------------------------------------

/** Opens the quick input with `key`, types `text`, and waits until the row Enter would pick (the focused one) shows `row`. */
async function quickOpenRow(page: Page, key: string, text: string, row: string): Promise<void> {
  await page
    .locator('.quick-input-widget')
    .waitFor({ state: 'hidden', timeout: 5_000 })
    .catch(() => undefined);
  await page.keyboard.press(key);
  await page.locator('.quick-input-widget input').fill(text, { timeout: 10_000 });
  // Early in a window the list may still show the editor history unfiltered, another file focused.
  await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: row }).first().waitFor({ timeout: 30_000 });
}

async function palette(page: Page, title: string): Promise<void> {
  await quickOpenRow(page, 'F1', `>${title}`, title);
  await page.keyboard.press('Enter');
}

async function closeAllEditors(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await palette(page, 'View: Close All Editors');
  await page.locator('.tab').first().waitFor({ state: 'detached', timeout: 10_000 });
}

/** The window's first load; the time its navigation started. */
async function loadWindow(page: Page, workbench: string): Promise<number> {
  await page.goto(workbench);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  return page.evaluate(() => performance.timeOrigin);
}

/**
 * A new window (a new extension host, nothing in memory), with no editor open: the editors are closed first, and
 * the reload goes through VS Code's own command, which saves the window's state before it unloads (a plain page
 * reload can lose it, and the closed editors come back). The time the new window's navigation started.
 */
async function reloadWindow(page: Page): Promise<number> {
  await closeAllEditors(page);
  const before = await page.evaluate(() => performance.timeOrigin);
  await palette(page, 'Developer: Reload Window');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const origin = await page.evaluate(() => performance.timeOrigin).catch(() => before);
    if (
      origin !== before &&
      (await page
        .locator('.monaco-workbench')
        .count()
        .catch(() => 0))
    )
      return origin;
    if (Date.now() > deadline) throw new Error('the window did not reload');
    await page.waitForTimeout(20);
  }
}

/** The status bar names the attached question file once the server answered the client's first request. */
async function waitAttached(page: Page): Promise<void> {
  await page.locator('.statusbar-item', { hasText: QUESTIONS }).first().waitFor({ timeout: 60_000 });
}

// ---- marks taken inside the pages -----------------------------------------------------------------------------

/**
 * Runs a page-side function, given as JavaScript source (the project's TypeScript has no DOM types, and tsx would
 * wrap a compiled function in helpers the page lacks), with one JSON argument.
 */
async function inFrame<R>(frame: Frame, source: string, arg?: unknown): Promise<R> {
  return frame.evaluate<R>(`(${source})(${JSON.stringify(arg ?? null)})`);
}

interface OpenMarks {
  enter: number;
  tab: number;
  text: number;
  /** The lens's title drawn (a lens VS Code drew from its cache is plain text until the server's lenses arrive). */
  lensText: number;
  /** The lens drawn as a link that runs its command. */
  lens: number;
  /** What was drawn first with the lens's title (printed with --trace). */
  lensTextHtml?: string;
}

/** The page side of watchOpen: marks in epoch ms, in `window.walkOpen`. */
const WATCH_OPEN = `({ fileName, lensText }) => {
  const now = () => performance.timeOrigin + performance.now();
  const marks = (window.walkOpen = { enter: 0, tab: 0, text: 0, lensText: 0, lens: 0 });
  const onKey = (event) => {
    if (event.key === 'Enter' && !marks.enter) marks.enter = now();
  };
  document.addEventListener('keydown', onKey, true);
  const shown = (element) => element.checkVisibility({ visibilityProperty: true }) && element.getBoundingClientRect().height > 0;
  const tick = () => {
    if (marks.enter) {
      const active = document.querySelector('.editor-group-container.active');
      const tab = [...document.querySelectorAll('.tab.active')].some((t) => t.textContent.includes(fileName));
      if (!marks.tab && tab) marks.tab = now();
      // Any line of it drawn (the editor may open scrolled to where this file was left).
      const lines = [...(active?.querySelectorAll('.view-line') ?? [])];
      if (!marks.text && tab && lines.some((line) => line.textContent.trim())) marks.text = now();
      const titled = (selector) =>
        [...(active?.querySelectorAll(selector) ?? [])].some((lens) => lens.textContent.includes(lensText) && shown(lens));
      if (!marks.lensText && titled('.codelens-decoration')) {
        marks.lensText = now();
        const first = [...active.querySelectorAll('.codelens-decoration')].find((l) => l.textContent.includes(lensText));
        marks.lensTextHtml = first.outerHTML.slice(0, 400);
      }
      if (!marks.lens && titled('.codelens-decoration a')) marks.lens = now();
    }
    if (marks.lens) document.removeEventListener('keydown', onKey, true);
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}`;

/**
 * Watches the workbench for one file being opened: the Enter that opens it, its tab active, its text drawn, the
 * first Score lens drawn (checked on every animation frame: what is in the DOM then is what gets painted).
 */
async function watchOpen(page: Page, fileName: string): Promise<void> {
  await inFrame(page.mainFrame(), WATCH_OPEN, { fileName, lensText: SCORE_LENS });
}

async function openMarks(page: Page, timeoutMs = 120_000): Promise<OpenMarks> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const marks = await inFrame<OpenMarks>(page.mainFrame(), '() => window.walkOpen');
    if (marks.lens) return marks;
    if (Date.now() > deadline) throw new Error(`no "${SCORE_LENS}" lens within ${timeoutMs} ms: ${JSON.stringify(marks)}`);
    await page.waitForTimeout(100);
  }
}

/** Opens a workspace file by quick open; the marks from its Enter. */
async function openTimed(page: Page, fileName: string): Promise<OpenMarks> {
  await page.keyboard.press('Control+1');
  await quickOpenRow(page, 'Control+P', fileName, fileName);
  const open = await page.locator('.tabs-container .tab', { hasText: fileName }).count();
  if (open) throw new Error(`${fileName} is open already: the measure would be of a tab switch`);
  await watchOpen(page, fileName);
  await page.keyboard.press('Enter');
  return openMarks(page);
}

interface PanelMarks {
  /** The frame's page started loading (its timeOrigin), DOMContentLoaded (the page says `ready` then). */
  navigation: number;
  domContentLoaded: number;
  /** Drawn after the click: "Scoring…", the first EX / Soft-F1, the time ratio. */
  scoring: number;
  result: number;
  timing: number;
  /** The server's own elapsed time of the score whose result was drawn first, and of the full one ("SQLite … · N ms"). */
  resultElapsedMs: number;
  fullElapsedMs: number;
  /** The timed pair's medians as the panel's Timing section prints them ("median gold 0.04 ms, prediction 0.05 ms"). */
  pair: string;
}

/**
 * Watches a webview frame that shows the Score page (once per click, by token): what its #app draws after the
 * watch began (a panel reused still shows the previous score until the new one replaces it). Its marks, or
 * undefined for a frame without the page.
 */
async function panelMarks(frame: Frame, token: number, countShown: boolean): Promise<PanelMarks | undefined> {
  return inFrame<PanelMarks | undefined>(frame, WATCH_PANEL, { token, countShown }).catch(() => undefined);
}

/** The page side of panelMarks: marks in epoch ms, in `window.walkScore`. */
const WATCH_PANEL = `({ token, countShown }) => {
  const app = document.getElementById('app');
  if (!app) return undefined;
  if (window.walkScore?.token !== token) {
    const now = () => performance.timeOrigin + performance.now();
    const navigation = performance.getEntriesByType('navigation')[0];
    const marks = (window.walkScore = {
      token,
      navigation: performance.timeOrigin,
      domContentLoaded: navigation?.domContentLoadedEventEnd ? performance.timeOrigin + navigation.domContentLoadedEventEnd : 0,
      scoring: 0,
      result: 0,
      timing: 0,
      resultElapsedMs: 0,
      fullElapsedMs: 0,
      pair: '',
    });
    // Only what is drawn from now on, read on the first animation frame after #app changed; a frame first seen
    // after the click counts what it shows already (then its marks are upper bounds).
    let changed = countShown;
    new MutationObserver(() => (changed = true)).observe(app, { childList: true, subtree: true, characterData: true });
    const elapsed = (text) => Number(/SQLite [\\d.]+ · (\\d+) ms/.exec(text)?.[1] ?? 0);
    const tick = () => {
      if (window.walkScore !== marks) return;
      if (changed) {
        changed = false;
        const text = app.innerText;
        if (!marks.scoring && /Scoring…/.test(text)) marks.scoring = now();
        if (!marks.result && /\\bEX\\s+[01]\\b/.test(text) && /Soft-F1\\s+[\\d.]+/i.test(text)) {
          marks.result = now();
          marks.resultElapsedMs = elapsed(text);
        }
        if (!marks.timing && /VES time ratio\\s+first row[^\\n]*\\n\\s*[\\d.]+×/i.test(text)) {
          marks.timing = now();
          marks.fullElapsedMs = elapsed(text);
          marks.pair = /(median gold [\\d.]+ ms, prediction [\\d.]+ ms)/.exec(text)?.[1] ?? '';
        }
      }
      if (!marks.timing) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }
  const { token: _, ...marks } = window.walkScore;
  return marks;
}`;

type Resource = { name: string; start: number; worker: number; request: number; response: number; end: number };
type FrameTiming = { navigation: number; domContentLoaded: number; resources: Resource[] };

/** Every frame's start of navigation, DOMContentLoaded and slow loads, in epoch ms (a webview's host page, its content page). */
async function frameTimeline(page: Page): Promise<({ url: string } & FrameTiming)[]> {
  const timeline = [];
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    const timing = await inFrame<FrameTiming>(
      frame,
      `() => {
        const navigation = performance.getEntriesByType('navigation')[0];
        // The page's slow loads: name, start and end in epoch ms.
        const resources = performance
          .getEntriesByType('resource')
          .filter((r) => r.duration > 50)
          .map((r) => ({
            name: r.name.replace(/^.*\\//, '').replace(/\\?.*/, ''),
            start: performance.timeOrigin + r.startTime,
            // A service worker started for it (0: none), the request sent, the first byte back.
            worker: r.workerStart ? performance.timeOrigin + r.workerStart : 0,
            request: performance.timeOrigin + r.requestStart,
            response: performance.timeOrigin + r.responseStart,
            end: performance.timeOrigin + r.responseEnd,
          }));
        return {
          navigation: performance.timeOrigin,
          domContentLoaded: performance.timeOrigin + (navigation?.domContentLoadedEventEnd ?? 0),
          resources,
        };
      }`,
    ).catch(() => undefined);
    if (timing)
      timeline.push({
        url: frame
          .url()
          .replace(/\?.*/, '')
          .replace(/^https?:\/\/[^/]+/, ''),
        ...timing,
      });
  }
  return timeline;
}

type ScoreMarks = { click: number; notified: number; frames: string } & PanelMarks;

/** Clicks the Score lens of the open 717 file; marks from the mousedown (VS Code runs a lens's command on mousedown). */
async function scoreTimed(page: Page, token: number): Promise<ScoreMarks> {
  const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: SCORE_LENS }).first();
  await lens.waitFor({ timeout: 60_000 });
  await inFrame(
    page.mainFrame(),
    `() => {
      window.walkClick = 0;
      window.walkNotified = 0;
      const now = () => performance.timeOrigin + performance.now();
      const mark = () => (window.walkClick ||= now());
      document.addEventListener('mousedown', mark, { capture: true, once: true });
      // The score's progress notification says the correctness result as soon as it is known.
      const started = now();
      const tick = () => {
        const toasts = [...document.querySelectorAll('.notification-toast')].map((t) => t.textContent).join(' ');
        if (window.walkClick && /EX [01], Soft-F1/.test(toasts)) window.walkNotified = now();
        else if (now() - started < 120000) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    }`,
  );
  // The frames that show a Score page before the click (the panel reused) are watched from before it.
  const framesBefore = new Set(page.frames());
  for (const frame of framesBefore) if (frame !== page.mainFrame()) await panelMarks(frame, token, false);
  await lens.click();
  const click = await inFrame<number>(page.mainFrame(), '() => window.walkClick');
  const deadline = Date.now() + 180_000;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      const marks = await panelMarks(frame, token, true);
      if (marks?.timing && marks.result) {
        // The new frames (a panel created by the click): when each started loading, when it was ready.
        const frames = (await frameTimeline(page))
          .filter((f) => f.navigation > click)
          .map((f) => {
            const at = (t: number) => (t ? ms(t - click) : '–');
            const slow = f.resources
              .map(
                (r) =>
                  `${r.name} +${at(r.start)}–${at(r.end)} [worker ${at(r.worker)}, request ${at(r.request)}, response ${at(r.response)}]`,
              )
              .join(' ');
            const loaded = `+${ms(f.navigation - click)}/${ms(f.domContentLoaded - click)}`;
            return `${f.url.replace(/^.*\//, '')} ${loaded}${slow ? ` (${slow})` : ''}`;
          })
          .join(', ');
        const notified = await inFrame<number>(page.mainFrame(), '() => window.walkNotified');
        return { click, notified, frames, ...marks };
      }
    }
    if (Date.now() > deadline) {
      const seen = [];
      for (const frame of page.frames()) {
        const text = await inFrame<string>(frame, "() => document.getElementById('app')?.innerText ?? ''").catch(() => '');
        if (text) seen.push(`${JSON.stringify(await panelMarks(frame, token, true))}\n${text.slice(0, 600)}`);
      }
      throw new Error(`the Score panel drew no timing within 180 s; the panels:\n${seen.join('\n---\n')}`);
    }
    await page.waitForTimeout(40);
  }
}

interface ReportMarks {
  enter: number;
  /** The report page's frame started loading, and its DOMContentLoaded (the page says `ready` then). */
  navigation: number;
  domContentLoaded: number;
  /** "Evaluation report" drawn (the page got its start), the first question's row drawn. */
  heading: number;
  row: number;
}

/** The page side of reportTimed, in a webview frame: when its report heading and first row were drawn (epoch ms). */
const WATCH_REPORT = `() => {
  const app = document.getElementById('app');
  if (!app) return undefined;
  if (!window.walkReport) {
    const now = () => performance.timeOrigin + performance.now();
    const navigation = performance.getEntriesByType('navigation')[0];
    const marks = (window.walkReport = {
      navigation: performance.timeOrigin,
      domContentLoaded: navigation?.domContentLoadedEventEnd ? performance.timeOrigin + navigation.domContentLoadedEventEnd : 0,
      heading: 0,
      row: 0,
    });
    // A frame first seen with its heading or a row drawn already: marked now (an upper bound, within ~40 ms).
    const tick = () => {
      if (!marks.heading && /Evaluation report/.test(app.innerText)) marks.heading = now();
      if (!marks.row && app.querySelector('table.questions tbody tr')) marks.row = now();
      if (!marks.row) requestAnimationFrame(tick);
    };
    tick();
  }
  return window.walkReport;
}`;

/** Evaluate a Prediction File on the open prediction file (a Report panel created): marks from the palette's Enter. */
async function reportTimed(page: Page): Promise<ReportMarks> {
  const framesBefore = new Set(page.frames());
  await quickOpenRow(page, 'F1', '>VES Lens: Evaluate a Prediction File', 'Evaluate a Prediction File');
  await inFrame(
    page.mainFrame(),
    `() => {
      window.walkEvaluate = 0;
      document.addEventListener('keydown', (event) => event.key === 'Enter' && (window.walkEvaluate ||= performance.timeOrigin + performance.now()), { capture: true, once: true });
    }`,
  );
  await page.keyboard.press('Enter');
  const enter = await inFrame<number>(page.mainFrame(), '() => window.walkEvaluate');
  const deadline = Date.now() + 180_000;
  for (;;) {
    for (const frame of page.frames()) {
      if (framesBefore.has(frame)) continue;
      const marks = await inFrame<Omit<ReportMarks, 'enter'> | undefined>(frame, WATCH_REPORT).catch(() => undefined);
      if (marks?.row) return { enter, ...marks };
    }
    if (Date.now() > deadline) throw new Error('the Report panel drew no row within 180 s');
    await page.waitForTimeout(20);
  }
}

// ---- code-server's logs: the extensions' activations, the language client's trace ---------------------------------

/** The log files under this code-server's data folder whose names match. */
function logFiles(home: string, name: RegExp): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (name.test(entry.name)) found.push(file);
    }
  };
  walk(home);
  return found;
}

/** Every extension activation in the extension host logs (their times are local, to the millisecond), in epoch ms. */
function activations(home: string): { extension: string; at: number }[] {
  const found: { extension: string; at: number }[] = [];
  for (const file of logFiles(home, /^(remote)?exthost\.log$/)) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const match = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) .*_doActivateExtension ([\w.-]+)/.exec(line);
      if (match) found.push({ extension: match[2], at: new Date(match[1].replace(' ', 'T')).getTime() });
    }
  }
  return found.sort((a, b) => a.at - b.at);
}

/** One message of the language client's JSON trace (vesLens.trace.server: messages, format json), epoch ms. */
interface LspEvent {
  type: string;
  method?: string;
  id?: number;
  uri?: string;
  /** A response's result length (lenses, code actions). */
  results?: number;
  timestamp: number;
}

/** The language client's messages since a time, from the VES Lens output channels of every window (with --trace). */
function lspEvents(home: string, since: number): LspEvent[] {
  const events: LspEvent[] = [];
  for (const file of logFiles(home, /VES Lens\.log$/)) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const json = line.startsWith('[LSP') ? line.slice(line.indexOf('] ') + 2) : '';
      if (!json) continue;
      const { type, message, timestamp } = JSON.parse(json) as {
        type: string;
        message: { id?: number; method?: string; params?: { textDocument?: { uri: string } }; result?: unknown };
        timestamp: number;
      };
      if (timestamp < since) continue;
      const results = Array.isArray(message.result) ? message.result.length : undefined;
      events.push({ type, method: message.method, id: message.id, uri: message.params?.textDocument?.uri, results, timestamp });
    }
  }
  return events.sort((a, b) => a.timestamp - b.timestamp);
}

/** A request sent after `since` (the first of its method, on a document if given) and its response. */
function request(events: LspEvent[], method: string, since: number, uri?: string): { sent: number; answered: number; results?: number } {
  const sent = events.find(
    (e) => e.type === 'send-request' && e.method === method && e.timestamp >= since && (!uri || e.uri?.endsWith(uri)),
  );
  const answer = sent && events.find((e) => e.type === 'receive-response' && e.id === sent.id && e.timestamp >= sent.timestamp);
  return { sent: sent?.timestamp ?? NaN, answered: answer?.timestamp ?? NaN, results: answer?.results };
}

/** Where an open's time went, from the language client's trace: didOpen sent, the first lens request and its answer. */
function openBreakdown(home: string, from: number, file: string, drawn: number): string {
  const events = lspEvents(home, from - 60_000);
  const opened = events.find(
    (e) => e.type === 'send-notification' && e.method === 'textDocument/didOpen' && e.uri?.endsWith(file) && e.timestamp >= from,
  );
  const initializeSent = events.filter(
    (e) => e.type === 'send-request' && e.method === 'initialize' && e.timestamp <= (opened?.timestamp ?? 0),
  );
  const initialize = request(events, 'initialize', initializeSent.at(-1)?.timestamp ?? Infinity);
  const lenses = request(events, 'textDocument/codeLens', opened?.timestamp ?? from, file);
  const after = (t: number) => ms(t - from);
  // Each code lens provider registered meanwhile (an extension activated by this JSON file) makes VS Code ask again.
  const asked = events.filter(
    (e) =>
      e.type === 'send-request' &&
      e.method === 'textDocument/codeLens' &&
      e.uri?.endsWith(file) &&
      e.timestamp >= from &&
      e.timestamp <= drawn,
  );
  const activated = activations(home).filter((a) => a.at >= from - 1_000 && a.at <= drawn);
  return (
    `${initialize.answered > from ? `initialize sent ${after(initialize.sent)}, answered ${after(initialize.answered)}, ` : ''}` +
    `didOpen sent ${after(opened?.timestamp ?? NaN)}, ` +
    `codeLens asked ${after(lenses.sent)}, answered ${after(lenses.answered)} (${lenses.results} lenses), ` +
    `drawn ${after(drawn)} ms after Enter; ` +
    `lens requests before it was drawn: ${asked.map((e) => after(e.timestamp)).join(', ')}; ` +
    `activated meanwhile: ${activated.map((a) => `${a.extension} ${after(a.at)}`).join(', ') || 'none'}`
  );
}

/** The score requests after a click, from the trace: when each was sent and answered. */
function scoreBreakdown(home: string, click: number): string {
  const events = lspEvents(home, click);
  const correctness = request(events, 'vesLens/score', click);
  const full = request(events, 'vesLens/score', correctness.answered);
  const after = (t: number) => ms(t - click);
  return (
    `vesLens/score (correctness) sent ${after(correctness.sent)}, answered ${after(correctness.answered)}; ` +
    `full sent ${after(full.sent)}, answered ${after(full.answered)} ms after the click`
  );
}

/** Where an Evaluate's time went, from the language client's trace: its request sent and the first rows received. */
function evaluateBreakdown(home: string, marks: ReportMarks): string {
  const events = lspEvents(home, marks.enter);
  const evaluate = request(events, 'vesLens/evaluateFile', marks.enter);
  const rows = events.find((e) => e.type === 'receive-notification' && e.method === '$/progress' && e.timestamp >= evaluate.sent);
  const after = (t: number | undefined) => (t ? ms(t - marks.enter) : '–');
  return (
    `vesLens/evaluateFile sent ${after(evaluate.sent)}, first $/progress received ${after(rows?.timestamp)}; ` +
    `the page started ${after(marks.navigation)}, ready ${after(marks.domContentLoaded)}, first row drawn ${after(marks.row)} ms after the Enter`
  );
}

/**
 * With --profile DIR: the workbench renderer's CPU profile while `body` runs, saved as DIR/name.cpuprofile (open it
 * in Chrome's DevTools), with DIR/name.json holding the epoch ms the profile started at and what `body` returned.
 */
async function profiled<T>(page: Page, name: string, body: () => Promise<T>): Promise<T> {
  const dir = argument('--profile');
  if (!dir) return body();
  fs.mkdirSync(dir, { recursive: true });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  await cdp.send('Profiler.start');
  const started = await inFrame<number>(page.mainFrame(), '() => performance.timeOrigin + performance.now()');
  const result = await body();
  const { profile } = await cdp.send('Profiler.stop');
  await cdp.detach();
  fs.writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
  fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify({ started, result }, null, 2));
  return result;
}

// ---- one run, and the summary -----------------------------------------------------------------------------------

interface ScoreTimes {
  /** From the click: the new panel's frames (host page, content page) started loading, the content page ready. */
  frames: string;
  ready: number;
  /** The correctness result in the score's progress notification. */
  notified: number;
  scoring: number;
  result: number;
  timing: number;
  resultElapsedMs: number;
  fullElapsedMs: number;
  pair: string;
}

interface Run {
  /** Cold: after the window started loading, VES Lens activated and the Enter pressed; from the Enter, the rest. */
  coldActivation: number;
  coldEnter: number;
  coldText: number;
  coldLensText: number;
  coldLens: number;
  firstOpenLens: number;
  warmText: number;
  warmLens: number;
  secondLens: number;
  reopenLensText: number;
  reopenLens: number;
  newPanel: ScoreTimes;
  openPanel: ScoreTimes;
  /** Evaluate's Enter → the Report page ready, its heading drawn, its first row drawn. */
  reportReady: number;
  reportHeading: number;
  reportRow: number;
}

function scoreTimes(marks: ScoreMarks): ScoreTimes {
  const since = (t: number) => (t ? t - marks.click : NaN);
  return {
    frames: marks.frames,
    ready: marks.navigation > marks.click ? since(marks.domContentLoaded) : NaN,
    notified: since(marks.notified),
    scoring: since(marks.scoring),
    result: since(marks.result),
    timing: since(marks.timing),
    resultElapsedMs: marks.resultElapsedMs,
    fullElapsedMs: marks.fullElapsedMs,
    pair: marks.pair,
  };
}

async function oneRun(page: Page, server: RunningCodeServer, log: (line: string) => void, trace: boolean, run: number): Promise<Run> {
  /** With --trace, where an open's or a score's time went (the trace is written a moment later). */
  const explain = async (breakdown: () => string) => {
    if (!trace) return;
    await page.waitForTimeout(1_500);
    log(`    trace: ${breakdown()}`);
  };
  // Cold: the window loads with the dataset remembered; the file is opened as soon as quick open can find it.
  const loaded = await reloadWindow(page);
  const cold = await openTimed(page, PREDICTIONS);
  const activation = activations(server.home).find((a) => a.extension === 'ves-lens.ves-lens' && a.at >= loaded - 50)?.at ?? NaN;
  log(
    `  cold: VES Lens activated ${ms(activation - loaded)} ms and Enter ${ms(cold.enter - loaded)} ms after the window started ` +
      `loading; from the Enter: text ${ms(cold.text - cold.enter)}, lens title ${ms(cold.lensText - cold.enter)}, ` +
      `clickable lens ${ms(cold.lens - cold.enter)} ms`,
  );
  await explain(() => openBreakdown(server.home, cold.enter, PREDICTIONS, cold.lens));
  /** From an open's Enter: its text, the lens's title, the clickable lens. */
  const opened = ({ enter, text, lensText, lens }: OpenMarks) =>
    `text ${ms(text - enter)}, lens title ${ms(lensText - enter)}, clickable lens ${ms(lens - enter)} ms`;
  // A new user: the first JSON file of a ready window, never opened in this workspace (no lens lines kept for it).
  await reloadWindow(page);
  await waitAttached(page);
  await page.waitForTimeout(3_000); // the server's start-up work done
  const firstOpen = await openTimed(page, firstOpenFile(run));
  log(`  first open ever (warm): ${opened(firstOpen)}`);
  await explain(() => openBreakdown(server.home, firstOpen.enter, firstOpenFile(run), firstOpen.lens));
  // Warm: a new window again (nothing cached in memory), the extension active and attached before the file opens.
  await reloadWindow(page);
  await waitAttached(page);
  await page.waitForTimeout(3_000);
  const warm = await profiled(page, `warm-open-${run}`, () => openTimed(page, PREDICTIONS));
  log(`  warm: ${opened(warm)}`);
  if (trace && warm.lensText < warm.lens) log(`    first drawn with the title: ${warm.lensTextHtml}`);
  await explain(() => openBreakdown(server.home, warm.enter, PREDICTIONS, warm.lens));
  await closeAllEditors(page);
  await page.waitForTimeout(1_000);
  const second = await openTimed(page, SECOND);
  log(`  second file: ${opened(second)}`);
  await explain(() => openBreakdown(server.home, second.enter, SECOND, second.lens));
  await closeAllEditors(page);
  await page.waitForTimeout(1_000);
  const reopen = await profiled(page, `reopen-${run}`, () => openTimed(page, PREDICTIONS));
  log(`  reopened (VS Code draws its cached lens titles first): ${opened(reopen)}`);
  await explain(() => openBreakdown(server.home, reopen.enter, PREDICTIONS, reopen.lens));
  // Score: the panel created by the click (the first score in this window), then the same click with the panel open.
  await closeAllEditors(page);
  await openTimed(page, SCORE_FILE);
  await page.waitForTimeout(1_000);
  const scores: ScoreTimes[] = [];
  for (const name of ['new panel', 'panel open']) {
    if (scores.length) await page.locator('.tab', { hasText: SCORE_FILE }).first().click();
    await page.waitForTimeout(1_000);
    const marks = await profiled(page, `score-${name.replace(' ', '-')}-${run}`, () => scoreTimed(page, Date.now()));
    const t = scoreTimes(marks);
    scores.push(t);
    log(
      `  score, ${name}: ${t.frames ? `frames (start/ready) ${t.frames}; ` : ''}notification ${ms(t.notified)}, "Scoring…" ${ms(t.scoring)}, ` +
        `EX/Soft-F1 ${ms(t.result)}, timing ${ms(t.timing)} ms after the click ` +
        `(server's elapsed: ${t.resultElapsedMs} ms for the first result drawn, ${t.fullElapsedMs} ms full; ${t.pair})`,
    );
    await explain(() => scoreBreakdown(server.home, marks.click));
  }
  // Evaluate the prediction file: the Report panel created, its first row (the evaluation cancelled when it closes).
  await closeAllEditors(page);
  await openTimed(page, PREDICTIONS);
  await page.waitForTimeout(1_000);
  const report = await reportTimed(page);
  const fromEnter = (t: number) => (t ? t - report.enter : NaN);
  log(
    `  evaluate, new Report panel: page started ${ms(fromEnter(report.navigation))}, ready ${ms(fromEnter(report.domContentLoaded))}, ` +
      `heading ${ms(fromEnter(report.heading))}, first row ${ms(fromEnter(report.row))} ms after the Enter`,
  );
  await explain(() => evaluateBreakdown(server.home, report));
  await closeAllEditors(page);
  return {
    coldActivation: activation - loaded,
    coldEnter: cold.enter - loaded,
    coldText: cold.text - cold.enter,
    coldLensText: cold.lensText - cold.enter,
    coldLens: cold.lens - cold.enter,
    firstOpenLens: firstOpen.lens - firstOpen.enter,
    warmText: warm.text - warm.enter,
    warmLens: warm.lens - warm.enter,
    secondLens: second.lens - second.enter,
    reopenLensText: reopen.lensText - reopen.enter,
    reopenLens: reopen.lens - reopen.enter,
    newPanel: scores[0],
    openPanel: scores[1],
    reportReady: fromEnter(report.domContentLoaded),
    reportHeading: fromEnter(report.heading),
    reportRow: fromEnter(report.row),
  };
}

/** The pair's medians over every score, as ranges: "median gold 0.09–0.18 ms, prediction 0.35–0.52 ms". */
function pairMedians(printed: string[]): string {
  const range = (side: string) => {
    const values = printed.map((text) => Number(new RegExp(`${side} ([\\d.]+) ms`).exec(text)?.[1])).filter(Number.isFinite);
    return values.length ? `${Math.min(...values)}–${Math.max(...values)} ms` : '?';
  };
  return `median gold ${range('gold')}, prediction ${range('prediction')} over ${printed.length} scores`;
}

function summary(runs: Run[]): { rows: string[][]; pairs: string } {
  const row = (what: string, pick: (run: Run) => number, goal = '') => {
    const known = runs.map(pick).filter((v) => Number.isFinite(v));
    if (known.length === 0) return [what, '–', '–', goal];
    return [what, ms(median(known)), `${ms(Math.min(...known))}–${ms(Math.max(...known))}`, goal];
  };
  return {
    rows: [
      row('**(a) cold: Enter → first Score lens (clickable)**', (r) => r.coldLens, '< 1000'),
      row('cold: window starts loading → VES Lens activated', (r) => r.coldActivation),
      row('cold: window starts loading → Enter (quick open found the file)', (r) => r.coldEnter),
      row('cold: Enter → file text drawn', (r) => r.coldText),
      row("cold: Enter → lens title drawn (VS Code's cache, not clickable)", (r) => r.coldLensText),
      row('**(a) first open ever, warm (a new user): Enter → first Score lens (clickable)**', (r) => r.firstOpenLens, '< 1000'),
      row('**(a) warm, opened in an earlier window: Enter → first Score lens (clickable)**', (r) => r.warmLens, '< 1000'),
      row('warm: Enter → file text drawn', (r) => r.warmText),
      row('**(a) another 500-entry file, JSON extensions active: Enter → first Score lens**', (r) => r.secondLens, '< 1000'),
      row("reopened: Enter → lens title drawn (VS Code's cache)", (r) => r.reopenLensText),
      row('reopened: Enter → clickable lens', (r) => r.reopenLens),
      row('**(b) Score, panel created: click → EX / Soft-F1 drawn**', (r) => r.newPanel.result, '< 1000'),
      row('panel created: click → EX / Soft-F1 in the progress notification', (r) => r.newPanel.notified),
      row('panel created: click → Score page ready (DOMContentLoaded)', (r) => r.newPanel.ready),
      row('panel created: click → timing drawn', (r) => r.newPanel.timing),
      row("panel created: server's elapsed, first result drawn", (r) => r.newPanel.resultElapsedMs),
      row('**(b) Score, panel open: click → EX / Soft-F1 drawn**', (r) => r.openPanel.result, '< 1000'),
      row('panel open: click → "Scoring…" drawn', (r) => r.openPanel.scoring),
      row('panel open: click → EX / Soft-F1 in the progress notification', (r) => r.openPanel.notified),
      row('panel open: click → timing drawn', (r) => r.openPanel.timing),
      row("panel open: server's elapsed, first result drawn", (r) => r.openPanel.resultElapsedMs),
      row('**(c) Evaluate a Prediction File, panel created: Enter → first report row drawn**', (r) => r.reportRow, '< 1000'),
      row('Evaluate: Enter → Report page ready (DOMContentLoaded)', (r) => r.reportReady),
      row('Evaluate: Enter → "Evaluation report" drawn', (r) => r.reportHeading),
    ],
    pairs: pairMedians(runs.flatMap((r) => [r.newPanel.pair, r.openPanel.pair])),
  };
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

async function main() {
  const missing = editorMissing();
  if (missing) throw new Error(missing);
  const vsix = path.resolve(argument('--vsix') ?? process.env.VES_LENS_VSIX ?? DEFAULT_VSIX);
  if (!fs.existsSync(vsix)) throw new Error(`${vsix} is missing: npm run package`);
  const trace = process.argv.includes('--trace');
  const loadBefore = os.loadavg()[0];
  const lines: string[] = [];
  const log = (line: string) => {
    lines.push(line);
    process.stdout.write(`${line}\n`);
  };
  const entries = argument('--entries');
  const runCount = Number(argument('--runs') ?? 5);
  const workspace = miniDevWorkspace(runCount, entries === undefined ? undefined : Number(entries));
  const server = await startCodeServer({
    workspace,
    vsix,
    settings: {
      'workbench.colorTheme': 'Default Light Modern',
      ...(trace ? { 'vesLens.trace.server': { verbosity: 'messages', format: 'json' } } : {}),
      ...JSON.parse(argument('--settings') ?? '{}'),
    },
  });
  let browser: BrowserContext | undefined;
  let stopBurning = () => {};
  const profile = tempDir('ves-lens-walk-chromium-');
  try {
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      viewport: { width: 1600, height: 1000 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    await loadWindow(page, `${server.url}/?folder=${encodeURIComponent(workspace)}`);
    // Attach as a new user does: the offer VES Lens makes when it finds BIRD's layout (remembered for this workspace).
    const offer = page.locator('.notification-toast', { hasText: 'this workspace has a BIRD dataset' }).first();
    await offer.waitFor({ timeout: 90_000 });
    await offer.locator('.monaco-button', { hasText: 'Attach' }).click();
    await waitAttached(page);
    log(`dataset attached: ${(await page.locator('.statusbar-item', { hasText: QUESTIONS }).first().innerText()).trim()}`);
    const runs: Run[] = [];
    if (BUSY) stopBurning = burnCpu();
    for (let run = 1; run <= runCount; run++) {
      log(`run ${run}`);
      runs.push(await oneRun(page, server, log, trace, run));
    }
    const { rows, pairs } = summary(runs);
    const table = ['| what | median ms | range ms | goal ms |', '|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)];
    process.stdout.write(`\n${table.join('\n')}\n`);
    // Traced runs explain where the time goes; their figures carry the trace's cost and are not the report's.
    if (!trace && !argument('--profile') && !argument('--settings') && entries === undefined)
      writeReport(runCount, table, pairs, lines, loadBefore);
  } finally {
    stopBurning();
    await browser?.close();
    await server.stop();
    if (!process.argv.includes('--keep'))
      for (const dir of [workspace, profile, server.home]) fs.rmSync(dir, { recursive: true, force: true });
    else process.stdout.write(`kept ${workspace}, ${profile}, ${server.home}\n`);
  }
}

function writeReport(runCount: number, table: string[], pairs: string, lines: string[], loadBefore: number): void {
  // The machine is shared: its load before and after the runs says how much the figures may be inflated.
  const load = `${loadBefore.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after (${os.cpus().length} cores)`;
  const text = `# Editor latency as a person sees it (code-server 4.100.3, Chromium, the packaged .vsix)${BUSY ? ', both cores busy' : ''}

${machineLine()} · ${runCount} runs · load average ${load} · \`npx tsx bench/editorWalk.ts --runs ${runCount}${BUSY ? ' --busy' : ''}\`${BUSY ? ' (a busy loop on every core from the dataset attached to the end)' : ''}

Workspace: mini-dev v1-2024 questions and gold, databases ${DATABASES.join(', ')}, \`predictions/${PREDICTIONS}\`
(500 entries); the dataset attached through VES Lens's offer. Each run reloads the window three times: **cold** opens
the prediction file (quick open, Enter) as soon as the window can, while VES Lens activates and its server starts;
**first open ever** waits for the dataset in the status bar (and 3 s) and opens a copy never opened in this workspace
(\`first_open_<run>.json\`: a new user's first open); **warm** does the same with the prediction file, which VS Code has
seen in an earlier window (it keeps the lines that had lenses, across reloads, and makes a file's lenses clickable on
them only after its resolve pass); then a copy of it under another name is opened (\`${SECOND}\`: the JSON
extensions are active, VS Code has no lenses of it cached), then the first file again. Times are taken in the page:
from the Enter (or the lens's mousedown) to the first animation frame that has the element. The Score pair is
question 717 with the e2e walk's correct prediction (${pairs}). Where the time goes: \`--trace\` prints, per open
and score, the language client's messages with their times and the extensions activated meanwhile; \`--profile DIR\`
saves the workbench renderer's CPU profiles.

${table.join('\n')}

<details><summary>Per run</summary>

\`\`\`
${lines.join('\n')}
\`\`\`
</details>
`;
  // A hand-written reading of the figures (where the time goes) below ANALYSIS stays when the figures are rewritten.
  const previous = fs.existsSync(RESULTS) ? fs.readFileSync(RESULTS, 'utf8') : '';
  const analysis = previous.includes(ANALYSIS) ? previous.slice(previous.indexOf(ANALYSIS)) : '';
  fs.writeFileSync(RESULTS, analysis ? `${text}\n${analysis}` : text);
  process.stdout.write(`\nwrote ${path.relative(REPO_ROOT, RESULTS)}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
