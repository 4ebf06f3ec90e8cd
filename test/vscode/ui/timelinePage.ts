/**
 * What the Timeline UI flows read from the Timeline panel's page (the webview frame): the frame itself, the cursor,
 * where a bar is drawn, the page's own figures on its performance timeline, the workbench's theme. Not a flow file
 * (no `.ui.ts`): the timeline flows share it.
 */
import type { Frame, Page } from 'playwright-core';

/** The Timeline panel's page: the webview frame drawing the timeline canvas. */
export async function timelineFrame(page: Page, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (
        await frame
          .locator('body[data-ready="true"] canvas.tl-canvas')
          .count()
          .catch(() => 0)
      )
        return frame;
    }
    await page.waitForTimeout(200);
  }
  throw new Error('the Timeline panel did not show its timeline');
}

/** Waits until the timeline's cursor is at `runId:index` (the page's `data-position`). */
export async function waitForCursor(frame: Frame, position: string): Promise<void> {
  const canvas = frame.locator('canvas.tl-canvas');
  const deadline = Date.now() + 20_000;
  let seen: string | null = null;
  while (Date.now() < deadline) {
    seen = await canvas.getAttribute('data-position');
    if (seen === position) return;
    await frame.page().waitForTimeout(100);
  }
  throw new Error(`the timeline's cursor should be at ${position}, is at ${seen ?? 'nothing'}`);
}

