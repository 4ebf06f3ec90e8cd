/**
 * RunWriter: the one write path of a recorded run. The recorder SDK, HTTP
 * ingest, the importers' write plan and fork execution are thin adapters over
 * it; the rules themselves are RunTimeline's (state carried over, step
 * numbering, ledger snapshot) and outcomes.ts's (how success / error /
 * cancelled are stored, the tool message). Each call is one store
 * transaction — a tool call and its checkpoint, the agent_end checkpoint and
 * the run's status land together or not at all — and the timeline changes
 * only when the transaction committed. It owns the run's heartbeat while it
 * writes. Depends on model/ and the RunStore contract only.
 */
import {
  assertId,
  assertToolName,
  latestArtifacts,
  liveEditFieldsAt,
  type ArtifactRef,
  type CheckpointBoundary,
  type LiveEdits,
  type ToolCallRecord,
} from '../model';
import {
  extendList,
  itemFacts,
  type CheckpointSummary,
  type ListsFrom,
  type RunStore,
  type RunSummary,
  type ToolOutcome,
} from '../store';
import { serializeError, toolResultMessage } from './outcomes';
import { RunTimeline, replayPolicyOf, stateOf, type CheckpointInput, type RunState } from './runTimeline';
import { timeOrderedId } from './newId';
import { ledgerIdsOf, listsFrom } from './ledgerIds';
import type {
  ArtifactWrite,
  BeginToolWrite,
  CreateRunWrite,
  EndRunWrite,
  FinishToolOptions,
  IdKind,
  LiveEditAt,
  ResumeOptions,
  ToolWrite,
  ToolWriteOptions,
  WriterOptions,
} from './writeInputs';

export * from './writeInputs';
export { startLedgerLength } from './ledgerIds';

export class RunWriter {
  private readonly now: () => number;
  private readonly newId: (kind: IdKind) => string;
  private readonly onCheckpoint: ((summary: CheckpointSummary) => void) | undefined;
  private readonly validated: boolean;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  private constructor(
    private readonly store: RunStore,
    private timeline: RunTimeline,
    options: WriterOptions,
    /** The run's agent (what a live debugger may attach to). */
    readonly agentId: string,
  ) {
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? timeOrderedId;
    this.onCheckpoint = options.onCheckpoint;
    this.validated = options.validated === true;
    if (options.heartbeatMs && options.heartbeatMs > 0) {
      this.timer = setInterval(() => this.heartbeat(), options.heartbeatMs);
      this.timer.unref();
    }
  }

  /** Creates a run (status `running`) and its writer. */
  static create(store: RunStore, input: CreateRunWrite, options: WriterOptions = {}): RunWriter {
    return RunWriter.make(store, input, options, true);
  }

  /**
   * The writer of a run the store never got (the SDK's `onStoreError: 'disable'` when the run's creation failed):
   * its state reads as a created run's does; nothing is written (the recorder skips every write of a broken run).
   */
  static unrecorded(store: RunStore, input: CreateRunWrite, options: WriterOptions = {}): RunWriter {
    return RunWriter.make(store, input, { ...options, heartbeatMs: 0 }, false);
  }

