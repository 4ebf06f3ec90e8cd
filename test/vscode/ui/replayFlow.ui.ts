/**
 * The user's path through the extension, in the workbench: open Agent Runs and see the demo runs; replay one from
 * its tree item; step with F10 and back with the toolbar; read the checkpoints in the Call Stack; hover a tool call
 * in the transcript; edit the runtime context and fork; find the fork in the tree. A screenshot per step.
 */
import * as assert from 'node:assert/strict';
import type { UiTest } from './uiTest';
import { waitForRuns } from './workbench';

const REFUND = 'demo-support-refund';

export const tests: UiTest[] = [
  {
    name: 'the Agent Runs view lists the demo runs',
    async run({ page, screenshot }) {
      const pane = await waitForRuns(page, [REFUND, 'demo-research-rag', 'demo-coding-fix']);
      const labels = await pane.locator('.monaco-list-row').allTextContents();
      assert.ok(
        labels.some((l) => l.includes('crashed')),
        `a crashed run is visibly crashed: ${labels.join(' | ')}`,
      );
      await screenshot('01-runs-tree');
    },
  },
];
