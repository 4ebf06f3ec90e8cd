/**
 * The Timeline of a run being recorded, read again as it grows at the cost of what is new: after the first read
 * (`full`, what `timelineOf` answers), each `next` reads the runs' rows (the lineage: a new fork, a run that ended),
 * and of a lane whose run was written since (its `changeSeq`) only its checkpoints from the last one read, the calls
 * begun after the last one read and those that were still open (they end, are edited at a stop or held), and the
 * live edits after the last one read — ranges of the store's keys, not the run again. A run whose recorded end was
 * rewritten since (`RunSummary.rewrites`: a grown import continued) or that is new to the lineage is read whole and
 * sent whole. The answer is a TimelineDelta (model/timelineDelta.ts) which, applied to what was sent, equals a
 * fresh `timelineOf`. Read-only.
 */
import type { Timeline, TimelineRun } from '../model/timeline';
import type { TimelineDelta, TimelineLaneDelta, TimelineRunHeader } from '../model/timelineDelta';
import type { RunStore, RunSummary } from '../store';
import { fillLane, laneOf, lineageOf, timelineRunHeader, type LineageEntry, type TimelineOptions } from './timeline';
import { LaneBuilder, checkpointIndexIn } from './timelineLane';

interface LaneState {
  lane: LaneBuilder;
  /** Where the lane hangs (its kind and parent, fork point, caller) as sent. */
  place: string;
  header: TimelineRunHeader;
  headerText: string;
  changeSeq: number;
  rewrites: number;
}

function placeOf(e: LineageEntry): string {
  const { now: _now, ...where } = e.where;
  return JSON.stringify([e.kind, where]);
}

export class LiveTimeline {
  private lanes = new Map<string, LaneState>();

  constructor(
    private readonly store: RunStore,
    readonly rootRunId: string,
    private readonly options: TimelineOptions = {},
  ) {}

  /** The whole timeline, read now; `next` answers what changed since. */
  full(): Timeline {
    this.lanes.clear();
    const runs = lineageOf(this.store, this.rootRunId, this.options).map((e) => this.whole(e));
    return { rootRunId: this.rootRunId, runs };
  }

  /** What changed since `full` or the last `next`; undefined when nothing did. */
  next(): TimelineDelta | undefined {
    const lineage = lineageOf(this.store, this.rootRunId, this.options);
    const before = [...this.lanes.keys()];
    const kept = new Map<string, LaneState>();
    const runs: TimelineRun[] = [];
    const lanes: TimelineLaneDelta[] = [];
    for (const e of lineage) {
      const state = this.lanes.get(e.run.runId);
      this.lanes.delete(e.run.runId);
      if (!state || state.place !== placeOf(e) || state.rewrites !== (e.run.rewrites ?? 0)) {
        runs.push(this.whole(e, kept));
        continue;
      }
      kept.set(e.run.runId, state);
      const d = this.grow(state, e);
      if (d) lanes.push(d);
    }
    this.lanes = kept;
    const order = lineage.map((e) => e.run.runId);
    const sameOrder = order.length === before.length && order.every((id, i) => before[i] === id);
    if (runs.length === 0 && lanes.length === 0 && sameOrder) return undefined;
    return { rootRunId: this.rootRunId, order, runs, lanes };
  }

  /** A lane read whole (new, or its past rewritten). */
  private whole(e: LineageEntry, into: Map<string, LaneState> = this.lanes): TimelineRun {
    const lane = fillLane(this.store, e.run.runId);
    const header = this.header(e, lane);
    into.set(e.run.runId, {
      lane,
      place: placeOf(e),
      header,
      headerText: JSON.stringify(header),
      changeSeq: e.run.changeSeq,
      rewrites: e.run.rewrites ?? 0,
    });
    return laneOf(header, lane, true);
  }

  private header(e: LineageEntry, lane: LaneBuilder): TimelineRunHeader {
    return timelineRunHeader(this.store, e.run, e.kind, e.where, lane.cpStep.at(-1) ?? 0);
  }

  /** What a lane the page holds added since it was read: nothing is read of a run not written since. */
  private grow(state: LaneState, e: LineageEntry): TimelineLaneDelta | undefined {
    const run: RunSummary = e.run;
    const { lane } = state;
    if (run.changeSeq !== state.changeSeq) {
      const runId = run.runId;
      const from = lane.cpAt.length;
      const marks = this.store.listCheckpointMarks(runId, from);
      const calls = this.store.listToolCallMarks(runId, { afterSeq: lane.lastCallSeq, ids: [...lane.running] });
      lane.add(marks, calls);
      lane.addEdits(
        this.store
          .listLiveEdits(runId, lane.editsRead)
          .map((x) => checkpointIndexIn(this.store, runId, x.checkpointId)),
      );
      state.changeSeq = run.changeSeq;
    }
    // the header is read again whatever was written: a run's stop (PAUSED) is not a write to the run
    const header = this.header(e, lane);
    const headerText = JSON.stringify(header);
    const c = lane.take();
    const grew = c.upserted.size > 0 || c.removed.size > 0 || c.liveEdits.length > 0 || lane.cpAt.length > c.from;
    if (!grew && headerText === state.headerText) return undefined;
    state.header = header;
    state.headerText = headerText;
    return {
      header,
      from: c.from,
      cpAt: lane.cpAt.slice(c.from),
      cpStep: lane.cpStep.slice(c.from),
      cpBoundary: lane.cpBoundary.slice(c.from),
      removed: [...c.removed].sort((a, b) => a - b),
      calls: [...c.upserted.values()].sort((a, b) => a.cp - b.cp),
      liveEdits: c.liveEdits,
    };
  }
}
