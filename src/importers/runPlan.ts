/**
 * RunPlan: an imported run as a compact list of operations (messages added,
 * tool calls begun and finished, checkpoints taken) rather than full
 * checkpoint snapshots, so a long transcript costs memory in proportion to
 * its content, not to checkpoints x messages. `RunPlanBuilder` is what every
 * format's mapper drives; `writeRunPlan` (writePlan.ts) replays a plan into
 * the store. Checkpoint ids are `${runId}#${index}` so forks can name their
 * fork point before anything is written. Pure: no I/O.
 */
import {
  argsHash,
  defaultReplayPolicy,
  type CheckpointBoundary,
  type Message,
  type ModelConfig,
  type RunStatus,
  type RuntimeContextSnapshot,
  type SideEffectLevel,
  type ToolCallRecord,
  type Usage,
} from '../model';

export interface CheckpointOp {
  op: 'checkpoint';
  checkpointId: string;
  boundary: CheckpointBoundary;
  stepIndex: number;
  toolCallId?: string;
  finishReason?: string;
  usage?: Usage;
  createdAt: number;
}

export type PlanOp =
  | { op: 'message'; message: Message }
  | { op: 'resetMessages'; messages: Message[] }
  | { op: 'context'; runtimeContext: RuntimeContextSnapshot }
  | { op: 'systemPrompt'; systemPrompt: string }
  | { op: 'model'; model: ModelConfig }
  | { op: 'beginTool'; record: ToolCallRecord }
  /** `inherited`: a call the parent run opened and this fork closes (not in this run's own ledger table). */
  | { op: 'finishTool'; record: ToolCallRecord; inherited?: boolean }
  | CheckpointOp;

/** The state a run starts from: empty for a new run, the parent's state at the fork point for a fork. */
export interface PlanState {
  messages: Message[];
  ledger: ToolCallRecord[];
  runtimeContext: RuntimeContextSnapshot;
  systemPrompt?: string;
  model?: ModelConfig;
}

export interface RunPlan {
  runId: string;
  sessionId: string;
  agentId: string;
  mode: 'live' | 'fork';
  parentRunId?: string;
  forkFromCheckpointId?: string;
  startedAt: number;
  endedAt: number;
  status: Exclude<RunStatus, 'running'>;
  error?: unknown;
  metadata: Record<string, unknown>;
  initial: PlanState;
  ops: PlanOp[];
  checkpointCount: number;
  toolCallCount: number;
}

/** Freezes a value and everything inside it (imported content is immutable once mapped). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

export interface BeginToolInput {
  toolCallId: string;
  toolName: string;
  args: unknown;
  sideEffectLevel: SideEffectLevel;
  startedAt: number;
}

export interface ToolOutcomeInput {
  result?: unknown;
  error?: unknown;
  endedAt: number;
}

/** Builds one run's plan; a fork's builder starts from `fork()` of its parent's at the fork point. */
export class RunPlanBuilder {
  private readonly ops: PlanOp[] = [];
  private readonly initial: PlanState;
  private messages: Message[];
  private readonly ledger = new Map<string, ToolCallRecord>();
  private runtimeContext: RuntimeContextSnapshot;
  private checkpoints = 0;
  private ownToolCalls = 0;
  private readonly ownIds = new Set<string>();
  private step = -1;
  private lastCheckpointId: string | undefined;
  private lastAt: number;

  constructor(
    readonly runId: string,
    start: PlanState & { at: number; step?: number; lastCheckpointId?: string },
  ) {
    this.initial = {
      messages: [...start.messages],
      ledger: [...start.ledger],
      runtimeContext: start.runtimeContext,
      systemPrompt: start.systemPrompt,
      model: start.model,
    };
    this.messages = [...start.messages];
    for (const r of start.ledger) this.ledger.set(r.toolCallId, r);
    this.runtimeContext = start.runtimeContext;
    this.systemPrompt = start.systemPrompt;
    this.model = start.model;
    this.step = start.step ?? -1;
    this.lastCheckpointId = start.lastCheckpointId;
    this.lastAt = start.at;
  }

  private systemPrompt: string | undefined;
  private model: ModelConfig | undefined;

  /** The state now, to start a fork from (the fork point is the last checkpoint taken). */
  snapshot(): PlanState & { at: number; step: number; lastCheckpointId?: string } {
    return {
      messages: [...this.messages],
      ledger: [...this.ledger.values()],
      runtimeContext: this.runtimeContext,
      systemPrompt: this.systemPrompt,
      model: this.model,
      at: this.lastAt,
      step: this.step,
      lastCheckpointId: this.lastCheckpointId,
    };
  }

  get stepIndex(): number {
    return this.step;
  }
  get currentMessages(): readonly Message[] {
    return this.messages;
  }
  get checkpointCount(): number {
    return this.checkpoints;
  }
  get lastCheckpoint(): string | undefined {
    return this.lastCheckpointId;
  }
  get lastTimestamp(): number {
    return this.lastAt;
  }
  hasTool(toolCallId: string): boolean {
    return this.ledger.has(toolCallId);
  }
  tool(toolCallId: string): ToolCallRecord | undefined {
    return this.ledger.get(toolCallId);
  }
  /** Tool calls begun and not finished, oldest first. */
  openTools(): ToolCallRecord[] {
    return [...this.ledger.values()].filter((r) => r.endedAt === undefined);
  }

  /** Moves the run's clock forward to `t` (timestamps of lines that take no checkpoint). */
  noteTime(t: number): void {
    this.at(t);
  }

