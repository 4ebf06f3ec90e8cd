/**
 * The Timeline as a user meets it on the demo, after the captured fork "what if the user had been an auditor?" of
 * demo-support-refund: Show Timeline from the run's context menu opens the panel beside the editor, with the run,
 * its failed call, and the fork branching at its fork point, "diverged at step 5"; a replay paused on the run
 * follows a click on a bar (the Call Stack moves there) and F10 moves the timeline's cursor; the Call Stack's context
 * menu opens it again at the paused checkpoint. Screenshots at a 300 px side bar with the Timeline in an editor
 * column, dark and light.
 */
import * as assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { openRunStore } from '../../../src/store';
import { REFUND, forkAuditor } from '../../helpers/auditorFork';
import {
  canvasOffset,
  contrastRatio,
  isLight,
  sizeTimelineGroup,
  theme,
  workbenchPainted,
  timelineFrame,
  waitForCanvasWidth,
  waitForCursor,
  waitForRunText,
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
      await assertTextsClear(frame);
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
      await assertTextsClear(frame);
      await screenshot(`timeline-06-300px-${await theme(page)}`);
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
      await workbenchPainted(page, isLight(before));
    },
  },
  {
    name: "the Timeline in the high-contrast themes, dark and light: its bars in the theme's colours, readable on its background",
    async run({ page, screenshot }) {
      const frame = await timelineFrame(page);
      const before = (await frame.locator('canvas.tl-canvas').getAttribute('data-background')) ?? '';
      let was: string | undefined;
      try {
        for (const hc of HIGH_CONTRAST) {
          // as a user picks it: Preferences: Color Theme
          const current = await chooseColorTheme(page, 'High Contrast', hc.label);
          was ??= current;
          await page.locator(`.monaco-workbench.${hc.kind}`).waitFor({ timeout: 30_000 });
          await waitForBackground(frame, hc.background);
          await workbenchPainted(page, hc.light);
          const drawn = await frame.evaluate(() => {
            const canvas = document.querySelector<HTMLCanvasElement>('canvas.tl-canvas');
            const css = getComputedStyle(document.documentElement);
            // no named function in here: the page has no bundler's helpers
            return {
              bars: (canvas?.dataset.bars ?? '').toLowerCase().split(' '),
              // the chart colours (a modified file's colour where the theme has no orange)
              theme: [
                ['charts-blue'],
                ['charts-green'],
                ['charts-green'],
                ['charts-yellow'],
                ['charts-orange', 'gitDecoration-modifiedResourceForeground'],
                ['charts-purple'],
              ].map(
                (names) =>
                  names.map((n) => css.getPropertyValue(`--vscode-${n}`).trim().toLowerCase()).find((c) => c) ?? '',
              ),
              background: (canvas?.dataset.background ?? '').toLowerCase(),
            };
          });
          assert.deepEqual(drawn.bars, drawn.theme, "the bars are drawn in the theme's chart colours");
          for (const bar of drawn.bars) {
            const ratio = contrastRatio(bar, drawn.background);
            assert.ok(ratio >= 3, `${bar} on ${drawn.background}: contrast ${ratio.toFixed(2)}, under 3:1`);
          }
          await assertTextsClear(frame);
          await page.mouse.move(5, 300);
          await screenshot(`timeline-07-300px-${hc.kind}`);
          // and in a wider editor column
          await sizeTimelineGroup(page, 560);
          await page.mouse.move(5, 300);
          await screenshot(`timeline-08-column-${hc.kind}`);
          await sizeTimelineGroup(page, 300);
          await waitForCanvasWidth(frame, 300);
        }
      } finally {
        // the theme the user had, picked again
        if (was) await chooseColorTheme(page, was, new RegExp(`^${was.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      }
      await waitForBackground(frame, before);
      await workbenchPainted(page, isLight(before));
    },
  },
  {
    name: 'hidden behind another editor and shown again, the Timeline comes back as it was: zoom, cursor, lineage',
    async run({ page, screenshot }) {
      // the Timeline's group is made the active one, as a user does by clicking its tab: focus moved into a webview's
      // frame alone does not always tell VS Code, and the untitled editor would open in the transcript's group
      // (a clean-clone CI failure)
      const timelineGroup = page
        .locator('.editor-group-container')
        .filter({ has: page.locator('.tab', { hasText: `Timeline: ${REFUND}` }) });
      await timelineGroup
        .locator('.tab', { hasText: `Timeline: ${REFUND}` })
        .first()
        .click();
      await page
        .locator('.editor-group-container.active')
        .locator('.tab.active', { hasText: `Timeline: ${REFUND}` })
        .waitFor();
      const frame = await timelineFrame(page);
      const canvas = frame.locator('canvas.tl-canvas');
      await canvas.focus();
      await canvas.press('+');
      await canvas.press('+');
      const viewState = (f: Frame) =>
        f.evaluate(() => ({
          origin: performance.timeOrigin,
          zoom: (window as unknown as { timeline: { state(): { zoom?: { k: number } } } }).timeline.state().zoom?.k,
        }));
      const before = await viewState(frame);
      assert.equal(before.zoom, 4, 'zoomed in twice');
      // another editor in the Timeline's group hides it: its page is let go
      await runCommand(page, 'File: New Untitled Text File');
      // the new editor is the active tab of the Timeline's group (the active group)
      await timelineGroup.locator('.tab.active', { hasText: 'Untitled-' }).waitFor();
      await timelineGroup
        .locator('.tab', { hasText: `Timeline: ${REFUND}` })
        .first()
        .click();
      // shown again: a page built anew (VS Code let the hidden one go) or, while VS Code still holds it, the same one;
      // either way it is as the user left it
      await timelineGroup.locator('.tab.active', { hasText: 'Timeline:' }).waitFor();
      const deadline = Date.now() + 30_000;
      let again = frame;
      let after: { origin: number; zoom?: number } | undefined;
      while (after?.zoom === undefined) {
        if (Date.now() > deadline) throw new Error('the Timeline did not come back with its view state');
        again = await timelineFrame(page);
        after = await viewState(again).catch(() => undefined);
        if (after?.zoom === undefined) await page.waitForTimeout(200);
      }
      assert.equal(after.zoom, before.zoom, 'the zoom the user had');
      await waitForCursor(again, `${REFUND}:15`);
      await waitForRunText(again, forkRunId, /diverged at step 5/);
      await page.mouse.move(5, 300);
      await screenshot(`timeline-09-shown-again-${await theme(page)}`);
      // the untitled editor, empty, closes without a question
      // (its close button shows on hover only)
      await page
        .locator('.tab', { hasText: 'Untitled-1' })
        .first()
        .locator('.tab-actions .action-label')
        .click({ force: true });
    },
  },
];

const HIGH_CONTRAST = [
  { label: /^(?!.*Light).*High Contrast/, kind: 'hc-black', light: false, background: '#000000' },
  { label: /Light.*High Contrast|High Contrast.*Light/, kind: 'hc-light', light: true, background: '#ffffff' },
] as const;

/**
 * Picks a colour theme in Preferences: Color Theme, as a user does: the picker filtered by `filter`, the first row
 * whose label matches `label` clicked. Returns the label of the theme it replaced (the row the picker opened on).
 */
async function chooseColorTheme(page: Page, filter: string, label: RegExp): Promise<string> {
  // its key chord (Ctrl+K Ctrl+T): the palette's title search also matches "Browse Color Themes in Marketplace"
  await page.mouse.move(0, 0);
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+T');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // the theme picker, not the palette it replaced
  await page.waitForFunction(() => {
    const el = document.querySelector<HTMLInputElement>('.quick-input-widget .quick-input-box input');
    return el !== null && !el.value.startsWith('>') && /theme/i.test(el.placeholder || el.ariaLabel || '');
  });
  const focused = page.locator('.quick-input-widget .monaco-list-row.focused .label-name').first();
  await focused.waitFor();
  const was = ((await focused.textContent()) ?? '').trim();
  await input.fill(filter);
  const rows = page.locator('.quick-input-widget .monaco-list-row .label-name');
  await rows.first().waitFor();
  const labels = (await rows.allTextContents()).map((t) => t.trim());
  const at = labels.findIndex((l) => label.test(l));
  if (at < 0) throw new Error(`no colour theme ${String(label)} among ${labels.join(' | ')}`);
  await rows.nth(at).click();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  return was;
}

/** Waits until the canvas has been drawn on `background` (the theme's editor background, as the page read it). */
async function waitForBackground(frame: Frame, background: string): Promise<void> {
  const canvas = frame.locator('canvas.tl-canvas');
  const deadline = Date.now() + 20_000;
  let seen = '';
  while (Date.now() < deadline) {
    seen = ((await canvas.getAttribute('data-background')) ?? '').toLowerCase();
    if (seen.startsWith(background.toLowerCase())) return;
    await frame.page().waitForTimeout(100);
  }
  throw new Error(`the timeline was drawn on ${seen}, not the theme's ${background}`);
}

/**
 * The replay cursor's label sits after its run's name on the lane's label line, not over it, and the ruler's last
 * label ends inside the canvas (the page's `data-cursor-label`: label start, label end, name end; `data-ruler-end`).
 */
async function assertTextsClear(frame: Frame): Promise<void> {
  const seen = await frame.locator('canvas.tl-canvas').evaluate((c: HTMLCanvasElement) => ({
    cursor: c.dataset.cursorLabel ?? '',
    rulerEnd: Number(c.dataset.rulerEnd),
    width: c.getBoundingClientRect().width,
  }));
  const [x0, x1, nameEnd] = seen.cursor.split(' ').map(Number);
  assert.ok(x0 !== undefined && x1 !== undefined && nameEnd !== undefined, `a cursor label is drawn: ${seen.cursor}`);
  assert.ok(x0 >= nameEnd, `the cursor's label starts at ${x0} px, over the run's name (to ${nameEnd} px)`);
  assert.ok(x1 <= seen.width, `the cursor's label ends at ${x1} px, past the canvas (${seen.width} px)`);
  assert.ok(seen.rulerEnd <= seen.width, `the ruler's last label ends at ${seen.rulerEnd} px of ${seen.width}`);
}
