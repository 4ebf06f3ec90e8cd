/**
 * Which runs a what-if batch forks, and where: the cohort selection (agent, status, time range, metadata, an
 * explicit list) read page by page from the store, and each run's fork point — its first checkpoint, an index,
 * the first checkpoint of a step or boundary, or the first checkpoint the debugger's expression language matches
 * (replay/evaluate.ts over the checkpoint's state, as a breakpoint condition). Reads the store, writes nothing.
 */
import { OcdbError } from '../model';
import type { CheckpointSummary, RunStore, RunSummary } from '../store';
import { checkpointState, compileExpression, evaluateExpression, isTruthy } from '../replay/evaluate';
import { RunView } from '../replay/runView';
import type { CohortSelection, ForkPoint } from './whatIfSpec';

/** Runs read from the store at a time while selecting. */
const PAGE = 500;

function matches(run: RunSummary, sel: CohortSelection): boolean {
  if (sel.agentId !== undefined && run.agentId !== sel.agentId) return false;
  if (sel.status !== undefined ? run.status !== sel.status : run.status === 'running') return false;
  if (sel.since !== undefined && run.startedAt < sel.since) return false;
  if (sel.until !== undefined && run.startedAt >= sel.until) return false;
  if (!sel.includeForks && run.mode !== 'live' && sel.runIds === undefined) return false;
  for (const [key, want] of Object.entries(sel.metadata ?? {})) {
    const have = run.metadata[key];
    if (have === undefined || (typeof have === 'string' ? have : JSON.stringify(have)) !== want) return false;
  }
  return true;
}

/** The run ids of the cohort, in the store's order (newest first), or the explicit list's order. */
export function selectCohort(store: RunStore, sel: CohortSelection): string[] {
  const ids: string[] = [];
  if (sel.runIds) {
    for (const id of new Set(sel.runIds)) {
      if (matches(store.getRun(id), sel)) ids.push(id); // RunNotFound names a mistyped id
      if (sel.limit !== undefined && ids.length >= sel.limit) break;
    }
    return ids;
  }
  for (let offset = 0; ; offset += PAGE) {
    const { runs } = store.listRuns({
      ...(sel.agentId !== undefined ? { agentId: sel.agentId } : {}),
      ...(sel.includeForks ? {} : { parentRunId: null }),
      limit: PAGE,
      offset,
    });
    for (const run of runs) {
      if (!matches(run, sel)) continue;
      ids.push(run.runId);
      if (sel.limit !== undefined && ids.length >= sel.limit) return ids;
    }
    if (runs.length < PAGE) return ids;
  }
}

/** Checks a fork point before any run is read (an expression that does not parse fails once, not per run). */
export function checkForkPoint(at: ForkPoint): void {
  if (at.kind === 'expression') compileExpression(at.expression);
}

/** The checkpoint of `runId` where the batch forks it; CheckpointNotFound says why a run has none. */
export function forkPointOf(store: RunStore, runId: string, at: ForkPoint): CheckpointSummary {
  const none = (what: string): never => {
    throw new OcdbError('CheckpointNotFound', `Run ${runId} has no ${what} to fork from.`, { runId });
  };
  switch (at.kind) {
    case 'first':
      return store.listCheckpoints(runId, { limit: 1 })[0] ?? none('checkpoint');
    case 'index':
      return store.listCheckpoints(runId, { offset: at.index, limit: 1 })[0] ?? none(`checkpoint [${at.index}]`);
    case 'step':
      return (
        store
          .listCheckpoints(runId)
          .find((c) => c.stepIndex === at.stepIndex && (at.boundary === undefined || c.boundary === at.boundary)) ??
        none(`checkpoint at step ${at.stepIndex}${at.boundary ? ` (${at.boundary})` : ''}`)
      );
    case 'boundary':
      return store.listCheckpoints(runId).find((c) => c.boundary === at.boundary) ?? none(`${at.boundary} checkpoint`);
    case 'expression': {
      const view = new RunView(store, runId);
      for (let i = 0; i < view.summaries.length; i++) {
        const state = checkpointState(view.load(i), i, (id) => view.toolCall(id));
        if (isTruthy(evaluateExpression(at.expression, state))) return view.summaries[i] as CheckpointSummary;
      }
      return none(`checkpoint where \`${at.expression}\` holds`);
    }
    default: {
      const unreachable: never = at;
      throw new Error(`unknown fork point ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Parses a fork point as typed on the command line: first, 12 / #12, step:5, step:5:before_model_call, boundary:agent_end, or any other text as an expression. */
export function parseForkPoint(text: string | undefined): ForkPoint {
  if (text === undefined || text === 'first') return { kind: 'first' };
  const index = /^#?(\d+)$/.exec(text);
  if (index) return { kind: 'index', index: Number(index[1]) };
  const step = /^step:(\d+)(?::(\w+))?$/.exec(text);
  if (step) {
    return step[2]
      ? ({ kind: 'step', stepIndex: Number(step[1]), boundary: step[2] } as ForkPoint)
      : { kind: 'step', stepIndex: Number(step[1]) };
  }
  const boundary = /^boundary:(\w+)$/.exec(text);
  if (boundary) return { kind: 'boundary', boundary: boundary[1] } as ForkPoint;
  return { kind: 'expression', expression: text.replace(/^expr:/, '') };
}
