/**
 * Agent-program mode: when OCDB_FORK names a fork request (and OCDB_STORE the
 * store), `recorder.startRun()` does not start a new run — it attaches to the
 * fork run ForkService created and hands the agent the fork's starting state
 * (`run.messages`, `run.runtimeContext`, `run.systemPrompt`, `run.model`),
 * with model calls and tools governed by the fork (forkHooks.ts). Depends on
 * model/, the store contract and the recorder's fork helpers.
 */
import {
  OcdbError,
  SIDE_EFFECT_LEVELS,
  parseWith,
  ForkConfigSchema,
  type ReplayPolicy,
  type SideEffectLevel,
} from '../model';
import type { RunStore } from '../store';
import { ToolCassette } from './cassette';
import { ForkHooks, recordedTurns } from './agentProgramHooks';
import { lineageOf } from './lineage';
import { RunRecorder, type RecorderEnv } from '../recorder/runRecorder';

export interface ForkModeOptions {
  /** How long a manual_confirm waits for the user's answer; default $OCDB_CONFIRM_TIMEOUT_MS or 5 minutes. */
  confirmTimeoutMs?: number;
  /** How often the store is polled for the answer; default 200 ms. */
  confirmPollMs?: number;
}

/** The fork request id agent-program mode should execute: `OCDB_FORK`, when set. */
export function forkRequestFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const id = env.OCDB_FORK?.trim();
  return id ? id : undefined;
}

function recordedToolFacts(
  store: RunStore,
  lineage: readonly string[],
): Map<string, { level: SideEffectLevel; policy: ReplayPolicy }> {
  const facts = new Map<string, { level: SideEffectLevel; policy: ReplayPolicy }>();
  for (const runId of lineage) {
    for (const r of store.listToolCalls(runId)) {
      const known = facts.get(r.toolName);
      if (!known || SIDE_EFFECT_LEVELS.indexOf(r.sideEffectLevel) >= SIDE_EFFECT_LEVELS.indexOf(known.level)) {
        facts.set(r.toolName, { level: r.sideEffectLevel, policy: r.replayPolicy });
      }
    }
  }
  return facts;
}

/** Attaches to the fork run of `forkRequestId` and returns the RunRecorder the agent records into. */
export function attachForkRun(env: RecorderEnv, forkRequestId: string, options: ForkModeOptions = {}): RunRecorder {
  const store = env.store;
  const request = store.getForkRequest(forkRequestId);
  if (request.status !== 'pending' && request.status !== 'waiting_for_agent') {
    throw new OcdbError(
      'InvalidInput',
      `OCDB_FORK=${forkRequestId}: this fork has already run (${request.status}). Create a new fork to run the agent again.`,
      { forkRequestId, status: request.status, path: 'OCDB_FORK' },
    );
  }
  const config = parseWith(ForkConfigSchema, request.config, `fork request ${forkRequestId}`);
  const runId = request.forkRunId;
  if (!runId) throw new OcdbError('Internal', `Fork request ${forkRequestId} has no run.`, { forkRequestId });
  const run = store.getRun(runId);
  const first = store.getCheckpointAt(runId, run.checkpointCount - 1);
  const sourceIndex = store
    .listCheckpoints(request.sourceRunId)
    .findIndex((c) => c.checkpointId === request.sourceCheckpointId);
  const lineage = lineageOf(store, request.sourceRunId);
  const envTimeout = Number(process.env.OCDB_CONFIRM_TIMEOUT_MS);
  const hooks = new ForkHooks({
    store,
    request,
    config,
    turns: recordedTurns(store, request.sourceRunId, Math.max(0, sourceIndex)),
    cassette: new ToolCassette(store, lineage, first.toolLedgerSnapshot),
    recorded: recordedToolFacts(store, lineage),
    now: env.now,
    confirmTimeoutMs:
      options.confirmTimeoutMs ?? (Number.isFinite(envTimeout) && envTimeout > 0 ? envTimeout : 300_000),
    confirmPollMs: options.confirmPollMs ?? 200,
  });
  store.transaction(() => {
    // Claim it atomically: a second agent started with the same OCDB_FORK must not run it twice.
    const now = store.getForkRequest(forkRequestId);
    if (now.status !== 'pending' && now.status !== 'waiting_for_agent') {
      throw new OcdbError(
        'InvalidInput',
        `OCDB_FORK=${forkRequestId}: another process has already run it (${now.status}).`,
        {
          forkRequestId,
          status: now.status,
          path: 'OCDB_FORK',
        },
      );
    }
    store.setRunOwner(runId, { pid: process.pid, at: env.now() });
    store.saveForkRequest({ ...now, status: 'running', updatedAt: env.now() });
  });
  // A fork point before the model call replays that step: the agent's first checkpoint starts it again.
  const rewinds = first.boundary === 'before_prompt_build' || first.boundary === 'before_model_call';
  return new RunRecorder(
    env,
    runId,
    {
      messages: first.messages,
      runtimeContext: first.runtimeContext,
      ...(first.systemPrompt !== undefined ? { systemPrompt: first.systemPrompt } : {}),
      ...(first.model ? { model: first.model } : {}),
      ...(first.promptVersion !== undefined ? { promptVersion: first.promptVersion } : {}),
      ...(first.artifactRefs ? { artifactRefs: first.artifactRefs } : {}),
    },
    {
      hooks,
      stepIndex: rewinds ? first.stepIndex - 1 : first.stepIndex,
      ...(rewinds ? {} : { lastBoundary: first.boundary }),
      ledger: first.toolLedgerSnapshot,
    },
  );
}
