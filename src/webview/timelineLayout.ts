/**
 * Where the Timeline puts things, in the x domain of its axis and in rows: a lane per run shown (forks and sub-agent
 * runs after the run they hang from, hidden under a collapsed one), each lane's bars sorted by their start, and
 * each run's shift — a fork drawn from its parent's fork point on, a sub-agent from the call that started it. The
 * wall-clock axis is milliseconds; the step axis is checkpoint positions (one per checkpoint: runs with idle gaps
 * or no timings read evenly). Pure: no DOM, so unit tests lay a 20,000-checkpoint run out.
 */
import type { Timeline, TimelineCall, TimelineRun } from '../model/timeline';

export type Axis = 'time' | 'steps';

/** Pixel heights of a lane's parts: its label line, its bar track, its token strip, the gap after it. */
export const LANE = { label: 16, track: 18, tokens: 12, gap: 8 } as const;
export const LANE_HEIGHT = LANE.label + LANE.track + LANE.tokens + LANE.gap;

/** A bar's colour key: the call's kind and side-effect level (the page maps each to a theme colour). */
export type BarColor = 'model' | 'none' | 'read_only' | 'expensive_read' | 'write' | 'external_irreversible';

export interface Bar {
  call: TimelineCall;
  x0: number;
  x1: number;
  color: BarColor;
}

export interface Lane {
  run: TimelineRun;
  /** Position in `Timeline.runs`. */
  index: number;
  depth: number;
  /** The lane of the run this one hangs from. */
  parent?: number;
  /** Domain offset of this run's own x (its clock moved to its branch point, or its steps after its parent's). */
  shift: number;
  bars: Bar[];
  /** `bars[i].x0`, for binary searches. */
  starts: Float64Array;
  /** Domain x of the branch point on the parent's lane (a fork's fork point, a sub-agent's calling call). */
  branchX?: number;
  hasChildren: boolean;
}

export interface Layout {
  axis: Axis;
  lanes: Lane[];
  /** The domain every lane fits in. */
  domain: [number, number];
  /** Counts the times its lanes grew in place (timelineGrow.ts): what is drawn once per layout is drawn again. */
  grown?: number;
}

function colorOf(call: TimelineCall): BarColor {
  return call.kind === 'model' ? 'model' : (call.sideEffect ?? 'none');
}

/** Domain x of checkpoint `i` of a lane's run. */
export function cpX(lane: Pick<Lane, 'run' | 'shift'>, axis: Axis, i: number): number {
  if (axis === 'steps') return lane.shift + i;
  const at = lane.run.cpAt;
  return lane.shift + (at[Math.max(0, Math.min(i, at.length - 1))] ?? lane.run.startedAt);
}

/** A call's bar on its lane. */
export function barOf(lane: Pick<Lane, 'run' | 'shift'>, axis: Axis, call: TimelineCall): Bar {
  let x0: number;
  let x1: number;
  if (axis === 'steps') {
    x0 = lane.shift + call.cp;
    x1 = lane.shift + Math.max(call.endCp ?? call.cp + 1, call.cp + 0.6);
  } else {
    x0 = lane.shift + call.start;
    // an open call runs to the run's last checkpoint (a live run: to now, as far as the store knows)
    const end = call.end ?? lane.run.cpAt[lane.run.cpAt.length - 1] ?? call.start;
    x1 = lane.shift + Math.max(end, call.start);
  }
  return { call, x0, x1, color: colorOf(call) };
}

function barsOf(lane: Pick<Lane, 'run' | 'shift'>, axis: Axis): Bar[] {
  const bars: Bar[] = lane.run.calls.map((call) => barOf(lane, axis, call));
  bars.sort((a, b) => a.x0 - b.x0);
  return bars;
}

/** The span of the domain a lane needs: its branch point, its first and last checkpoints, its last bar's end. */
export function laneExtent(lane: Lane, axis: Axis): [number, number] {
  const run = lane.run;
  const first = run.cpAt.length > 0 ? cpX(lane, axis, 0) : lane.shift + (axis === 'steps' ? 0 : run.startedAt);
  const last = run.cpAt.length > 0 ? cpX(lane, axis, run.cpAt.length - 1) + (axis === 'steps' ? 1 : 0) : first;
  const lastBar = lane.bars[lane.bars.length - 1];
  return [Math.min(lane.branchX ?? first, first), Math.max(last, lastBar ? lastBar.x1 : -Infinity)];
}

