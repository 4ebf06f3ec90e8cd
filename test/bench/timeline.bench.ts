/**
 * `npm run bench -- timeline`: the Timeline's cost at 2,000 and 20,000 checkpoints (and two forks) — the store's
 * summary query (replay/timeline.ts `timelineOf`), its JSON (what the panel posts), and the page's first render in
 * headless Chromium (dist/timeline.js on the `ocdb view` file: parse, lay out, draw) with a frame of pan and of
 * zoom, read from the page's own timing (`data-draw-ms`, performance.now around the draws). Also the size of
 * `ocdb view`'s file for the 2,000-checkpoint run.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { timelineOf } from '../../src/replay/timeline';
import { openRunStore } from '../../src/store';
import { viewFileHtml } from '../../src/cli/viewFile';
import { recordTimelineRun } from '../helpers/timelineRun';
import { launchBrowser } from '../vscode/browser';

function ms(from: number): string {
  return `${(performance.now() - from).toFixed(1)} ms`;
}

async function measure(size: number, dir: string): Promise<void> {
  const storePath = join(dir, `timeline-${size}.db`);
  const runId = `timeline-${size}`;
  let t0 = performance.now();
  recordTimelineRun(storePath, size, runId);
  process.stdout.write(`  ${size} checkpoints recorded in ${ms(t0)}\n`);
  const store = openRunStore(storePath);
  try {
    // the summary query, cold then warm (the panel reads it again as a live run grows)
    t0 = performance.now();
    const timeline = timelineOf(store, runId, { withForks: true });
    const cold = ms(t0);
    t0 = performance.now();
    timelineOf(store, runId, { withForks: true });
    const warm = ms(t0);
    const json = JSON.stringify(timeline);
    const calls = timeline.runs.reduce((n, r) => n + r.calls.length, 0);
    process.stdout.write(
      `  summary query (${timeline.runs.length} runs, ${calls} calls): ${cold} cold, ${warm} again; JSON ${(json.length / 1024).toFixed(0)} KiB\n`,
    );
    t0 = performance.now();
    const html = viewFileHtml(store, runId, { withForks: true });
    const file = join(dir, `${runId}.html`);
    writeFileSync(file, html);
    process.stdout.write(`  ocdb view file: ${(statSync(file).size / 1024).toFixed(0)} KiB, written in ${ms(t0)}\n`);
    await render(file, size);
  } finally {
    store.close();
  }
}

async function render(file: string, size: number): Promise<void> {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const started = Date.now();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    const loaded = Date.now() - started;
    const first = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      return {
        dcl: nav?.domContentLoadedEventEnd ?? 0,
        draw: Number(document.querySelector('canvas.tl-canvas')?.getAttribute('data-draw-ms')),
      };
    });
    // a frame of zoom and a frame of pan: Ctrl+wheel, then a drag, each awaited until the next draw
    const canvas = page.locator('canvas.tl-canvas');
    const box = await canvas.boundingBox();
    const frames: number[] = [];
    if (box) {
      for (let i = 0; i < 10; i++) {
        await page.mouse.move(box.x + box.width / 2, box.y + 40);
        await page.keyboard.down('Control');
        await page.mouse.wheel(0, -200);
        await page.keyboard.up('Control');
        await page.waitForFunction(() => true);
        frames.push(Number(await canvas.getAttribute('data-draw-ms')));
        await page.mouse.down();
        await page.mouse.move(box.x + box.width / 2 - 80, box.y + 40, { steps: 2 });
        await page.mouse.up();
        frames.push(Number(await canvas.getAttribute('data-draw-ms')));
      }
    }
    frames.sort((a, b) => a - b);
    const p = (q: number) => frames[Math.min(frames.length - 1, Math.floor(q * frames.length))] ?? NaN;
    process.stdout.write(
      `  page (${size}): ready ${loaded} ms after navigation (DOMContentLoaded ${first.dcl.toFixed(0)} ms), first draw ${first.draw.toFixed(1)} ms; ` +
        `zoom/pan frames median ${p(0.5).toFixed(1)} ms, p90 ${p(0.9).toFixed(1)} ms (60 fps: < 16.7 ms)\n`,
    );
  } finally {
    await browser.close();
  }
}

/** The sizes measured: `OCDB_BENCH_TIMELINE_SIZES=2000` for the smaller alone. */
const SIZES = (process.env.OCDB_BENCH_TIMELINE_SIZES ?? '2000,20000').split(',').map(Number);

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-timeline-bench-'));
  try {
    for (const size of SIZES) await measure(size, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
