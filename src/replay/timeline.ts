/**
 * The Timeline's summary query: a run and its lineage as `model/timeline.ts` data, from the store's summaries only
 * — the checkpoints' rows (listCheckpoints: no message, no ledger), the calls' rows (listToolCallMarks: no
 * argument, no result), the live edits and the runs' rows. Model calls are the before_model_call →
 * after_model_call pairs (tokens from the answer's usage); tool calls are the ledger's rows placed at their
 * before_tool_call checkpoint. Forks (every depth) and sub-agent runs (named by their caller's metadata) follow
 * the run they hang from. Read-only; nothing is loaded whole, so a 20,000-checkpoint run costs its rows.
 */
import { divergenceOfError, runStatusText } from '../model';
import { TIMELINE_BOUNDARIES, type Timeline, type TimelineCall, type TimelineRun } from '../model/timeline';
import type { CheckpointMarks, RunStore, RunSummary } from '../store';

export interface TimelineOptions {
  /** Forks of the run (and of its forks) as branches; default true. */
  withForks?: boolean;
  /** Sub-agent runs as nested lanes; default true. */
  withSubagents?: boolean;
  /** At most this many runs (the root first); default 200. */
  maxRuns?: number;
}

const BOUNDARY_CODE = new Map<string, number>(TIMELINE_BOUNDARIES.map((b, i) => [b, i]));

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

function modelCalls(m: CheckpointMarks): TimelineCall[] {
  const calls: TimelineCall[] = [];
  let open: number | undefined;
  for (let i = 0; i < m.boundary.length; i++) {
    const boundary = m.boundary[i];
    if (boundary === 'before_model_call') open = i;
    else if (boundary === 'after_model_call') {
      const from = open ?? i;
      const call: TimelineCall = {
        kind: 'model',
        cp: from,
        endCp: i,
        step: m.stepIndex[i] ?? 0,
        start: m.createdAt[from] ?? 0,
        end: m.createdAt[i] ?? 0,
        name: 'model call',
      };
      // the time a live debugger held the agent before the model was called (recorded on this checkpoint)
      const held = m.heldMs[i];
      if (held) call.held = held;
      const usage = m.usage[i];
      if (usage) {
        call.tokensIn = usage.inputTokens;
        call.tokensOut = usage.outputTokens;
        if (usage.captured) call.captured = true;
      }
      calls.push(call);
      open = undefined;
    }
  }
  if (open !== undefined)
    calls.push({
      kind: 'model',
      cp: open,
      step: m.stepIndex[open] ?? 0,
      start: m.createdAt[open] ?? 0,
      name: 'model call',
    });
  return calls;
}

/** One run's lane data. */
export function timelineRun(
  store: RunStore,
  run: RunSummary,
  kind: TimelineRun['kind'],
  where: { parentRunId?: string; forkIndex?: number; calledBy?: string; now?: number } = {},
): TimelineRun {
  const { now, ...extra } = where;
  const m = store.listCheckpointMarks(run.runId);
  const n = m.boundary.length;
  const cpAt = m.createdAt;
  const cpStep = m.stepIndex;
  const cpBoundary = m.boundary.map((b) => BOUNDARY_CODE.get(b) ?? 0);
  const beforeTool = new Map<string, number>();
  const afterTool = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const id = m.toolCallId[i];
    if (id === undefined) continue;
    if (m.boundary[i] === 'before_tool_call') beforeTool.set(id, i);
    else if (m.boundary[i] === 'after_tool_call') afterTool.set(id, i);
  }
  // the few checkpoints named by id (live edits, a divergence) are looked up one by one
  const indexOf = (checkpointId: string): number | undefined => {
    try {
      const s = store.getCheckpointSummary(checkpointId);
      return s.runId === run.runId ? s.index : undefined;
    } catch {
      return undefined;
    }
  };
  const calls = modelCalls(m);
  for (const t of store.listToolCallMarks(run.runId)) {
    const cp = beforeTool.get(t.toolCallId);
    // a fork's inherited calls are its parent's, drawn on the parent's lane
    if (cp === undefined) continue;
    const call: TimelineCall = {
      kind: 'tool',
      cp,
      step: cpStep[cp] ?? 0,
      start: t.startedAt,
      name: t.toolName,
      toolCallId: t.toolCallId,
      sideEffect: t.sideEffectLevel,
      state: t.state,
    };
    const endCp = afterTool.get(t.toolCallId);
    if (endCp !== undefined) call.endCp = endCp;
    if (t.endedAt !== undefined) call.end = t.endedAt;
    if (t.liveEdited) call.edited = true;
    if (t.heldMs) call.held = t.heldMs;
    calls.push(call);
  }
  calls.sort((a, b) => a.cp - b.cp);
  const liveEdits: number[] = [];
  for (const e of store.listLiveEdits(run.runId)) {
    const at = indexOf(e.checkpointId);
    if (at !== undefined) liveEdits.push(at);
  }
  const out: TimelineRun = {
    runId: run.runId,
    agentId: run.agentId,
    kind,
    status: run.crashed ? 'crashed' : run.status,
    statusText: runStatusText(run),
    startedAt: run.startedAt,
    stepCount: run.stepCount,
    inputTokens: run.inputTokens,
    outputTokens: run.outputTokens,
    cpAt,
    cpStep,
    cpBoundary,
    calls,
    liveEdits,
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
    const at = stop ? indexOf(stop.checkpointId) : undefined;
    if (at !== undefined) out.pausedAt = at;
  }
  const d = divergenceOfError(run.error);
  if (d) {
    const at = d.forkCheckpointId !== undefined ? indexOf(d.forkCheckpointId) : undefined;
    out.divergence = at === undefined ? { stepIndex: d.stepIndex } : { stepIndex: d.stepIndex, cp: at };
  } else if (run.status === 'diverged') {
    out.divergence = { stepIndex: cpStep[n - 1] ?? 0 };
  }
  return out;
}

/** A run and its lineage, the root first and each fork and sub-agent run after the run it hangs from. */
export function timelineOf(store: RunStore, runId: string, options: TimelineOptions = {}): Timeline {
  const withForks = options.withForks ?? true;
  const withSubagents = options.withSubagents ?? true;
  const maxRuns = options.maxRuns ?? 200;
  const runs: TimelineRun[] = [];
  const seen = new Set<string>();
  const visit = (run: RunSummary, kind: TimelineRun['kind'], extra: Parameters<typeof timelineRun>[3]) => {
    if (seen.has(run.runId) || runs.length >= maxRuns) return;
    seen.add(run.runId);
    const lane = timelineRun(store, run, kind, extra);
    runs.push(lane);
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
  return { rootRunId: runId, runs };
}
