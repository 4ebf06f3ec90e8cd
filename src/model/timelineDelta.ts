/**
 * What changed in a Timeline since it was last sent: the page of a run being recorded is given what is new, not
 * the lineage again. Per lane that changed: its header as it stands (status, tokens, a stop, a divergence), the
 * checkpoints appended, the calls new or changed and those gone (a call is known by its checkpoint `cp`, which no
 * two calls of a lane share), the live edits appended; lanes new to the page (a new fork) or whose recorded past
 * was rewritten come whole; `order` is every lane in `Timeline.runs` order. Made by replay/timelineLive.ts, sent in
 * timelineWire.ts's columns, applied here (the page, the tests). Pure, browser-safe.
 */
import type { Timeline, TimelineCall, TimelineRun } from './timeline';

/** A lane's fields but its columns, calls and live edits. */
export type TimelineRunHeader = Omit<TimelineRun, 'cpAt' | 'cpStep' | 'cpBoundary' | 'calls' | 'liveEdits'>;

export interface TimelineLaneDelta {
  header: TimelineRunHeader;
  /** How many checkpoints the page's lane holds: the columns below continue it. */
  from: number;
  cpAt: number[];
  cpStep: number[];
  cpBoundary: number[];
  /** Calls gone, by `cp`. */
  removed: number[];
  /** Calls new or changed (replacing the one at the same `cp`), in `cp` order. */
  calls: TimelineCall[];
  /** Checkpoint indexes of live edits appended. */
  liveEdits: number[];
}

export interface TimelineDelta {
  rootRunId: string;
  /** Every lane shown, in order: a lane not named is gone. */
  order: string[];
  /** Lanes sent whole: new to the page, or their recorded past rewritten. */
  runs: TimelineRun[];
  /** Lanes the page holds that grew or changed. */
  lanes: TimelineLaneDelta[];
}

/** A delta that does not fit the timeline it is applied to (the page then asks for the whole timeline). */
export class TimelineDeltaMismatch extends Error {}

const HEADER_KEYS: readonly (keyof TimelineRunHeader)[] = [
  'runId',
  'agentId',
  'kind',
  'parentRunId',
  'forkIndex',
  'calledBy',
  'status',
  'statusText',
  'startedAt',
  'endedAt',
  'stepCount',
  'inputTokens',
  'outputTokens',
  'divergence',
  'pausedAt',
];

function push(into: number[], values: readonly number[]): void {
  // one at a time: a spread of a long column would overflow the call stack
  for (const v of values) into.push(v);
}

/** Index of the first call of `calls` (in `cp` order) at or after `cp`. */
function callIndex(calls: readonly TimelineCall[], cp: number): number {
  let lo = 0;
  let hi = calls.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((calls[mid] as TimelineCall).cp < cp) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A lane changed in place: its header replaced, its columns and live edits continued, its calls replaced by `cp`. */
export function applyLaneDelta(run: TimelineRun, d: TimelineLaneDelta): void {
  if (d.from !== run.cpAt.length)
    throw new TimelineDeltaMismatch(
      `lane ${run.runId} holds ${run.cpAt.length} checkpoints, the delta continues ${d.from}`,
    );
  const fields = run as unknown as Record<string, unknown>;
  const header = d.header as unknown as Record<string, unknown>;
  for (const key of HEADER_KEYS) {
    if (header[key] === undefined) delete fields[key];
    else fields[key] = header[key];
  }
  push(run.cpAt, d.cpAt);
  push(run.cpStep, d.cpStep);
  push(run.cpBoundary, d.cpBoundary);
  push(run.liveEdits, d.liveEdits);
  const calls = run.calls;
  for (const cp of d.removed) {
    const i = callIndex(calls, cp);
    if (calls[i]?.cp === cp) calls.splice(i, 1);
  }
  for (const call of d.calls) {
    // most are new at the lane's end
    const last = calls[calls.length - 1];
    if (!last || last.cp < call.cp) {
      calls.push(call);
      continue;
    }
    const i = callIndex(calls, call.cp);
    if (calls[i]?.cp === call.cp) calls[i] = call;
    else calls.splice(i, 0, call);
  }
}

/**
 * `delta` applied to `timeline`, which it changes in place (a lane's arrays grow: what is new costs what it adds)
 * and answers; the lanes it sends whole become the timeline's. TimelineDeltaMismatch when it does not fit (a lane it continues is not there or holds another count).
 */
export function applyTimelineDelta(timeline: Timeline, delta: TimelineDelta): Timeline {
  if (delta.rootRunId !== timeline.rootRunId)
    throw new TimelineDeltaMismatch(`the delta is of ${delta.rootRunId}, the timeline of ${timeline.rootRunId}`);
  const byId = new Map(timeline.runs.map((r) => [r.runId, r]));
  for (const d of delta.lanes) {
    const run = byId.get(d.header.runId);
    if (!run) throw new TimelineDeltaMismatch(`the delta continues lane ${d.header.runId}, which is not shown`);
    applyLaneDelta(run, d);
  }
  for (const run of delta.runs) byId.set(run.runId, run);
  const runs = delta.order.map((id) => {
    const run = byId.get(id);
    if (!run) throw new TimelineDeltaMismatch(`lane ${id} is neither shown nor sent`);
    return run;
  });
  timeline.runs = runs;
  return timeline;
}

/** Whether `delta` only grows lanes the page shows, in the same order (no lane new, gone, moved or sent whole). */
export function onlyGrows(timeline: Timeline, delta: TimelineDelta): boolean {
  return (
    delta.runs.length === 0 &&
    delta.order.length === timeline.runs.length &&
    delta.order.every((id, i) => timeline.runs[i]?.runId === id)
  );
}
