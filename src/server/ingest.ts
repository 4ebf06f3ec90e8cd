/**
 * Ingest for agents in any language: the recorder SDK's semantics over HTTP
 * bodies — start a run, add checkpoints (state omitted carries over from the
 * run's last checkpoint; runId, stepIndex, the ledger snapshot and createdAt
 * are filled in), begin / finish tool calls (with before/after_tool_call
 * checkpoints and the tool message, like the SDK), end the run. Each call is
 * one store transaction; bodies are zod-validated with the field path.
 * Depends on model/ and the store contract.
 */
import { randomUUID } from 'node:crypto';
import { CheckpointInputSchema } from '../recorder/inputs';
import { z } from 'zod';
import {
  MessageSchema,
  ModelConfigSchema,
  OcdbError,
  RuntimeContextSnapshotSchema,
  CheckpointBoundarySchema,
  ReplayPolicySchema,
  SideEffectLevelSchema,
  defaultReplayPolicy,
  parseWith,
  type Checkpoint,
  type CheckpointBoundary,
} from '../model';
import type { CheckpointSummary, RunStore, RunSummary, ToolOutcome } from '../store';

export const CreateRunBodySchema = z.object({
  runId: z.string().min(1).optional(),
  agentId: z.string().min(1),
  sessionId: z.string().optional(),
  runtimeContext: RuntimeContextSnapshotSchema,
  messages: z.array(MessageSchema).optional(),
  systemPrompt: z.string().optional(),
  model: ModelConfigSchema.optional(),
  promptVersion: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  mode: z.enum(['live', 'replay', 'fork']).optional(),
  parentRunId: z.string().optional(),
  forkFromCheckpointId: z.string().optional(),
  startedAt: z.number().optional(),
});

/** The SDK's checkpoint input (state omitted carries over) plus the boundary and an optional time. */
export const CheckpointBodySchema = CheckpointInputSchema.extend({
  boundary: CheckpointBoundarySchema,
  createdAt: z.number().optional(),
});

export const ToolCallBodySchema = z.discriminatedUnion('phase', [
  z.object({
    phase: z.literal('begin'),
    toolCallId: z.string().min(1).optional(),
    toolName: z.string().min(1),
    args: z.unknown(),
    sideEffectLevel: SideEffectLevelSchema,
    replayPolicy: ReplayPolicySchema.optional(),
    checkpoints: z.boolean().optional(),
  }),
  z.object({
    phase: z.literal('finish'),
    toolCallId: z.string().min(1),
    outcome: z.enum(['success', 'error', 'cancelled']),
    result: z.unknown().optional(),
    error: z.unknown().optional(),
    checkpoints: z.boolean().optional(),
  }),
]);

export const EndRunBodySchema = z.object({
  status: z.enum(['completed', 'failed', 'cancelled']).optional(),
  error: z.unknown().optional(),
  messages: z.array(MessageSchema).optional(),
});

type InitialState = Pick<Checkpoint, 'messages' | 'runtimeContext' | 'systemPrompt' | 'model' | 'promptVersion'>;

export class IngestService {
  /** State given at POST /runs, until the first checkpoint carries it (a restart loses it; the first checkpoint may then bring it). */
  private readonly initial = new Map<string, InitialState>();

  constructor(
    private readonly store: RunStore,
    private readonly now: () => number = Date.now,
  ) {}

  createRun(body: unknown): RunSummary {
    const data = parseWith(CreateRunBodySchema, body, 'body');
    const runId = data.runId ?? randomUUID();
    const summary = this.store.createRun({
      runId,
      sessionId: data.sessionId ?? data.runtimeContext.conversation.sessionId,
      agentId: data.agentId,
      mode: data.mode ?? (data.parentRunId ? 'fork' : 'live'),
      ...(data.parentRunId ? { parentRunId: data.parentRunId } : {}),
      ...(data.forkFromCheckpointId ? { forkFromCheckpointId: data.forkFromCheckpointId } : {}),
      startedAt: data.startedAt ?? this.now(),
      metadata: data.metadata ?? {},
    });
    const state: InitialState = { messages: data.messages ?? [], runtimeContext: data.runtimeContext };
    if (data.systemPrompt !== undefined) state.systemPrompt = data.systemPrompt;
    if (data.model) state.model = data.model;
    state.promptVersion = data.promptVersion ?? data.runtimeContext.model.promptVersion;
    this.initial.set(runId, state);
    return summary;
  }

  appendCheckpoint(runId: string, body: unknown): CheckpointSummary {
    const data = parseWith(CheckpointBodySchema, body, 'body');
    return this.store.transaction(() => this.append(runId, data.boundary, data));
  }

