/**
 * One Timeline lane built from a run's marks as they come: its checkpoints as columns, its model calls (the
 * before_model_call → after_model_call pairs, tokens from the answer's usage) and tool calls (the ledger's rows placed
 * at their before_tool_call checkpoint), its live edits — fed all at once (timeline.ts `timelineRun`) or in parts as
 * a run being recorded grows (timelineLive.ts), with the same result either way. Each part says what it changed:
 * the checkpoints appended, the calls new or changed (by their checkpoint `cp`, which no two calls of a lane share:
 * a model call starts at a model call's checkpoint, a tool call at its before_tool_call), the calls gone, the live
 * edits appended. Read-only over the store (a live edit's checkpoint is looked up by id).
 */
import { TIMELINE_BOUNDARIES, type TimelineCall } from '../model/timeline';
import type { CheckpointMarks, RunStore, ToolCallMarks } from '../store';

const BOUNDARY_CODE = new Map<string, number>(TIMELINE_BOUNDARIES.map((b, i) => [b, i]));

/** What one part fed to a lane changed in it. */
export interface LaneChanges {
  /** How many checkpoints the lane held before: the new ones are `from`, `from + 1`, … */
  from: number;
  /** Calls gone (by `cp`): an open model call a later one replaced, a tool call placed again. */
  removed: Set<number>;
  /** Calls new or changed, by `cp`. */
  upserted: Map<number, TimelineCall>;
  /** Checkpoint indexes of live edits appended. */
  liveEdits: number[];
}

/** The index in `runId` of a checkpoint named by id (a live edit's, a divergence's, a stop's), if it is the run's. */
export function checkpointIndexIn(store: RunStore, runId: string, checkpointId: string): number | undefined {
  try {
    const s = store.getCheckpointSummary(checkpointId);
    return s.runId === runId ? s.index : undefined;
  } catch {
    return undefined;
  }
}

export class LaneBuilder {
  readonly cpAt: number[] = [];
  readonly cpStep: number[] = [];
  readonly cpBoundary: number[] = [];
  readonly liveEdits: number[] = [];
  /** The lane's calls by `cp`. */
  private readonly calls = new Map<number, TimelineCall>();
  /** The before_model_call of a model call not answered yet: drawn open, replaced when it ends. */
  private openModel: number | undefined;
  /** A call's before_tool_call and after_tool_call checkpoints (the last of each), by its id. */
  private readonly beforeTool = new Map<string, number>();
  private readonly afterTool = new Map<string, number>();
  /** Every call read (placed or not yet: its row may come before its checkpoint, or never be this run's). */
  private readonly marks = new Map<string, ToolCallMarks>();
  /** Where each call placed on the lane is. */
  private readonly placedAt = new Map<string, number>();
  /** Calls read while they ran: read again, since they end (and may be edited live or held) after. */
  readonly running = new Set<string>();
  /** The ledger place (`seq`) of the last call read; the number of live edits read. */
  lastCallSeq = -1;
  editsRead = 0;
  private changes: LaneChanges = LaneBuilder.none(0);
  /** Whether changes are kept: not while the lane is first filled (nothing was sent yet), from its first `take` on. */
  private tracking = false;

  private static none(from: number): LaneChanges {
    return { from, removed: new Set(), upserted: new Map(), liveEdits: [] };
  }

  /** What was fed since the last call of `take` (or since the lane was made). */
  take(): LaneChanges {
    const out = this.changes;
    this.changes = LaneBuilder.none(this.cpAt.length);
    this.tracking = true;
    return out;
  }

  /** The lane's calls in checkpoint order. */
  sortedCalls(): TimelineCall[] {
    return [...this.calls.values()].sort((a, b) => a.cp - b.cp);
  }

  private put(call: TimelineCall): void {
    this.calls.set(call.cp, call);
    if (!this.tracking) return;
    this.changes.upserted.set(call.cp, call);
    this.changes.removed.delete(call.cp);
  }

  private remove(cp: number): void {
    if (!this.calls.delete(cp) || !this.tracking) return;
    this.changes.upserted.delete(cp);
    this.changes.removed.add(cp);
  }

