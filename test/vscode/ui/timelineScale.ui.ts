/**
 * The Timeline's figures inside VS Code, read from the page's own performance timeline (src/webview/timelinePerf.ts)
 * in the real webview: for a run of 2,000 and of 20,000 checkpoints with two forks each, Show Timeline from the
 * run's context menu until the first draw (from the command, from the page's navigation, from the data's arrival;
 * the host's summary query), then the frames of ten zooms (+) and ten pans (drags). The runs are recorded by a child process while the
 * workbench starts (test/vscode/ui/timelineSeed.ts). The figures are
 * printed and written to test-results/timeline-scale.json. The test fails when the page draws nothing or a
 * median zoom/pan frame misses 60 frames a second; the open time is reported (a loaded CI machine decides it more
 * than the page does).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { scaleRunId } from '../../helpers/timelineRun';
import { REPO_ROOT } from '../codeServer';
import { measures, timelineFrame, waitForMeasure } from './timelinePage';
import type { UiTest } from './uiTest';
import { chooseMenuItem, row, runCommand, waitForRuns, widenSideBar } from './workbench';

const SIZES = [2000, 20000];
const FRAME_BUDGET_MS = 1000 / 60;
const figures: Record<string, unknown> = {};

/** The child recording the runs (started by the first step), and the sizes it has recorded so far. */
let seeding: Promise<void> | undefined;
const seeded = new Set<number>();
let seedOutput = '';

function startSeeding(store: string): void {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'test', 'vscode', 'ui', 'timelineSeed.ts'), store, ...SIZES.map(String)],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  process.on('exit', () => child.exitCode === null && child.kill());
  child.stdout.on('data', (d: Buffer) => {
    seedOutput += d.toString();
    for (const m of seedOutput.matchAll(/seeded (\d+)/g)) seeded.add(Number(m[1]));
  });
  child.stderr.on('data', (d: Buffer) => (seedOutput += d.toString()));
  seeding = new Promise((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`seeding failed: ${seedOutput}`)))),
  );
  seeding.catch(() => undefined);
}

/** Waits until the child has recorded the run of `size` checkpoints (it fails when the child does). */
async function waitForSeeded(size: number, page: { waitForTimeout(ms: number): Promise<void> }): Promise<void> {
  let failed: unknown;
  seeding?.catch((e: unknown) => (failed = e));
  while (!seeded.has(size)) {
    if (failed) throw failed as Error;
    await page.waitForTimeout(250);
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

export const tests: UiTest[] = SIZES.map((size): UiTest => ({
  name: `a run of ${size} checkpoints and two forks: the first draw and the zoom/pan frames in the webview`,
  async run({ page, store, screenshot }) {
    const runId = scaleRunId(size);
    if (!seeding) startSeeding(store);
    await waitForSeeded(size, page);
    const pane = await waitForRuns(page, [runId], 60_000);
    await widenSideBar(page, 300);
    // a fresh panel for each run: its page's first draw is measured from its navigation
    await runCommand(page, 'View: Close All Editors');
    await row(pane, runId).first().click({ button: 'right' });
    const asked = Date.now();
    await chooseMenuItem(page, 'Show Timeline');
    const frame = await timelineFrame(page, 120_000);
    await frame.locator(`.tl-run[data-run="${runId}"]`).waitFor({ timeout: 60_000 });
    await waitForMeasure(frame, 'timeline:first-draw');
    const page0 = await frame.evaluate(() => {
      const first = performance.getEntriesByName('timeline:first-draw', 'measure').at(-1);
      return {
        drawnAt: performance.timeOrigin + (first ? first.startTime + first.duration : NaN),
        firstDraw: first?.duration ?? NaN,
        dataToDraw: performance.getEntriesByName('timeline:data-to-draw', 'measure').at(-1)?.duration ?? NaN,
        draw: performance.getEntriesByName('timeline:frame', 'measure').at(-1)?.duration ?? NaN,
        queryMs: Number(document.body.dataset.queryMs),
      };
    });
    // ten zooms (+ on the focused timeline) and ten pans (a drag), each awaited until the page has drawn it
    await frame.evaluate(() => performance.clearMeasures('timeline:frame'));
    const canvas = frame.locator('canvas.tl-canvas');
    const box = await canvas.boundingBox();
    assert.ok(box, 'the canvas is on screen');
    const cx = box.x + box.width / 2;
    const cy = box.y + Math.min(box.height - 4, 60);
    const drawn = async (what: string, gesture: () => Promise<void>) => {
      const before = (await measures(frame, 'timeline:frame')).length;
      await gesture();
      await frame
        .waitForFunction((n) => performance.getEntriesByName('timeline:frame', 'measure').length > n, before, {
          timeout: 15_000,
        })
        .catch(() => {
          throw new Error(`the timeline drew nothing after ${what}`);
        });
    };
    await canvas.focus();
    for (let i = 0; i < 10; i++) {
      await drawn('+ (zoom in)', () => canvas.press('+'));
      await drawn('a drag (pan)', async () => {
        await page.mouse.move(cx, cy);
        await page.mouse.down();
        await page.mouse.move(cx - 80, cy, { steps: 4 });
        await page.mouse.up();
      });
    }
    const frames = (await measures(frame, 'timeline:frame')).sort((a, b) => a - b);
    const result = {
      checkpoints: size,
      openMs: Math.round(page0.drawnAt - asked),
      firstDrawFromNavigationMs: Number(page0.firstDraw.toFixed(1)),
      dataToDrawMs: Number(page0.dataToDraw.toFixed(1)),
      firstFrameMs: Number(page0.draw.toFixed(1)),
      hostQueryMs: page0.queryMs,
      frames: frames.length,
      frameMedianMs: Number(quantile(frames, 0.5).toFixed(2)),
      frameP90Ms: Number(quantile(frames, 0.9).toFixed(2)),
      frameMaxMs: Number((frames.at(-1) ?? NaN).toFixed(2)),
    };
    figures[String(size)] = result;
    const out = path.join(REPO_ROOT, 'test-results', 'timeline-scale.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
    process.stdout.write(`      timeline in VS Code: ${JSON.stringify(result)}\n`);
    assert.ok(frames.length >= 20, `every zoom and pan was drawn: ${frames.length} frames`);
    assert.ok(
      result.frameMedianMs < FRAME_BUDGET_MS,
      `a zoom/pan frame takes ${result.frameMedianMs} ms (median): over 60 frames a second`,
    );
    await page.mouse.move(5, 300);
    await screenshot(`timeline-scale-${size}`);
  },
}));
