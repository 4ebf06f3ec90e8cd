/**
 * ForkWriter: records the steps of a fork or replay into its (already
 * created) run, live — each checkpoint is appended as it happens, with the
 * state carried over (messages, context, model, ledger snapshot), and the
 * run's tool calls go through the store's begin/finish journal. Depends on the
 * RunStore contract and model/ only.
 */
import {
  type Checkpoint,
  type CheckpointBoundary,
  type Message,
  type ModelConfig,
  type ReplayPolicy,
  type RuntimeContextSnapshot,
  type SideEffectLevel,
  type ToolCallRecord,
  type Usage,
} from '../model';
import type { CheckpointSummary, RunStore, ToolOutcome } from '../store';

export interface ForkState {
  messages: Message[];
  systemPrompt?: string;
  model?: ModelConfig;
  promptVersion?: string;
  runtimeContext: RuntimeContextSnapshot;
  artifactRefs?: Checkpoint['artifactRefs'];
  stepIndex: number;
}

export interface CheckpointExtras {
  toolCallId?: string;
  finishReason?: string;
  usage?: Usage;
  stepIndex?: number;
}

export class ForkWriter {
  readonly ledger = new Map<string, ToolCallRecord>();
  /** Tool calls begun in this run (the inherited ledger holds the source's). */
  private readonly begun = new Set<string>();
  private count: number;
  /** The boundary of the last checkpoint in the run. */
  lastBoundary: CheckpointBoundary | undefined;

  constructor(
    private readonly store: RunStore,
    readonly runId: string,
    public state: ForkState,
    initialLedger: readonly ToolCallRecord[],
    private readonly now: () => number,
    private readonly newId: () => string,
    private readonly onCheckpoint?: (summary: CheckpointSummary) => void,
  ) {
    for (const record of initialLedger) this.ledger.set(record.toolCallId, record);
    this.count = store.getRun(runId).checkpointCount;
  }

  /** Checkpoints written into the run so far (including the ones before this writer). */
  get checkpointCount(): number {
    return this.count;
  }

  /** Appends a checkpoint at `boundary` with the current state (updated by `patch` first). */
  checkpoint(boundary: CheckpointBoundary, patch: Partial<ForkState> = {}, extras: CheckpointExtras = {}): string {
    this.state = { ...this.state, ...patch };
    if (extras.stepIndex !== undefined) this.state.stepIndex = extras.stepIndex;
    const cp: Checkpoint = {
      checkpointId: this.newId(),
      runId: this.runId,
      boundary,
      stepIndex: boundary === 'agent_end' ? -1 : this.state.stepIndex,
      messages: this.state.messages,
      runtimeContext: this.state.runtimeContext,
      toolLedgerSnapshot: [...this.ledger.values()],
      createdAt: this.now(),
    };
    if (this.state.systemPrompt !== undefined) cp.systemPrompt = this.state.systemPrompt;
    if (this.state.model !== undefined) cp.model = this.state.model;
    if (this.state.promptVersion !== undefined) cp.promptVersion = this.state.promptVersion;
    if (this.state.artifactRefs !== undefined) cp.artifactRefs = this.state.artifactRefs;
    if (extras.toolCallId !== undefined) cp.toolCallId = extras.toolCallId;
    if (extras.finishReason !== undefined) cp.finishReason = extras.finishReason;
    if (extras.usage !== undefined) cp.usage = extras.usage;
    const summary = this.store.appendCheckpoint(cp);
    this.count++;
    this.lastBoundary = boundary;
    this.onCheckpoint?.(summary);
    return cp.checkpointId;
  }

  beginTool(
    toolCallId: string,
    toolName: string,
    args: unknown,
    sideEffectLevel: SideEffectLevel,
    replayPolicy: ReplayPolicy,
  ): ToolCallRecord {
    const record = this.store.beginToolCall(this.runId, {
      toolCallId,
      toolName,
      args,
      sideEffectLevel,
      replayPolicy,
      startedAt: this.now(),
    });
    this.ledger.set(toolCallId, record);
    this.begun.add(toolCallId);
    return record;
  }

  /** True when `toolCallId` was begun in this run (not inherited from the source's ledger). */
  begunHere(toolCallId: string): boolean {
    return this.begun.has(toolCallId);
  }

  finishTool(toolCallId: string, outcome: ToolOutcome, value: unknown): ToolCallRecord {
    const record = this.store.finishToolCall(this.runId, toolCallId, {
      outcome,
      result: outcome === 'success' ? value : undefined,
      error: outcome === 'success' ? undefined : value,
      endedAt: this.now(),
    });
    this.ledger.set(toolCallId, record);
    return record;
  }

  /** Records agent_end and the final status. */
  end(status: 'completed' | 'failed' | 'cancelled', error?: unknown): void {
    this.checkpoint('agent_end');
    this.store.finishRun(this.runId, { status, error, endedAt: this.now() });
  }
}