  private at(t: number | undefined): number {
    if (t !== undefined && Number.isFinite(t)) this.lastAt = Math.max(this.lastAt, t);
    return this.lastAt;
  }

  addMessage(message: Message): void {
    deepFreeze(message);
    this.messages.push(message);
    this.ops.push({ op: 'message', message });
  }

  resetMessages(messages: Message[]): void {
    messages.forEach((m) => deepFreeze(m));
    this.messages = [...messages];
    this.ops.push({ op: 'resetMessages', messages: [...messages] });
  }

  setContext(runtimeContext: RuntimeContextSnapshot): void {
    this.runtimeContext = deepFreeze(runtimeContext);
    this.ops.push({ op: 'context', runtimeContext });
  }

  setSystemPrompt(systemPrompt: string): void {
    if (systemPrompt === this.systemPrompt) return;
    this.systemPrompt = systemPrompt;
    this.ops.push({ op: 'systemPrompt', systemPrompt });
  }

  setModel(model: ModelConfig): void {
    if (this.model && this.model.provider === model.provider && this.model.model === model.model) return;
    this.model = deepFreeze(model);
    this.ops.push({ op: 'model', model });
  }

  /** Takes a checkpoint; a `before_model_call` or `before_prompt_build` not preceded by one starts a new ReAct step. */
  checkpoint(
    boundary: CheckpointBoundary,
    input: { at?: number; toolCallId?: string; finishReason?: string; usage?: Usage; newStep?: boolean } = {},
  ): string {
    const last = this.ops.findLast((o) => o.op === 'checkpoint') as CheckpointOp | undefined;
    let stepIndex: number;
    if (boundary === 'agent_end') stepIndex = -1;
    else {
      const starts =
        input.newStep ??
        (this.step < 0 ||
          boundary === 'before_prompt_build' ||
          (boundary === 'before_model_call' && last?.boundary !== 'before_prompt_build'));
      if (starts) this.step++;
      stepIndex = this.step;
    }
    const checkpointId = `${this.runId}#${this.checkpoints}`;
    const op: CheckpointOp = { op: 'checkpoint', checkpointId, boundary, stepIndex, createdAt: this.at(input.at) };
    if (input.toolCallId !== undefined) op.toolCallId = input.toolCallId;
    if (input.finishReason !== undefined) op.finishReason = input.finishReason;
    if (input.usage !== undefined) op.usage = input.usage;
    this.ops.push(op);
    this.checkpoints++;
    this.lastCheckpointId = checkpointId;
    return checkpointId;
  }

  /** Opens a tool call in the ledger (policy from the side-effect level) and takes its `before_tool_call`. */
  beginTool(input: BeginToolInput): ToolCallRecord {
    const record: ToolCallRecord = deepFreeze({
      toolCallId: input.toolCallId,
      toolName: input.toolName,
      args: input.args,
      argsHash: argsHash(input.args),
      sideEffectLevel: input.sideEffectLevel,
      replayPolicy: defaultReplayPolicy(input.sideEffectLevel),
      startedAt: this.at(input.startedAt),
    });
    if (record.args === undefined) delete (record as { args?: unknown }).args;
    this.ledger.set(record.toolCallId, record);
    this.ownIds.add(record.toolCallId);
    this.ownToolCalls++;
    this.ops.push({ op: 'beginTool', record });
    this.checkpoint('before_tool_call', { at: input.startedAt, toolCallId: input.toolCallId });
    return record;
  }

  /**
   * Closes a tool call with its result or error, appends the `tool` message
   * (content: the result, or `{ error }`, as the recorder does) and takes
   * `after_tool_call`. `messageContent` overrides the message content.
   */
  finishTool(toolCallId: string, outcome: ToolOutcomeInput, options: { appendMessage?: boolean } = {}): void {
    const begun = this.ledger.get(toolCallId);
    if (!begun) throw new Error(`finishTool: ${toolCallId} was never begun`);
    const record: ToolCallRecord = { ...begun, endedAt: this.at(outcome.endedAt) };
    if (outcome.error !== undefined) record.error = outcome.error;
    else if (outcome.result !== undefined) record.result = outcome.result;
    deepFreeze(record);
    this.ledger.set(toolCallId, record);
    this.ops.push(
      this.ownIds.has(toolCallId) ? { op: 'finishTool', record } : { op: 'finishTool', record, inherited: true },
    );
    if (options.appendMessage !== false) {
      const message: Message = { role: 'tool', toolCallId, toolName: begun.toolName, content: undefined };
      if (outcome.error !== undefined) message.content = { error: outcome.error };
      else if (outcome.result !== undefined) message.content = outcome.result;
      this.addMessage(message);
    }
    this.checkpoint('after_tool_call', { at: outcome.endedAt, toolCallId });
  }

  /** Closes the plan with `agent_end`. */
  finish(
    meta: Omit<RunPlan, 'runId' | 'initial' | 'ops' | 'checkpointCount' | 'toolCallCount' | 'endedAt' | 'status'> & {
      status: RunPlan['status'];
      endedAt?: number;
    },
  ): RunPlan {
    this.checkpoint('agent_end', { at: meta.endedAt });
    return {
      ...meta,
      runId: this.runId,
      endedAt: meta.endedAt ?? this.lastAt,
      initial: this.initial,
      ops: this.ops,
      checkpointCount: this.checkpoints,
      toolCallCount: this.ownToolCalls,
    };
  }
}
