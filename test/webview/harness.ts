// A panel's page on its own in Chromium: the page bundles (src/webview, built by esbuild.js into dist/media),
// Chart.js, VS Code Elements, codicons and the highlight.js bundle, served as webview.ts links them, with VS Code's
// light or dark theme colours and a stub of the webview API (postMessage records, getState/setState keep the
// state across a reload, as VS Code does).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Browser, chromium, Page } from 'playwright-core';
import { CHROMIUM } from '../e2e/codeServer';
import { REPO_ROOT } from '../helpers';

// Functions passed to page.evaluate run in the page; the project's tsconfig has no DOM types.
declare const window: any, customElements: any, requestAnimationFrame: (f: (time: number) => void) => void;

/** The page's assets, as the extension ships them in dist/media (esbuild.js builds or copies the same files). */
const ASSETS: Record<string, string> = {
  'score.js': 'dist/media/score.js',
  'plan.js': 'dist/media/plan.js',
  'report.js': 'dist/media/report.js',
  'audit.js': 'dist/media/audit.js',
  'optimize.js': 'dist/media/optimize.js',
  'highlight.js': 'dist/media/highlight.js',
  'panel.css': 'media/panel.css',
  'codicon.css': 'node_modules/@vscode/codicons/dist/codicon.css',
  'codicon.ttf': 'node_modules/@vscode/codicons/dist/codicon.ttf',
  'vscode-elements.js': 'node_modules/@vscode-elements/elements/dist/bundled.js',
  'chart.umd.js': 'node_modules/chart.js/dist/chart.umd.min.js',
};

/** What esbuild.js records of the page bundles: the bundles, and the source files they were built from. */
const PAGE_INPUTS = 'dist/webview-inputs.json';
const BUILT = ['highlight.js', 'score.js', 'plan.js', 'report.js', 'audit.js', 'optimize.js'].map((name) => ASSETS[name]);

/** A bundle is missing, or a file it was built from (or the build script) changed since. */
function pagesStale(): boolean {
  const mtime = (file: string) => fs.statSync(path.join(REPO_ROOT, file)).mtimeMs;
  if (![PAGE_INPUTS, ...BUILT].every((file) => fs.existsSync(path.join(REPO_ROOT, file)))) return true;
  const builtAt = Math.min(...BUILT.map(mtime));
  const { inputs } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, PAGE_INPUTS), 'utf8')) as { inputs: string[] };
  return ['esbuild.js', ...inputs].some((file) => !fs.existsSync(path.join(REPO_ROOT, file)) || mtime(file) > builtAt);
}

