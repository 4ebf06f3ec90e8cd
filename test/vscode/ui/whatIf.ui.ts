/**
 * What-if across runs as a user meets it: a generated support-desk cohort in the workspace's store, What-if
 * Across Runs… from a run's context menu in Agent Runs (every run of its agent, the auditor patch typed in, `*`
 * answered from the recording, the assertion that no refund is issued), the cohort view with its rates, the
 * certificate and the table; Failures only narrows it to the runs that still refund; a click on one opens that
 * run's comparison with its fork. A screenshot per step.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator, Page } from 'playwright-core';
import { writeSupportCohort } from '../../../src/demo/supportCohort';
import { openRunStore } from '../../../src/store';
import type { UiTest } from './uiTest';
import { chooseMenuItem, row, waitForRuns } from './workbench';

const COHORT = 20;

/** The quick input once its title starts with `title`: its input box. */
async function quickInput(page: Page, title: string) {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ timeout: 15_000 });
  return page.locator('.quick-input-widget .quick-input-box input');
}

/** Picks the row whose label holds `label` in the quick pick titled `title`. */
async function pick(page: Page, title: string, label: string): Promise<void> {
  const input = await quickInput(page, title);
  await input.fill(label);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first().waitFor();
  await page.keyboard.press('Enter');
}

/** Accepts the input box titled `title` as it is prefilled. */
async function accept(page: Page, title: string): Promise<void> {
  await quickInput(page, title);
  await page.keyboard.press('Enter');
}

/** The cohort view's page: the webview in the editor area (the Context & Fork view may be open beside). */
function cohortPage(page: Page): FrameLocator {
  return page
    .locator('.editor-group-container iframe.webview.ready, .part.editor iframe.webview.ready')
    .first()
    .contentFrame()
    .frameLocator('iframe#active-frame');
}

export const tests: UiTest[] = [
  {
    name: 'What-if Across Runs… on a run of the support agent asks for the cohort, the change and the assertion',
    async run({ page, store }) {
      const s = openRunStore(store);
      try {
        writeSupportCohort(s, COHORT);
      } finally {
        s.close();
      }
      // the newest run of the cohort heads the tree (the list is drawn as it scrolls: the demo's are further down)
      const newest = `cohort-support-${String(COHORT - 1).padStart(4, '0')}`;
      const pane = await waitForRuns(page, [newest]);
      await row(pane, newest).first().click({ button: 'right' });
      await chooseMenuItem(page, 'What-if Across Runs…');
      await pick(page, 'What-if: which runs?', 'Every run of support-desk');
      await pick(page, 'What-if: the change to the runtime context', 'Type a patch');
      await accept(page, 'What-if: context patch (JSON)');
      await pick(page, 'What-if: the policy of every tool', 'reuse_result');
      await pick(page, 'What-if: model turns', 'captured');
      await accept(page, 'What-if: fork each run at');
      await accept(page, 'What-if: assertion');
    },
  },
  {
    // a step of its own: the batch runs now (a few seconds a run on a loaded machine)
    name: 'the cohort view opens with the rates, the certificate and a row per run',
    async run({ page, screenshot }) {
      const view = cohortPage(page);
      await view.locator('.count', { hasText: `of ${COHORT + 2} runs` }).waitFor({ timeout: 180_000 });
      await view.locator('.body .row.o-diverged').first().waitFor({ timeout: 15_000 });
      const certificate = (await view.locator('.certificate').textContent()) ?? '';
      assert.match(certificate, /0 executed .*no write or external_irreversible tool ran/);
      const chips = (await view.locator('.rates').textContent()) ?? '';
      assert.match(chips, new RegExp(`runs${COHORT + 2}`));
      assert.match(chips, /no_refund\d+% pass \(recorded \d+%\)/);
      await screenshot('whatif-01-cohort-view');
    },
  },
  {
    name: 'Failures only lists the runs that still refund; a click opens that run’s comparison with its fork',
    async run({ page, screenshot }) {
      const view = cohortPage(page);
      await view.locator('label.failed-only input').check();
      const first = view.locator('.body .row').first();
      await first.locator('.c-assert', { hasText: '✗ no_refund' }).waitFor({ timeout: 10_000 });
      const shown = (await view.locator('.count').textContent()) ?? '';
      const failing = Number(/^(\d+) of/.exec(shown)?.[1] ?? '0');
      assert.ok(failing > 0 && failing < COHORT, shown);
      await screenshot('whatif-02-failures-only');
      const runId = ((await first.locator('.c-run').textContent()) ?? '').trim();
      await first.click();
      await page
        .locator(`.tabs-container .tab[aria-label^="${runId} ↔ ${runId}-fork-"]`)
        .first()
        .waitFor({ timeout: 30_000 });
      await page.waitForTimeout(500);
      await screenshot('whatif-03-comparison');
    },
  },
];
