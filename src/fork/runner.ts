/**
 * The runner: executes a created fork or replay (a fork request) into its
 * run. Captured model: the recording is walked and re-emitted with divergence
 * detection; real / override model: a ReAct loop against an OpenAI-compatible
 * endpoint. Tools by policy from the cassette / mocks — the built-in runner
 * never runs a tool's code. When an agent program is configured the fork is
 * handed to it instead (status waiting_for_agent). The fork request moves
 * pending -> running -> completed / diverged / failed with the error; the run
 * ends with the matching status (diverged: the prompt reached something the
 * recording has no answer for — an answer, not a failure). No UI.
 */
import { isOcdbError, type ForkRequestStatus, type RunEndStatus } from '../model';
import type { CheckpointSummary, RunStore } from '../store';
import { RunWriter } from '../writer';
import { ToolCassette } from './cassette';
import { capturedWalk } from './capturedWalk';
import { toRunError } from './forkErrors';
import { planFork } from './forkPlan';
import { claimForkRequest, forkRunOf, runnableRequest, saveForkStatus, settleForkRequest } from './forkRequests';
import type { ChatModel } from './modelClient';
import { recordedTurns } from './modelTurns';
import type { Divergence } from './divergence';
import { realLoop } from './realLoop';
import type { RunContext, StepsOutcome } from './runContext';
import { ToolGate } from './toolGate';

export { runErrorCode, toRunError } from './forkErrors';

export interface RunnerOptions {
  now?: () => number;
  newId?: () => string;
  /** The real / override model (required for those modes and for onDivergence 'continue_real'). */
  chatModel?: ChatModel;
  /** An agent program will execute the fork (OCDB_FORK): mark the request waiting_for_agent and return. */
  agentProgram?: boolean;
  signal?: AbortSignal;
  /** Model turns the real loop may take before it stops; default 25. */
  maxModelTurns?: number;
  /** Called after every checkpoint written (live progress). */
  onCheckpoint?: (summary: CheckpointSummary) => void;
}

export interface RunOutcome {
  forkRequestId: string;
  runId: string;
  status: RunEndStatus | Extract<ForkRequestStatus, 'waiting_for_agent'>;
  /** `{ code, message, ... }` when the runner stopped the fork (diverged, forbidden_replay, cassette_miss, ...) or the recording ended with an error. */
  error?: unknown;
  /** Set when the runner itself stopped the fork (diverged, forbidden_replay, cassette_miss, ...), as opposed to a recording that ended with an error. */
  failure?: Record<string, unknown>;
  /** Where the prompt first differed from the recording (captured mode). */
  divergence?: Divergence;
  /** Checkpoints in the fork run when the runner stopped. */
  checkpointCount: number;
}

/** Runs the fork request `forkRequestId` to its end (or hands it to the agent program). Never throws for fork failures: they are in the outcome. */
export async function runFork(
  store: RunStore,
  forkRequestId: string,
  options: RunnerOptions = {},
): Promise<RunOutcome> {
  const now = options.now ?? Date.now;
  const request = runnableRequest(store, forkRequestId);
  const runId = forkRunOf(request);
  if (options.agentProgram) {
    store.transaction(() => {
      saveForkStatus(store, forkRequestId, 'waiting_for_agent', now());
      // the minute the program has to claim it counts from now, not from the fork's creation
      store.setRunOwner(runId, null);
    });
    return { forkRequestId, runId, status: 'waiting_for_agent', checkpointCount: store.getRun(runId).checkpointCount };
  }
  claimForkRequest(store, forkRequestId, now());
  const newId = options.newId;
  const writer = RunWriter.resume(store, runId, {
    now,
    ...(newId ? { newId: () => newId() } : {}),
    heartbeatMs: 5000,
    ...(options.onCheckpoint ? { onCheckpoint: options.onCheckpoint } : {}),
  });

  let outcome: StepsOutcome;
  let endState: WalkEnd | undefined;
  let failure: Record<string, unknown> | undefined;
  let divergence: Divergence | undefined;
  try {
    const plan = planFork(store, request.config);
    const ctx: RunContext = {
      store,
      plan,
      config: plan.config,
      writer,
      gate: new ToolGate({
        config: plan.config,
        acknowledged: request.acknowledgedTools,
        cassette: new ToolCassette(store, plan.lineage, writer.ledger),
        tools: plan.tools,
      }),
      metadata: store.getRun(plan.sourceRunId).metadata,
      ...(options.chatModel ? { chatModel: options.chatModel } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      maxModelTurns: options.maxModelTurns ?? 25,
    };
    if (plan.modelMode === 'captured' || plan.modelMode === 'recorded') {
      const walked = await capturedWalk(ctx);
      divergence = walked.divergence;
      endState = walked.endState;
      outcome = walked.continueReal ? await realLoop(ctx) : walked;
    } else {
      // Compare the real model's answers with the recorded ones while the conversations are still aligned.
      ctx.recordedTurns = recordedTurns(store, plan.sourceRunId, Math.max(0, plan.sourceCheckpointIndex));
      outcome = await realLoop(ctx);
      divergence = ctx.responseDivergence;
    }
  } catch (e) {
    failure = toRunError(e);
    if (isOcdbError(e, 'Diverged')) divergence = e.details.divergence as Divergence;
    outcome = { status: stoppedStatus(e), error: failure };
  }

  try {
    writer.end({
      status: outcome.status,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      ...(endState && !failure ? { checkpoint: endState } : {}),
    });
  } catch (e) {
    failure ??= toRunError(e);
  } finally {
    writer.dispose();
  }
  settleForkRequest(store, forkRequestId, now(), failure);
  const result: RunOutcome = {
    forkRequestId,
    runId,
    status: outcome.status,
    checkpointCount: writer.checkpointCount,
  };
  if (outcome.error !== undefined) result.error = outcome.error;
  if (failure) result.failure = failure;
  if (divergence) result.divergence = divergence;
  return result;
}

/** How a run the fork engine stopped ends: diverged (an answer, not a failure), cancelled, or failed. */
function stoppedStatus(e: unknown): RunEndStatus {
  if (isOcdbError(e, 'Diverged')) return 'diverged';
  if (isOcdbError(e, 'Cancelled')) return 'cancelled';
  return 'failed';
}

type WalkEnd = NonNullable<Awaited<ReturnType<typeof capturedWalk>>['endState']>;
