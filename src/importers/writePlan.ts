/**
 * Replays a RunPlan into the run store with the store's own write calls
 * (createRun, beginToolCall, finishToolCall, appendCheckpoint, finishRun).
 * Call it inside `store.transaction` so a file's runs land whole or not at
 * all. Builds each checkpoint's full snapshot on the fly from the plan's
 * operations. Depends on the RunStore interface only.
 */
import type { Checkpoint, Message, ModelConfig, RuntimeContextSnapshot, ToolCallRecord } from '../model';
import type { RunStore, RunSummary } from '../store';
import type { RunPlan } from './runPlan';

/** Writes `plan`; `onCheckpoint` is called after each checkpoint (progress of a long write). */
export function writeRunPlan(store: RunStore, plan: RunPlan, onCheckpoint?: () => void): RunSummary {
  store.createRun({
    runId: plan.runId,
    sessionId: plan.sessionId,
    agentId: plan.agentId,
    mode: plan.mode,
    parentRunId: plan.parentRunId,
    forkFromCheckpointId: plan.forkFromCheckpointId,
    startedAt: plan.startedAt,
    metadata: plan.metadata,
  });
  let messages: Message[] = [...plan.initial.messages];
  const ledger = new Map<string, ToolCallRecord>(plan.initial.ledger.map((r) => [r.toolCallId, r]));
  let runtimeContext: RuntimeContextSnapshot = plan.initial.runtimeContext;
  let systemPrompt = plan.initial.systemPrompt;
  let model: ModelConfig | undefined = plan.initial.model;
  for (const op of plan.ops) {
    switch (op.op) {
      case 'message':
        messages.push(op.message);
        break;
      case 'resetMessages':
        messages = [...op.messages];
        break;
      case 'context':
        runtimeContext = op.runtimeContext;
        break;
      case 'systemPrompt':
        systemPrompt = op.systemPrompt;
        break;
      case 'model':
        model = op.model;
        break;
      case 'beginTool': {
        const r = op.record;
        store.beginToolCall(plan.runId, {
          toolCallId: r.toolCallId,
          toolName: r.toolName,
          args: r.args,
          sideEffectLevel: r.sideEffectLevel,
          replayPolicy: r.replayPolicy,
          startedAt: r.startedAt,
        });
        ledger.set(r.toolCallId, r);
        break;
      }
      case 'finishTool': {
        const r = op.record;
        if (!op.inherited)
          store.finishToolCall(plan.runId, r.toolCallId, {
            outcome: r.error !== undefined ? 'error' : 'success',
            result: r.result,
            error: r.error,
            endedAt: r.endedAt ?? r.startedAt,
          });
        ledger.set(r.toolCallId, r);
        break;
      }
      case 'checkpoint': {
        const cp: Checkpoint = {
          checkpointId: op.checkpointId,
          runId: plan.runId,
          boundary: op.boundary,
          stepIndex: op.stepIndex,
          messages: [...messages],
          runtimeContext,
          toolLedgerSnapshot: [...ledger.values()],
          createdAt: op.createdAt,
        };
        if (systemPrompt !== undefined) cp.systemPrompt = systemPrompt;
        if (model !== undefined) cp.model = model;
        if (runtimeContext.model.promptVersion) cp.promptVersion = runtimeContext.model.promptVersion;
        if (op.toolCallId !== undefined) cp.toolCallId = op.toolCallId;
        if (op.finishReason !== undefined) cp.finishReason = op.finishReason;
        if (op.usage !== undefined) cp.usage = op.usage;
        store.appendCheckpoint(cp);
        onCheckpoint?.();
        break;
      }
      default: {
        const unreachable: never = op;
        throw new Error(`unknown plan op ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return store.finishRun(plan.runId, { status: plan.status, error: plan.error, endedAt: plan.endedAt });
}