/** The page bundles and highlight.js are built by esbuild.js: build them when missing or older than their sources. */
export function ensureBuilt(): void {
  if (!pagesStale()) return;
  const build = spawnSync(process.execPath, [path.join(REPO_ROOT, 'esbuild.js'), '--pages'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(build.stderr);
}

/** Why the page tests cannot run on this machine (Debian's chromium is missing), or false. */
export const chromiumMissing: string | false = fs.existsSync(CHROMIUM)
  ? false
  : `not installed: ${CHROMIUM} (run scripts/setup-code-server.sh)`;

/** Headless Debian Chromium, with the page assets built first. */
export function launchChromium(): Promise<Browser> {
  ensureBuilt();
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
}

/** A subset of VS Code's Dark Modern and Light Modern colours: what panel.css and the scripts read. */
export const THEMES = {
  dark: {
    'editor-background': '#1f1f1f',
    foreground: '#cccccc',
    descriptionForeground: '#9d9d9d',
    'panel-border': '#2b2b2b',
    'sideBar-background': '#181818',
    'charts-yellow': '#cca700',
    'charts-blue': '#3794ff',
    'charts-lines': 'rgba(204, 204, 204, 0.5)',
    'charts-foreground': '#cccccc',
    'charts-red': '#f14c4c',
    'charts-green': '#89d185',
    'charts-orange': '#d18616',
    'testing-iconPassed': '#73c991',
    'testing-iconFailed': '#f14c4c',
    errorForeground: '#f85149',
    'editorWarning-foreground': '#cca700',
    'editorInfo-foreground': '#3794ff',
    'textCodeBlock-background': '#2b2b2b',
    'button-background': '#0078d4',
    'button-foreground': '#ffffff',
    'button-secondaryBackground': '#313131',
    'button-secondaryForeground': '#cccccc',
    'button-secondaryHoverBackground': '#3c3c3c',
    focusBorder: '#0078d4',
    'settings-dropdownBackground': '#313131',
    'settings-dropdownForeground': '#cccccc',
    'settings-dropdownBorder': '#3c3c3c',
    'progressBar-background': '#0078d4',
    'debugTokenExpression-name': '#c586c0',
    'debugTokenExpression-string': '#ce9178',
    'debugTokenExpression-number': '#b5cea8',
    'editorHoverWidget-background': '#202020',
    'editorHoverWidget-border': '#454545',
    'input-background': '#313131',
    'input-foreground': '#cccccc',
    'dropdown-background': '#313131',
    'dropdown-foreground': '#cccccc',
  },
  light: {
    'editor-background': '#ffffff',
    foreground: '#3b3b3b',
    descriptionForeground: '#3b3b3b',
    'panel-border': '#e5e5e5',
    'sideBar-background': '#f8f8f8',
    'charts-yellow': '#bf8803',
    'charts-blue': '#1a85ff',
    'charts-lines': 'rgba(59, 59, 59, 0.5)',
    'charts-foreground': '#3b3b3b',
    'charts-red': '#e51400',
    'charts-green': '#388a34',
    'charts-orange': '#d18616',
    'testing-iconPassed': '#388a34',
    'testing-iconFailed': '#f14c4c',
    errorForeground: '#f85149',
    'editorWarning-foreground': '#bf8803',
    'editorInfo-foreground': '#1a85ff',
    'textCodeBlock-background': '#f2f2f2',
    'button-background': '#005fb8',
    'button-foreground': '#ffffff',
    'button-secondaryBackground': '#e5e5e5',
    'button-secondaryForeground': '#3b3b3b',
    'button-secondaryHoverBackground': '#cccccc',
    focusBorder: '#005fb8',
    'settings-dropdownBackground': '#ffffff',
    'settings-dropdownForeground': '#3b3b3b',
    'settings-dropdownBorder': '#cecece',
    'progressBar-background': '#005fb8',
    'debugTokenExpression-name': '#9b46b0',
    'debugTokenExpression-string': '#a31515',
    'debugTokenExpression-number': '#098658',
    'editorHoverWidget-background': '#f8f8f8',
    'editorHoverWidget-border': '#c8c8c8',
    'input-background': '#ffffff',
    'input-foreground': '#3b3b3b',
    'dropdown-background': '#ffffff',
    'dropdown-foreground': '#3b3b3b',
  },
};
export type Theme = keyof typeof THEMES;

function pageHtml(script: string, theme: Theme): string {
  const variables = Object.entries(THEMES[theme])
    .map(([name, value]) => `--vscode-${name}: ${value};`)
    .join(' ');
  // As webview.ts builds it, plus the theme VS Code injects (variables on <html>, a class on <body>).
  return `<!DOCTYPE html><html lang="en" style="--vscode-font-family: sans-serif; --vscode-font-size: 13px; --vscode-editor-font-family: monospace; --vscode-editor-font-size: 13px; ${variables}">
<head><meta charset="UTF-8"><title>Panel</title>
<link rel="stylesheet" href="codicon.css" id="vscode-codicon-stylesheet"><link rel="stylesheet" href="panel.css">
<script>window.posted = []; window.acquireVsCodeApi = () => ({ postMessage: (m) => (m.type === 'ready' ? (window.ready = true) : window.posted.push(m)), getState: () => JSON.parse(sessionStorage.getItem('state') ?? 'null'), setState: (s) => sessionStorage.setItem('state', JSON.stringify(s)) });</script>
<script type="module" src="vscode-elements.js"></script><script src="chart.umd.js"></script><script src="highlight.js"></script><script src="${script}" defer></script>
</head><body class="vscode-${theme}"><main id="app" aria-live="polite"><p class="muted">Waiting for VES Lens...</p></main></body></html>`;
}

export type TestPage = Page & { errors: string[] };

export async function openPanelPage(
  browser: Browser,
  script: string,
  theme: Theme = 'dark',
  viewport = { width: 1000, height: 1300 },
): Promise<TestPage> {
  const page = (await browser.newPage({ viewport })) as TestPage;
  page.errors = [];
  page.on('pageerror', (error) => page.errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') page.errors.push(message.text());
  });
  await page.route('http://webview.test/**', (route) => {
    const name = new URL(route.request().url()).pathname.slice(1);
    if (name === 'index.html') return route.fulfill({ contentType: 'text/html', body: pageHtml(script, theme) });
    const file = ASSETS[name];
    if (!file) return route.fulfill({ status: 404, body: '' });
    const type = name.endsWith('.js') ? 'text/javascript' : name.endsWith('.css') ? 'text/css' : 'font/ttf';
    return route.fulfill({ contentType: type, body: fs.readFileSync(path.join(REPO_ROOT, file)) });
  });
  await page.goto('http://webview.test/index.html');
  await page.waitForFunction(
    () =>
      window.ready === true &&
      typeof window.Chart === 'function' &&
      typeof window.hljs === 'object' &&
      customElements.get('vscode-button') !== undefined,
  );
  return page;
}

/** Posts a message as the extension would, and returns once the page has handled it and drawn a frame (a message
 * event comes in a later task, so reading the page straight after `postMessage` races it). */
export const post = (page: Page, message: object) =>
  page.evaluate(
    (m) =>
      new Promise((resolve) => {
        // Added after the page's own listener, so it runs once the page has handled this message.
        window.addEventListener('message', () => requestAnimationFrame(() => requestAnimationFrame(resolve)), {
          once: true,
        });
        window.postMessage(m, '*');
      }),
    message,
  );
export const appText = (page: Page) => page.locator('#app').innerText();
export const settle = (page: Page) =>
  page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
/** Whether anything sticks out of the page sideways (tables and plans must scroll inside their own box). */
export const overflowsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
declare const document: any;