  private static make(store: RunStore, input: CreateRunWrite, options: WriterOptions, record: boolean): RunWriter {
    const now = options.now ?? Date.now;
    const runId = input.runId ?? (options.newId ?? timeOrderedId)('run');
    // ids and names are one line of well-formed text (model/names.ts), whoever writes the run
    assertId(runId, 'runId');
    assertId(input.agentId, 'agentId');
    if (input.sessionId) assertId(input.sessionId, 'sessionId');
    if (input.parentRunId !== undefined) assertId(input.parentRunId, 'parentRunId');
    if (input.forkFromCheckpointId !== undefined) assertId(input.forkFromCheckpointId, 'forkFromCheckpointId');
    const state: RunState = { ...input.state, messages: input.state.messages ?? [] };
    state.promptVersion ??= input.state.runtimeContext.model.promptVersion;
    if (state.systemPrompt === undefined) delete state.systemPrompt;
    if (state.model === undefined) delete state.model;
    if (state.artifactRefs === undefined) delete state.artifactRefs;
    if (record)
      store.createRun({
        runId,
        sessionId: input.sessionId ?? input.state.runtimeContext.conversation.sessionId,
        agentId: input.agentId,
        mode: input.mode ?? (input.parentRunId ? 'fork' : 'live'),
        ...(input.parentRunId !== undefined ? { parentRunId: input.parentRunId } : {}),
        ...(input.forkFromCheckpointId !== undefined ? { forkFromCheckpointId: input.forkFromCheckpointId } : {}),
        startedAt: input.startedAt ?? now(),
        ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
        ...(input.artifactRefs !== undefined ? { artifactRefs: input.artifactRefs } : {}),
        ...(input.ownerPid !== undefined ? { ownerPid: input.ownerPid } : {}),
      });
    const writer = new RunWriter(store, new RunTimeline(runId, { ...input.start, state }), options, input.agentId);
    if (input.listsFrom !== undefined) {
      writer.listsFrom = listsFrom(input.listsFrom, writer.timeline, writer.timeline.ledger);
    }
    return writer;
  }

  /**
   * Continues a run already in the store (HTTP ingest after a restart, a fork run created by ForkService): the
   * state of its last checkpoint, its step, and its ledger (inherited records plus its own).
   */
  static resume(store: RunStore, runId: string, options: ResumeOptions = {}): RunWriter {
    const run = store.getRun(runId);
    // The last checkpoint as state: its messages and ledger records are read only when something looks into them.
    const lastId =
      run.checkpointCount > 0
        ? store.listCheckpoints(runId, { offset: run.checkpointCount - 1, limit: 1 })[0]?.checkpointId
        : undefined;
    const last = lastId !== undefined ? store.getCheckpointState(lastId) : undefined;
    const own = store.listToolCallFacts(runId);
    const position = options.position ?? {
      stepIndex: last && last.boundary !== 'agent_end' ? last.stepIndex : -1,
      lastBoundary: last?.boundary,
    };
    // artifacts recorded after the last checkpoint (the store has them; no checkpoint carries them yet)
    const carried = last?.artifactRefs ?? [];
    const pendingArtifacts = latestArtifacts(store.listArtifacts(runId)).filter(
      (r) => !carried.some((c) => c.artifactId === r.artifactId && c.version >= r.version),
    );
    const timeline = new RunTimeline(runId, {
      ...(last ? { state: stateOf(last) } : options.start ? { state: options.start.state } : {}),
      pendingArtifacts,
      stepIndex: position.stepIndex,
      ...(position.lastBoundary !== undefined ? { lastBoundary: position.lastBoundary } : {}),
      ledger: last?.toolLedgerSnapshot ?? options.start?.ledger ?? [],
      begun: own.map((r) => r.toolCallId),
      checkpointCount: run.checkpointCount,
      ...(last ? { ledgerIds: ledgerIdsOf(store, run, last.toolLedgerSnapshot, own) } : {}),
    });
    // The run's own records as the store has them now: a call may have begun or finished after the last
    // checkpoint (without one of its own). Only those differ from the snapshot; the others are its records.
    const snapshotOf = new Map<string, ToolCallRecord>();
    for (const r of own) {
      const inSnapshot = timeline.tool(r.toolCallId);
      if (!inSnapshot) snapshotOf.set(r.toolCallId, r as ToolCallRecord);
      else {
        const facts = itemFacts(inSnapshot);
        if (facts.endedAt !== r.endedAt || facts.startedAt !== r.startedAt)
          snapshotOf.set(r.toolCallId, r as ToolCallRecord);
      }
    }
    for (const id of snapshotOf.keys()) timeline.setRecord(store.getToolCall(runId, id), true);
    const writer = new RunWriter(store, timeline, options, run.agentId);
    // The next checkpoint continues the last one's lists: their nodes are reused, not hashed again (the ledger's
    // up to the first record that moved on since that checkpoint).
    if (last) {
      writer.listsFrom = listsFrom(last.checkpointId, timeline, last.toolLedgerSnapshot);
    }
    return writer;
  }

