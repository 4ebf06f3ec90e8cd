/**
 * RunPlan: an imported run as a compact list of operations (messages added,
 * tool calls begun and finished, checkpoints taken) rather than full
 * checkpoint snapshots, so a long transcript costs memory in proportion to
 * its content, not to checkpoints x messages. `RunPlanBuilder` is what every
 * format's mapper drives; it follows the run with the writer's RunTimeline
 * (step numbering, the ledger, how outcomes are stored), so the plan is what
 * RunWriter will write; `writeRunPlan` (writePlan.ts) writes a plan through
 * RunWriter. Checkpoint ids are `${runId}#${index}` so forks can name their
 * fork point before anything is written. Pure: no I/O.
 */
import type {
  ArtifactRef,
  CheckpointBoundary,
  Message,
  ModelConfig,
  RunEndStatus,
  RuntimeContextSnapshot,
  SideEffectLevel,
  ToolCallRecord,
  ToolOutcome,
  Usage,
} from '../model';
import {
  ArtifactRefSchema,
  MessageSchema,
  ModelConfigSchema,
  RuntimeContextSnapshotSchema,
  ToolCallRecordSchema,
  UsageSchema,
  parseWith,
} from '../model';
import { z } from 'zod';
import type { ImportedRunMode } from './types';
import {
  RunTimeline,
  deepFreeze,
  outcomeOf,
  sealPlainJson,
  storedValue,
  toolResultMessage,
  type ToolCallInput,
} from '../writer';

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
  | { op: 'artifacts'; artifactRefs: ArtifactRef[] }
  /** Opens a call and takes its before_tool_call. */
  | { op: 'beginTool'; call: ToolCallInput; checkpoint: CheckpointOp }
  /** Closes a call (its `tool` message unless appendMessage is false) and takes its after_tool_call. */
  | {
      op: 'finishTool';
      toolCallId: string;
      outcome: ToolOutcome;
      value: unknown;
      endedAt: number;
      appendMessage: boolean;
      checkpoint: CheckpointOp;
    }
  | CheckpointOp;

/** The state a run starts from: empty for a new run, the parent's state at the fork point for a fork. */
export interface PlanState {
  messages: Message[];
  ledger: ToolCallRecord[];
  runtimeContext: RuntimeContextSnapshot;
  systemPrompt?: string;
  model?: ModelConfig;
  /** The ReAct step the run starts in (-1 for a new run). */
  stepIndex: number;
}

export interface RunPlan {
  runId: string;
  sessionId: string;
  agentId: string;
  mode: ImportedRunMode;
  parentRunId?: string;
  forkFromCheckpointId?: string;
  startedAt: number;
  endedAt: number;
  status: RunEndStatus;
  error?: unknown;
  metadata: Record<string, unknown>;
  initial: PlanState;
  /** The run's operations; empty when they were handed on as they were made (`RunPlanBuilder.streamTo`). */
  ops: PlanOp[];
  /** True when `ops` went to a sink (the run was written while its trace was read), not into this plan. */
  streamed?: true;
  checkpointCount: number;
  toolCallCount: number;
}

export { deepFreeze };

/** What a plan's run is created with: everything known before its ops. */
export type PlanHead = Pick<
  RunPlan,
  | 'runId'
  | 'sessionId'
  | 'agentId'
  | 'mode'
  | 'parentRunId'
  | 'forkFromCheckpointId'
  | 'startedAt'
  | 'metadata'
  | 'initial'
>;

/**
 * Where a reader's plans go as they are built: each plan's ops handed on as the mapper makes them (`streamTo`),
 * so the run is written while its trace is read. Without one, a reader keeps its plans whole.
 */
export interface PlanOutput {
  /**
   * A plan starts: `head` is what its run is created with; its ops follow through `builder`. `digest`: what takes
   * the run's digest (planDigest.ts `StreamedResume`) when the reader follows it too, fed here instead of twice.
   */
  stream(builder: RunPlanBuilder, head: PlanHead, digest?: PlanDigestFeed): void;
}

/** What takes a plan's digest as its ops pass (planDigest.ts `StreamedResume`). */
export interface PlanDigestFeed {
  op(op: PlanOp): void;
  result(): { checkpoints: number; digest: string };
}

/**
 * Checks that `value`, as the store will keep it (JSON), parses with the schema the store reads it back with —
 * so no trace can produce a checkpoint that export or replay rejects. Every part of a checkpoint passes here
 * once, when it enters the plan (a message when added, a ledger record when it changes), not once per checkpoint —
 * and only here: the plan's checkpoints are written `validated` (writePlan.ts), the store does not parse them again.
 */
