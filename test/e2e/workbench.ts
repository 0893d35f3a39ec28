// The workbench as a person drives it, shared by the editor walks (ui.test.ts on SQLite, postgres.test.ts on
// PostgreSQL): the palette, quick inputs, lenses and notifications, and the panels' webview frames (VS Code nests
// each panel's page two iframes deep), read and polled from Playwright.
import { strict as assert } from 'node:assert';
import { BrowserContext, chromium, Frame, Page } from 'playwright-core';
import { tempDir } from '../helpers';
import { CHROMIUM } from './codeServer';

/** Debian's Chromium, headless, as a 1600×1000 window (every screenshot the same size). */
export function launchChromium(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(tempDir('ves-lens-chromium-'), {
    executablePath: CHROMIUM,
    viewport: { width: 1600, height: 1000 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The text of every webview frame (VS Code nests each panel's page two iframes deep). */
export async function webviewText(page: Page): Promise<string[]> {
  const texts: string[] = [];
  for (const frame of page.frames()) {
    const text = await frame.evaluate<string>("document.getElementById('app')?.innerText ?? ''").catch(() => '');
    if (text) texts.push(text);
  }
  return texts;
}

export async function waitForWebview(page: Page, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = (await webviewText(page)).find((t) => pattern.test(t));
    if (match) return match;
    await page.waitForTimeout(300);
  }
  throw new Error(`no webview showed ${pattern}; saw: ${(await webviewText(page)).join('\n---\n').slice(0, 2000)}`);
}

/** The webview frame whose page shows an element (and, if given, text matching a pattern). */
export async function webviewFrameWith(page: Page, selector: string, pattern?: RegExp): Promise<Frame> {
  for (const frame of page.frames()) {
    if (
      !(await frame
        .locator(selector)
        .count()
        .catch(() => 0))
    )
      continue;
    if (!pattern || pattern.test(await frame.evaluate<string>("document.getElementById('app')?.innerText ?? ''").catch(() => '')))
      return frame;
  }
  throw new Error(`no webview has ${selector}${pattern ? ` showing ${pattern}` : ''}`);
}

/** The webview frame with an element, once a page shows one (a panel loads its page after it opens). */
export async function waitForFrameWith(page: Page, selector: string, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await webviewFrameWith(page, selector);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await page.waitForTimeout(300);
    }
  }
}

/** Polls an expression in a webview frame (its CSP forbids the eval that frame.waitForFunction uses). */
export async function waitInFrame(frame: Frame, expression: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await frame.evaluate<boolean>(expression).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`webview never satisfied ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** What every panel must never show: a terminal escape character (or its remnants), raw JSON. */
export async function assertPanelsClean(page: Page): Promise<void> {
  for (const text of await webviewText(page)) {
    assert.doesNotMatch(text, /\u001b|\[\d+m/, `a terminal escape in a panel:\n${text.slice(0, 500)}`);
    assert.doesNotMatch(text, /\{"[a-z_]+":/, `raw JSON in a panel:\n${text.slice(0, 500)}`);
  }
}

/**
 * Opens the quick input with `key` and types `text`. The widget of a previous command may still be closing
 * (visible a moment, then hidden), so it waits for that to end and tries again if the input goes away.
 */
export async function quickInput(page: Page, key: string, text: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  const input = page.locator('.quick-input-widget input');
  for (let attempt = 1; ; attempt++) {
    await widget.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
    await page.keyboard.press(key);
    try {
      await input.waitFor({ state: 'visible', timeout: 5_000 });
      await input.fill(text, { timeout: 5_000 });
      return;
    } catch (error) {
      if (attempt === 3) throw error;
      await page.keyboard.press('Escape');
    }
  }
}

export async function runCommand(page: Page, title: string): Promise<void> {
  await quickInput(page, 'F1', `>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
  await page.keyboard.press('Enter');
}

/** Opens a workspace file in the first editor group (the panels open beside it). */
export async function openFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press('Control+1');
  await quickInput(page, 'Control+P', name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: name }).waitFor();
}

/** The code lenses of the editor in the active group (other groups may show other files). */
export const lenses = (page: Page, text: string) =>
  page.locator('.editor-group-container.active .codelens-decoration a', { hasText: text });

export const toast = (page: Page, text: string | RegExp) => page.locator('.notification-toast', { hasText: text }).first();

export async function clearNotifications(page: Page): Promise<void> {
  await runCommand(page, 'Notifications: Clear All Notifications');
}

/** Runs the palette entry whose label is exactly `title` (others may start the same). */
export async function runExactCommand(page: Page, title: string): Promise<void> {
  await quickInput(page, 'F1', `>${title}`);
  await page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${title.replace(/[()]/g, '\\$&')}$`) }) })
    .first()
    .click();
}

/** Sets a number setting as a person does, in the Settings editor. */
export async function setNumberSetting(page: Page, key: string, value: number): Promise<void> {
  await runExactCommand(page, 'Preferences: Open User Settings');
  await page.locator('.settings-editor').waitFor();
  await page.keyboard.type(key);
  const input = page.locator(`.settings-editor [data-key="${key}"] input`).first();
  await input.waitFor({ timeout: 15_000 });
  await input.fill(String(value));
  await page.keyboard.press('Tab');
}

/** Picks a colour theme through its own command (not runCommand: "Browse Color Themes in Marketplace" also matches). */
export async function pickTheme(page: Page, name: string): Promise<void> {
  await quickInput(page, 'F1', '>Preferences: Color Theme');
  await page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: /^Preferences: Color Theme$/ }) })
    .first()
    .click();
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Light Modern' }).first().waitFor(); // the theme list is up
  await page.locator('.quick-input-widget input').fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
}

/** The BIRD explorer with "Show Flagged Questions Only" on, superhero's simple questions open, and one question's row. */
export async function flaggedInExplorer(page: Page, questionId: string) {
  const tree = page.locator('.pane', { hasText: 'BIRD Explorer' }).first();
  // The activity bar's icon toggles: a click on the shown container would hide the side bar.
  if (!(await tree.isVisible())) await page.locator('.activitybar .action-item a[aria-label^="VES Lens"]').first().click();
  await tree.hover();
  await page.locator('.action-label[aria-label="Show Flagged Questions Only"]').first().click();
  await expandRow(tree, 'superhero');
  await expandRow(tree, 'simple');
  return { tree, flagged: tree.locator('.monaco-list-row', { hasText: `${questionId}: ` }).first() };
}

/** Expands a tree row (a click on an expanded one would collapse it). */
export async function expandRow(tree: ReturnType<Page['locator']>, text: string): Promise<void> {
  const row = tree.locator('.monaco-list-row', { hasText: text }).first();
  await row.waitFor({ timeout: 20_000 });
  if ((await row.getAttribute('aria-expanded')) === 'false') await row.click();
}
