/**
 * RunTimeline: the rules of what a recorded run looks like, without I/O —
 * the state each checkpoint carries over from the one before (messages,
 * system prompt, model, prompt version, runtime context, artifacts), the step
 * numbering (a ReAct step starts at before_prompt_build, or at a
 * before_model_call not preceded by one; agent_end is -1), the tool ledger
 * every checkpoint snapshots, the records of tool calls begun and finished,
 * and artifacts: one recorded between checkpoints attaches to the next
 * checkpoint, in place of the older version of the same name. RunWriter
 * (runWriter.ts) applies it to the store; the importers' planner
 * (importers/runPlan.ts) follows a run with it before anything is written.
 * Values are sealed by sealed.ts; the ledger's records and snapshots are
 * ledger.ts's. Pure: no I/O.
 */
import {
  OcdbError,
  argsHash,
  defaultReplayPolicy,
  type ArtifactRef,
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
import type { ToolOutcome } from '../model';
import { extendList, isSealedList, updateInPlace } from '../store';
import { Ledger } from './ledger';
import { storedValue } from './outcomes';
import { deepFreeze, sealMessage, sealMessages, sealValue } from './sealed';

/** The state a checkpoint carries; what a checkpoint input omits comes from the one before. */
export interface RunState {
  messages: Message[];
  systemPrompt?: string;
  model?: ModelConfig;
  promptVersion?: string;
  runtimeContext: RuntimeContextSnapshot;
  artifactRefs?: ArtifactRef[];
}

/** State a checkpoint may change. */
export interface StateUpdate {
  messages?: Message[];
  /**
   * Messages the conversation grows by (after `messages` when both are given): the writer's own conversation
   * grows in place (`RunTimeline.appendMessages`), where passing it extended would be a copy of it.
   */
  appendMessages?: readonly Message[];
  systemPrompt?: string;
  model?: ModelConfig;
  promptVersion?: string;
  runtimeContext?: RuntimeContextSnapshot;
  artifactRefs?: ArtifactRef[];
}

/** Facts of one checkpoint besides its state. */
export interface CheckpointFacts {
  toolCallId?: string;
  finishReason?: string;
  usage?: Usage;
  /** An explicit step index (a recording that numbers its own steps); otherwise the step rule decides. */
  stepIndex?: number;
  /** Force (true) or forbid (false) the start of a new ReAct step at this checkpoint. */
  newStep?: boolean;
  checkpointId?: string;
  createdAt?: number;
}

export type CheckpointInput = StateUpdate & CheckpointFacts;

/** A tool call as it is opened. */
export interface ToolCallInput {
  toolCallId: string;
  toolName: string;
  args: unknown;
  sideEffectLevel: SideEffectLevel;
  /** Default: the level's default policy (reads are reused, writes confirmed, irreversible effects forbidden). */
  replayPolicy?: ReplayPolicy;
  startedAt: number;
}

/** Where a timeline starts: empty for a new run; a run's last checkpoint when it is continued. */
export interface TimelineStart {
  /** Undefined when the run's state only arrives with its first checkpoint. */
  state?: RunState;
  stepIndex?: number;
  lastBoundary?: CheckpointBoundary;
  /** The ledger so far (a fork inherits its source's ledger at the fork point). */
  ledger?: readonly ToolCallRecord[];
  /** Calls of the ledger begun in this run itself (the rest are inherited). */
  begun?: Iterable<string>;
  checkpointCount?: number;
  /** Artifacts recorded after the last checkpoint, which the next one carries (a run continued by `resume`). */
  pendingArtifacts?: readonly ArtifactRef[];
  /**
   * The toolCallId of each record of `ledger` by position, when known (RunWriter.rebase; RunWriter.resume from
   * the runs' tool calls): no record is read to find one. A hole (undefined) is a position not known: the records
   * up to the last hole are searched as without ids.
   */
  ledgerIds?: readonly (string | undefined)[];
}

/** `refs` with each of `added` in place of the ref of the same artifactId (a new name goes last). */
export function withArtifacts(refs: readonly ArtifactRef[], added: readonly ArtifactRef[]): ArtifactRef[] {
  const out = [...refs];
  for (const ref of added) {
    const at = out.findIndex((r) => r.artifactId === ref.artifactId);
    if (at >= 0) out[at] = ref;
    else out.push(ref);
  }
  return out;
}

/** The policy a call is recorded with: the given one, else the default of its side-effect level. */
export function replayPolicyOf(call: Pick<ToolCallInput, 'sideEffectLevel' | 'replayPolicy'>): ReplayPolicy {
  return call.replayPolicy ?? defaultReplayPolicy(call.sideEffectLevel);
}

/** The state a checkpoint holds. */
export function stateOf(cp: Checkpoint): RunState {
  const state: RunState = { messages: cp.messages, runtimeContext: cp.runtimeContext };
  if (cp.systemPrompt !== undefined) state.systemPrompt = cp.systemPrompt;
  if (cp.model !== undefined) state.model = cp.model;
  if (cp.promptVersion !== undefined) state.promptVersion = cp.promptVersion;
  if (cp.artifactRefs !== undefined) state.artifactRefs = cp.artifactRefs;
  return state;
}

export class RunTimeline {
  private current: RunState | undefined;
  private step: number;
  private last: CheckpointBoundary | undefined;
  private count: number;
  private readonly records: Ledger;
  private readonly own = new Set<string>();
  /** Artifacts recorded since the last checkpoint: the next checkpoint carries them. */
  private pending: ArtifactRef[];
  private undo: (() => void)[] | undefined;

  constructor(
    readonly runId: string,
    start: TimelineStart = {},
  ) {
    this.current = start.state
      ? {
          ...start.state,
          messages: sealMessages(start.state.messages),
          runtimeContext: sealValue(start.state.runtimeContext),
        }
      : undefined;
    this.step = start.stepIndex ?? -1;
    this.last = start.lastBoundary;
    this.count = start.checkpointCount ?? 0;
    this.records = new Ledger(start.ledger ?? [], start.ledgerIds);
    for (const id of start.begun ?? []) this.own.add(id);
    this.pending = [...(start.pendingArtifacts ?? [])];
  }

  /** The artifacts the next checkpoint carries: the last checkpoint's, with those recorded since in their place. */
  get artifacts(): ArtifactRef[] {
    return withArtifacts(this.current?.artifactRefs ?? [], this.pending);
  }

  /** The version of the next artifact named `artifactId`: one more than the newest the run carries (1 for a new name). */
  nextArtifactVersion(artifactId: string): number {
    const known = this.artifacts.find((r) => r.artifactId === artifactId);
    return known ? known.version + 1 : 1;
  }

  /** Records an artifact (its content already stored): the next checkpoint carries it, in place of its older version. */
  addArtifact(ref: ArtifactRef): void {
    const before = this.pending;
    this.undo?.push(() => {
      this.pending = before;
    });
    this.pending = withArtifacts(this.pending, [ref]);
  }

  /** The state the next checkpoint carries over (undefined until the run has one). */
  get state(): RunState | undefined {
    return this.current;
  }

  /** The current ReAct step (-1 before the first). */
  get stepIndex(): number {
    return this.step;
  }

  get lastBoundary(): CheckpointBoundary | undefined {
    return this.last;
  }

  /** Checkpoints in the run, this timeline's included. */
  get checkpointCount(): number {
    return this.count;
  }

  /** The ledger, oldest first (inherited calls first). */
  get ledger(): ToolCallRecord[] {
    return this.records.all().slice();
  }

  tool(toolCallId: string): ToolCallRecord | undefined {
    return this.records.get(toolCallId);
  }

  /** Tool calls begun in this run itself (the store's toolCallCount). */
  get ownToolCallCount(): number {
    return this.own.size;
  }

  /** The calls begun in this run itself (what a timeline continuing it starts with: `TimelineStart.begun`). */
  get begunIds(): Iterable<string> {
    return this.own;
  }

  /** The toolCallId of each ledger record by position, when known without reading one (`TimelineStart.ledgerIds`). */
  get ledgerIds(): string[] | undefined {
    return this.records.ids();
  }

  /** Artifacts recorded since the last checkpoint, which the next one carries. */
  get pendingArtifacts(): readonly ArtifactRef[] {
    return this.pending;
  }

  /** True when `toolCallId` was begun in this run (not inherited from the source of a fork). */
  begunHere(toolCallId: string): boolean {
    return this.own.has(toolCallId);
  }

  /** Tool calls begun and not finished, oldest first. */
  openTools(): ToolCallRecord[] {
    return this.ledger.filter((r) => r.endedAt === undefined);
  }

  /** The step rule: the step index of a checkpoint at `boundary`. */
  stepFor(boundary: CheckpointBoundary, input: Pick<CheckpointFacts, 'stepIndex' | 'newStep'> = {}): number {
    if (input.stepIndex !== undefined) return input.stepIndex;
    if (boundary === 'agent_end') return -1;
    const starts =
      input.newStep ??
      (this.step < 0 ||
        boundary === 'before_prompt_build' ||
        (boundary === 'before_model_call' && this.last !== 'before_prompt_build'));
    return starts ? this.step + 1 : this.step;
  }

  /**
   * The checkpoint a write at `boundary` records: state omitted from `input` carried over, the step rule, the
   * ledger snapshot. Nothing changes until `adopt(checkpoint)`.
   */
  build(
    boundary: CheckpointBoundary,
    input: CheckpointInput,
    ids: { checkpointId: string; createdAt: number },
  ): Checkpoint {
    const base = this.current;
    const runtimeContext = input.runtimeContext ?? base?.runtimeContext;
    if (!runtimeContext) {
      throw new OcdbError(
        'InvalidInput',
        `runtimeContext: the first checkpoint of run ${this.runId} must carry the runtime context`,
        { path: 'runtimeContext', runId: this.runId },
      );
    }
    const cp: Checkpoint = {
      checkpointId: input.checkpointId ?? ids.checkpointId,
      runId: this.runId,
      boundary,
      stepIndex: this.stepFor(boundary, input),
      messages: input.messages ?? base?.messages ?? [],
      runtimeContext,
      toolLedgerSnapshot: this.records.all() as ToolCallRecord[],
      createdAt: input.createdAt ?? ids.createdAt,
    };
    const systemPrompt = input.systemPrompt ?? base?.systemPrompt;
    const model = input.model ?? base?.model;
    const promptVersion = input.promptVersion ?? base?.promptVersion;
    const carried = input.artifactRefs ?? base?.artifactRefs;
    // artifacts recorded since the last checkpoint attach to this one (RunWriter.artifact)
    const artifactRefs = this.pending.length > 0 ? withArtifacts(carried ?? [], this.pending) : carried;
    if (systemPrompt !== undefined) cp.systemPrompt = systemPrompt;
    if (model !== undefined) cp.model = model;
    if (promptVersion !== undefined) cp.promptVersion = promptVersion;
    if (artifactRefs !== undefined) cp.artifactRefs = artifactRefs;
    if (input.toolCallId !== undefined) cp.toolCallId = input.toolCallId;
    if (input.finishReason !== undefined) cp.finishReason = input.finishReason;
    if (input.usage !== undefined) cp.usage = input.usage;
    return cp;
  }

  /**
   * The conversation with `items` appended, in place — the timeline's own list, which it never hands
   * out (readers get copies: the recorder's `run.messages`, a fork's prompt), grows by the new messages instead of
   * being copied at every append, and the store takes the rest as shared (store `updateInPlace`). Only inside a
   * write (`atomically`), which takes the messages off again when it fails; they are sealed when the checkpoint
   * is adopted. Elsewhere, or over a list the timeline does not own, a copy (`extendList`).
   */
  appendMessages(items: readonly Message[]): Message[] {
    const list = this.current?.messages;
    const undo = this.undo;
    if (!list || !undo || !isSealedList(list)) return extendList(list ?? [], items);
    const keep = list.length;
    const unsealedFrom = this.unsealedFrom;
    updateInPlace(list, keep, items, 0);
    // sealed when the checkpoint is adopted, as a new list's messages are (the store writes them as given)
    this.unsealedFrom = Math.min(unsealedFrom ?? keep, keep);
    undo.push(() => {
      list.length = keep;
      this.unsealedFrom = unsealedFrom;
    });
    return list;
  }

  /** Where the messages appended in place to the current conversation, not sealed yet, start. */
  private unsealedFrom: number | undefined;

  /** Makes `cp` (built by `build` and written) the last checkpoint: its state carries over to the next. */
  adopt(cp: Checkpoint): void {
    const before = this.current;
    const pending = this.pending;
    this.undo?.push(() => {
      this.current = before;
      this.pending = pending;
    });
    const next = stateOf(cp);
    this.pending = [];
    // The caller may go on mutating the array (and the messages) it passed in: keep our own sealed copy of a new list.
    if (next.messages !== this.current?.messages) next.messages = sealMessages(next.messages, this.current?.messages);
    else if (this.unsealedFrom !== undefined) {
      // grown in place (appendMessages): its new messages sealed where they are
      const list = next.messages;
      for (let i = this.unsealedFrom; i < list.length; i++) list[i] = sealMessage(list[i] as Message);
    }
    this.unsealedFrom = undefined;
    // The same for the context: carried over unchanged, the store knows it by identity (no re-serialising, no re-hashing).
    if (next.runtimeContext !== this.current?.runtimeContext) next.runtimeContext = sealValue(next.runtimeContext);
    this.current = next;
    this.advance(cp.boundary, cp.stepIndex);
  }

  /**
   * Changes the state the next checkpoint carries without taking one (a live debugger's edit, applied at a stop):
   * the context, system prompt or conversation given replace the current ones.
   */
  amend(update: Pick<StateUpdate, 'messages' | 'systemPrompt' | 'runtimeContext'>): void {
    const before = this.current;
    if (!before) throw new OcdbError('Internal', `Run ${this.runId} has no state to edit.`, { runId: this.runId });
    this.undo?.push(() => {
      this.current = before;
    });
    const next: RunState = { ...before };
    if (update.messages !== undefined) next.messages = sealMessages(update.messages, before.messages);
    if (update.systemPrompt !== undefined) next.systemPrompt = update.systemPrompt;
    if (update.runtimeContext !== undefined) next.runtimeContext = sealValue(update.runtimeContext);
    this.current = next;
  }

  /** Counts a checkpoint at `boundary` with `stepIndex` (the step rule's answer) without keeping its state. */
  advance(boundary: CheckpointBoundary, stepIndex: number): void {
    const before = { step: this.step, last: this.last, count: this.count };
    this.undo?.push(() => {
      this.step = before.step;
      this.last = before.last;
      this.count = before.count;
    });
    if (boundary !== 'agent_end') this.step = stepIndex;
    this.last = boundary;
    this.count++;
  }

  /** The record of a call as it is opened (argsHash, default policy). */
  openedRecord(input: ToolCallInput): ToolCallRecord {
    return {
      toolCallId: input.toolCallId,
      toolName: input.toolName,
      args: input.args,
      argsHash: argsHash(input.args),
      sideEffectLevel: input.sideEffectLevel,
      replayPolicy: replayPolicyOf(input),
      startedAt: input.startedAt,
    };
  }

  /**
   * The record of `toolCallId` closed with `outcome`: the result on success, else the stored error value.
   * ToolCallAlreadyFinished when it was closed before (exactly once); undefined when the ledger does not know it.
   */
  finishedRecord(
    toolCallId: string,
    outcome: ToolOutcome,
    value: unknown,
    endedAt: number,
  ): ToolCallRecord | undefined {
    const open = this.records.get(toolCallId);
    if (!open) return undefined;
    if (open.endedAt !== undefined) {
      throw new OcdbError(
        'ToolCallAlreadyFinished',
        `Tool call ${toolCallId} (${open.toolName}) was already finished; finish it exactly once.`,
        { runId: this.runId, toolCallId },
      );
    }
    const record: ToolCallRecord = { ...open, endedAt };
    delete record.result;
    delete record.error;
    const stored = storedValue(outcome, value);
    if (outcome !== 'success') record.error = stored;
    else if (stored !== undefined) record.result = stored;
    return record;
  }

  /** Puts `record` in the ledger (`own`: begun in this run). */
  setRecord(record: ToolCallRecord, own: boolean): void {
    const id = record.toolCallId;
    const wasOwn = this.own.has(id);
    const unset = this.records.set(deepFreeze(record));
    this.undo?.push(() => {
      unset();
      if (!wasOwn) this.own.delete(id);
    });
    if (own) this.own.add(id);
  }

  /** Runs `fn`; when it throws, every change it made to the timeline is undone (a failed write changes nothing). */
  atomically<T>(fn: () => T): T {
    if (this.undo) return fn();
    const undo: (() => void)[] = [];
    this.undo = undo;
    try {
      return fn();
    } catch (e) {
      for (const u of undo.reverse()) u();
      throw e;
    } finally {
      this.undo = undefined;
    }
  }
}
