/**
 * Writes a RunPlan through the one RunWriter: every checkpoint, tool call and
 * the end of an imported run follow the same rules as a run recorded by the
 * SDK or over HTTP. Call it inside `store.transaction` so a file's runs land
 * whole or not at all. Depends on the writer and the RunStore contract.
 */
import type { Message } from '../model';
import type { ReopenRunInput, RunStore, RunSummary } from '../store';
import { RunWriter, type CheckpointInput, type RunState, type StateUpdate } from '../writer';
import { StreamedResume } from './growth';
import type { CheckpointOp, PlanDigestFeed, PlanHead, PlanOp, PlanOutput, RunPlan, RunPlanBuilder } from './runPlan';

function factsOf(op: CheckpointOp): CheckpointInput {
  const facts: CheckpointInput = { checkpointId: op.checkpointId, stepIndex: op.stepIndex, createdAt: op.createdAt };
  if (op.toolCallId !== undefined) facts.toolCallId = op.toolCallId;
  if (op.finishReason !== undefined) facts.finishReason = op.finishReason;
  if (op.usage !== undefined) facts.usage = op.usage;
  return facts;
}

/** The state a plan's run starts from (promptVersion: the context's). */
function initialState(initial: RunPlan['initial']): RunState {
  const version = initial.runtimeContext.model.promptVersion || undefined;
  return {
    messages: [...initial.messages],
    runtimeContext: initial.runtimeContext,
    ...(initial.systemPrompt !== undefined ? { systemPrompt: initial.systemPrompt } : {}),
    ...(initial.model !== undefined ? { model: initial.model } : {}),
    ...(version !== undefined ? { promptVersion: version } : {}),
  };
}

export type { PlanHead };

/** How a plan's run ends: known once its trace is read. */
export type PlanEnd = Pick<RunPlan, 'status' | 'error' | 'endedAt'>;

/**
 * Writes a plan's ops through one RunWriter as they come — from a plan in memory, or from a mapper while it
 * reads the trace (`RunPlanBuilder.streamTo`) — keeping only the state changed since the last checkpoint. The
 * run's `agent_end` waits for `close`, which may give the run's final metadata (facts known only at the end of
 * the trace: its source digest, its subagents).
 */
export class PlanWriter {
  // State changed since the last checkpoint; `messages` is copied on the first change after one.
  private pending: StateUpdate = {};
  private messages: Message[] | undefined;
  /** The agent_end checkpoint the ops ended with (written by close); nothing after it is written. */
  private endCheckpoint: CheckpointInput | undefined;

  /** Checkpoints written since the writer last let go of the run's history (RunWriter.rebase). */
  private sinceRebase = 0;

  private constructor(
    private readonly writer: RunWriter,
    /** Every how many checkpoints the writer lets go of what it wrote (0: never; a plan in memory holds it all). */
    private readonly rebaseEvery = 0,
  ) {}

  /**
   * Creates the run of `head` (status running); `onCheckpoint` is called after each checkpoint written;
   * `rebaseEvery`: see the field.
   */
  static create(store: RunStore, head: PlanHead, onCheckpoint?: () => void, rebaseEvery = 0): PlanWriter {
    const writer = RunWriter.create(
      store,
      {
        runId: head.runId,
        sessionId: head.sessionId,
        agentId: head.agentId,
        mode: head.mode,
        ...(head.parentRunId !== undefined ? { parentRunId: head.parentRunId } : {}),
        ...(head.forkFromCheckpointId !== undefined ? { forkFromCheckpointId: head.forkFromCheckpointId } : {}),
        startedAt: head.startedAt,
        metadata: head.metadata,
        state: initialState(head.initial),
        start: { stepIndex: head.initial.stepIndex, ledger: head.initial.ledger },
      },
      // every part of a plan was checked against the store's schemas as it entered the plan (runPlan.ts storable)
      { now: () => head.startedAt, validated: true, ...(onCheckpoint ? { onCheckpoint: () => onCheckpoint() } : {}) },
    );
    return new PlanWriter(writer, rebaseEvery);
  }

  /** Continues a run already in the store (`continueRunPlan`). */
  static over(writer: RunWriter): PlanWriter {
    return new PlanWriter(writer);
  }

  get runId(): string {
    return this.writer.runId;
  }

  private conversation(): Message[] {
    // After a reset, the new conversation; else what the writer's conversation grows by (in place, no copy of it).
    if (this.messages) return this.messages;
    const appended = (this.pending.appendMessages ?? []) as Message[];
    this.pending.appendMessages = appended;
    return appended;
  }

  private flush(): StateUpdate {
    const update = this.pending;
    this.pending = {};
    this.messages = undefined;
    return update;
  }

