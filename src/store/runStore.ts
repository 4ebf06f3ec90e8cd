/**
 * The RunStore contract: what every layer above may ask of the run store.
 * The SQLite implementation is `SqliteRunStore`; nothing outside src/store
 * sees SQL. All writes are single transactions; reads return whole, validated
 * model objects.
 */
import type {
  ArtifactRef,
  Checkpoint,
  CheckpointBoundary,
  ConfirmationAnswer,
  ConfirmationRecord,
  ConfirmationStatus,
  DebugRun,
  ForkRequestRecord,
  Message,
  ReplayPolicy,
  RunEndStatus,
  RunMode,
  RunStatus,
  RuntimeContextSnapshot,
  SideEffectLevel,
  ToolCallRecord,
  ToolOutcome,
  Usage,
} from '../model';

// The record shapes and their enums live in src/model (zod schemas); re-exported here for the store's callers.
export { CONFIRMATION_ANSWERS } from '../model';
export type {
  ConfirmationAnswer,
  ConfirmationRecord,
  ConfirmationStatus,
  ForkRequestRecord,
  ForkRequestStatus,
  ToolOutcome,
} from '../model';

/** A run without its checkpoints: what lists and trees show. */
/** Options of `loadRun`. */
export interface LoadRunOptions {
  /** Where the run came from (a file name), prefixed to error messages. */
  where?: string;
  /** Replace a run of the same id instead of refusing it. */
  replace?: boolean;
  /** The runs loaded in the same batch by id (their parents may come later in the batch). */
  batch?: ReadonlyMap<string, { parentRunId?: string }>;
}

export interface RunSummary {
  runId: string;
  sessionId: string;
  agentId: string;
  parentRunId?: string;
  forkFromCheckpointId?: string;
  status: RunStatus;
  mode: RunMode;
  startedAt: number;
  endedAt?: number;
  error?: unknown;
  metadata: Record<string, unknown>;
  checkpointCount: number;
  toolCallCount: number;
  toolErrorCount: number;
  /** Number of ReAct steps (highest stepIndex + 1). */
  stepCount: number;
  inputTokens: number;
  outputTokens: number;
  /** A `running` run whose recording process died (pid gone or heartbeat stale): never shown as running or completed. */
  crashed: boolean;
  ownerPid?: number;
  heartbeatAt?: number;
  /** createdAt of the run's newest checkpoint: how far an unfinished (or crashed) run got, in the run's own clock. */
  lastCheckpointAt?: number;
  /** Store-wide change counter value of this run's last write (for incremental refresh). */
  changeSeq: number;
}

/** A checkpoint without its heavy state: what transcripts, frames and trees list. */
export interface CheckpointSummary {
  checkpointId: string;
  runId: string;
  /** Position in the run, 0-based. */
  index: number;
  boundary: CheckpointBoundary;
  stepIndex: number;
  toolCallId?: string;
  toolName?: string;
  finishReason?: string;
  usage?: Usage;
  messageCount: number;
  promptVersion?: string;
  createdAt: number;
}

export interface ListRunsOptions {
  agentId?: string;
  status?: RunStatus;
  mode?: RunMode;
  /** Only forks of this run; `null` for top-level runs only. */
  parentRunId?: string | null;
  limit?: number;
  offset?: number;
}

export interface CreateRunInput {
  runId: string;
  sessionId: string;
  agentId: string;
  mode?: RunMode;
  parentRunId?: string;
  forkFromCheckpointId?: string;
  startedAt: number;
  metadata?: Record<string, unknown>;
  artifactRefs?: ArtifactRef[];
  /** The recording process (for crash detection); defaults to this process. */
  ownerPid?: number;
}

export interface BeginToolCallInput {
  toolCallId: string;
  toolName: string;
  args: unknown;
  sideEffectLevel: SideEffectLevel;
  replayPolicy: ReplayPolicy;
  startedAt: number;
}

export interface FinishToolCallInput {
  outcome: ToolOutcome;
  result?: unknown;
  error?: unknown;
  endedAt: number;
}

/** What `reopenRun` cuts and keeps: the run continues after its first `keepCheckpoints` checkpoints. */
export interface ReopenRunInput {
  keepCheckpoints: number;
  /** The run's metadata from now on (an importer's source facts of the grown file). */
  metadata: Record<string, unknown>;
  /**
   * The runtime context of the kept checkpoints, by segment: from checkpoint `fromCheckpoint` on (to the next
   * segment). Session facts an importer derives from the whole file (tools used, title, version) change as the
   * file grows; absent: unchanged.
   */
  runtimeContexts?: { fromCheckpoint: number; runtimeContext: RuntimeContextSnapshot }[];
  /** Runs that may fork from the part removed: written again in the same transaction (an import's own forks). */
  rewrittenForks?: string[];
}

export interface FinishRunInput {
  status: RunEndStatus;
  error?: unknown;
  endedAt: number;
}

/** What listConfirmations filters on. */
export interface ConfirmationFilter {
  forkRequestId?: string;
  status?: ConfirmationStatus;
}

export interface StoreChanges {
  changeSeq: number;
  changedRuns: RunSummary[];
  deletedRunIds: string[];
}

/**
 * The lists of a stored checkpoint (`checkpointId`) as the caller holds them: `messages` and `ledger` are its
 * message list and ledger snapshot, item for item (read from it), deep-frozen (RunWriter's sealed state is): a list
 * with an item that is not frozen is not adopted.
 */
/** What a ledger record says about a call besides its arguments and result. */
export type ToolCallFacts = Pick<
  ToolCallRecord,
  'toolCallId' | 'toolName' | 'sideEffectLevel' | 'replayPolicy' | 'startedAt' | 'endedAt'
>;

