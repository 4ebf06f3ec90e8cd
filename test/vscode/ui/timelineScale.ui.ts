/**
 * The Timeline's scale inside VS Code, read from the page's own performance timeline (src/webview/timelinePerf.ts)
 * in the real webview: runs of 2,000 and 20,000 checkpoints, each with two forks, written into the workspace's store
 * before the workbench opens it (`setup`). For each: Show Timeline from the run's context menu, the time until the
 * page's first draw (from the command; from the page's navigation; from the data's arrival; the host's query), then
 * the frames of zooms (Ctrl + wheel, +, −) and pans (drags) made with real input events, each awaited until the page
 * has drawn it. The figures are printed and written to test-results/timeline-scale.json.
 *
 * The assertions leave a loaded machine room (LIMITS); the strict targets — open under 1 s, frames under 16.7 ms —
 * are `npm run bench -- timeline`'s.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { scaleRunId, writeTimelineRun } from '../../helpers/timelineRun';
import { REPO_ROOT } from '../codeServer';
import { measures, theme } from './timelinePage';
import type { UiSetup, UiTest } from './uiTest';
import { chooseMenuItem, row, runCommand, waitForRuns, widenSideBar } from './workbench';

const SIZES = [2000, 20000];
/**
 * What a loaded machine passes and a broken page does not. Opening is mostly VS Code creating the webview (5 to 15 s
 * from the command on 2 cores running 8 test runs, of it the query and the page's own work under 1 s); reading the
 * whole checkpoints of a 20,000-checkpoint run instead of their summaries takes over a minute. Laying the run out
 * again at every frame takes hundreds of milliseconds a frame; the median frame is held to the 60 fps budget itself.
 */
const LIMITS = { openMs: 30_000, ownMs: 5_000, frameP50Ms: 1000 / 60, frameP95Ms: 50 };
const figures: Record<string, unknown> = {};

export const setup: UiSetup = ({ store }) => {
  for (const size of SIZES) writeTimelineRun(store, size, scaleRunId(size));
};

/** The Timeline panel's page once it has drawn `runId` (a panel opened before it, since closed, does not count). */
async function timelineFrameOf(page: Page, runId: string, timeoutMs: number): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      const drawn = await frame
        .locator(`body[data-ready="true"] .tl-run[data-run="${runId}"]`)
        .count()
        .catch(() => 0);
      if (drawn) return frame;
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`the Timeline panel did not show ${runId}`);
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

