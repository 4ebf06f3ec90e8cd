/**
 * The Timeline canvas's text: the ruler and its labels, each lane's label line (its name, token total and status),
 * and the marks written beside a point; cut with an ellipsis as VS Code's views cut a label that does not fit.
 */
import type { Lane } from './timelineLayout';
import { LANE } from './timelineLayout';
import { RULER, type DrawState } from './timelineScene';

/** Draws the ruler; returns where its last label ends (px). */
export function ruler(ctx: CanvasRenderingContext2D, s: DrawState): number {
  const { x, palette, layout } = s;
  ctx.fillStyle = palette.muted;
  ctx.strokeStyle = palette.line;
  ctx.font = '10px sans-serif';
  ctx.textBaseline = 'middle';
  const ticks = x.ticks(Math.max(2, Math.floor(s.width / 90)));
  const step = ticks.length > 1 ? (ticks[1] ?? 0) - (ticks[0] ?? 0) : 1000;
  let free = 0;
  for (const t of ticks) {
    const px = Math.round(x(t)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(px, RULER - 5);
    ctx.lineTo(px, RULER);
    ctx.stroke();
    const label = layout.axis === 'steps' ? `[${Math.round(t)}]` : relative(t - s.origin, step);
    const from = rulerLabelAt(px, ctx.measureText(label).width, s.width, free);
    if (from === undefined) continue;
    ctx.fillText(label, from, RULER / 2 - 1);
    free = from + ctx.measureText(label).width + 4;
  }
  return free - 4;
}

/**
 * Where a ruler label `w` px wide for the tick at `px` starts: right of its tick, or left of it when it would be
 * cut at the canvas's right edge (`width`); undefined when it would overlap the label before it (ending at `free`).
 */
export function rulerLabelAt(px: number, w: number, width: number, free: number): number | undefined {
  const from = px + 2 + w <= width - 1 ? px + 2 : px - 2 - w;
  return from < free || from < 0 ? undefined : from;
}

/** A token count short enough for a lane's label line: 812, 22.9k, 17.0M. */
export function compact(n: number): string {
  if (n < 10_000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/**
 * A time since the run's start as the ruler reads it, as precise as the ticks are apart (`step` ms): zoomed into a
 * long run, ticks 50 ms apart at 23 minutes read `+23:42.05`, not all `+23.7 min`.
 */
export function relative(ms: number, step: number): string {
  const a = Math.abs(ms);
  const sign = ms < 0 ? '-' : '+';
  if (a < 1000 && step < 1000) return `${sign}${Math.round(a)} ms`;
  const decimals = step >= 1000 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3;
  if (a < 60_000) return `${sign}${(a / 1000).toFixed(decimals)} s`;
  const seconds = ((a % 60_000) / 1000).toFixed(decimals).padStart(decimals ? 3 + decimals : 2, '0');
  const minutes = Math.floor(a / 60_000);
  if (minutes < 60) return `${sign}${minutes}:${seconds}`;
  return `${sign}${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}:${seconds}`;
}

/** A lane's name as its label line shows it, where it starts and where the line is free after it (px). */
export function nameOf(
  ctx: CanvasRenderingContext2D,
  s: DrawState,
  lane: Lane,
): { name: string; x: number; end: number } {
  ctx.font = '11px sans-serif';
  const x = 4 + lane.depth * 12 + (lane.hasChildren ? 10 : 0);
  // plain box-drawing marks: every font the page may fall back to has them
  const name = fitText(
    ctx,
    lane.run.kind === 'run' ? lane.run.runId : `└ ${laneName(lane.run, s.width)}`,
    Math.max(40, s.width * 0.45),
  );
  return { name, x, end: x + ctx.measureText(name).width + 8 };
}

/**
 * Draws a lane's label line: its name, its token total and its status. `reserved` is a span of the line the replay
 * cursor's label takes: the status ends before it rather than showing in pieces around it.
 */
export function label(ctx: CanvasRenderingContext2D, s: DrawState, lane: Lane, top: number, reserved?: Span): void {
  const { palette } = s;
  const { name, x: nameX, end } = nameOf(ctx, s, lane);
  ctx.textBaseline = 'middle';
  const y = top + LANE.label / 2;
  if (lane.hasChildren) {
    ctx.fillStyle = palette.muted;
    ctx.fillText('▾', nameX - 10, y);
  }
  ctx.fillStyle = palette.text;
  ctx.fillText(name, nameX, y);
  const at = end;
  let right = s.width - 4;
  if (lane.run.inputTokens + lane.run.outputTokens > 0) {
    // the run's token total at the right of its label line, clear of the bars; it gives way to the status
    ctx.font = '10px sans-serif';
    const total = `Σ ${compact(lane.run.inputTokens)} in / ${compact(lane.run.outputTokens)} out`;
    const w = ctx.measureText(total).width;
    if (s.width - at > w + 120) {
      ctx.fillStyle = palette.muted;
      ctx.textAlign = 'right';
      ctx.fillText(total, right, y);
      ctx.textAlign = 'left';
      right -= w + 10;
    }
    ctx.font = '11px sans-serif';
  }
  if (reserved && reserved.x1 > at) right = Math.min(right, reserved.x0 - 6);
  const status = lane.run.statusText;
  ctx.fillStyle = lane.run.status === 'failed' || lane.run.status === 'crashed' ? palette.error : palette.muted;
  if (lane.run.status === 'diverged') ctx.fillStyle = palette.cursor;
  if (right - at >= 12) ctx.fillText(fitText(ctx, status, right - at), at, y);
}

/** A horizontal span of a line (px). */
export interface Span {
  x0: number;
  x1: number;
}

/**
 * A fork's or sub-agent's name on its lane: in a narrow view, what follows its parent's id when it starts with it
 * (`…-auditor`), the part that tells the branches apart; the whole id is in its hover and the text list.
 */
function laneName(run: Lane['run'], width: number): string {
  const parent = run.parentRunId;
  if (width >= NARROW || !parent || !run.runId.startsWith(parent) || run.runId.length <= parent.length + 1)
    return run.runId;
  return `…${run.runId.slice(parent.length)}`;
}

/** Below this width (px) lane names keep their distinguishing part only. */
const NARROW = 480;

/**
 * `text` cut to `max` px with an ellipsis, as VS Code's views cut a label that does not fit (never squeezed: a
 * canvas's own maxWidth narrows the glyphs instead).
 */
export function fitText(ctx: CanvasRenderingContext2D, text: string, max: number): string {
  if (ctx.measureText(text).width <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= max) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? '' : `${text.slice(0, lo).trimEnd()}…`;
}

/** Writes `text` just right of `px`, or just left of it when it would be cut at the canvas's right edge. */
export function besideMark(ctx: CanvasRenderingContext2D, text: string, px: number, y: number, width: number): void {
  const w = ctx.measureText(text).width;
  if (px + 7 + w <= width - 2 || px - 7 - w < 0) ctx.fillText(text, px + 7, y);
  else {
    ctx.textAlign = 'right';
    ctx.fillText(text, px - 7, y);
    ctx.textAlign = 'left';
  }
}

/** The fonts the canvas writes in, and every mark it writes that a fallback font may have to draw. */
const FONTS = ['10px sans-serif', 'bold 10px sans-serif', '11px sans-serif'];
const GLYPHS = '▾└…✕✎⏸Σ[]+-:.0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Measures the canvas's fonts and marks once on a scratch canvas: the first text a page's canvas writes loads its
 * fonts and finds the fallbacks of its marks (tens of milliseconds on a loaded machine), and a page that does it
 * while it waits for its timeline does not do it in its first frame.
 */
export function warmText(): void {
  const ctx = document.createElement('canvas').getContext('2d');
  if (!ctx) return;
  for (const font of FONTS) {
    ctx.font = font;
    ctx.measureText(GLYPHS);
    ctx.fillText(GLYPHS, 0, 0);
  }
}