  private append(
    runId: string,
    boundary: CheckpointBoundary,
    data: Partial<z.infer<typeof CheckpointBodySchema>>,
  ): CheckpointSummary {
    const run = this.store.getRun(runId);
    const last = run.checkpointCount > 0 ? this.store.getCheckpointAt(runId, run.checkpointCount - 1) : undefined;
    const base: InitialState | undefined = last ?? this.initial.get(runId);
    const runtimeContext = data.runtimeContext ?? base?.runtimeContext;
    if (!runtimeContext) {
      throw new OcdbError(
        'InvalidInput',
        'body.runtimeContext: the first checkpoint of this run must carry runtimeContext (the server no longer holds the one given at POST /runs)',
        { path: 'runtimeContext' },
      );
    }
    const lastStep = last ? (last.boundary === 'agent_end' ? -1 : last.stepIndex) : -1;
    const startsStep =
      lastStep < 0 ||
      boundary === 'before_prompt_build' ||
      (boundary === 'before_model_call' && last?.boundary !== 'before_prompt_build');
    const stepIndex = data.stepIndex ?? (boundary === 'agent_end' ? -1 : startsStep ? lastStep + 1 : lastStep);
    const cp: Checkpoint = {
      checkpointId: data.checkpointId ?? randomUUID(),
      runId,
      boundary,
      stepIndex,
      messages: data.messages ?? base?.messages ?? [],
      runtimeContext,
      toolLedgerSnapshot: this.store.listToolCalls(runId),
      createdAt: data.createdAt ?? this.now(),
    };
    const systemPrompt = data.systemPrompt ?? base?.systemPrompt;
    const model = data.model ?? base?.model;
    const promptVersion = data.promptVersion ?? base?.promptVersion;
    const artifactRefs = data.artifactRefs ?? last?.artifactRefs;
    if (systemPrompt !== undefined) cp.systemPrompt = systemPrompt;
    if (model) cp.model = model;
    if (promptVersion !== undefined) cp.promptVersion = promptVersion;
    if (artifactRefs) cp.artifactRefs = artifactRefs;
    if (data.toolCallId !== undefined) cp.toolCallId = data.toolCallId;
    if (data.finishReason !== undefined) cp.finishReason = data.finishReason;
    if (data.usage) cp.usage = data.usage;
    const summary = this.store.appendCheckpoint(cp);
    this.initial.delete(runId);
    return summary;
  }

  /** Begins or finishes a tool call (phase 'begin' | 'finish'). */
  toolCall(runId: string, body: unknown): { toolCallId: string; checkpoint?: CheckpointSummary } {
    const data = parseWith(ToolCallBodySchema, body, 'body');
    return this.store.transaction(() => {
      if (data.phase === 'begin') {
        const toolCallId = data.toolCallId ?? randomUUID();
        this.store.beginToolCall(runId, {
          toolCallId,
          toolName: data.toolName,
          args: data.args,
          sideEffectLevel: data.sideEffectLevel,
          replayPolicy: data.replayPolicy ?? defaultReplayPolicy(data.sideEffectLevel),
          startedAt: this.now(),
        });
        if (data.checkpoints === false) return { toolCallId };
        return { toolCallId, checkpoint: this.append(runId, 'before_tool_call', { toolCallId }) };
      }
      const outcome: ToolOutcome = data.outcome;
      const record = this.store.finishToolCall(runId, data.toolCallId, {
        outcome,
        ...(outcome === 'success' ? { result: data.result } : { error: data.error ?? { message: outcome } }),
        endedAt: this.now(),
      });
      if (data.checkpoints === false) return { toolCallId: data.toolCallId };
      const run = this.store.getRun(runId);
      const last = run.checkpointCount > 0 ? this.store.getCheckpointAt(runId, run.checkpointCount - 1) : undefined;
      const messages = [
        ...(last?.messages ?? this.initial.get(runId)?.messages ?? []),
        {
          role: 'tool' as const,
          toolCallId: data.toolCallId,
          toolName: record.toolName,
          content: outcome === 'success' ? data.result : { error: record.error },
        },
      ];
      return {
        toolCallId: data.toolCallId,
        checkpoint: this.append(runId, 'after_tool_call', { toolCallId: data.toolCallId, messages }),
      };
    });
  }

  endRun(runId: string, body: unknown): RunSummary {
    const data = parseWith(EndRunBodySchema, body ?? {}, 'body');
    return this.store.transaction(() => {
      this.append(runId, 'agent_end', data.messages ? { messages: data.messages } : {});
      this.initial.delete(runId);
      return this.store.finishRun(runId, {
        status: data.status ?? (data.error !== undefined ? 'failed' : 'completed'),
        ...(data.error !== undefined ? { error: data.error } : {}),
        endedAt: this.now(),
      });
    });
  }
}