export const tests: UiTest[] = SIZES.map((size): UiTest => ({
  name: `a run of ${size} checkpoints and two forks opens and pans/zooms within its figures`,
  async run({ page, screenshot }) {
    const runId = scaleRunId(size);
    const pane = await waitForRuns(page, [runId], 60_000);
    await widenSideBar(page, 300);
    // a fresh panel for each run: its page's first draw is measured from its own navigation
    await runCommand(page, 'View: Close All Editors');
    await page.locator('.tab', { hasText: 'Timeline:' }).first().waitFor({ state: 'detached', timeout: 15_000 });
    await row(pane, runId).first().click({ button: 'right' });
    const asked = Date.now();
    await chooseMenuItem(page, 'Show Timeline');
    const frame = await timelineFrameOf(page, runId, 60_000);
    await frame.waitForFunction(() => performance.getEntriesByName('timeline:first-draw', 'measure').length > 0, {
      timeout: 30_000,
    });
    const opened = await frame.evaluate(() => {
      const first = performance.getEntriesByName('timeline:first-draw', 'measure').at(-1);
      return {
        navigatedAt: performance.timeOrigin,
        drawnAt: performance.timeOrigin + (first ? first.startTime + first.duration : NaN),
        fromNavigation: first?.duration ?? NaN,
        dataToDraw: performance.getEntriesByName('timeline:data-to-draw', 'measure').at(-1)?.duration ?? NaN,
        parse: performance.getEntriesByName('timeline:parse', 'measure').at(-1)?.duration ?? NaN,
        layout: performance.getEntriesByName('timeline:layout', 'measure').at(-1)?.duration ?? NaN,
        firstFrame: performance.getEntriesByName('timeline:frame', 'measure')[0]?.duration ?? NaN,
        queryMs: Number(document.body.dataset.queryMs),
        runs: document.querySelectorAll('.tl-run').length,
      };
    });
    assert.equal(opened.runs, 3, 'the run and its two forks are listed');

    // zooms and pans by real input events, each awaited until the page drew it
    await frame.evaluate(() => performance.clearMeasures('timeline:frame'));
    const canvas = frame.locator('canvas.tl-canvas');
    const box = await canvas.boundingBox();
    assert.ok(box, 'the canvas is on screen');
    const cx = box.x + box.width / 2;
    const cy = box.y + Math.min(box.height - 4, 50);
    let gestures = 0;
    const drawn = async (what: string, gesture: () => Promise<void>) => {
      const before = (await measures(frame, 'timeline:frame')).length;
      await gesture();
      gestures++;
      await frame
        .waitForFunction((n) => performance.getEntriesByName('timeline:frame', 'measure').length > n, before, {
          timeout: 15_000,
        })
        .catch(() => {
          throw new Error(`the timeline drew nothing after ${what}`);
        });
    };
    const drag = async (dx: number) => {
      await page.mouse.move(cx, cy);
      await page.mouse.down();
      await page.mouse.move(cx + dx, cy, { steps: 10 });
      await page.mouse.up();
    };
    for (let i = 0; i < 4; i++) {
      await drawn('Ctrl + wheel (zoom in)', async () => {
        await page.mouse.move(cx, cy);
        await page.keyboard.down('Control');
        await page.mouse.wheel(0, -60);
        await page.keyboard.up('Control');
      });
      await drawn('a drag (pan)', () => drag(-120));
    }
    await canvas.focus();
    for (let i = 0; i < 4; i++) {
      await drawn('+ (zoom in)', () => canvas.press('+'));
      await drawn('a drag (pan back)', () => drag(100));
    }
    for (let i = 0; i < 3; i++) await drawn('− (zoom out)', () => canvas.press('-'));
    await drawn('0 (fit)', () => canvas.press('0'));
    const frames = (await measures(frame, 'timeline:frame')).sort((a, b) => a - b);
    const result = {
      checkpoints: size,
      openMs: Math.round(opened.drawnAt - asked),
      toNavigationMs: Math.round(opened.navigatedAt - asked),
      firstDrawFromNavigationMs: round(opened.fromNavigation),
      dataToDrawMs: round(opened.dataToDraw),
      parseMs: round(opened.parse),
      layoutMs: round(opened.layout),
      firstFrameMs: round(opened.firstFrame),
      hostQueryMs: opened.queryMs,
      gestures,
      frames: frames.length,
      frameP50Ms: round(quantile(frames, 0.5), 2),
      frameP95Ms: round(quantile(frames, 0.95), 2),
      frameMaxMs: round(frames.at(-1) ?? NaN, 2),
    };
    figures[String(size)] = result;
    const out = path.join(REPO_ROOT, 'test-results', 'timeline-scale.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
    process.stdout.write(`      timeline in VS Code: ${JSON.stringify(result)}\n`);
    await page.mouse.move(5, 300);
    await screenshot(`timeline-scale-${size / 1000}k-${await theme(page)}`);

    assert.ok(frames.length >= gestures, `every gesture was drawn: ${frames.length} frames for ${gestures}`);
    assert.ok(result.openMs < LIMITS.openMs, `opened in ${result.openMs} ms (limit ${LIMITS.openMs} ms)`);
    assert.ok(
      result.frameP50Ms < LIMITS.frameP50Ms && result.frameP95Ms < LIMITS.frameP95Ms,
      `zoom/pan frames p50 ${result.frameP50Ms} ms, p95 ${result.frameP95Ms} ms (limits ${LIMITS.frameP50Ms}, ${LIMITS.frameP95Ms})`,
    );
  },
}));