  get runId(): string {
    return this.timeline.runId;
  }

  /** The state the next checkpoint carries over; undefined only for a run whose first checkpoint brings it. */
  get state(): RunState | undefined {
    return this.timeline.state;
  }

  get stepIndex(): number {
    return this.timeline.stepIndex;
  }

  get lastBoundary(): CheckpointBoundary | undefined {
    return this.timeline.lastBoundary;
  }

  get checkpointCount(): number {
    return this.timeline.checkpointCount;
  }

  /** The ledger so far, oldest first. */
  get ledger(): ToolCallRecord[] {
    return this.timeline.ledger;
  }

  /** Tool calls begun in this run itself (what the store counts as the run's toolCallCount). */
  get toolCallCount(): number {
    return this.timeline.ownToolCallCount;
  }

  tool(toolCallId: string): ToolCallRecord | undefined {
    return this.timeline.tool(toolCallId);
  }

  /** True when `toolCallId` was begun in this run (not inherited from a fork's source). */
  begunHere(toolCallId: string): boolean {
    return this.timeline.begunHere(toolCallId);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** One store transaction; the timeline keeps its changes only when it commits. */
  private atomic<T>(fn: () => T): T {
    const taken: CheckpointSummary[] = [];
    this.taken = taken;
    const lastBefore = this.lastCheckpointId;
    try {
      const result = this.timeline.atomically(() => this.store.transaction(fn));
      if (this.onCheckpoint) for (const summary of taken) this.onCheckpoint(summary);
      return result;
    } catch (e) {
      this.lastCheckpointId = lastBefore; // what was taken in the failed transaction is gone
      throw e;
    } finally {
      this.taken = undefined;
    }
  }

  private taken: CheckpointSummary[] | undefined;
  /** The lists the first checkpoint continues (CreateRunWrite.listsFrom), until it is written. */
  private listsFrom: ListsFrom | undefined;

  /** How long live debuggers held each open call before it ran (`held`), until finishTool stores it. */
  private readonly holds = new Map<string, number>();
  /** How long live debuggers held the agent at stops not before a tool (`heldAtStop`), until the next checkpoint. */
  private readonly stopHolds = new Map<string, number>();

  /** The last checkpoint this writer took. */
  private lastCheckpointId: string | undefined;
  /** True when the timeline changed since the last checkpoint (a call opened or closed without one, a live edit). */
  private changedSinceCheckpoint = false;

  /**
   * Lets go of what the writer holds of the run written so far: it goes on from its last checkpoint as the store
   * has it — stored items, read on first use — exactly as `resume` would, so a long write (an import of a long
   * transcript) holds the run's current state, not every message and ledger record it wrote. Does nothing when
   * the run has no checkpoint yet or changed since its last one (call it right after a checkpoint).
   */
  rebase(): void {
    const count = this.timeline.checkpointCount;
    const lastId = this.lastCheckpointId;
    if (lastId === undefined || this.ended || this.changedSinceCheckpoint || this.listsFrom) return;
    const last = this.store.getCheckpointState(lastId);
    const before = this.timeline;
    const ledgerIds = before.ledgerIds;
    this.timeline = new RunTimeline(this.runId, {
      state: stateOf(last),
      stepIndex: before.stepIndex,
      ...(before.lastBoundary !== undefined ? { lastBoundary: before.lastBoundary } : {}),
      ledger: last.toolLedgerSnapshot,
      begun: before.begunIds,
      checkpointCount: count,
      pendingArtifacts: before.pendingArtifacts,
      ...(ledgerIds ? { ledgerIds } : {}),
    });
    // The next checkpoint continues the stored lists: their nodes are reused, nothing is hashed again.
    this.listsFrom = listsFrom(lastId, this.timeline, last.toolLedgerSnapshot);
  }

  private take(boundary: CheckpointBoundary, given: CheckpointInput): CheckpointSummary {
    if (given.checkpointId !== undefined) assertId(given.checkpointId, 'checkpointId');
    const { appendMessages, ...input } = given;
    // the writer's own conversation grows in place (no copy of it); one the caller gave is extended as a copy
    if (appendMessages) {
      input.messages =
        input.messages !== undefined
          ? extendList(input.messages, appendMessages)
          : this.timeline.appendMessages(appendMessages);
    }
    const cp = this.timeline.build(boundary, input, {
      checkpointId: input.checkpointId ?? this.newId('checkpoint'),
      createdAt: input.createdAt ?? this.now(),
    });
    if (this.stopHolds.size > 0) cp.heldMs = [...this.stopHolds.values()].reduce((a, b) => a + b, 0);
    const listsFrom = this.listsFrom;
    const summary = this.store.appendCheckpoint(cp, {
      ...(listsFrom ? { listsFrom } : {}),
      ...(this.validated ? { validated: true } : {}),
    });
    this.listsFrom = undefined;
    this.stopHolds.clear();
    this.timeline.adopt(cp);
    this.changedSinceCheckpoint = false;
    this.lastCheckpointId = cp.checkpointId;
    this.taken?.push(summary);
    return summary;
  }

  /** Records a checkpoint at `boundary`; state omitted from `input` carries over from the previous checkpoint. */
  checkpoint(boundary: CheckpointBoundary, input: CheckpointInput = {}): CheckpointSummary {
    return this.atomic(() => this.take(boundary, input));
  }

  /** Opens a tool call in the ledger, with its before_tool_call checkpoint unless `checkpoint: false`. */
  beginTool(call: BeginToolWrite, options: ToolWriteOptions = {}): ToolWrite {
    return this.atomic(() => this.open(call, options));
  }

  private open(call: BeginToolWrite, options: ToolWriteOptions): ToolWrite {
    const toolCallId = call.toolCallId ?? this.newId('toolCall');
    assertToolName(call.toolName);
    assertId(toolCallId, 'toolCallId');
    const record = this.store.beginToolCall(this.runId, {
      toolCallId,
      toolName: call.toolName,
      args: call.args,
      sideEffectLevel: call.sideEffectLevel,
      replayPolicy: replayPolicyOf(call),
      startedAt: call.startedAt ?? this.now(),
    });
    this.timeline.setRecord(record, true);
    this.changedSinceCheckpoint = true;
    if (options.checkpoint === false) return { record };
    return { record, checkpoint: this.take('before_tool_call', { ...options.checkpoint, toolCallId }) };
  }

  /**
   * Notes that a live debugger held the open call `toolCallId` for `ms` at its stop before the tool ran: finishTool
   * stores it as the call's `heldMs`, so its own time is told apart from the hold. A call has one such stop: noted
   * again (HTTP ingest answers a settled stop to each request that waits on it), the longest counts.
   */
  held(toolCallId: string, ms: number): void {
    if (!(ms > 0)) return;
    this.holds.set(toolCallId, Math.max(this.holds.get(toolCallId) ?? 0, ms));
  }

  /**
   * Notes that a live debugger held the agent for `ms` at its stop at checkpoint `checkpointId`, one not before a
   * tool (at a model call): the next checkpoint stores it (Checkpoint.heldMs), so the model call's time or the
   * step's is told apart from the hold. Noted again for the same stop (HTTP ingest), the longest counts.
   */
  heldAtStop(checkpointId: string, ms: number): void {
    if (ms > 0) this.stopHolds.set(checkpointId, Math.max(this.stopHolds.get(checkpointId) ?? 0, ms));
  }

  /**
   * Closes a tool call exactly once with success (value: the result), error or cancelled (value: the error or
   * detail, stored as outcomes.ts says), with its `tool` message and after_tool_call checkpoint unless told
   * otherwise. A call a fork inherited open from its source is recorded in the fork's own ledger first.
   */
  finishTool(toolCallId: string, outcome: ToolOutcome, value: unknown, options: FinishToolOptions = {}): ToolWrite {
    return this.atomic(() => {
      const endedAt = options.endedAt ?? this.now();
      const inherited = this.timeline.tool(toolCallId);
      if (inherited && !this.timeline.begunHere(toolCallId) && inherited.endedAt === undefined) {
        this.open(inherited, { checkpoint: false });
      }
      const closed = this.timeline.finishedRecord(toolCallId, outcome, value, endedAt);
      const open = this.timeline.tool(toolCallId);
      const heldMs = options.heldMs ?? this.holds.get(toolCallId);
      const record = this.store.finishToolCall(this.runId, toolCallId, {
        outcome,
        ...(closed?.result !== undefined ? { result: closed.result } : {}),
        ...(closed?.error !== undefined ? { error: closed.error } : {}),
        endedAt,
        ...(heldMs !== undefined && heldMs > 0 ? { heldMs } : {}),
        ...(open && this.timeline.begunHere(toolCallId) ? { open } : {}),
      });
      this.holds.delete(toolCallId);
      this.timeline.setRecord(record, true);
      this.changedSinceCheckpoint = true;
      if (options.checkpoint === false) return { record };
      const input: CheckpointInput = { ...options.checkpoint, toolCallId };
      if (options.appendMessage !== false) {
        const stored = outcome === 'success' ? record.result : record.error;
        // The conversation grows by it (in place: the store shares its prefix without comparing it).
        input.appendMessages = [
          ...(input.appendMessages ?? []),
          toolResultMessage(toolCallId, record.toolName, outcome, stored),
        ];
      }
      return { record, checkpoint: this.take('after_tool_call', input) };
    });
  }

  /**
   * Applies what a live debugger edited at a stop (LiveGate) and records it in the run, in one transaction: the
   * context, system prompt or conversation the next checkpoint carries, and at a before_tool_call the arguments the
   * open call runs with (its ledger record's args, argsHash and liveEdit) or the mocked outcome it is marked with
   * (the caller then finishes it with that outcome instead of running the tool). Only the fields that apply at the
   * boundary (`liveEditFieldsAt`) and that the caller can honour (`fields`) are applied and recorded; returns them,
   * or undefined when nothing applied (nothing is recorded then).
   */
  applyLiveEdits(at: LiveEditAt, edits: LiveEdits, fields?: readonly (keyof LiveEdits)[]): LiveEdits | undefined {
    const allowed = new Set(liveEditFieldsAt(at.boundary).filter((f) => !fields || fields.includes(f)));
    const open = at.toolCallId !== undefined ? this.timeline.tool(at.toolCallId) : undefined;
    const toolOpen = open !== undefined && open.endedAt === undefined && this.timeline.begunHere(open.toolCallId);
    const applied: LiveEdits = { editedBy: edits.editedBy };
    if (edits.runtimeContext !== undefined && allowed.has('runtimeContext'))
      applied.runtimeContext = edits.runtimeContext;
    if (edits.systemPrompt !== undefined && allowed.has('systemPrompt')) applied.systemPrompt = edits.systemPrompt;
    if (edits.messages !== undefined && allowed.has('messages')) applied.messages = edits.messages;
    if (toolOpen && edits.toolArgs !== undefined && allowed.has('toolArgs')) applied.toolArgs = edits.toolArgs;
    if (toolOpen && edits.toolOutcome !== undefined && allowed.has('toolOutcome'))
      applied.toolOutcome = edits.toolOutcome;
    const { editedBy, ...changes } = applied;
    if (Object.keys(changes).length === 0) return undefined;
    if (edits.paths) applied.paths = edits.paths;
    const appliedAt = this.now();
    return this.atomic(() => {
      this.changedSinceCheckpoint = true;
      if (this.timeline.state) {
        this.timeline.amend({
          ...(applied.runtimeContext !== undefined ? { runtimeContext: applied.runtimeContext } : {}),
          ...(applied.systemPrompt !== undefined ? { systemPrompt: applied.systemPrompt } : {}),
          ...(applied.messages !== undefined ? { messages: applied.messages } : {}),
        });
      }
      const record = {
        stopId: at.stopId,
        checkpointId: at.checkpointId,
        boundary: at.boundary,
        ...(at.toolCallId !== undefined ? { toolCallId: at.toolCallId } : {}),
        edits: applied,
        appliedAt,
      };
      const tool =
        open && (applied.toolArgs !== undefined || applied.toolOutcome !== undefined)
          ? {
              toolCallId: open.toolCallId,
              args: applied.toolArgs !== undefined ? applied.toolArgs : open.args,
              liveEdit: {
                stopId: at.stopId,
                editedBy,
                at: appliedAt,
                ...(applied.toolArgs !== undefined ? { originalArgsHash: open.argsHash } : {}),
                ...(applied.toolOutcome !== undefined ? { mocked: true } : {}),
              },
            }
          : undefined;
      const revised = this.store.recordLiveEdit(this.runId, record, tool);
      if (revised) this.timeline.setRecord(revised, true);
      return applied;
    });
  }

  /** The artifacts the next checkpoint carries (the latest version of each name). */
  get artifacts(): ArtifactRef[] {
    return this.timeline.artifacts;
  }

  /**
   * Records an artifact: its content stored once in the store (content-addressed) and its ref added to the run's
   * artifacts, in one transaction. No checkpoint is written: the next checkpoint (at the latest agent_end) carries
   * the ref, in place of the older version of the same name; the version is one more than that one's (1 for a new
   * name).
   */
  artifact(input: ArtifactWrite): ArtifactRef {
    assertId(input.name, 'name');
    return this.atomic(() => {
      const ref = this.store.addArtifact(
        this.runId,
        {
          artifactId: input.name,
          type: input.type,
          version: this.timeline.nextArtifactVersion(input.name),
          createdAt: input.createdAt ?? this.now(),
          metadata: input.metadata ?? {},
        },
        input.content,
      );
      this.timeline.addArtifact(ref);
      this.changedSinceCheckpoint = true;
      return ref;
    });
  }

  /** Ends the run: agent_end and the final status (and error) in one transaction. Stops the heartbeat. */
  end(input: EndRunWrite = {}): RunSummary {
    const status = input.status ?? (input.error !== undefined ? 'failed' : 'completed');
    const summary = this.atomic(() => {
      this.take('agent_end', {
        ...input.checkpoint,
        ...(input.endedAt !== undefined && input.checkpoint?.createdAt === undefined
          ? { createdAt: input.endedAt }
          : {}),
      });
      return this.store.finishRun(this.runId, {
        status,
        ...(input.error !== undefined ? { error: serializeError(input.error) } : {}),
        endedAt: input.endedAt ?? this.now(),
        ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
      });
    });
    this.ended = true;
    this.dispose();
    return summary;
  }

  /** Tells the store the writing process is alive (a missed beat is not an error: the next write reports trouble). */
  heartbeat(): void {
    if (this.ended) return;
    try {
      this.store.heartbeat(this.runId, this.now());
    } catch {
      // the next real write reports store trouble
    }
  }

  /** Stops the heartbeat without ending the run (a run never ended will show as crashed). */
  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
