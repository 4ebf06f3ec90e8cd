/**
 * Writes a RunPlan through the one RunWriter: every checkpoint, tool call and
 * the end of an imported run follow the same rules as a run recorded by the
 * SDK or over HTTP. Call it inside `store.transaction` so a file's runs land
 * whole or not at all. Depends on the writer and the RunStore contract.
 */
import type { Message } from '../model';
import { extendList, type ReopenRunInput, type RunStore, type RunSummary } from '../store';
import { RunWriter, type CheckpointInput, type RunState, type StateUpdate } from '../writer';
import type { CheckpointOp, PlanOp, RunPlan } from './runPlan';

function factsOf(op: CheckpointOp): CheckpointInput {
  const facts: CheckpointInput = { checkpointId: op.checkpointId, stepIndex: op.stepIndex, createdAt: op.createdAt };
  if (op.toolCallId !== undefined) facts.toolCallId = op.toolCallId;
  if (op.finishReason !== undefined) facts.finishReason = op.finishReason;
  if (op.usage !== undefined) facts.usage = op.usage;
  return facts;
}

/** The state a plan's run starts from (promptVersion: the context's). */
function initialState(plan: RunPlan): RunState {
  const { initial } = plan;
  const version = initial.runtimeContext.model.promptVersion || undefined;
  return {
    messages: [...initial.messages],
    runtimeContext: initial.runtimeContext,
    ...(initial.systemPrompt !== undefined ? { systemPrompt: initial.systemPrompt } : {}),
    ...(initial.model !== undefined ? { model: initial.model } : {}),
    ...(version !== undefined ? { promptVersion: version } : {}),
  };
}

/** Writes `plan`; `onCheckpoint` is called after each checkpoint (progress of a long write). */
export function writeRunPlan(store: RunStore, plan: RunPlan, onCheckpoint?: () => void): RunSummary {
  const { initial } = plan;
  const writer = RunWriter.create(
    store,
    {
      runId: plan.runId,
      sessionId: plan.sessionId,
      agentId: plan.agentId,
      mode: plan.mode,
      ...(plan.parentRunId !== undefined ? { parentRunId: plan.parentRunId } : {}),
      ...(plan.forkFromCheckpointId !== undefined ? { forkFromCheckpointId: plan.forkFromCheckpointId } : {}),
      startedAt: plan.startedAt,
      metadata: plan.metadata,
      state: initialState(plan),
      start: { stepIndex: initial.stepIndex, ledger: initial.ledger },
    },
    { now: () => plan.startedAt, ...(onCheckpoint ? { onCheckpoint: () => onCheckpoint() } : {}) },
  );
  return writeOps(writer, plan, plan.ops);
}

/**
 * Continues the run `plan` made earlier from a shorter copy of its file (growth.ts decided it may): reopens it
 * after its first `keep` checkpoints — the end it was closed with is replaced — and writes the plan's ops from
 * `fromOp` on through RunWriter.resume. Call it inside `store.transaction` with the rest of the file's runs.
 */
export function continueRunPlan(
  store: RunStore,
  plan: RunPlan,
  keep: number,
  fromOp: number,
  reopen: Pick<ReopenRunInput, 'runtimeContexts' | 'rewrittenForks'>,
  onCheckpoint?: () => void,
): RunSummary {
  store.reopenRun(plan.runId, { ...reopen, keepCheckpoints: keep, metadata: plan.metadata });
  const writer = RunWriter.resume(store, plan.runId, {
    now: () => plan.startedAt,
    ...(onCheckpoint ? { onCheckpoint: () => onCheckpoint() } : {}),
    // Reopened from its very start: the run starts where a new one would (a fork: at its parent's step).
    ...(keep === 0
      ? {
          start: { state: initialState(plan), ledger: plan.initial.ledger },
          position: { stepIndex: plan.initial.stepIndex },
        }
      : {}),
  });
  return writeOps(writer, plan, plan.ops.slice(fromOp));
}

/** Writes `ops` of `plan` through `writer` and ends the run as the plan says. */
function writeOps(writer: RunWriter, plan: RunPlan, ops: readonly PlanOp[]): RunSummary {
  const promptVersionOf = (ctx: RunPlan['initial']['runtimeContext']) => ctx.model.promptVersion || undefined;
  // State changed since the last checkpoint; `messages` is copied on the first change after one.
  let pending: StateUpdate = {};
  let messages: Message[] | undefined;
  const conversation = (): Message[] => {
    // Made from the writer's conversation (store extendList): the store takes the shared part by identity.
    messages ??= extendList(writer.state?.messages ?? [], []);
    pending.messages = messages;
    return messages;
  };
  const flush = (): StateUpdate => {
    const update = pending;
    pending = {};
    messages = undefined;
    return update;
  };
  for (const op of ops) {
    switch (op.op) {
      case 'message':
        conversation().push(op.message);
        break;
      case 'resetMessages':
        messages = [...op.messages];
        pending.messages = messages;
        break;
      case 'context': {
        pending.runtimeContext = op.runtimeContext;
        const version = promptVersionOf(op.runtimeContext);
        if (version !== undefined) pending.promptVersion = version;
        break;
      }
      case 'systemPrompt':
        pending.systemPrompt = op.systemPrompt;
        break;
      case 'model':
        pending.model = op.model;
        break;
      case 'artifacts':
        pending.artifactRefs = op.artifactRefs;
        break;
      case 'beginTool':
        writer.beginTool(op.call, { checkpoint: { ...flush(), ...factsOf(op.checkpoint) } });
        break;
      case 'finishTool':
        writer.finishTool(op.toolCallId, op.outcome, op.value, {
          endedAt: op.endedAt,
          appendMessage: op.appendMessage,
          checkpoint: { ...flush(), ...factsOf(op.checkpoint) },
        });
        break;
      case 'checkpoint':
        if (op.boundary === 'agent_end') {
          return writer.end({
            status: plan.status,
            ...(plan.error !== undefined ? { error: plan.error } : {}),
            endedAt: plan.endedAt,
            checkpoint: { ...flush(), ...factsOf(op) },
          });
        }
        writer.checkpoint(op.boundary, { ...flush(), ...factsOf(op) });
        break;
      default: {
        const unreachable: never = op;
        throw new Error(`unknown plan op ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return writer.end({
    status: plan.status,
    ...(plan.error !== undefined ? { error: plan.error } : {}),
    endedAt: plan.endedAt,
  });
}