function storable(schema: z.ZodType, value: unknown, where: string): boolean {
  // Plain JSON (what the parsers build from JSON lines) reads back as it is: no round trip through a string.
  const plain = value === undefined || isPlainJson(value);
  parseWith(schema, plain ? value : JSON.parse(JSON.stringify(value)), `${where} would not read back from the store`);
  return plain;
}

/**
 * A message the plan keeps: deep-frozen, and — plain JSON as it is — sealed for the writer, which then takes it
 * by identity instead of making its own frozen copy (one copy of every imported message less). Anything else
 * (a value JSON would change) the writer copies as it copies any caller's.
 */
function keptMessage(message: Message, where: string): Message {
  return storable(MessageSchema, message, where) ? sealPlainJson(message) : deepFreeze(message);
}

/** True when JSON.stringify and JSON.parse would give `value` back unchanged (no undefined, NaN, Date, class...). */
function isPlainJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i])) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        if (!isPlainJson((value as Record<string, unknown>)[key])) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

const ARTIFACT_REFS = z.array(ArtifactRefSchema);

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
  /** Default: error when `error` is given, else success. */
  outcome?: ToolOutcome;
  endedAt: number;
}

type SnapshotState = Omit<PlanState, 'stepIndex'> & { at: number; step: number; lastCheckpointId?: string };

/** Builds one run's plan; a fork's builder starts from `snapshot()` of its parent's at the fork point. */
export class RunPlanBuilder {
  private readonly ops: PlanOp[] = [];
  private readonly initial: PlanState;
  private readonly timeline: RunTimeline;
  private messages: Message[];
  private runtimeContext: RuntimeContextSnapshot;
  private systemPrompt: string | undefined;
  private model: ModelConfig | undefined;
  private ownToolCalls = 0;
  private lastCheckpointId: string | undefined;
  private lastAt: number;
  /** Where ops go when the plan streams (streamTo); otherwise they are kept in `ops`. */
  private sink: ((op: PlanOp) => void) | undefined;
  private observer: ((op: PlanOp) => void) | undefined;
  /** Keep finished calls without their arguments and outcome (see `forgetFinished`). */
  private light = false;

  /**
   * `start.checkpointCount` / `lastBoundary`: a run taken up again after the checkpoints it has in the store
   * (claudeCode/tailImport.ts), its ids and step rule going on from there.
   */
  constructor(
    readonly runId: string,
    start: Omit<SnapshotState, 'step'> & {
      step?: number;
      checkpointCount?: number;
      lastBoundary?: CheckpointBoundary;
    },
  ) {
    this.initial = {
      messages: [...start.messages],
      ledger: [...start.ledger],
      runtimeContext: start.runtimeContext,
      stepIndex: start.step ?? -1,
      ...(start.systemPrompt !== undefined ? { systemPrompt: start.systemPrompt } : {}),
      ...(start.model !== undefined ? { model: start.model } : {}),
    };
    storable(RuntimeContextSnapshotSchema, start.runtimeContext, 'runtimeContext');
    this.timeline = new RunTimeline(runId, {
      stepIndex: this.initial.stepIndex,
      ledger: start.ledger,
      ...(start.checkpointCount !== undefined ? { checkpointCount: start.checkpointCount } : {}),
      ...(start.lastBoundary !== undefined ? { lastBoundary: start.lastBoundary } : {}),
    });
    this.messages = [...start.messages];
    this.runtimeContext = start.runtimeContext;
    this.systemPrompt = start.systemPrompt;
    this.model = start.model;
    this.lastCheckpointId = start.lastCheckpointId;
    this.lastAt = start.at;
  }

  /** The state the run starts from (what a writer of its ops starts with). */
  get start(): PlanState {
    return this.initial;
  }

  /**
   * Hands every op from now on — and those made so far — to `sink` instead of keeping them in the plan, so a
   * long run costs memory for its current state, not its history (the plan's `ops` stay empty).
   */
  streamTo(sink: (op: PlanOp) => void): void {
    for (const op of this.ops) sink(op);
    this.ops.length = 0;
    this.sink = sink;
  }

  /**
   * From now on a finished call is kept without its arguments and outcome (its ids, name, times and hash stay):
   * a streamed plan hands them on and no fork starts from this run's ledger (a `snapshot` would need them), so
   * the builder's memory does not grow with every result the run had.
   */
  forgetFinished(): void {
    this.light = true;
  }

  /** `observer` sees every op from now on, before it is kept or handed on (what a reader notes of the run). */
  observe(observer: (op: PlanOp) => void): void {
    this.observer = observer;
  }

