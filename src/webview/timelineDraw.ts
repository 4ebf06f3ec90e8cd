/**
 * Draws a Timeline layout on a canvas: the ruler, each lane's label (run, status, "diverged at step N"), its bars
 * coloured by kind and side-effect level (errors, cancelled calls and live edits marked), its token strip, the
 * branch lines of forks and sub-agents, the replay position and the focused bar. Bars thinner than a pixel are
 * drawn once per pixel column and colour, so a 20,000-checkpoint run costs its visible columns, not its calls.
 */
import type { ScaleLinear } from 'd3-scale';
import { TIMELINE_BOUNDARIES } from '../model/timeline';
import {
  LANE,
  LANE_HEIGHT,
  cpX,
  firstBarFrom,
  type Bar,
  type BarColor,
  type Lane,
  type Layout,
} from './timelineLayout';

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

/** Draws the ruler; returns where its last label ends (px). */
function ruler(ctx: CanvasRenderingContext2D, s: DrawState): number {
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
function nameOf(ctx: CanvasRenderingContext2D, s: DrawState, lane: Lane): { name: string; x: number; end: number } {
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
function label(ctx: CanvasRenderingContext2D, s: DrawState, lane: Lane, top: number, reserved?: Span): void {
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
interface Span {
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
function besideMark(ctx: CanvasRenderingContext2D, text: string, px: number, y: number, width: number): void {
  const w = ctx.measureText(text).width;
  if (px + 7 + w <= width - 2 || px - 7 - w < 0) ctx.fillText(text, px + 7, y);
  else {
    ctx.textAlign = 'right';
    ctx.fillText(text, px - 7, y);
    ctx.textAlign = 'left';
  }
}

function barRect(ctx: CanvasRenderingContext2D, x0: number, x1: number, y: number, h: number): void {
  ctx.fillRect(x0, y, Math.max(1, x1 - x0), h);
}

/**
 * A pixel column holding several tool calls shows its most consequential one: a cancelled call least, then the
 * side-effect levels in order, an irreversible call most (it never disappears under the reads beside it).
 */
const COLUMN_RANK = ['cancelled', 'none', 'read_only', 'expensive_read', 'write', 'external_irreversible'] as const;
const RANK_OF = new Map<string, number>(COLUMN_RANK.map((c, i) => [c, i + 1]));

/** Fills the runs of equal non-zero values of `columns` (one per pixel) at `y`, `h` high, in `colorOf`'s colours. */
function fillColumns(
  ctx: CanvasRenderingContext2D,
  columns: Uint8Array,
  colorOf: (value: number) => string,
  y: number,
  h: number,
): void {
  let from = 0;
  let value = 0;
  for (let c = 0; c <= columns.length; c++) {
    const v = c < columns.length ? (columns[c] ?? 0) : 0;
    if (v === value) continue;
    if (value !== 0) {
      ctx.fillStyle = colorOf(value);
      ctx.fillRect(from, y, c - from, h);
    }
    from = c;
    value = v;
  }
}

function bars(ctx: CanvasRenderingContext2D, s: DrawState, lane: Lane, top: number): void {
  const { x, palette } = s;
  const y = top + LANE.label + 2;
  const h = LANE.track - 4;
  const [d0, d1] = x.domain() as [number, number];
  // the run's span: a thin line from its first to its last checkpoint
  const n = lane.run.cpAt.length;
  if (n > 0) {
    ctx.fillStyle = palette.line;
    const a = x(cpX(lane, s.layout.axis, 0));
    const b = x(cpX(lane, s.layout.axis, n - 1) + (s.layout.axis === 'steps' ? 1 : 0));
    ctx.fillRect(Math.max(0, a), y + h / 2 - 0.5, Math.max(1, Math.min(s.width, b) - Math.max(0, a)), 1);
  }
  // a long call may start before the view: look back for it, then draw from there
  let i = Math.max(0, firstBarFrom(lane, d0) - 1);
  while (i > 0 && (lane.bars[i - 1] as Bar).x1 >= d0 && firstBarFrom(lane, d0) - i < 256) i--;
  // bars under a pixel wide are gathered per pixel column and drawn as runs of columns, so a 20,000-checkpoint run
  // costs the view's columns; wider bars are drawn one by one
  const width = Math.max(1, Math.ceil(s.width));
  const modelColumns = new Uint8Array(width);
  const toolColumns = new Uint8Array(width);
  const wide: Bar[] = [];
  const marks: { px: number; bar: Bar }[] = [];
  for (; i < lane.bars.length; i++) {
    const b = lane.bars[i] as Bar;
    if (b.x0 > d1) break;
    if (b.x1 < d0) continue;
    const px0 = Math.floor(x(b.x0));
    const special = b.call.state === 'error' || b.call.state === 'cancelled' || b.call.edited === true;
    if (special) marks.push({ px: px0, bar: b });
    if (x(b.x1) - px0 >= 1.5) {
      wide.push(b);
      continue;
    }
    const col = Math.max(0, Math.min(width - 1, px0));
    if (b.call.kind === 'model') modelColumns[col] = 1;
    else {
      const rank = RANK_OF.get(b.call.state === 'cancelled' ? 'cancelled' : b.color) ?? 1;
      if (rank > (toolColumns[col] ?? 0)) toolColumns[col] = rank;
    }
  }
  // tool calls sit in the lower part of the track, model calls in the upper: both read where they overlap
  fillColumns(ctx, modelColumns, () => palette.bars.model, y, h * 0.6);
  fillColumns(
    ctx,
    toolColumns,
    (v) => {
      const key = COLUMN_RANK[v - 1] ?? 'none';
      return key === 'cancelled' ? palette.cancelled : palette.bars[key];
    },
    y + h * 0.35,
    h * 0.65,
  );
  for (const b of wide) {
    ctx.fillStyle = b.call.state === 'cancelled' ? palette.cancelled : palette.bars[b.color];
    const tool = b.call.kind === 'tool';
    barRect(ctx, Math.floor(x(b.x0)), x(b.x1), tool ? y + h * 0.35 : y, tool ? h * 0.65 : h * 0.6);
  }
  for (const { px, bar } of marks) {
    if (bar.call.state === 'error') {
      ctx.fillStyle = palette.error;
      ctx.fillRect(px, y + h - 2, Math.max(3, x(bar.x1) - px), 3);
      ctx.font = 'bold 10px sans-serif';
      ctx.fillText('✕', px, y - 1);
    }
    if (bar.call.edited) {
      ctx.fillStyle = palette.text;
      ctx.font = '10px sans-serif';
      ctx.fillText('✎', px + 2, y + 2);
    }
  }
  ctx.font = '10px sans-serif';
  for (const at of lane.run.liveEdits) {
    const px = x(cpX(lane, s.layout.axis, at));
    if (px < 0 || px > s.width) continue;
    ctx.fillStyle = palette.text;
    ctx.fillText('✎', px - 3, y + 2);
  }
  const d = lane.run.divergence;
  if (d) {
    const at = d.cp ?? n - 1;
    const px = x(cpX(lane, s.layout.axis, Math.max(0, at)));
    ctx.fillStyle = palette.cursor;
    ctx.beginPath();
    ctx.moveTo(px, y - 1);
    ctx.lineTo(px + 5, y + h / 2);
    ctx.lineTo(px, y + h + 1);
    ctx.lineTo(px - 5, y + h / 2);
    ctx.fill();
    ctx.font = '10px sans-serif';
    besideMark(ctx, `diverged at step ${d.stepIndex}`, px, y + h / 2, s.width);
  }
  if (lane.run.pausedAt !== undefined) {
    const px = x(cpX(lane, s.layout.axis, lane.run.pausedAt));
    ctx.fillStyle = palette.cursor;
    besideMark(ctx, '⏸ PAUSED', px - 3, y + h / 2, s.width);
  }
}

function tokens(ctx: CanvasRenderingContext2D, s: DrawState, lane: Lane, top: number, max: number): void {
  const { x, palette } = s;
  const y0 = top + LANE.label + LANE.track + LANE.tokens - 1;
  const h = LANE.tokens - 2;
  const [d0, d1] = x.domain() as [number, number];
  // one model call per pixel column, each colour filled in one pass (a colour change costs more than a rect)
  const shown: { px: number; w: number; inH: number; outH: number }[] = [];
  let lastPx = -1;
  for (let i = Math.max(0, firstBarFrom(lane, d0) - 256); i < lane.bars.length; i++) {
    const b = lane.bars[i] as Bar;
    if (b.x0 > d1) break;
    if (b.call.kind !== 'model' || b.x1 < d0) continue;
    const px = Math.floor(x(b.x0));
    if (px === lastPx) continue;
    lastPx = px;
    shown.push({
      px,
      w: Math.max(1, Math.min(6, x(b.x1) - px)),
      inH: ((b.call.tokensIn ?? 0) / max) * h,
      outH: ((b.call.tokensOut ?? 0) / max) * h,
    });
  }
  ctx.fillStyle = palette.tokensIn;
  for (const t of shown) ctx.fillRect(t.px, y0 - t.inH, t.w, t.inH);
  ctx.fillStyle = palette.tokensOut;
  for (const t of shown) ctx.fillRect(t.px, y0 - t.inH - t.outH, t.w, t.outH);
}

function branch(ctx: CanvasRenderingContext2D, s: DrawState, lane: Lane, top: number): void {
  if (lane.parent === undefined || lane.branchX === undefined) return;
  const parentTop = laneTop(lane.parent);
  const px = Math.round(s.x(lane.branchX)) + 0.5;
  const start = s.x(lane.run.cpAt.length > 0 ? cpX(lane, s.layout.axis, 0) : lane.branchX);
  const yFrom = parentTop + LANE.label + LANE.track / 2;
  const yTo = top + LANE.label + LANE.track / 2;
  ctx.strokeStyle = lane.run.kind === 'fork' ? s.palette.text : s.palette.muted;
  ctx.lineWidth = 1;
  ctx.setLineDash(lane.run.kind === 'subagent' ? [3, 2] : []);
  ctx.beginPath();
  ctx.moveTo(px, yFrom);
  ctx.lineTo(px, yTo);
  ctx.lineTo(Math.max(px, start), yTo);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.fillStyle = s.palette.text;
  ctx.beginPath();
  ctx.arc(px, yFrom, 2.5, 0, Math.PI * 2);
  ctx.fill();
}

function outline(ctx: CanvasRenderingContext2D, s: DrawState, at: { lane: number; bar: number }, color: string): void {
  const lane = s.layout.lanes[at.lane];
  const b = lane?.bars[at.bar];
  if (!lane || !b) return;
  const top = laneTop(at.lane) + LANE.label + 1;
  const x0 = Math.floor(s.x(b.x0)) - 1.5;
  ctx.strokeStyle = color;
  ctx.lineWidth = 1.5;
  ctx.strokeRect(x0, top, Math.max(4, s.x(b.x1) - x0 + 1.5), LANE.track - 2);
}

/** The replay cursor's lane, its x, and its label (`[15] before_tool_call`, or `[15]` where that does not fit). */
interface CursorMark {
  laneIndex: number;
  px: number;
  text: string;
  /** Where the label sits on the lane's label line: after the run's name, never over it. */
  span: Span;
  /** Where the run's name ends on that line. */
  nameEnd: number;
}

/** Where the texts that could collide were put, for the UI tests (the page's `data-` attributes). */
export interface Drawn {
  rulerEnd: number;
  cursor?: { label: Span; nameEnd: number };
}

function cursorMark(ctx: CanvasRenderingContext2D, s: DrawState): CursorMark | undefined {
  const p = s.position;
  if (!p) return undefined;
  const laneIndex = s.layout.lanes.findIndex((l) => l.run.runId === p.runId);
  const lane = s.layout.lanes[laneIndex];
  if (!lane) return undefined;
  const px = Math.round(s.x(cpX(lane, s.layout.axis, p.index) + (s.layout.axis === 'steps' ? 0.3 : 0))) + 0.5;
  const nameEnd = nameOf(ctx, s, lane).end;
  ctx.font = 'bold 10px sans-serif';
  const boundary = TIMELINE_BOUNDARIES[lane.run.cpBoundary[p.index] ?? 0] ?? '';
  for (const text of [`[${p.index}] ${boundary}`, `[${p.index}]`]) {
    const w = ctx.measureText(text).width;
    const x0 = Math.max(nameEnd, Math.min(px + 6, s.width - w - 2));
    if (x0 + w <= s.width - 2 || text === `[${p.index}]`)
      return { laneIndex, px, text, span: { x0, x1: x0 + w }, nameEnd: nameEnd - 8 };
  }
  return undefined;
}

function cursor(ctx: CanvasRenderingContext2D, s: DrawState, mark: CursorMark | undefined): void {
  if (!mark) return;
  const { laneIndex, px, text } = mark;
  const top = laneTop(laneIndex);
  ctx.strokeStyle = s.palette.cursor;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(px, top + LANE.label - 2);
  ctx.lineTo(px, top + LANE.label + LANE.track + LANE.tokens);
  ctx.stroke();
  ctx.fillStyle = s.palette.cursor;
  ctx.beginPath();
  ctx.moveTo(px - 5, top + LANE.label - 6);
  ctx.lineTo(px + 5, top + LANE.label - 6);
  ctx.lineTo(px, top + LANE.label);
  ctx.fill();
  ctx.font = 'bold 10px sans-serif';
  const { x0: tx, x1 } = mark.span;
  // on the lane's label line, after the run's name (the status there ends before it); the backdrop hides the
  // branch lines that cross the line
  ctx.fillStyle = s.palette.background;
  ctx.fillRect(tx - 2, top + 1, x1 - tx + 4, LANE.label - 4);
  ctx.fillStyle = s.palette.cursor;
  ctx.fillText(text, tx, top + LANE.label - 8);
  ctx.lineWidth = 1;
}

/** Draws everything (the canvas's pixel size set by the caller, its context scaled to CSS pixels). */
export function draw(ctx: CanvasRenderingContext2D, s: DrawState, height: number): Drawn {
  ctx.clearRect(0, 0, s.width, height);
  const rulerEnd = ruler(ctx, s);
  let maxTokens = 1;
  for (const lane of s.layout.lanes)
    for (const b of lane.bars)
      if (b.call.kind === 'model') maxTokens = Math.max(maxTokens, (b.call.tokensIn ?? 0) + (b.call.tokensOut ?? 0));
  s.layout.lanes.forEach((lane, i) => branch(ctx, s, lane, laneTop(i)));
  const mark = cursorMark(ctx, s);
  s.layout.lanes.forEach((lane, i) => {
    const top = laneTop(i);
    label(ctx, s, lane, top, mark?.laneIndex === i ? mark.span : undefined);
    bars(ctx, s, lane, top);
    tokens(ctx, s, lane, top, maxTokens);
  });
  if (s.hover) outline(ctx, s, s.hover, s.palette.muted);
  if (s.focus) outline(ctx, s, s.focus, s.palette.focus);
  cursor(ctx, s, mark);
  return { rulerEnd, ...(mark ? { cursor: { label: mark.span, nameEnd: mark.nameEnd } } : {}) };
}
