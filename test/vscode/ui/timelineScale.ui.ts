/**
 * The Timeline's scale inside VS Code, read from the page's own performance timeline (src/webview/timelinePerf.ts)
 * in the real webview: runs of 2,000 and 20,000 checkpoints, each with two forks, written into the workspace's store
 * before the workbench opens it (`setup`). For each: Show Timeline from the run's context menu, and where the time
 * went until the page's first draw, phase by phase — the host's (the command until the panel is asked for, the
 * summary query, its packing), VS Code's (creating the panel and its webview until our page's navigation, then
 * writing our page into it until its script runs) and the page's (its script's first run, the wait for the data,
 * parse, lay out, first frame); then the frames of zooms (Ctrl + wheel, +, −) and pans (drags) made with real input
 * events, each awaited until the page has drawn it. The figures are printed and written to
 * test-results/timeline-scale.json.
 *
 * What is ours is held to a budget (`ownMs`: the host's command, query and packing, the page's script and its work
 * from the data to the first frame, added up although the query runs while VS Code builds the page). The whole
 * open from the command is VS Code's creating a webview on a loaded machine, mostly: it is printed and only held to
 * a broken page's limit. The strict targets — open under 1 s, frames under 16.7 ms — are `npm run bench --
 * timeline`'s.
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
const LIMITS = { openMs: 30_000, frameP50Ms: 1000 / 60, frameP95Ms: 50 };
/**
 * What is ours of the open: the target is 1 s (the issue's), on a quiet machine. This machine runs several test runs
 * on 2 cores (load 10 to 20), which makes every part of it 2 to 3 times slower (the bench's figures against the same
 * at load 1): the assertion allows that; the figure printed says whether the 1 s target itself was met.
 */
const OWN_BUDGET = { targetMs: 1000, loadedMs: 2500 };
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
    // no named functions inside: the page gets the function's text, without the test runner's helpers
    const opened = await frame.evaluate(() => {
      const [first, script, data, dataToDraw, parse, layout] = [
        ['timeline:first-draw', 'measure'],
        ['timeline:script', 'measure'],
        ['timeline:data', 'mark'],
        ['timeline:data-to-draw', 'measure'],
        ['timeline:parse', 'measure'],
        ['timeline:layout', 'measure'],
      ].map(([name, type]) => performance.getEntriesByName(name ?? '', type).at(-1));
      return {
        navigatedAt: performance.timeOrigin,
        drawnAt: performance.timeOrigin + (first ? first.startTime + first.duration : NaN),
        fromNavigation: first?.duration ?? NaN,
        scriptAt: script?.startTime ?? NaN,
        script: script?.duration ?? NaN,
        dataAt: data?.startTime ?? NaN,
        dataToDraw: dataToDraw?.duration ?? NaN,
        parse: parse?.duration ?? NaN,
        layout: layout?.duration ?? NaN,
        firstFrame: performance.getEntriesByName('timeline:frame', 'measure')[0]?.duration ?? NaN,
        queryMs: Number(document.body.dataset.queryMs),
        opening: JSON.parse(document.body.dataset.opening ?? 'null') as {
          commandAt: number;
          panelAt: number;
          queryMs: number;
          packMs: number;
          postedAt: number;
        } | null,
        runs: document.querySelectorAll('.tl-run').length,
      };
    });
    assert.ok(opened.opening, "the panel's first page got its timeline as it loaded, with the host's figures");
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
    const o = opened.opening;
    const host = {
      commandToPanelMs: Math.round(o.panelAt - o.commandAt),
      hostQueryMs: round(o.queryMs),
      packMs: round(o.packMs),
    };
    const ownPage = { scriptMs: round(opened.script), dataToDrawMs: round(opened.dataToDraw) };
    const ownMs = Math.round(host.commandToPanelMs + o.queryMs + o.packMs + opened.script + opened.dataToDraw);
    const result = {
      checkpoints: size,
      openMs: Math.round(opened.drawnAt - asked),
      ownMs,
      // the phases in order: the test's click until the command ran (the context menu), the host, VS Code until our
      // page's navigation and until its script ran, our script, its wait for the data, its work until the first frame
      menuToCommandMs: Math.round(o.commandAt - asked),
      ...host,
      panelToNavigationMs: Math.round(opened.navigatedAt - o.panelAt),
      navigationToScriptMs: round(opened.scriptAt),
      ...ownPage,
      postedFromNavigationMs: Math.round(o.postedAt - opened.navigatedAt),
      dataFromNavigationMs: round(opened.dataAt),
      parseMs: round(opened.parse),
      layoutMs: round(opened.layout),
      firstFrameMs: round(opened.firstFrame),
      toNavigationMs: Math.round(opened.navigatedAt - asked),
      firstDrawFromNavigationMs: round(opened.fromNavigation),
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
    process.stdout.write(
      `      ours of the open: ${ownMs} ms (target ${OWN_BUDGET.targetMs} ms: ${ownMs < OWN_BUDGET.targetMs ? 'met' : 'MISSED'}; asserted under ${OWN_BUDGET.loadedMs} ms on this loaded machine)\n`,
    );
    assert.ok(
      ownMs < OWN_BUDGET.loadedMs,
      `ours of the open took ${ownMs} ms (${JSON.stringify({ ...host, ...ownPage })}); budget ${OWN_BUDGET.loadedMs} ms`,
    );
    assert.ok(
      result.frameP50Ms < LIMITS.frameP50Ms && result.frameP95Ms < LIMITS.frameP95Ms,
      `zoom/pan frames p50 ${result.frameP50Ms} ms, p95 ${result.frameP95Ms} ms (limits ${LIMITS.frameP50Ms}, ${LIMITS.frameP95Ms})`,
    );
  },
}));
