/**
 * A run growing on an open Timeline as it is recorded: an agent records through the SDK (this test's own process, as
 * a separate program writes into the workspace's store); Show Timeline from the palette picks the running run, and
 * without a reload the page shows each step the agent commits — a tool call while it runs, then finished, then the
 * run's end — in its text (what a screen reader reads) and on its canvas, each applied as what the agent added (a
 * delta), not the run again. Screenshots at a 300 px side bar.
 */
import * as assert from 'node:assert/strict';
import { openRecorder, type Recorder, type RunRecorder } from '../../../src/recorder';
import { openRunStore, type RunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { barPoint, theme, timelineFrame, waitForRunText } from './timelinePage';
import type { UiTest } from './uiTest';
import { runCommand, waitForRuns, widenSideBar } from './workbench';

const LIVE = 'timeline-live-run';

let store: RunStore | undefined;
let recorder: Recorder | undefined;
let run: RunRecorder | undefined;
let lookup = '';
// a step that failed leaves the run open: close the store all the same (the run then shows as crashed)
process.on('exit', () => {
  recorder?.close();
  store?.close();
});

function recording(): RunRecorder {
  assert.ok(run, 'the run is being recorded');
  return run;
}

/** What the agent's turn wrote is committed now (the SDK commits a turn when it ends). */
function commit(): void {
  store?.flush();
}

/** A turn of the agent: a model call answering with tokens. */
function modelTurn(inputTokens: number, outputTokens: number): void {
  const r = recording();
  r.checkpoint('before_model_call', {});
  r.checkpoint('after_model_call', { usage: { inputTokens, outputTokens } });
}

export const tests: UiTest[] = [
  {
    name: 'Show Timeline from the palette on a run being recorded: its first turn, running',
    async run({ page, store: storePath, screenshot }) {
      store = openRunStore(storePath, { create: false });
      recorder = openRecorder({ runStore: store, fork: false });
      run = recorder.startRun({ agentId: 'timeline-live-agent', runId: LIVE, runtimeContext: testContext() });
      run.checkpoint('before_prompt_build', {});
      modelTurn(812, 34);
      commit();
      await waitForRuns(page, [LIVE]);
      await widenSideBar(page, 300);
      // the palette asks which run (no transcript is open and no replay is paused)
      await runCommand(page, 'Agent Time Travel: Show Timeline');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.fill(LIVE);
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: LIVE }).first().waitFor();
      await page.keyboard.press('Enter');
      const frame = await timelineFrame(page);
      await waitForRunText(frame, LIVE, /: run · running · 3 checkpoints · 1 step · 812 in \/ 34 out tokens/);
      // the page is marked: a reload would lose the mark
      await frame.evaluate(() => ((window as unknown as { stillTheSamePage?: boolean }).stillTheSamePage = true));
      await page.mouse.move(5, 300);
      await screenshot(`timeline-live-01-first-turn-${await theme(page)}`);
    },
  },
  {
    name: 'it grows as the agent records: a tool call running, then done, then the run completed — never reloaded',
    async run({ page, screenshot }) {
      const frame = await timelineFrame(page);
      lookup = recording().beginTool('lookup_order', { orderId: 'A-1' }, { sideEffectLevel: 'read_only' });
      commit();
      const running = frame.locator(`.tl-run[data-run="${LIVE}"] button.tl-call`, { hasText: 'lookup_order' });
      await running.first().waitFor({ timeout: 30_000 });
      assert.match((await running.first().textContent()) ?? '', /\[3\] step 0 · lookup_order · read_only · running/);
      await waitForRunText(frame, LIVE, /running · 4 checkpoints/);
      assert.ok(await barPoint(frame, LIVE, 3), 'the running call is drawn on the canvas');
      await page.mouse.move(5, 300);
      await screenshot('timeline-live-02-tool-running');

      recording().finishTool(lookup, 'success', { status: 'shipped' });
      modelTurn(905, 41);
      commit();
      await waitForRunText(frame, LIVE, /running · 7 checkpoints · 2 steps · 1717 in \/ 75 out tokens/);
      assert.doesNotMatch((await running.first().textContent()) ?? '', /running/, 'the call has finished');
      assert.ok(await barPoint(frame, LIVE, 5), "the second turn's model call is drawn");

      recording().end();
      commit();
      await waitForRunText(frame, LIVE, /: run · completed · 8 checkpoints/);
      const same = await frame.evaluate(() => (window as unknown as { stillTheSamePage?: boolean }).stillTheSamePage);
      assert.equal(same, true, 'the page grew in place, without a reload');
      // what the host sent was what the agent added, not the run again
      const deltas = await frame.evaluate(() => Number(document.body.dataset.deltas ?? 0));
      assert.ok(deltas >= 2, `the page applied the run's growth as deltas (${deltas})`);
      await page.mouse.move(5, 300);
      await screenshot(`timeline-live-03-completed-${await theme(page)}`);
    },
  },
];
