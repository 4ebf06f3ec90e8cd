/**
 * What a Timeline draw is given: the theme's colours (read from VS Code's CSS variables, or the file's fallbacks),
 * the layout, the x scale and what is marked on it (the replay position, the focused and hovered bar), and where
 * each lane sits. Shared by the canvas's parts (timelineDraw.ts, timelineText.ts) and the minimap.
 */
import type { ScaleLinear } from 'd3-scale';
import { LANE_HEIGHT, type BarColor, type Layout } from './timelineLayout';

export const RULER = 20;

/** The theme colours the page reads from VS Code's CSS variables (or the file's fallbacks). */
export interface Palette {
  bars: Record<BarColor, string>;
  error: string;
  cancelled: string;
  text: string;
  muted: string;
  line: string;
  cursor: string;
  focus: string;
  tokensIn: string;
  tokensOut: string;
  background: string;
}

export function readPalette(el: Element): Palette {
  const css = getComputedStyle(el);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    bars: {
      model: v('--vscode-charts-blue', '#3794ff'),
      none: v('--vscode-charts-green', '#89d185'),
      read_only: v('--vscode-charts-green', '#89d185'),
      expensive_read: v('--vscode-charts-yellow', '#cca700'),
      // the high-contrast themes define no charts.orange: a modified file's colour says "write" as well
      write: v('--vscode-charts-orange', v('--vscode-gitDecoration-modifiedResourceForeground', '#d18616')),
      external_irreversible: v('--vscode-charts-purple', '#b180d7'),
    },
    error: v('--vscode-errorForeground', '#f14c4c'),
    cancelled: v('--vscode-disabledForeground', '#888888'),
    text: v('--vscode-foreground', '#cccccc'),
    muted: v('--vscode-descriptionForeground', '#999999'),
    line: v('--vscode-editorIndentGuide-background1', v('--vscode-panel-border', '#80808059')),
    cursor: v('--vscode-debugIcon-stepOverForeground', v('--vscode-charts-yellow', '#ffcc00')),
    focus: v('--vscode-focusBorder', '#007fd4'),
    tokensIn: v('--vscode-charts-blue', '#3794ff'),
    tokensOut: v('--vscode-charts-purple', '#b180d7'),
    background: v('--vscode-editor-background', '#1e1e1e'),
  };
}

export interface DrawState {
  layout: Layout;
  x: ScaleLinear<number, number>;
  width: number;
  palette: Palette;
  /** The replay position: a run and a checkpoint index. */
  position?: { runId: string; index: number };
  /** The focused bar (keyboard). */
  focus?: { lane: number; bar: number };
  hover?: { lane: number; bar: number };
  /** The first relative time of the ruler (the root run's start). */
  origin: number;
}

export function laneTop(i: number): number {
  return RULER + i * LANE_HEIGHT;
}

/**
 * The x scale as `px = v * a + b`: the loops over every bar of a 20,000-checkpoint lane call it twice a bar, and a
 * multiply costs a fraction of a d3 scale's call (which interpolates and checks its domain each time).
 */
export function linearOf(x: ScaleLinear<number, number>): { a: number; b: number } {
  const [d0, d1] = x.domain() as [number, number];
  const [r0, r1] = x.range() as [number, number];
  const a = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  return { a, b: r0 - a * d0 };
}

/** Sizes a canvas to `width` × `height` CSS pixels, its backing store at the screen's pixel ratio. */
export function sizeCanvas(c: HTMLCanvasElement, width: number, height: number, dpr: number): void {
  c.width = Math.round(width * dpr);
  c.height = Math.round(height * dpr);
  c.style.width = `${width}px`;
  c.style.height = `${height}px`;
}

/** VS Code changes the theme's variables on the page in place: `changed` is called to draw in the new colours. */
export function onThemeChange(changed: () => void): void {
  new MutationObserver(changed).observe(document.documentElement, {
    attributes: true,
    subtree: false,
    attributeFilter: ['style', 'class'],
  });
  new MutationObserver(changed).observe(document.body, { attributes: true, attributeFilter: ['class'] });
}
