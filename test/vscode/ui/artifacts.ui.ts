/**
 * Artifacts as a user meets them in the workbench: expand the demo refund run, find its case report under
 * Artifacts and open it with a click; then Compare with Parent on the auditor fork (its context menu) and read
 * the text diff of the changed case report. A screenshot per step.
 */
import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import type { UiTest } from './uiTest';
import { chooseMenuItem, row, runCommand, waitForRuns, widenSideBar } from './workbench';

const REFUND = 'demo-support-refund';
const AUDITOR = 'demo-support-refund-auditor';

/** Expands a collapsed tree row (a click on its twistie). */
async function expand(target: Locator): Promise<void> {
  if ((await target.getAttribute('aria-expanded')) === 'true') return;
  await target.locator('.monaco-tl-twistie').click();
  await target.page().waitForTimeout(300);
}

/** The editor tab whose label holds `title`. */
function tab(page: Page, title: string): Locator {
  // by the label a user reads: current VS Code's tab aria-label does not start with the title for a diff
  return page.locator('.tabs-container .tab').filter({ has: page.locator('.tab-label', { hasText: title }) });
}

/** The text of an editor's lines as read (Monaco draws spaces as no-break spaces). */
async function textOf(lines: Locator): Promise<string> {
  return ((await lines.textContent()) ?? '').replace(/\s+/g, ' ');
}

/** Waits until an editor's lines hold `text`, however the editor wraps it (whitespace ignored). */
async function waitForText(lines: Locator, text: string, timeoutMs = 15_000): Promise<void> {
  const want = text.replace(/\s+/g, '');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const have = ((await lines.textContent().catch(() => '')) ?? '').replace(/\s+/g, '');
    if (have.includes(want)) return;
    if (Date.now() > deadline) throw new Error(`the editor never showed "${text}" (it shows "${have.slice(0, 300)}")`);
    await lines.page().waitForTimeout(250);
  }
}

export const tests: UiTest[] = [
  {
    name: 'the refund run lists its case report under Artifacts; a click opens the report',
    async run({ page, screenshot }) {
      const pane = await waitForRuns(page, [REFUND]);
      await widenSideBar(page);
      await expand(row(pane, REFUND).first());
      const artifacts = row(pane, 'Artifacts').first();
      await artifacts.waitFor({ timeout: 15_000 });
      await expand(artifacts);
      const report = row(pane, 'case-report.md').first();
      await report.waitFor({ timeout: 15_000 });
      assert.match((await report.textContent()) ?? '', /text\/markdown · \d+ B/);
      await report.click();
      await tab(page, 'case-report.md').first().waitFor({ timeout: 15_000 });
      const text = page.locator('.editor-instance .view-lines').first();
      await text.filter({ hasText: 'Case report CR-2026-1104' }).waitFor({ timeout: 15_000 });
      assert.match(await textOf(text), /acting as support_agent/);
      // read-only: typing into it changes nothing
      await text.click();
      await page.keyboard.type('typed');
      await page.waitForTimeout(300);
      assert.doesNotMatch(await textOf(text), /typed/, 'the artifact cannot be edited');
      await screenshot('artifacts-01-tree-and-report');
    },
  },
  {
    name: 'Compare with Parent on the auditor fork opens the text diff of the changed case report',
    async run({ page, screenshot }) {
      const pane = await waitForRuns(page, [REFUND]);
      const fork = row(pane, AUDITOR).first();
      await fork.waitFor({ timeout: 15_000 });
      await fork.click({ button: 'right' });
      await chooseMenuItem(page, 'Compare with Parent');
      const reportDiff = tab(page, `case-report.md: ${REFUND} ↔ ${AUDITOR}`).first();
      // the diffs of two whole transcripts take long on a loaded machine: wait for each editor as long as it takes
      await reportDiff.waitFor({ timeout: 120_000 });
      // the command brings the runs' diff back to the front and opens the summary last: only then is it done,
      // and a click on the report's tab stays where it was put
      await tab(page, `${REFUND} ↔ ${AUDITOR}.md`).first().waitFor({ timeout: 120_000 });
      await reportDiff.click();
      // room for the two sides next to each other: the summary beside goes
      await runCommand(page, 'View: Close Editors in Other Groups');
      // side by side or inline (a narrow editor): the diff shows the parent's report and the fork's
      const diff = page.locator('.editor-group-container.active .monaco-diff-editor').first();
      await waitForText(diff, 'acting as auditor');
      await waitForText(diff, 'No refund issued: the auditor role has no refunds:issue permission');
      await waitForText(diff, 'acting as support_agent');
      await waitForText(diff, 'Refund RF-88213 issued');
      await page.mouse.move(900, 700); // away from the tab, whose hover would cover the diff
      await page.waitForTimeout(500);
      await screenshot('artifacts-02-compare-report');
    },
  },
];
