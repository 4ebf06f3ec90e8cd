/**
 * Stepping with the Runs tree in view: the tree follows the replay's position and opens the step it is in; the step
 * it leaves folds again, so after stepping through three ReAct steps one step is open, not every step passed.
 * A steps' screenshot at the default side-bar width (300 px).
 */
import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import type { UiTest } from './uiTest';
import {
  clickInlineAction,
  debugToolbarButton,
  openAgentRuns,
  row,
  viewPane,
  waitForRuns,
  widenSideBar,
} from './workbench';

const REFUND = 'demo-support-refund';

/** The replay position the status bar shows: `[n] step k · boundary`. */
async function position(page: Page): Promise<string> {
  const item = page.locator('.statusbar-item', { hasText: /\[\d+\] step -?\d+ · / }).first();
  await item.waitFor({ timeout: 30_000 });
  return item.innerText();
}

/** The expanded state of the step rows of the replayed run, by label ("Step 0" → "true"). */
async function stepRows(pane: Locator): Promise<Map<string, string>> {
  const rows = await pane
    .locator('.monaco-list-row')
    .evaluateAll((list) =>
      list.map((r) => [r.getAttribute('aria-label') ?? '', r.getAttribute('aria-expanded') ?? ''] as const),
    );
  return new Map(
    rows
      .filter(([label]) => /^Step \d+/.test(label))
      .map(([label, open]) => [/^Step \d+/.exec(label)?.[0] ?? '', open]),
  );
}

export const tests: UiTest[] = [
  {
    name: 'stepping with the tree in view opens the current step and folds the steps passed',
    async run({ page, screenshot }) {
      const pane = await waitForRuns(page, [REFUND]);
      await widenSideBar(page, 300);
      await clickInlineAction(row(pane, REFUND).first(), 'Replay Run');
      await debugToolbarButton(page, 'Step Over').waitFor({ timeout: 30_000 });
      await openAgentRuns(page);
      const runs = viewPane(page, 'Runs');
      let at = await position(page);
      for (let i = 0; i < 40 && !/ step 2 · /.test(at); i++) {
        await debugToolbarButton(page, 'Step Over').click();
        const before = at;
        const deadline = Date.now() + 15_000;
        while ((at = await position(page)) === before) {
          if (Date.now() > deadline) throw new Error(`Step Over did not move from ${before}`);
          await page.waitForTimeout(100);
        }
      }
      assert.match(at, / step 2 · /, `the replay reached step 2: ${at}`);
      const deadline = Date.now() + 15_000;
      let steps = await stepRows(runs);
      while (!(steps.get('Step 2') === 'true' && steps.get('Step 0') === 'false' && steps.get('Step 1') === 'false')) {
        if (Date.now() > deadline) {
          throw new Error(`the tree should show Step 2 open and Steps 0, 1 folded: ${JSON.stringify([...steps])}`);
        }
        await page.waitForTimeout(200);
        steps = await stepRows(runs);
      }
      const open = [...steps].filter(([, o]) => o === 'true').map(([label]) => label);
      assert.deepEqual(open, ['Step 2'], 'one step open: the one the replay is in');
      await screenshot('step-follow-300px');
    },
  },
];