/** Waits until the text the page gives a screen reader for `runId` matches `pattern`; returns it. */
export async function waitForRunText(
  frame: Frame,
  runId: string,
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<string> {
  const text = frame.locator(`.tl-run[data-run="${runId}"] > .tl-run-text`);
  const deadline = Date.now() + timeoutMs;
  let seen = '';
  while (Date.now() < deadline) {
    seen = (await text.textContent({ timeout: 1_000 }).catch(() => null)) ?? '';
    if (pattern.test(seen)) return seen;
    await frame.page().waitForTimeout(100);
  }
  throw new Error(`the timeline's text for ${runId} should match ${String(pattern)}; it reads: ${seen || 'nothing'}`);
}

/** Where the bar holding checkpoint `cp` of `runId` is drawn (page pixels of the frame), if it is in view. */
export async function barPoint(frame: Frame, runId: string, cp: number): Promise<{ x: number; y: number } | undefined> {
  return frame.evaluate(
    ([run, at]) =>
      (
        window as unknown as { timeline: { barPoint(r: string, c: number): { x: number; y: number } | undefined } }
      ).timeline.barPoint(run, at) ?? undefined,
    [runId, cp] as const,
  );
}

/** A page point inside the canvas as an offset from its corner (Playwright clicks inside the frame). */
export async function canvasOffset(frame: Frame, x: number, y: number): Promise<{ x: number; y: number }> {
  const rect = await frame.locator('canvas.tl-canvas').evaluate((c) => {
    const r = c.getBoundingClientRect();
    return { left: r.left, top: r.top };
  });
  return { x: x - rect.left, y: y - rect.top };
}

/** A `#rrggbb` colour whose channels are all bright. */
export function isLight(color: string): boolean {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(color.trim());
  return m !== null && m.slice(1).every((c) => parseInt(c, 16) > 200);
}

/** The workbench's theme kind, for the screenshots' names. */
export async function theme(page: Page): Promise<'dark' | 'light'> {
  return (await page.locator('.monaco-workbench.vs-dark, .monaco-workbench.hc-black').count()) > 0 ? 'dark' : 'light';
}

/** `#rgb`, `#rrggbb` or `#rrggbbaa` as channels 0–255 (alpha ignored). */
function channels(color: string): [number, number, number] | undefined {
  const hex = /^#([0-9a-f]{3,8})$/i.exec(color.trim())?.[1];
  if (!hex) return undefined;
  const full = hex.length <= 4 ? [...hex.slice(0, 3)].map((c) => c + c).join('') : hex.slice(0, 6);
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as [number, number, number];
}

/** WCAG's contrast ratio of two `#rrggbb` colours (1 to 21); NaN when either is not such a colour. */
export function contrastRatio(a: string, b: string): number {
  const lum = (c: [number, number, number]) => {
    const [r, g, bl] = c.map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const ca = channels(a);
  const cb = channels(b);
  if (!ca || !cb) return NaN;
  const [hi, lo] = [lum(ca), lum(cb)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The durations (ms) of the page's performance measures named `name`, oldest first. */
export async function measures(frame: Frame, name: string): Promise<number[]> {
  return frame.evaluate((n) => performance.getEntriesByName(n, 'measure').map((e) => e.duration), name);
}

/** Waits until the page has a `name` measure; returns its last duration. */
export async function waitForMeasure(frame: Frame, name: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const all = await measures(frame, name).catch(() => []);
    const last = all.at(-1);
    if (last !== undefined) return last;
    await frame.page().waitForTimeout(100);
  }
  throw new Error(`the Timeline page measured no ${name}`);
}

/**
 * Drags the sash on the left edge of the editor group holding the Timeline so the group is `width` px wide, as a
 * user narrows an editor column; returns the group's width after the drag.
 */
export async function sizeTimelineGroup(page: Page, width: number): Promise<number> {
  const group = page.locator('.editor-group-container', { has: page.locator('.tab', { hasText: 'Timeline:' }) });
  const box = await group.first().boundingBox();
  if (!box) throw new Error('the Timeline is in no editor group');
  const sashes = page.locator('.part.editor .monaco-sash.vertical');
  for (let i = 0; i < (await sashes.count()); i++) {
    const sash = await sashes.nth(i).boundingBox();
    if (!sash || Math.abs(sash.x + sash.width / 2 - box.x) > 4) continue;
    const y = sash.y + sash.height / 2;
    await page.mouse.move(box.x, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - width, y, { steps: 8 });
    await page.mouse.up();
    await page.mouse.move(5, 300);
    const after = await group.first().boundingBox();
    return after?.width ?? 0;
  }
  throw new Error("found no sash on the Timeline group's left edge");
}

/** Waits until the Timeline's canvas is drawn `width` px wide or less (the page follows its panel's size). */
export async function waitForCanvasWidth(frame: Frame, atMost: number): Promise<number> {
  const canvas = frame.locator('canvas.tl-canvas');
  const deadline = Date.now() + 15_000;
  let width = Infinity;
  while (Date.now() < deadline) {
    width = await canvas.evaluate((c) => c.getBoundingClientRect().width);
    if (width <= atMost) return width;
    await frame.page().waitForTimeout(100);
  }
  throw new Error(`the timeline's canvas stayed ${width} px wide (at most ${atMost} expected)`);
}

/**
 * Waits until the workbench itself is painted in the light or dark theme (the side bar's computed background), not
 * only the Timeline's canvas: after a theme toggle VS Code repaints its parts one after another, and a screenshot
 * taken between them shows a light side bar beside a dark panel. Then until every webview's page has the theme's
 * colours too (VS Code posts them to each webview's frame after the workbench has changed, so a screenshot taken
 * between shows a dark workbench around light webviews), and two frames have been painted since in each.
 */
export async function workbenchPainted(page: Page, light: boolean): Promise<void> {
  await page.waitForFunction(
    (wantLight) => {
      // the first of these parts that paints a background (a transparent one reads as rgba(0, 0, 0, 0))
      const painted = ['.part.sidebar', '.part.sidebar .content', '.part.editor', '.monaco-workbench']
        .flatMap((q) => Array.from(document.querySelectorAll(q)))
        .map((el) => getComputedStyle(el).backgroundColor)
        .find((c) => !/^rgba\(\d+, \d+, \d+, 0\)$/.test(c) && c !== 'transparent');
      const m = painted ? /rgba?\((\d+), (\d+), (\d+)/.exec(painted) : null;
      if (!m) return false;
      const luminance = 0.299 * Number(m[1]) + 0.587 * Number(m[2]) + 0.114 * Number(m[3]);
      return wantLight ? luminance >= 128 : luminance < 128;
    },
    light,
    { timeout: 30_000 },
  );
  await webviewsPainted(page, light);
  // and two frames painted since, so the screenshot holds the repainted parts rather than their old tiles
  await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
}

/** Waits until each webview page shown has the light or dark theme's editor background among its variables. */
async function webviewsPainted(page: Page, light: boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const seen = await Promise.all(
      page.frames().map((frame) =>
        frame
          .evaluate(() => {
            const v = getComputedStyle(document.documentElement).getPropertyValue('--vscode-editor-background').trim();
            return v && document.visibilityState === 'visible' ? v : undefined;
          })
          .catch(() => undefined),
      ),
    );
    const wrong = seen.filter((c): c is string => c !== undefined && isLight(c) !== light && /^#/.test(c));
    if (wrong.length === 0) break;
    if (Date.now() > deadline)
      throw new Error(`webviews kept the other theme's background: ${wrong.join(', ')} (light wanted: ${light})`);
    await page.waitForTimeout(100);
  }
  // a hidden page draws no frame: it is not waited for
  await Promise.all(
    page
      .frames()
      .map((frame) =>
        frame
          .evaluate(() =>
            document.visibilityState === 'visible'
              ? new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))
              : undefined,
          )
          .catch(() => undefined),
      ),
  );
}