  /** Checkpoints appended at the lane's end (`m` holds checkpoints `cpAt.length`, … on), then `calls` read since. */
  add(m: CheckpointMarks, calls: readonly ToolCallMarks[]): void {
    const touched = new Set<string>();
    const base = this.cpAt.length;
    let open = this.openModel;
    const wasOpen = open;
    for (let j = 0; j < m.boundary.length; j++) {
      const i = base + j;
      const boundary = m.boundary[j];
      const at = m.createdAt[j] ?? 0;
      const step = m.stepIndex[j] ?? 0;
      this.cpAt.push(at);
      this.cpStep.push(step);
      this.cpBoundary.push(BOUNDARY_CODE.get(boundary ?? '') ?? 0);
      if (boundary === 'before_model_call') {
        // a model call asked again before the first was answered: the first is not drawn
        if (open !== undefined) this.remove(open);
        open = i;
      } else if (boundary === 'after_model_call') {
        const from = open ?? i;
        const call: TimelineCall = {
          kind: 'model',
          cp: from,
          endCp: i,
          step,
          start: this.cpAt[from] ?? 0,
          end: at,
          name: 'model call',
        };
        // the time a live debugger held the agent before the model was called (recorded on this checkpoint)
        const held = m.heldMs[j];
        if (held) call.held = held;
        const usage = m.usage[j];
        if (usage) {
          call.tokensIn = usage.inputTokens;
          call.tokensOut = usage.outputTokens;
          if (usage.captured) call.captured = true;
        }
        this.put(call);
        open = undefined;
      } else {
        const id = m.toolCallId[j];
        if (id !== undefined && boundary === 'before_tool_call') {
          this.beforeTool.set(id, i);
          touched.add(id);
        } else if (id !== undefined && boundary === 'after_tool_call') {
          this.afterTool.set(id, i);
          touched.add(id);
        }
      }
    }
    if (open !== undefined && open !== wasOpen)
      this.put({
        kind: 'model',
        cp: open,
        step: this.cpStep[open] ?? 0,
        start: this.cpAt[open] ?? 0,
        name: 'model call',
      });
    this.openModel = open;
    for (const t of calls) {
      this.marks.set(t.toolCallId, t);
      if (t.state === 'running') this.running.add(t.toolCallId);
      else this.running.delete(t.toolCallId);
      if (t.seq > this.lastCallSeq) this.lastCallSeq = t.seq;
      touched.add(t.toolCallId);
    }
    for (const id of touched) this.place(id);
  }

  /** A call read and its before_tool_call known: on the lane (again, where it changed). */
  private place(id: string): void {
    const t = this.marks.get(id);
    // a fork's inherited calls are its parent's, drawn on the parent's lane
    const cp = this.beforeTool.get(id);
    if (!t || cp === undefined) return;
    const was = this.placedAt.get(id);
    if (was !== undefined && was !== cp) this.remove(was);
    const call: TimelineCall = {
      kind: 'tool',
      cp,
      step: this.cpStep[cp] ?? 0,
      start: t.startedAt,
      name: t.toolName,
      toolCallId: t.toolCallId,
      sideEffect: t.sideEffectLevel,
      state: t.state,
    };
    const endCp = this.afterTool.get(id);
    if (endCp !== undefined) call.endCp = endCp;
    if (t.endedAt !== undefined) call.end = t.endedAt;
    if (t.liveEdited) call.edited = true;
    if (t.heldMs) call.held = t.heldMs;
    this.placedAt.set(id, cp);
    // a call read again while it runs and unchanged is not sent again
    const before = this.tracking ? this.calls.get(cp) : undefined;
    if (before && JSON.stringify(before) === JSON.stringify(call)) return;
    this.put(call);
  }

  /** Live edits read since (`indexes`: each one's checkpoint in this run, undefined when it is not this run's). */
  addEdits(indexes: readonly (number | undefined)[]): void {
    this.editsRead += indexes.length;
    for (const at of indexes) {
      if (at === undefined) continue;
      this.liveEdits.push(at);
      if (this.tracking) this.changes.liveEdits.push(at);
    }
  }
}