/** The domain every lane of `lanes` fits in. */
export function domainOf(lanes: readonly Lane[], axis: Axis): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const lane of lanes) {
    const [a, b] = laneExtent(lane, axis);
    lo = Math.min(lo, a);
    hi = Math.max(hi, b);
  }
  if (!Number.isFinite(lo)) [lo, hi] = [0, 1];
  if (hi <= lo) hi = lo + 1;
  return [lo, hi];
}

/** Lays `timeline` out on `axis`, leaving out the lanes under a collapsed run. */
export function layOut(timeline: Timeline, axis: Axis, collapsed: ReadonlySet<string> = new Set()): Layout {
  const byRun = new Map<string, Lane>();
  const lanes: Lane[] = [];
  const hidden = new Set<string>();
  const parents = new Set(timeline.runs.map((r) => r.parentRunId).filter((p): p is string => p !== undefined));
  timeline.runs.forEach((run, index) => {
    const parent = run.parentRunId !== undefined ? byRun.get(run.parentRunId) : undefined;
    if (run.parentRunId !== undefined && (hidden.has(run.parentRunId) || collapsed.has(run.parentRunId))) {
      hidden.add(run.runId);
      return;
    }
    let shift = 0;
    let branchX: number | undefined;
    if (parent) {
      if (run.kind === 'fork') {
        const at = run.forkIndex ?? 0;
        branchX = cpX(parent, axis, at);
        shift = axis === 'steps' ? branchX + 1 : branchX - run.startedAt;
      } else {
        const caller = parent.run.calls.find((c) => c.toolCallId !== undefined && c.toolCallId === run.calledBy);
        branchX = caller ? cpX(parent, axis, caller.cp) : cpX(parent, axis, 0);
        shift = axis === 'steps' ? branchX : parent.shift;
      }
    }
    const partial = { run, shift };
    const bars = barsOf(partial, axis);
    const lane: Lane = {
      run,
      index,
      depth: parent ? parent.depth + 1 : 0,
      shift,
      bars,
      starts: Float64Array.from(bars, (b) => b.x0),
      hasChildren: parents.has(run.runId),
    };
    if (parent) lane.parent = lanes.indexOf(parent);
    if (branchX !== undefined) lane.branchX = branchX;
    byRun.set(run.runId, lane);
    lanes.push(lane);
  });
  return { axis, lanes, domain: domainOf(lanes, axis) };
}

/** Index of the first bar of `lane` ending at or after domain x `x` could start (bars sorted by start). */
export function firstBarFrom(lane: Lane, x: number): number {
  let lo = 0;
  let hi = lane.starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((lane.starts[mid] ?? 0) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The bar of `lane` under domain x `x` (within `slack` domain units), nearest first; undefined when none. */
export function barAt(lane: Lane, x: number, slack: number): number | undefined {
  let best: number | undefined;
  let bestDist = Infinity;
  // bars starting up to a long call before x may cover it: walk back from x while they can
  for (let i = Math.min(firstBarFrom(lane, x + slack), lane.bars.length) - 1; i >= 0; i--) {
    const b = lane.bars[i] as Bar;
    const dist = x < b.x0 ? b.x0 - x : x > b.x1 ? x - b.x1 : 0;
    if (dist <= slack && dist < bestDist) {
      best = i;
      bestDist = dist;
      if (dist === 0) break;
    }
    if (b.x1 < x - slack && lane.bars.length - i > 64) break;
  }
  return best;
}

/** The bar of `lane` that holds checkpoint `cp` (starts at it, or spans it), if any. */
export function barOfCheckpoint(lane: Lane, cp: number): number | undefined {
  let best: number | undefined;
  lane.bars.forEach((b, i) => {
    const end = b.call.endCp ?? b.call.cp;
    if (b.call.cp <= cp && cp <= end && (best === undefined || (lane.bars[best] as Bar).call.cp < b.call.cp)) best = i;
  });
  return best;
}
