/**
 * The cohort view as a user meets it on the demo: What-if Across Runs… from the palette, the support-desk agent, the
 * auditor patch typed as offered, every tool answered from the recording, captured turns, forked at each run's first
 * checkpoint, the offered no_refund assertion — and the results open in the cohort view: the rates, the gate's clean
 * certificate, a row per run ("diverged at step 0"). Screenshots at a 300 px side bar, dark and light.
 */
import type { Frame, Page } from 'playwright-core';
import type { UiTest } from './uiTest';
import { openAgentRuns, runCommand, widenSideBar } from './workbench';

/** The cohort view's page: the webview frame whose table has its rows (VS Code nests it two iframes deep). */
async function cohortFrame(page: Page, timeoutMs = 120_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (
        await frame
          .locator('.certificate.clean')
          .count()
          .catch(() => 0)
      )
        return frame;
    }
    await page.waitForTimeout(250);
  }
  throw new Error('the cohort view did not show the batch with a clean certificate');
}

/** Answers the open quick input: picks the row holding `text` (a pick) or accepts the offered value (a box). */
async function answer(page: Page, text?: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  await widget.waitFor({ state: 'visible' });
  if (text !== undefined) {
    await widget.locator('.monaco-list-row', { hasText: text }).first().click();
  } else {
    await widget.locator('.quick-input-box input').focus();
    await page.keyboard.press('Enter');
  }
}

/** Waits until the quick input's title holds `title`. */
async function waitForTitle(page: Page, title: string): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).first().waitFor();
}

async function theme(page: Page): Promise<'dark' | 'light'> {
  return (await page.locator('.monaco-workbench.vs-dark, .monaco-workbench.hc-black').count()) > 0 ? 'dark' : 'light';
}

export const tests: UiTest[] = [
  {
    name: 'What-if Across Runs… over the support desk opens the cohort view: rates, a clean certificate, its runs',
    async run({ page }) {
      await openAgentRuns(page);
      await widenSideBar(page, 300);
      await runCommand(page, 'What-if Across Runs…');
      await waitForTitle(page, 'What-if across the runs of which agent?');
      await answer(page, 'support-desk');
      await waitForTitle(page, 'the change to the runtime context');
      await answer(page, 'Type a patch…');
      await waitForTitle(page, 'context patch (JSON)');
      await answer(page);
      await waitForTitle(page, "the policy of every tool ('*'");
      await answer(page, 'reuse_result');
      await waitForTitle(page, 'model turns');
      await answer(page, 'captured');
      await waitForTitle(page, 'fork each run at');
      await answer(page);
      await waitForTitle(page, 'assertion over each fork');
      await answer(page);
      await cohortFrame(page);
    },
  },
  {
    // a step of its own: the batch above takes most of a step's time budget on a loaded machine
    name: "the cohort view's refund row is diverged at step 0 and the certificate is clean",
    async run({ page, screenshot }) {
      const frame = await cohortFrame(page);
      // the refund run's row: diverged at step 0 (the role is in its system prompt from the start)
      const refund = frame.locator('.row', { hasText: 'demo-support-refund' }).first();
      await refund.waitFor();
      const cells = (await refund.locator('.cell').allInnerTexts()).map((t) => t.trim());
      if (cells[1] !== 'diverged' || cells[2] !== '0')
        throw new Error(`the refund run's row reads ${cells.join(' | ')}`);
      const certificate = await frame.locator('.certificate.clean').innerText();
      if (!/no write or external_irreversible tool ran/.test(certificate))
        throw new Error(`the certificate says: ${certificate}`);
      await page.mouse.move(5, 300);
      await screenshot(`cohort-01-results-${await theme(page)}`);
    },
  },
  {
    name: 'the cohort view in the other theme (light / dark)',
    async run({ page, screenshot }) {
      const before = await theme(page);
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
      const deadline = Date.now() + 15_000;
      while ((await theme(page)) === before) {
        if (Date.now() > deadline) throw new Error('the theme did not change');
        await page.waitForTimeout(100);
      }
      const frame = await cohortFrame(page);
      await frame.locator('.row', { hasText: 'demo-support-refund' }).first().waitFor();
      await page.mouse.move(5, 300);
      await screenshot(`cohort-02-results-${await theme(page)}`);
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
    },
  },
];
