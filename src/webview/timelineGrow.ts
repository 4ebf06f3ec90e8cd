/**
 * A laid-out Timeline grown in place by a live run's delta (model/timelineDelta.ts, already applied to the runs the
 * layout's lanes hold): each lane that grew gets the bars of its new and changed calls (sorted in as `layOut` sorts
 * them), loses those of calls gone, and its open calls reach its new last checkpoint; the domain is that of the lanes.
 * What is drawn is then what `layOut` of the grown timeline gives, at the cost of what changed. A delta that moves
 * a lane's branch (a sub-agent's calling call changed) is not grown here: the caller lays the timeline out again.
 * Pure: no DOM.
 */
import type { TimelineLaneDelta } from '../model/timelineDelta';
import { barOf, domainOf, type Bar, type Lane, type Layout } from './timelineLayout';

/** Bar order: by start, then by checkpoint (layOut's stable sort of calls in checkpoint order). */
function before(a: Bar, b: Bar): boolean {
  return a.x0 < b.x0 || (a.x0 === b.x0 && a.call.cp < b.call.cp);
}

function insertBar(bars: Bar[], bar: Bar): void {
  const last = bars[bars.length - 1];
  if (!last || before(last, bar)) {
    bars.push(bar);
    return;
  }
  let lo = 0;
  let hi = bars.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(bars[mid] as Bar, bar)) lo = mid + 1;
    else hi = mid;
  }
  bars.splice(lo, 0, bar);
}

/** Index of the bar of the call at checkpoint `cp`, looked for from the end (what changes is mostly recent). */
function barIndexOf(bars: readonly Bar[], cp: number): number {
  for (let i = bars.length - 1; i >= 0; i--) if ((bars[i] as Bar).call.cp === cp) return i;
  return -1;
}

function growLane(layout: Layout, lane: Lane, d: TimelineLaneDelta): void {
  const bars = lane.bars;
  for (const cp of d.removed) {
    const i = barIndexOf(bars, cp);
    if (i >= 0) bars.splice(i, 1);
  }
  for (const call of d.calls) {
    const bar = barOf(lane, layout.axis, call);
    const i = barIndexOf(bars, call.cp);
    if (i >= 0 && (bars[i] as Bar).x0 === bar.x0) bars[i] = bar;
    else {
      if (i >= 0) bars.splice(i, 1);
      insertBar(bars, bar);
    }
  }
  // on the wall clock an open call runs to the lane's last checkpoint, which moved
  if (layout.axis === 'time' && d.cpAt.length > 0)
    for (let i = 0; i < bars.length; i++) {
      const b = bars[i] as Bar;
      if (b.call.end === undefined) bars[i] = barOf(lane, layout.axis, b.call);
    }
  lane.starts = Float64Array.from(bars, (b) => b.x0);
}

/**
 * Grows `layout` by `lanes` (their runs already grown); false when it cannot (the caller lays out again). Lanes
 * not drawn (folded under a collapsed run) have nothing to grow.
 */
export function growLayout(layout: Layout, lanes: readonly TimelineLaneDelta[]): boolean {
  const byRun = new Map(layout.lanes.map((l) => [l.run.runId, l]));
  for (const d of lanes) {
    const changed = new Set([...d.removed, ...d.calls.map((c) => c.cp)]);
    const lane = byRun.get(d.header.runId);
    if (!lane) continue;
    // a sub-agent lane hangs from its calling call: when that call moved, the branch moves
    const callers = layout.lanes.filter(
      (l) => l.parent !== undefined && layout.lanes[l.parent] === lane && l.run.calledBy,
    );
    if (
      callers.length > 0 &&
      lane.run.calls.some((c) => changed.has(c.cp) && callers.some((l) => l.run.calledBy === c.toolCallId))
    )
      return false;
    if (d.removed.length > 0 && callers.length > 0) return false;
    growLane(layout, lane, d);
  }
  layout.domain = domainOf(layout.lanes, layout.axis);
  layout.grown = (layout.grown ?? 0) + 1;
  return true;
}