export interface ListsFrom {
  checkpointId: string;
  messages: readonly Message[];
  /** Absent: the ledger is not the checkpoint's (only the messages are adopted). */
  ledger?: readonly ToolCallRecord[];
}

export interface RunStore {
  readonly path: string;
  readonly driverName: string;

  createRun(input: CreateRunInput): RunSummary;
  /**
   * Appends a checkpoint at the end of its (running) run. `options.listsFrom` says the run's lists continue those
   * of another checkpoint (a fork's first checkpoint continues its source's): its nodes are reused for the items
   * the new lists share with the given ones by identity, so they are neither hashed nor written again.
   */
  appendCheckpoint(checkpoint: Checkpoint, options?: { listsFrom?: ListsFrom }): CheckpointSummary;
  beginToolCall(runId: string, input: BeginToolCallInput): ToolCallRecord;
  finishToolCall(runId: string, toolCallId: string, input: FinishToolCallInput): ToolCallRecord;
  finishRun(runId: string, input: FinishRunInput): RunSummary;
  /**
   * Reopens an ended run to continue it (a transcript that grew since it was imported): removes its checkpoints
   * from `keepCheckpoints` on — the end it was closed with and what a longer file may write differently — removes
   * the tool calls begun there and opens again those only closed there, and sets the run `running` with
   * `metadata`, in one transaction. Refuses (InvalidInput, nothing changed) when a fork or fork request starts
   * from a checkpoint it would remove.
   */
  reopenRun(runId: string, input: ReopenRunInput): RunSummary;
  heartbeat(runId: string, at: number): void;
  /**
   * Sets the process that owns a `running` run (crash detection), or clears it with null: a fork waiting for
   * its runner or agent program has no owner and is not shown as crashed. A runner claims it with its pid.
   */
  setRunOwner(runId: string, owner: { pid: number; at: number } | null): void;

  hasRun(runId: string): boolean;
  getRun(runId: string): RunSummary;
  listRuns(options?: ListRunsOptions): { runs: RunSummary[]; total: number };
  listCheckpoints(runId: string, range?: { offset?: number; limit?: number }): CheckpointSummary[];
  getCheckpoint(checkpointId: string): Checkpoint;
  getCheckpointAt(runId: string, index: number): Checkpoint;
  /** How many before_tool_call checkpoints each tool has after index `after` of a run (a fork plan's counts). */
  countToolCheckpointsAfter(runId: string, after: number): Map<string, number>;
  /** One checkpoint's summary (its index in its run included), without its content. */
  getCheckpointSummary(checkpointId: string): CheckpointSummary;
  /**
   * How many leading messages the conversations of checkpoints `a` and `b` share (the same items, content for
   * content), at the cost of the messages they do not share: a walk over a recording reads only what is new.
   */
  sharedMessageCount(a: string, b: string): number;
  /**
   * The checkpoint with its messages and ledger snapshot read on access, item by item (a page of a long
   * conversation costs the page): the same values as getCheckpoint. For readers that show parts (the debugger).
   */
  getCheckpointView(checkpointId: string): Checkpoint;
  /**
   * The checkpoint as the state a writer continues (a fork's source checkpoint, a resumed run's last): its
   * messages and ledger records are stored items (`isStoredItem`), identities read at their first use and
   * deep-frozen, so carrying a long conversation over reads none of it.
   */
  getCheckpointState(checkpointId: string): Checkpoint;
  /** The last message of a checkpoint's conversation without loading the rest (undefined when it is empty). */
  getLastMessage(checkpointId: string): Message | undefined;
  getToolCall(runId: string, toolCallId: string): ToolCallRecord;
  listToolCalls(runId: string): ToolCallRecord[];
  /** A run's calls without their arguments and results (no blob is read), in order. */
  listToolCallFacts(runId: string): ToolCallFacts[];
  /** Recorded calls of `toolName` with `argsHash` in any of `runIds`, oldest first (the tool cassette). */
  findToolCalls(runIds: readonly string[], toolName: string, argsHash: string): ToolCallRecord[];

  deleteRun(runId: string): void;
  exportRun(runId: string): DebugRun;
  /** A DebugRun without its checkpoints (what `writeRunExport` streams around them). */
  exportRunHead(runId: string): Omit<DebugRun, 'checkpoints'>;
  /**
   * Loads a DebugRun (validated: schema, nesting, argsHash, unique ids, parents; see loadValidation.ts) in one
   * transaction; fails without writing anything when the run id exists or the run is refused.
   */
  loadRun(run: unknown, options?: LoadRunOptions): RunSummary;

  saveForkRequest(record: ForkRequestRecord): void;
  getForkRequest(forkRequestId: string): ForkRequestRecord;

  /** Records a pending manual_confirm question (status pending). */
  createConfirmation(record: Omit<ConfirmationRecord, 'status' | 'answer' | 'mockResult' | 'answeredAt'>): void;
  /** Answers a pending confirmation; InvalidInput when it is no longer pending. */
  answerConfirmation(
    confirmationId: string,
    answer: ConfirmationAnswer,
    at: number,
    mockResult?: unknown,
  ): ConfirmationRecord;
  /** Marks a pending confirmation expired (its waiter gave up); no-op when already answered. */
  expireConfirmation(confirmationId: string, at: number): ConfirmationRecord;
  getConfirmation(confirmationId: string): ConfirmationRecord;
  listConfirmations(filter?: ConfirmationFilter): ConfirmationRecord[];

  /** Current value of the store-wide change counter. */
  changeSeq(): number;
  /** Runs written or deleted after `since` (for live views that must not re-read everything). */
  changesSince(since: number): StoreChanges;

  /** Runs `fn` in one write transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T;
  close(): void;
}
