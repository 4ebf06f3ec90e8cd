/**
 * Draws a Timeline layout on a canvas: the ruler, each lane's label (run, status, "diverged at step N"), its bars
 * coloured by kind and side-effect level (errors, cancelled calls and live edits marked), its token strip, the
 * branch lines of forks and sub-agents, the replay position and the focused bar. Bars thinner than a pixel are
 * drawn once per pixel column and colour, so a 20,000-checkpoint run costs its visible columns, not its calls.
 * Its text (ruler, labels) is timelineText.ts's; what it is given, timelineScene.ts's.
 */
import { TIMELINE_BOUNDARIES } from '../model/timeline';
import { LANE, cpX, firstBarFrom, type Bar, type Lane } from './timelineLayout';
import { besideMark, label, nameOf, ruler, type Span } from './timelineText';
import { laneTop, linearOf, type DrawState } from './timelineScene';

export { RULER, laneTop, readPalette, type DrawState, type Palette } from './timelineScene';

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
  const { a, b: shift } = linearOf(x);
  for (; i < lane.bars.length; i++) {
    const b = lane.bars[i] as Bar;
    if (b.x0 > d1) break;
    if (b.x1 < d0) continue;
    const px0 = Math.floor(b.x0 * a + shift);
    const special = b.call.state === 'error' || b.call.state === 'cancelled' || b.call.edited === true;
    if (special) marks.push({ px: px0, bar: b });
    if (b.x1 * a + shift - px0 >= 1.5) {
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
  const { a, b: shift } = linearOf(x);
  for (let i = Math.max(0, firstBarFrom(lane, d0) - 256); i < lane.bars.length; i++) {
    const b = lane.bars[i] as Bar;
    if (b.x0 > d1) break;
    if (b.call.kind !== 'model' || b.x1 < d0) continue;
    const px = Math.floor(b.x0 * a + shift);
    if (px === lastPx) continue;
    lastPx = px;
    shown.push({
      px,
      w: Math.max(1, Math.min(6, b.x1 * a + shift - px)),
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
