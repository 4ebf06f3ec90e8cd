/**
 * A newcomer's first steps at VS Code's default 300 px side bar, in the dark theme and then the light one: the
 * demo runs, a paused replay with its transcript (what the user typed on its own line), Context & Fork at a
 * checkpoint with one title per section, and the palette offering no picker that does nothing. A screenshot per
 * step and theme.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { theme as themeOf, workbenchPainted } from './timelinePage';
import type { UiTest } from './uiTest';
import {
  clickInlineAction,
  debugToolbarButton,
  openAgentRuns,
  row,
  runCommand,
  waitForRuns,
  webviewContent,
  widenSideBar,
} from './workbench';

const REFUND = 'demo-support-refund';

/**
 * Switches the workbench to `want` (toggling only when it is in the other theme) and waits until it has painted in
 * it, so a screenshot named for a theme shows that theme.
 */
async function useTheme(page: Page, want: 'dark' | 'light'): Promise<void> {
  if ((await themeOf(page)) !== want) await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
  await workbenchPainted(page, want === 'light');
}

async function lookAround(page: Page, theme: string, screenshot: (name: string) => Promise<string>): Promise<void> {
  await openAgentRuns(page);
  await widenSideBar(page, 300);
  await page.mouse.move(700, 10);
  await screenshot(`70-walk-${theme}-replay`);
  // Context & Fork: the context's model fields and how the fork calls the model are two sections, two titles
  const editor = webviewContent(page);
  await editor.locator('.title', { hasText: REFUND }).waitFor({ timeout: 30_000 });
  const titles = await editor.locator('.section-title').allInnerTexts();
  assert.equal(new Set(titles).size, titles.length, `one title per section: ${titles.join(' | ')}`);
  assert.ok(titles.includes('Model calls') && titles.includes('Model in the context'), titles.join(' | '));
  await editor.locator('[data-section="model"]').first().scrollIntoViewIfNeeded();
  await page.mouse.move(700, 10);
  await screenshot(`71-walk-${theme}-fork-editor`);
}

export const tests: UiTest[] = [
  {
    name: 'a paused replay: its transcript shows the user request on the prompt line, not again at the model call',
    async run({ page, screenshot }) {
      const pane = await waitForRuns(page, [REFUND, 'demo-coding-fix']);
      await widenSideBar(page, 300);
      await clickInlineAction(row(pane, REFUND).first(), 'Replay Run');
      await debugToolbarButton(page, 'Step Over').waitFor({ timeout: 30_000 });
      // the transcript opens at the paused checkpoint once the replay has stopped (Monaco writes spaces as U+00A0)
      const request = /user:[\s\u00a0]Hi,[\s\u00a0]my[\s\u00a0]order[\s\u00a0]A-10442/;
      await page.locator('.monaco-editor .view-line', { hasText: request }).first().waitFor({ timeout: 30_000 });
      const lines = await page.locator('.monaco-editor .view-line').allInnerTexts();
      const said = lines.filter((l) => request.test(l));
      assert.equal(said.length, 1, `the request once: ${said.join(' | ')}`);
      await page.keyboard.press('F10');
      await useTheme(page, 'dark');
      await lookAround(page, 'dark', screenshot);
    },
  },
  {
    name: 'the palette offers no Pick Run (a launch configuration picker that would do nothing)',
    async run({ page }) {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ timeout: 10_000 });
      await input.fill('>Agent Time Travel: Pick');
      // the palette lists what matches once it has filtered: wait for the rows to settle on the typed text
      await page
        .locator('.quick-input-widget .monaco-list-row', { hasText: 'Pick' })
        .first()
        .waitFor({
          state: 'attached',
          timeout: 5_000,
        })
        .catch(() => undefined);
      const rows = await page.locator('.quick-input-widget .monaco-list-row').allInnerTexts();
      assert.ok(!rows.some((r) => /Pick (Run|Agent)\b/.test(r)), `palette rows: ${rows.join(' | ')}`);
      await page.keyboard.press('Escape');
    },
  },
  {
    name: 'the same steps in the light theme',
    async run({ page, screenshot }) {
      await useTheme(page, 'light');
      await lookAround(page, 'light', screenshot);
    },
  },
];
