/**
 * `ocdb view demo-support-refund --with-forks --out x.html`, opened as a user opens it — in headless Chromium
 * (playwright-core, Debian's /usr/bin/chromium) from the file: no network request, no console error, the run and
 * the captured fork's "diverged at step 5" in what a screen reader gets (the accessibility tree, not a script's
 * data), and `#cp=37` landing on checkpoint [37] (the transcript's line marked and in view, the timeline's cursor
 * there). Screenshots in light and dark under test-results/screenshots/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { runCli } from '../../../src/cli/main';
import { writeDemoStore } from '../../../src/demo';
import { REFUND, forkAuditor } from '../../helpers/auditorFork';
import { tmpDir, tmpStore } from '../../helpers/tmp';
import { launchBrowser } from '../../vscode/browser';

const SCREENSHOTS = join(__dirname, '..', '..', '..', 'test-results', 'screenshots');
let browser: Browser;
// made at the top level: their clean-up runs when the file's tests end, not when a hook does
const store = tmpStore();
const file = join(tmpDir(), 'x.html');
let forkRunId = '';

before(async () => {
  writeDemoStore(store);
  forkRunId = (await forkAuditor(store)).runId;
  store.flush();
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['view', REFUND, '--with-forks', '--out', file, '--store', store.path], {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    isTty: false,
    env: {},
    cwd: process.cwd(),
  });
  assert.equal(code, 0, err.join('\n'));
  assert.match(out.join('\n'), /wrote .*x\.html \(\d+ KiB\)/);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
});

/** Opens the file at `hash` with every request and console error recorded. */
async function open(hash = '', colorScheme: 'light' | 'dark' = 'dark') {
  const page: Page = await browser.newPage({ viewport: { width: 1100, height: 800 }, colorScheme });
  const requests: string[] = [];
  const errors: string[] = [];
  const url = `${pathToFileURL(file).href}${hash}`;
  page.on('request', (r) => {
    if (r.url() !== url && r.url() !== pathToFileURL(file).href) requests.push(r.url());
  });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.locator('body[data-ready="true"]').waitFor({ timeout: 20_000 });
  return { page, requests, errors };
}

test('the file opens with no network request and no console error, and draws the timeline', async () => {
  const { page, requests, errors } = await open();
  assert.deepEqual(requests, [], 'no request beyond the file itself');
  assert.deepEqual(errors, [], 'no console error or CSP violation');
  const drawn = await page.locator('canvas.tl-canvas').getAttribute('data-draw-ms');
  assert.ok(drawn !== null && Number(drawn) >= 0, 'the canvas was drawn');
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, 'timeline-file-dark.png') });
  await page.close();
});

test('a screen reader gets the run and the fork as "diverged at step 5", outside any script', async () => {
  const { page } = await open('', 'light');
  const tree = await page.locator('body').ariaSnapshot();
  assert.match(tree, new RegExp(`${REFUND}: run · completed · 48 checkpoints`));
  assert.match(tree, new RegExp(`${forkRunId}: fork of ${REFUND} at \\[\\d+\\] · diverged at step 5 · system prompt`));
  // the timeline's own text list says it too (its calls as buttons that move the cursor)
  assert.match(tree, /button "\[15\] step 2 · get_shipping_events · read_only · error/);
  await page.screenshot({ path: join(SCREENSHOTS, 'timeline-file-light.png') });
  await page.close();
});

test('#cp=37 lands on checkpoint [37]: its transcript line marked and in view, the timeline cursor there', async () => {
  const { page, errors } = await open('#cp=37');
  const line = page.locator('[id="cp=37"]');
  assert.match((await line.textContent()) ?? '', /^\[37\] /);
  assert.equal(await line.getAttribute('class'), 'current');
  assert.ok(await line.isVisible());
  const inView = await line.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  });
  assert.ok(inView, 'the line is scrolled into view');
  assert.equal(await page.locator('canvas.tl-canvas').getAttribute('data-position'), `${REFUND}:37`);
  // a click on a bar of the timeline moves the link and the mark
  await page.locator('button.tl-call', { hasText: /^\[15\] step 2 · get_shipping_events/ }).click();
  await page.waitForFunction(() => location.hash === '#cp=15');
  assert.equal(await page.locator('[id="cp=15"]').getAttribute('class'), 'current');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the keyboard alone: arrows move between calls and lanes, announced; Enter lands on the call', async () => {
  const { page, errors } = await open();
  const canvas = page.locator('canvas.tl-canvas');
  const live = page.locator('.tl-sr[aria-live="polite"]');
  await canvas.focus();
  await canvas.press('ArrowRight');
  await canvas.press('ArrowRight');
  const second = (await live.textContent()) ?? '';
  const at = /^(\S+) \[(\d+)\] step \d+ · /.exec(second);
  assert.ok(at && at[1] === REFUND, `the second call of the run is announced: ${second}`);
  await canvas.press('Enter');
  await page.waitForFunction((hash) => location.hash === hash, `#cp=${at[2]}`);
  assert.equal(await canvas.getAttribute('data-position'), `${REFUND}:${at[2]}`);
  // down to the next lane (a fork of the run): Enter lands on that fork's call
  await canvas.press('ArrowDown');
  const below = /^(\S+) \[(\d+)\] /.exec((await live.textContent()) ?? '');
  assert.ok(
    below && below[1] !== REFUND && (below[1] ?? '').startsWith(REFUND),
    `a fork's call is announced: ${below?.[0]}`,
  );
  await canvas.press('Enter');
  await page.waitForFunction((hash) => decodeURIComponent(location.hash) === hash, `#cp=${below[1]}:${below[2]}`);
  assert.deepEqual(errors, []);
  await page.close();
});
