/**
 * A first-time user: a workspace with no run store. The Runs view explains what to do and offers Run Demo; running it
 * fills the tree with the demo runs.
 */
import * as assert from 'node:assert/strict';
import type { UiTest, UiWorkspace } from './uiTest';
import { openAgentRuns, viewPane, waitForRuns, widenSideBar } from './workbench';

export const workspace: UiWorkspace = 'empty';

export const tests: UiTest[] = [
  {
    name: 'with no store the Runs view welcomes the user with Run Demo and Import Run',
    async run({ page, screenshot }) {
      await openAgentRuns(page);
      await widenSideBar(page, 300); // VS Code's default side bar width
      const pane = viewPane(page, 'Runs');
      const welcome = pane.locator('.welcome-view-content');
      await welcome
        .getByText(/demo runs/)
        .first()
        .waitFor({ timeout: 30_000 });
      const buttons = await welcome.locator('.monaco-button').allInnerTexts();
      assert.match(buttons[0] ?? '', /Run Demo/, `Run Demo comes first: ${buttons.join(' | ')}`);
      assert.ok(
        buttons.some((b) => b.includes('Import Run')),
        `welcome buttons: ${buttons.join(' | ')}`,
      );
      const text = await welcome.innerText();
      assert.match(text, /\.ocdb\/runs\.db/, `the welcome says where the demo store goes: ${text}`);
      assert.doesNotMatch(text, /`/, `no literal backticks: ${text}`);
      // the empty editor below keeps to a third of the side bar
      const runs = await pane.boundingBox();
      const editor = await viewPane(page, 'Context & Fork').boundingBox();
      assert.ok(runs && editor && editor.height < runs.height, `editor ${editor?.height} px, runs ${runs?.height} px`);
      await page.mouse.move(700, 10);
      await screenshot('00-empty-store-welcome');
    },
  },
  {
    name: 'Run Demo writes the demo runs and the tree lists them',
    async run({ page, screenshot }) {
      const pane = viewPane(page, 'Runs');
      await pane.locator('.welcome-view-content .monaco-button', { hasText: 'Run Demo' }).click();
      await waitForRuns(page, [
        'demo-support-refund',
        'demo-support-escalation',
        'demo-research-rag',
        'demo-research-crashed',
        'demo-coding-fix',
        'demo-coding-cancelled',
      ]);
      await page.locator('.notification-toast', { hasText: 'Wrote 7 demo runs' }).first().waitFor({ timeout: 10_000 });
      await page.mouse.move(700, 10);
      await screenshot('00-run-demo');
    },
  },
];