  private emit(op: PlanOp): void {
    this.observer?.(op);
    if (this.sink) this.sink(op);
    else this.ops.push(op);
  }

  /** The state now, to start a fork from (the fork point is the last checkpoint taken). */
  snapshot(): SnapshotState {
    return {
      messages: [...this.messages],
      ledger: this.timeline.ledger,
      runtimeContext: this.runtimeContext,
      ...(this.systemPrompt !== undefined ? { systemPrompt: this.systemPrompt } : {}),
      ...(this.model !== undefined ? { model: this.model } : {}),
      at: this.lastAt,
      step: this.timeline.stepIndex,
      ...(this.lastCheckpointId !== undefined ? { lastCheckpointId: this.lastCheckpointId } : {}),
    };
  }

  get stepIndex(): number {
    return this.timeline.stepIndex;
  }
  get currentMessages(): readonly Message[] {
    return this.messages;
  }
  get checkpointCount(): number {
    return this.timeline.checkpointCount;
  }
  get lastCheckpoint(): string | undefined {
    return this.lastCheckpointId;
  }
  get lastTimestamp(): number {
    return this.lastAt;
  }
  hasTool(toolCallId: string): boolean {
    return this.timeline.tool(toolCallId) !== undefined;
  }
  tool(toolCallId: string): ToolCallRecord | undefined {
    return this.timeline.tool(toolCallId);
  }
  /** Tool calls begun and not finished, oldest first. */
  openTools(): ToolCallRecord[] {
    return this.timeline.openTools();
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
    keptMessage(message, `messages[${this.messages.length}]`);
    this.messages.push(message);
    this.emit({ op: 'message', message });
  }

  resetMessages(messages: Message[]): void {
    messages.forEach((m, i) => keptMessage(m, `messages[${i}]`));
    this.messages = [...messages];
    this.emit({ op: 'resetMessages', messages: [...messages] });
  }

  setContext(runtimeContext: RuntimeContextSnapshot): void {
    storable(RuntimeContextSnapshotSchema, runtimeContext, 'runtimeContext');
    this.runtimeContext = deepFreeze(runtimeContext);
    this.emit({ op: 'context', runtimeContext });
  }

  setSystemPrompt(systemPrompt: string): void {
    if (systemPrompt === this.systemPrompt) return;
    this.systemPrompt = systemPrompt;
    this.emit({ op: 'systemPrompt', systemPrompt });
  }

  setModel(model: ModelConfig): void {
    if (this.model && this.model.provider === model.provider && this.model.model === model.model) return;
    storable(ModelConfigSchema, model, 'model');
    this.model = deepFreeze(model);
    this.emit({ op: 'model', model });
  }

  setArtifacts(artifactRefs: ArtifactRef[]): void {
    storable(ARTIFACT_REFS, artifactRefs, 'artifactRefs');
    this.emit({ op: 'artifacts', artifactRefs: deepFreeze(artifactRefs) });
  }

  private checkpointOp(
    boundary: CheckpointBoundary,
    input: { at?: number; toolCallId?: string; finishReason?: string; usage?: Usage; newStep?: boolean },
  ): CheckpointOp {
    const stepIndex = this.timeline.stepFor(boundary, input.newStep !== undefined ? { newStep: input.newStep } : {});
    const checkpointId = `${this.runId}#${this.timeline.checkpointCount}`;
    if (input.usage !== undefined) storable(UsageSchema, input.usage, `${checkpointId}: usage`);
    this.timeline.advance(boundary, stepIndex);
    const op: CheckpointOp = { op: 'checkpoint', checkpointId, boundary, stepIndex, createdAt: this.at(input.at) };
    if (input.toolCallId !== undefined) op.toolCallId = input.toolCallId;
    if (input.finishReason !== undefined) op.finishReason = input.finishReason;
    if (input.usage !== undefined) op.usage = input.usage;
    this.lastCheckpointId = checkpointId;
    return op;
  }

  /** Takes a checkpoint; the writer's step rule decides where a ReAct step starts (`newStep` overrides it). */
  checkpoint(
    boundary: CheckpointBoundary,
    input: { at?: number; toolCallId?: string; finishReason?: string; usage?: Usage; newStep?: boolean } = {},
  ): string {
    const op = this.checkpointOp(boundary, input);
    this.emit(op);
    return op.checkpointId;
  }

