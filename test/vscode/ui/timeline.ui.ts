/**
 * The Timeline as a user meets it on the demo, after the captured fork "what if the user had been an auditor?" of
 * demo-support-refund: Show Timeline from the run's context menu opens the panel beside the editor, with the run,
 * its failed call, and the fork branching at its fork point, "diverged at step 5"; a replay paused on the run
 * follows a click on a bar (the Call Stack moves there) and F10 moves the timeline's cursor; the Call Stack's context
 * menu opens it again at the paused checkpoint. Screenshots at a 300 px side bar with the Timeline in an editor
 * column, dark and light.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openRunStore } from '../../../src/store';
import { REFUND, forkAuditor } from '../../helpers/auditorFork';
import {
  canvasOffset,
  isLight,
  sizeTimelineGroup,
  theme,
  workbenchPainted,
  timelineFrame,
  waitForCanvasWidth,
  waitForCursor,
} from './timelinePage';
import type { UiTest } from './uiTest';
import {
  callStackFrames,
  chooseMenuItem,
  clickInlineAction,
  collapseRow,
  debugToolbarButton,
  expandRow,
  row,
  runCommand,
  viewPane,
  waitForRuns,
  widenSideBar,
} from './workbench';

let forkRunId = '';

async function waitForTopFrame(page: Page, pattern: RegExp): Promise<string[]> {
  const deadline = Date.now() + 20_000;
  let frames: string[] = [];
  while (Date.now() < deadline) {
    frames = await callStackFrames(page).catch(() => []);
    if (pattern.test(frames[0] ?? '')) return frames;
    await page.waitForTimeout(100);
  }
  throw new Error(`the top frame should match ${String(pattern)}; Call Stack: ${frames.join(' | ')}`);
}

export const tests: UiTest[] = [
  {
    name: 'a captured fork of the refund run as an auditor shows in the tree, diverged',
    async run({ page, store }) {
      const s = openRunStore(store);
      try {
        forkRunId = (await forkAuditor(s)).runId;
      } finally {
        s.close();
      }
      const pane = await waitForRuns(page, [REFUND]);
      await widenSideBar(page, 300);
      // forks sit under their parent
      await expandRow(row(pane, REFUND).first(), row(pane, forkRunId));
      assert.match((await row(pane, forkRunId).first().innerText()).replace(/\s+/g, ' '), /diverged at step 5/);
      await collapseRow(row(pane, REFUND).first());
    },
  },
  {
    name: 'Show Timeline on the run opens the panel: the run, its failed call, the fork branching "diverged at step 5"',
    async run({ page, screenshot }) {
      const pane = await waitForRuns(page, [REFUND]);
      await row(pane, REFUND).first().click({ button: 'right' });
      await chooseMenuItem(page, 'Show Timeline');
      const frame = await timelineFrame(page);
      await page
        .locator('.tab', { hasText: `Timeline: ${REFUND}` })
        .first()
        .waitFor();
      // what a screen reader gets: the runs as text, the fork with its branch point and status
      const root = frame.locator(`.tl-run[data-run="${REFUND}"] > .tl-run-text`);
      assert.match((await root.textContent()) ?? '', /completed · 48 checkpoints · 9 steps/);
      const fork = (await frame.locator(`.tl-run[data-run="${forkRunId}"] > .tl-run-text`).textContent()) ?? '';
      assert.match(fork, new RegExp(`fork of ${REFUND} at \\[29\\] · diverged at step 5 · system prompt`), fork);
      const failed = frame.locator(`.tl-run[data-run="${REFUND}"] button.tl-call`, { hasText: /error/ });
      assert.match(
        (await failed.first().textContent()) ?? '',
        /\[15\] step 2 · get_shipping_events · read_only · error/,
      );
      const irreversible = frame.locator(`.tl-run[data-run="${REFUND}"] button.tl-call`, {
        hasText: 'external_irreversible',
      });
      assert.equal(await irreversible.count(), 2, 'issue_refund and send_email');
      // the fork's lane leaves the run's at its fork point ([29]) on the canvas
      const branch = await frame.evaluate(
        ([parent, child]) => {
          const view = (window as unknown as { timeline: { barPoint(r: string, cp: number): { x: number } } }).timeline;
          return { at: view.barPoint(parent, 30)?.x, fork: view.barPoint(child, 1)?.x };
        },
        [REFUND, forkRunId] as const,
      );
      assert.ok(branch.at !== undefined && branch.fork !== undefined, JSON.stringify(branch));
      assert.ok(
        Math.abs(branch.fork - branch.at) < 60,
        `the fork's first call is drawn by [30]: ${JSON.stringify(branch)}`,
      );
      await page.mouse.move(5, 300);
      await screenshot(`timeline-01-panel-${await theme(page)}`);
    },
  },
  {
    name: 'clicking a bar moves the paused replay there, and F10 moves the cursor on the timeline',
    async run({ page, screenshot }) {
      const pane = await waitForRuns(page, [REFUND]);
      await clickInlineAction(row(pane, REFUND).first(), 'Replay Run');
      await debugToolbarButton(page, 'Step Over').waitFor({ timeout: 30_000 });
      await waitForTopFrame(page, /step 0 · before_prompt_build/);
      // the replay's transcript took the editor: its title bar's Show Timeline brings the panel back beside it
      await page.locator('.editor-actions .action-label[aria-label="Show Timeline"]').first().click();
      const frame = await timelineFrame(page);
      await waitForCursor(frame, `${REFUND}:0`);
      // click the failed get_shipping_events bar ([15]) where it is drawn
      const point = await frame.evaluate(
        (run) =>
          (window as unknown as { timeline: { barPoint(r: string, cp: number): unknown } }).timeline.barPoint(run, 15),
        REFUND,
      );
      assert.ok(point, 'the bar of [15] is in view');
      const { x, y } = point as { x: number; y: number };
      await frame.locator('canvas.tl-canvas').click({ position: await canvasOffset(frame, x, y) });
      await waitForTopFrame(page, /step 2 · before_tool_call · get_shipping_events/);
      await waitForCursor(frame, `${REFUND}:15`);
      await screenshot('timeline-02-clicked-bar');
      // F10 from the timeline: the replay steps and the cursor follows
      await page.keyboard.press('F10');
      await waitForTopFrame(page, /step 2 · after_tool_call · get_shipping_events/);
      await waitForCursor(frame, `${REFUND}:16`);
      await page.mouse.move(5, 300);
      await screenshot(`timeline-03-stepped-${await theme(page)}`);
    },
  },
  {
    name: "the Call Stack's context menu on the paused frame opens the Timeline at the replay's run and checkpoint",
    async run({ page, screenshot }) {
      // the Timeline closed: the Call Stack brings it back, with the cursor where the replay is paused ([16])
      const tab = page.locator('.tab', { hasText: `Timeline: ${REFUND}` }).first();
      await tab.locator('.tab-actions .action-label').click();
      await tab.waitFor({ state: 'detached', timeout: 15_000 });
      await waitForTopFrame(page, /step 2 · after_tool_call · get_shipping_events/);
      const top = viewPane(page, 'Call Stack').locator('.monaco-list-row .stack-frame').first();
      await top.click({ button: 'right' });
      await chooseMenuItem(page, 'Show Timeline');
      await page
        .locator('.tab', { hasText: `Timeline: ${REFUND}` })
        .first()
        .waitFor({ timeout: 30_000 });
      const frame = await timelineFrame(page);
      await waitForCursor(frame, `${REFUND}:16`);
      // and it still follows the replay: Step Back moves its cursor back to [15]
      await debugToolbarButton(page, 'Step Back').click();
      await waitForTopFrame(page, /step 2 · before_tool_call · get_shipping_events/);
      await waitForCursor(frame, `${REFUND}:15`);
      await page.mouse.move(5, 300);
      await screenshot('timeline-03b-from-call-stack');
    },
  },
  {
    name: 'the Timeline in the other theme (light / dark)',
    async run({ page, screenshot }) {
      const frame = await timelineFrame(page);
      // the canvas is drawn again in the theme's colours (it says which background it drew for)
      const canvas = frame.locator('canvas.tl-canvas');
      const before = (await canvas.getAttribute('data-background')) ?? '';
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
      const deadline = Date.now() + 15_000;
      let background = before;
      while (isLight(background) === isLight(before)) {
        if (Date.now() > deadline) throw new Error(`the timeline was not redrawn for the new theme: ${background}`);
        await page.waitForTimeout(100);
        background = (await canvas.getAttribute('data-background')) ?? '';
      }
      await workbenchPainted(page, isLight(background));
      await page.mouse.move(5, 300);
      await screenshot(`timeline-04-stepped-${await theme(page)}`);
      // back to the first theme, and painted so, before the next step (and the next flow: the setting is the user's)
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
      await workbenchPainted(page, isLight(before));
    },
  },
  {
    name: 'the Timeline in a 300 px editor column: the controls, the run and its fork stay readable and reachable',
    async run({ page, screenshot }) {
      const frame = await timelineFrame(page);
      const width = await sizeTimelineGroup(page, 300);
      assert.ok(Math.abs(width - 300) < 12, `the Timeline's column is ${width} px wide`);
      await waitForCanvasWidth(frame, 300);
      // every control is inside the page, none cut at its right edge or under another
      const controls = await frame.evaluate(() => {
        const page = document.documentElement.clientWidth;
        return Array.from(document.querySelectorAll<HTMLElement>('.tl-toolbar button')).map((b) => {
          const r = b.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return { text: b.textContent ?? '', inside: r.left >= 0 && r.right <= page, onTop: hit === b };
        });
      });
      assert.deepEqual(
        controls.filter((c) => !c.inside || !c.onTop),
        [],
        `controls cut or covered at 300 px: ${JSON.stringify(controls)}`,
      );
      // the run and the fork's "diverged" are still on the canvas's lanes at this width
      const fork = await frame.evaluate(
        (run) =>
          (window as unknown as { timeline: { barPoint(r: string, c: number): unknown } }).timeline.barPoint(run, 30),
        REFUND,
      );
      assert.ok(fork, 'the bar after the fork point is in view at 300 px');
      await page.mouse.move(5, 300);
      const first = await theme(page);
      await screenshot(`timeline-05-300px-${first}`);
      const canvas = frame.locator('canvas.tl-canvas');
      const before = (await canvas.getAttribute('data-background')) ?? '';
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
      const deadline = Date.now() + 15_000;
      while (isLight((await canvas.getAttribute('data-background')) ?? '') === isLight(before)) {
        if (Date.now() > deadline) throw new Error('the timeline was not redrawn for the new theme');
        await page.waitForTimeout(100);
      }
      await workbenchPainted(page, !isLight(before));
      await page.mouse.move(5, 300);
      await screenshot(`timeline-06-300px-${await theme(page)}`);
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
      await workbenchPainted(page, isLight(before));
    },
  },
];