  /** Writes one op (a checkpoint, a tool call) or notes the state it changes for the next checkpoint. */
  op(op: PlanOp): void {
    if (this.endCheckpoint) return;
    switch (op.op) {
      case 'message':
        this.conversation().push(op.message);
        break;
      case 'resetMessages':
        this.messages = [...op.messages];
        this.pending.messages = this.messages;
        delete this.pending.appendMessages; // messages before the reset are not in the new conversation
        break;
      case 'context': {
        this.pending.runtimeContext = op.runtimeContext;
        const version = op.runtimeContext.model.promptVersion || undefined;
        if (version !== undefined) this.pending.promptVersion = version;
        break;
      }
      case 'systemPrompt':
        this.pending.systemPrompt = op.systemPrompt;
        break;
      case 'model':
        this.pending.model = op.model;
        break;
      case 'artifacts':
        this.pending.artifactRefs = op.artifactRefs;
        break;
      case 'beginTool':
        this.writer.beginTool(op.call, { checkpoint: { ...this.flush(), ...factsOf(op.checkpoint) } });
        this.written();
        break;
      case 'finishTool':
        this.writer.finishTool(op.toolCallId, op.outcome, op.value, {
          endedAt: op.endedAt,
          appendMessage: op.appendMessage,
          checkpoint: { ...this.flush(), ...factsOf(op.checkpoint) },
        });
        this.written();
        break;
      case 'checkpoint':
        if (op.boundary === 'agent_end') this.endCheckpoint = { ...this.flush(), ...factsOf(op) };
        else {
          this.writer.checkpoint(op.boundary, { ...this.flush(), ...factsOf(op) });
          this.written();
        }
        break;
      default: {
        const unreachable: never = op;
        throw new Error(`unknown plan op ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** After a checkpoint: nothing is pending, so the writer may let go of the history it holds. */
  private written(): void {
    if (this.rebaseEvery <= 0 || ++this.sinceRebase < this.rebaseEvery) return;
    this.sinceRebase = 0;
    this.writer.rebase();
  }

  /** Ends the run as `end` says, with the agent_end its ops ended with; `metadata`: the run's from now on. */
  close(end: PlanEnd, metadata?: Record<string, unknown>): RunSummary {
    return this.writer.end({
      status: end.status,
      ...(end.error !== undefined ? { error: end.error } : {}),
      endedAt: end.endedAt,
      ...(this.endCheckpoint ? { checkpoint: this.endCheckpoint } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    });
  }
}

/**
 * Writes `plan` — as a RunPlanBuilder made it: its parts were validated there, and the store takes them as they are
 * (`WriterOptions.validated`); `onCheckpoint` is called after each checkpoint (progress of a long write).
 */
export function writeRunPlan(store: RunStore, plan: RunPlan, onCheckpoint?: () => void): RunSummary {
  const writer = PlanWriter.create(store, plan, onCheckpoint);
  for (const op of plan.ops) writer.op(op);
  return writer.close(plan);
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
    validated: true,
    ...(onCheckpoint ? { onCheckpoint: () => onCheckpoint() } : {}),
    // Reopened from its very start: the run starts where a new one would (a fork: at its parent's step).
    ...(keep === 0
      ? {
          start: { state: initialState(plan.initial), ledger: plan.initial.ledger },
          position: { stepIndex: plan.initial.stepIndex },
        }
      : {}),
  });
  const out = PlanWriter.over(writer);
  for (const op of plan.ops.slice(fromOp)) out.op(op);
  return out.close(plan);
}

/**
 * Every how many checkpoints a streamed run's writer lets go of what it wrote (RunWriter.rebase): what bounds an
 * import's memory by the run's current state — a few MB of history at most — whatever the file's length.
 */
export const REBASE_EVERY = 512;

/**
 * A PlanOutput that writes each plan while its trace is read: a PlanWriter per run, created when the plan starts
 * and fed its ops as the mapper makes them; the runs end (`close`) once the whole trace is read, with their final
 * metadata. For a format that grows, each run's resume point and digest are taken as its ops pass
 * (StreamedResume). Call everything inside one `store.transaction`: a file's runs land whole or not at all.
 */
export class StreamedPlans implements PlanOutput {
  private readonly runs = new Map<string, { writer: PlanWriter; resume: PlanDigestFeed | undefined }>();

  constructor(
    private readonly store: RunStore,
    private readonly options: { grows: boolean; onCheckpoint?: () => void; rebaseEvery?: number },
  ) {}

  stream(builder: RunPlanBuilder, head: PlanHead, digest?: PlanDigestFeed): void {
    if (this.runs.has(head.runId)) throw new Error(`the plan of ${head.runId} is streamed twice`);
    const writer = PlanWriter.create(
      this.store,
      head,
      this.options.onCheckpoint,
      this.options.rebaseEvery ?? REBASE_EVERY,
    );
    const resume = digest ?? (this.options.grows ? new StreamedResume(head) : undefined);
    builder.streamTo(
      resume
        ? (op) => {
            resume.op(op);
            writer.op(op);
          }
        : (op) => writer.op(op),
    );
    this.runs.set(head.runId, { writer, resume });
  }

  /** Where the run's own part ends and its digest there (growth.ts `noteGrowable`). */
  resumeOf(plan: RunPlan): { checkpoints: number; digest: string | undefined } {
    const resume = this.runs.get(plan.runId)?.resume;
    return resume ? resume.result() : { checkpoints: plan.checkpointCount, digest: undefined };
  }

  /** Ends the run of `plan` (read whole now) as it says, with its metadata. */
  close(plan: RunPlan): RunSummary {
    const run = this.runs.get(plan.runId);
    if (!run) throw new Error(`the plan of ${plan.runId} was not streamed`);
    return run.writer.close(plan, plan.metadata);
  }
}