  /**
   * Sets the usage of a checkpoint already taken (formats that report a model call's tokens after it, as Codex
   * rollouts do); the timeline does not depend on usage, so nothing else changes.
   */
  setUsage(checkpointId: string, usage: Usage): void {
    if (this.sink) throw new Error(`setUsage: the plan of ${this.runId} streams; its checkpoints are written`);
    const op = this.ops.find((o): o is CheckpointOp => o.op === 'checkpoint' && o.checkpointId === checkpointId);
    if (!op) throw new Error(`setUsage: no checkpoint ${checkpointId} in this plan`);
    storable(UsageSchema, usage, `${checkpointId}: usage`);
    op.usage = usage;
  }

  /** Opens a tool call in the ledger (policy from the side-effect level) and takes its `before_tool_call`. */
  beginTool(input: BeginToolInput): ToolCallRecord {
    const call: ToolCallInput = { ...input, startedAt: this.at(input.startedAt) };
    const record = this.timeline.openedRecord(call);
    if (record.args === undefined) delete (record as { args?: unknown }).args;
    storable(ToolCallRecordSchema, record, `tool call ${input.toolCallId}`);
    this.timeline.setRecord(record, true);
    this.ownToolCalls++;
    const checkpoint = this.checkpointOp('before_tool_call', { at: input.startedAt, toolCallId: input.toolCallId });
    this.emit({ op: 'beginTool', call, checkpoint });
    return record;
  }

  /**
   * Closes a tool call with its result or error (or as cancelled), appends the `tool` message (as the writer
   * does) unless told not to, and takes `after_tool_call`. A call opened by the parent of a fork is recorded in
   * the fork's own ledger when the fork closes it (as RunWriter does).
   */
  finishTool(toolCallId: string, outcome: ToolOutcomeInput, options: { appendMessage?: boolean } = {}): void {
    const kind: ToolOutcome = outcome.outcome ?? (outcome.error !== undefined ? 'error' : 'success');
    const value = kind === 'success' ? outcome.result : outcome.error;
    const endedAt = this.at(outcome.endedAt);
    const record = this.timeline.finishedRecord(toolCallId, kind, value, endedAt);
    if (!record) throw new Error(`finishTool: ${toolCallId} was never begun`);
    if (!this.timeline.begunHere(toolCallId)) this.ownToolCalls++;
    storable(ToolCallRecordSchema, record, `tool call ${toolCallId}`);
    if (this.light) {
      const { args: _args, result: _result, error: _error, ...facts } = record;
      this.timeline.setRecord(deepFreeze(facts as ToolCallRecord), true);
    } else this.timeline.setRecord(record, true);
    const appendMessage = options.appendMessage !== false;
    if (appendMessage) {
      const message = toolResultMessage(toolCallId, record.toolName, outcomeOf(record), storedValue(kind, value));
      keptMessage(message, `messages[${this.messages.length}]`);
      this.messages.push(message);
    }
    const checkpoint = this.checkpointOp('after_tool_call', { at: outcome.endedAt, toolCallId });
    this.emit({ op: 'finishTool', toolCallId, outcome: kind, value, endedAt, appendMessage, checkpoint });
  }

  /**
   * Closes every call still open as `cancelled` ("the trace ends before its result"), each with its `tool`
   * message, so the conversation stays a valid sequence and a captured replay re-emits the cancellation instead
   * of missing a result. Answers the calls closed (for the run's error).
   */
  closeUnanswered(reason = 'the trace ends before its result'): ToolCallRecord[] {
    const open = this.openTools();
    for (const r of open) this.finishTool(r.toolCallId, { outcome: 'cancelled', error: reason, endedAt: this.lastAt });
    return open;
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
      ...(this.sink ? { streamed: true as const } : {}),
      checkpointCount: this.timeline.checkpointCount,
      toolCallCount: this.ownToolCalls,
    };
  }
}

/**
 * How a plan ends once its trace is read: `failed` with `failure` when the trace says the run failed, else
 * `cancelled` naming the calls `closeUnanswered` closed ("the log ends with 1 unanswered tool call(s): search c1"),
 * else `completed`. `source` names what ended: the trace, the log, the transcript, the rollout.
 */
export function planEnd(
  open: readonly ToolCallRecord[],
  source: string,
  failure?: unknown,
): { status: 'failed' | 'cancelled' | 'completed'; error?: unknown } {
  if (failure !== undefined) return { status: 'failed', error: failure };
  if (open.length === 0) return { status: 'completed' };
  const calls = open.map((r) => `${r.toolName} ${r.toolCallId}`).join(', ');
  return {
    status: 'cancelled',
    error: { message: `${source} ends with ${open.length} unanswered tool call(s): ${calls}` },
  };
}
