/**
 * The runner: executes a created fork or replay (a fork request) into its
 * run. Captured model: the recording is walked and re-emitted with divergence
 * detection; real / override model: a ReAct loop against an OpenAI-compatible
 * endpoint. Tools by policy from the cassette / mocks — the built-in runner
 * never runs a tool's code. When an agent program is configured the fork is
 * handed to it instead (status waiting_for_agent). The fork request moves
 * pending -> running -> completed / failed with the error; the run ends with
 * the matching status. No UI.
 */
import { randomUUID } from 'node:crypto';
import { OcdbError, errorMessage, isOcdbError, type RunStatus } from '../model';
import type { CheckpointSummary, RunStore } from '../store';
import { capturedWalk } from './capturedWalk';
import { ToolCassette } from './cassette';
import { planFork } from './forkPlan';
import { ForkService } from './forkService';
import { ForkWriter } from './forkWriter';
import type { ChatModel } from './modelClient';
import type { Divergence } from './promptRender';
import { realLoop } from './realLoop';
import { recordedTurns } from './agentProgramHooks';
import type { RunContext, StepsOutcome } from './runContext';

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
  status: RunStatus | 'waiting_for_agent';
  /** `{ code, message, ... }` when the runner stopped the fork (diverged, forbidden_replay, cassette_miss, ...) or the recording ended with an error. */
  error?: unknown;
  /** Set when the runner itself stopped the fork (diverged, forbidden_replay, cassette_miss, ...), as opposed to a recording that ended with an error. */
  failure?: Record<string, unknown>;
  /** Where the prompt first differed from the recording (captured mode). */
  divergence?: Divergence;
  /** Checkpoints in the fork run when the runner stopped. */
  checkpointCount: number;
}

/** `ForbiddenReplay` -> `forbidden_replay`: the code stored in a run's error. */
export function runErrorCode(code: string): string {
  return code.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** A thrown value as the error object stored on the run and the fork request. */
export function toRunError(e: unknown): Record<string, unknown> {
  if (isOcdbError(e)) return { code: runErrorCode(e.code), message: e.message, ...e.details };
  return { code: 'internal', message: errorMessage(e) };
}

/** Runs the fork request `forkRequestId` to its end (or hands it to the agent program). Never throws for fork failures: they are in the outcome. */
export async function runFork(
  store: RunStore,
  forkRequestId: string,
  options: RunnerOptions = {},
): Promise<RunOutcome> {
  const now = options.now ?? Date.now;
  const service = new ForkService(store, { now });
  const request = service.getRequest(forkRequestId);
  const runId = request.forkRunId;
  if (!runId) throw new OcdbError('Internal', `Fork request ${forkRequestId} has no run.`, { forkRequestId });
  if (request.status !== 'pending' && request.status !== 'waiting_for_agent') {
    throw new OcdbError(
      'InvalidInput',
      `Fork request ${forkRequestId} has already run (${request.status}); create a new fork to run it again.`,
      { forkRequestId, status: request.status },
    );
  }
  if (options.agentProgram) {
    service.setStatus(forkRequestId, 'waiting_for_agent');
    return { forkRequestId, runId, status: 'waiting_for_agent', checkpointCount: store.getRun(runId).checkpointCount };
  }

  store.transaction(() => {
    // Claim it atomically: two runners (or a runner and an agent program) must not run one fork twice.
    const current = service.getRequest(forkRequestId);
    if (current.status !== 'pending' && current.status !== 'waiting_for_agent') {
      throw new OcdbError('InvalidInput', `Fork request ${forkRequestId} is already ${current.status}.`, {
        forkRequestId,
        status: current.status,
      });
    }
    store.setRunOwner(runId, { pid: process.pid, at: now() });
    service.setStatus(forkRequestId, 'running');
  });
  const beat = setInterval(() => {
    try {
      store.heartbeat(runId, now());
    } catch {
      // a missed heartbeat is harmless; the next write reports store trouble
    }
  }, 5000);
  beat.unref();

  const count = store.getRun(runId).checkpointCount;
  const last = store.getCheckpointAt(runId, count - 1);
  const writer = new ForkWriter(
    store,
    runId,
    {
      messages: last.messages,
      runtimeContext: last.runtimeContext,
      stepIndex: last.stepIndex,
      ...(last.systemPrompt !== undefined ? { systemPrompt: last.systemPrompt } : {}),
      ...(last.model ? { model: last.model } : {}),
      ...(last.promptVersion !== undefined ? { promptVersion: last.promptVersion } : {}),
      ...(last.artifactRefs ? { artifactRefs: last.artifactRefs } : {}),
    },
    last.toolLedgerSnapshot,
    now,
    options.newId ?? (() => randomUUID()),
    options.onCheckpoint,
  );
  writer.lastBoundary = last.boundary;

  let outcome: StepsOutcome;
  let failure: Record<string, unknown> | undefined;
  let divergence: Divergence | undefined;
  try {
    const plan = planFork(store, request.config);
    const ctx: RunContext = {
      store,
      plan,
      config: plan.config,
      acknowledged: request.acknowledgedTools,
      writer,
      cassette: new ToolCassette(store, plan.lineage, last.toolLedgerSnapshot),
      metadata: store.getRun(plan.sourceRunId).metadata,
      ...(options.chatModel ? { chatModel: options.chatModel } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      maxModelTurns: options.maxModelTurns ?? 25,
    };
    if (plan.modelMode === 'captured') {
      const walked = await capturedWalk(ctx);
      divergence = walked.divergence;
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
    outcome = { status: isOcdbError(e, 'Cancelled') ? 'cancelled' : 'failed', error: failure };
  } finally {
    clearInterval(beat);
  }

  try {
    writer.end(outcome.status, outcome.error);
  } catch (e) {
    failure ??= toRunError(e);
  }
  service.setStatus(forkRequestId, failure ? 'failed' : 'completed', failure);
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
