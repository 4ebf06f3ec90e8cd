/**
 * Artifacts as a user meets them in the workbench: expand the demo refund run, find its case report under
 * Artifacts and open it with a click; then Compare with Parent on the auditor fork (its context menu) and read
 * the text diff of the changed case report. A screenshot per step.
 */
import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import type { UiTest } from './uiTest';
import { row, waitForRuns, widenSideBar } from './workbench';

const REFUND = 'demo-support-refund';
const AUDITOR = 'demo-support-refund-auditor';

/** Expands a collapsed tree row (a click on its twistie). */
async function expand(target: Locator): Promise<void> {
  if ((await target.getAttribute('aria-expanded')) === 'true') return;
  await target.locator('.monaco-tl-twistie').click();
  await target.page().waitForTimeout(300);
}

/** The editor tab whose label starts with `title`. */
function tab(page: Page, title: string): Locator {
  return page.locator(`.tabs-container .tab[aria-label^="${title.replace(/"/g, '\\"')}"]`);
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
      assert.match((await text.textContent()) ?? '', /acting as support_agent/);
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
      await page.locator('.monaco-menu .action-label', { hasText: 'Compare with Parent' }).first().click();
      const reportDiff = tab(page, `case-report.md: ${REFUND} ↔ ${AUDITOR}`).first();
      await reportDiff.waitFor({ timeout: 30_000 });
      await reportDiff.click();
      const modified = page.locator('.monaco-diff-editor .editor.modified .view-lines').first();
      await modified.filter({ hasText: 'acting as auditor' }).waitFor({ timeout: 15_000 });
      const original = page.locator('.monaco-diff-editor .editor.original .view-lines').first();
      assert.match((await original.textContent()) ?? '', /acting as support_agent/);
      assert.match((await modified.textContent()) ?? '', /No refund issued/);
      await screenshot('artifacts-02-compare-report');
    },
  },
];
