/**
 * Headless Debian Chromium driven by playwright-core, with the flags VSCODE-OFFLINE.md lists (no sandbox as root,
 * no network side-channels). Opens the code-server workbench like a user's browser would.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import * as fs from 'node:fs';
import { CHROMIUM, ensureSystemPackages } from './codeServer';

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) ensureSystemPackages();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

/** A page sized like a laptop screen, logging the workbench's console errors to `log`. */
export async function openPage(browser: Browser, url: string, log: (line: string) => void): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') log(`[browser] ${m.text()}`);
  });
  page.on('pageerror', (e) => log(`[browser] page error: ${e.message}`));
  // a loaded machine (several suites at once) can take longer than the default 30 s to serve the workbench
  await page.goto(url, { timeout: 120_000 });
  return page;
}
