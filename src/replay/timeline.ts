/**
 * The Timeline's summary query: a run and its lineage as `model/timeline.ts` data, from the store's summaries only
 * — the checkpoints' rows (listCheckpoints: no message, no ledger), the calls' rows (listToolCallMarks: no
 * argument, no result), the live edits and the runs' rows. Model calls are the before_model_call →
 * after_model_call pairs (tokens from the answer's usage); tool calls are the ledger's rows placed at their
 * before_tool_call checkpoint. Forks (every depth) and sub-agent runs (named by their caller's metadata) follow
 * the run they hang from. Read-only; nothing is loaded whole, so a 20,000-checkpoint run costs its rows.
 */
import { divergenceOfError, runStatusText } from '../model';
import type { Timeline, TimelineRun } from '../model/timeline';
import type { TimelineRunHeader } from '../model/timelineDelta';
import type { RunStore, RunSummary } from '../store';
import { LaneBuilder, checkpointIndexIn } from './timelineLane';

export interface TimelineOptions {
  /** Forks of the run (and of its forks) as branches; default true. */
  withForks?: boolean;
  /** Sub-agent runs as nested lanes; default true. */
  withSubagents?: boolean;
  /** At most this many runs (the root first); default 200. */
  maxRuns?: number;
}

/** The sub-agent runs a run's metadata names (`subagents: [{ runId, toolCallId }]`, an import's links). */
function subagentsOf(run: RunSummary): { runId: string; toolCallId?: string }[] {
  const list = run.metadata.subagents;
  if (!Array.isArray(list)) return [];
  const out: { runId: string; toolCallId?: string }[] = [];
  for (const item of list as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const { runId, toolCallId, parentRunId } = item as Record<string, unknown>;
    if (typeof runId !== 'string' || (parentRunId !== undefined && parentRunId !== run.runId)) continue;
    out.push(typeof toolCallId === 'string' ? { runId, toolCallId } : { runId });
  }
  return out;
}

/** Where a lane hangs from its parent, and the time its live stops are judged at. */
export type LaneWhere = { parentRunId?: string; forkIndex?: number; calledBy?: string; now?: number };

/** A lane's fields but its columns, calls and live edits: what the run's row and its live stop say. */
export function timelineRunHeader(
  store: RunStore,
  run: RunSummary,
  kind: TimelineRun['kind'],
  where: LaneWhere,
  lastStep: number,
): TimelineRunHeader {
  const { now, ...extra } = where;
  const out: TimelineRunHeader = {
    runId: run.runId,
    agentId: run.agentId,
    kind,
    status: run.crashed ? 'crashed' : run.status,
    statusText: runStatusText(run),
    startedAt: run.startedAt,
    stepCount: run.stepCount,
    inputTokens: run.inputTokens,
    outputTokens: run.outputTokens,
    ...extra,
  };
  if (run.endedAt !== undefined) out.endedAt = run.endedAt;
  if (run.status === 'running' && !run.crashed) {
    // a live run its debugger holds at a checkpoint (PAUSED before a tool): the attachment's newest stop
    const attachment = store.liveAttachmentFor(run.runId, run.agentId, now ?? Date.now());
    const stop = attachment
      ? store
          .listLiveStops(attachment.attachId, ['stopped'], now)
          .filter((st) => st.runId === run.runId)
          .at(-1)
      : undefined;
    const at = stop ? checkpointIndexIn(store, run.runId, stop.checkpointId) : undefined;
    if (at !== undefined) out.pausedAt = at;
  }
  const d = divergenceOfError(run.error);
  if (d) {
    const at = d.forkCheckpointId !== undefined ? checkpointIndexIn(store, run.runId, d.forkCheckpointId) : undefined;
    out.divergence = at === undefined ? { stepIndex: d.stepIndex } : { stepIndex: d.stepIndex, cp: at };
  } else if (run.status === 'diverged') {
    out.divergence = { stepIndex: lastStep };
  }
  return out;
}

/**
 * A lane from its header and what its builder holds; `copy`: its columns copied (the builder goes on growing its
 * own), else they are the builder's.
 */
export function laneOf(header: TimelineRunHeader, lane: LaneBuilder, copy = false): TimelineRun {
  const own = <T>(a: T[]): T[] => (copy ? a.slice() : a);
  return {
    ...header,
    cpAt: own(lane.cpAt),
    cpStep: own(lane.cpStep),
    cpBoundary: own(lane.cpBoundary),
    calls: lane.sortedCalls(),
    liveEdits: own(lane.liveEdits),
  };
}

/** Feeds a lane everything its run holds: its checkpoints, its calls, its live edits. */
export function fillLane(store: RunStore, runId: string, lane: LaneBuilder = new LaneBuilder()): LaneBuilder {
  lane.add(store.listCheckpointMarks(runId), store.listToolCallMarks(runId));
  lane.addEdits(store.listLiveEdits(runId).map((e) => checkpointIndexIn(store, runId, e.checkpointId)));
  lane.take();
  return lane;
}

/** One run's lane data. */
export function timelineRun(
  store: RunStore,
  run: RunSummary,
  kind: TimelineRun['kind'],
  where: LaneWhere = {},
): TimelineRun {
  const lane = fillLane(store, run.runId);
  return laneOf(timelineRunHeader(store, run, kind, where, lane.cpStep.at(-1) ?? 0), lane);
}

/** A run shown on the Timeline, before its marks are read: its row, its kind, where it hangs from. */
export interface LineageEntry {
  run: RunSummary;
  kind: TimelineRun['kind'];
  where: LaneWhere;
}

/**
 * The runs `timelineOf` shows, in its order (the root first; each fork and sub-agent after the run it hangs from),
 * from the runs' rows alone.
 */
export function lineageOf(store: RunStore, runId: string, options: TimelineOptions = {}): LineageEntry[] {
  const withForks = options.withForks ?? true;
  const withSubagents = options.withSubagents ?? true;
  const maxRuns = options.maxRuns ?? 200;
  const out: LineageEntry[] = [];
  const seen = new Set<string>();
  const visit = (run: RunSummary, kind: TimelineRun['kind'], where: LaneWhere) => {
    if (seen.has(run.runId) || out.length >= maxRuns) return;
    seen.add(run.runId);
    out.push({ run, kind, where });
    if (withSubagents) {
      for (const sub of subagentsOf(run)) {
        if (!store.hasRun(sub.runId)) continue;
        visit(store.getRun(sub.runId), 'subagent', {
          parentRunId: run.runId,
          ...(sub.toolCallId ? { calledBy: sub.toolCallId } : {}),
        });
      }
    }
    if (withForks) {
      const forks = store.listRuns({ parentRunId: run.runId, limit: maxRuns }).runs;
      forks.sort((a, b) => a.startedAt - b.startedAt);
      for (const fork of forks) {
        const from = fork.forkFromCheckpointId;
        const forkIndex = from ? store.getCheckpointSummary(from).index : undefined;
        visit(fork, 'fork', { parentRunId: run.runId, ...(forkIndex !== undefined ? { forkIndex } : {}) });
      }
    }
  };
  visit(store.getRun(runId), 'run', {});
  return out;
}

/** A run and its lineage, the root first and each fork and sub-agent run after the run it hangs from. */
export function timelineOf(store: RunStore, runId: string, options: TimelineOptions = {}): Timeline {
  const runs = lineageOf(store, runId, options).map((e) => timelineRun(store, e.run, e.kind, e.where));
  return { rootRunId: runId, runs };
}
