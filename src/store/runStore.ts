/**
 * The RunStore contract: what every layer above may ask of the run store.
 * The SQL implementation (SQLite or PostgreSQL) is `SqlRunStore`; nothing outside src/store
 * sees SQL. All writes are single transactions; reads return whole, validated
 * model objects.
 */
import type {
  ArtifactContent,
  ArtifactRef,
  Checkpoint,
  CheckpointBoundary,
  ConfirmationAnswer,
  ConfirmationRecord,
  ConfirmationStatus,
  DebugRun,
  ForkRequestRecord,
  LiveAttachment,
  LiveEditRecord,
  LiveStop,
  LiveStopAnswer,
  LiveStopState,
  NewFileHistory,
  StoredFileHistory,
  Message,
  ReplayPolicy,
  RunEndStatus,
  RunMode,
  RunStatus,
  RuntimeContextSnapshot,
  SideEffectLevel,
  ToolCallLiveEdit,
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
  /** The calls that ended in an error (a cancelled call is not one). */
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
  /**
   * How many times the run's recorded end was cut and written again (reopenRun); absent when never. What a reader
   * following the run read of it before is stale when this changed: everything else only appends.
   */
  rewrites?: number;
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
  /** How long a live debugger held the agent since the checkpoint before (Checkpoint.heldMs). */
  heldMs?: number;
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

/** An artifact to add: its ref without what the store derives from the content (contentHash, storagePath). */
export type NewArtifact = Omit<ArtifactRef, 'contentHash' | 'storagePath'>;

/** One version of a file a run changed, as the store keeps it (fileVersionTable.ts). */
export interface FileVersion {
  /** The index of the checkpoint (of its run) the version was taken at. */
  checkpointIndex: number;
  /** The file's path as the recorder gave it (absolute, or relative to the run's folder). */
  path: string;
  /** The hash of its text (a blob, stored once by content); absent: the run deleted the file. */
  contentHash?: string;
}

/** A file version to add: its text, or null for a file the run deleted. */
export interface NewFileVersion {
  checkpointIndex: number;
  path: string;
  content: string | null;
}

/** A DebugRun as `ocdb export` writes it: with the contents of its artifacts this store holds, by content hash. */
export type DebugRunExport = DebugRun & { artifactContents?: Record<string, ArtifactContent> };

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
  /** How long a live debugger held the call before it ran (ToolCallRecord.heldMs); absent when nothing held it. */
  heldMs?: number;
  /**
   * The open call's record as the writer holds it (what begin, or a live edit, returned). When the row still
   * matches it (its argsHash and liveEdit), the finished record is made from it instead of being read back.
   */
  open?: ToolCallRecord;
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
  /** The run's metadata from now on, replacing what it was created with (default: kept). */
  metadata?: Record<string, unknown>;
}

/** What listConfirmations filters on. */
export interface ConfirmationFilter {
  forkRequestId?: string;
  status?: ConfirmationStatus;
}

/** What `attachLive` takes: a debugger attaching to a running run, or to the runs of an agent id (at least one). */
export interface AttachLiveInput {
  attachId: string;
  runId?: string;
  agentId?: string;
  /** Who attaches ("VS Code", "ocdb dap"). */
  client: string;
  at: number;
  /** How long the attachment holds without a renewal (DEFAULT_LIVE_LEASE_MS; at most MAX_LIVE_LEASE_MS). */
  leaseMs: number;
}

/** What `askLiveStop` takes: the agent asks its debugger whether to stop at the checkpoint it just wrote. */
export interface AskLiveStopInput {
  stopId: string;
  attachId: string;
  runId: string;
  agentId: string;
  checkpointId: string;
  boundary: CheckpointBoundary;
  toolCallId?: string;
  askedAt: number;
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
  'toolCallId' | 'toolName' | 'sideEffectLevel' | 'replayPolicy' | 'startedAt' | 'endedAt' | 'heldMs'
>;

/** A run's checkpoints as columns, in order (index i: checkpoint [i]): what the Timeline draws, no summary objects. */
export interface CheckpointMarks {
  createdAt: number[];
  stepIndex: number[];
  boundary: CheckpointBoundary[];
  toolCallId: (string | undefined)[];
  usage: (Usage | undefined)[];
  /** Checkpoint.heldMs (a live debugger's hold since the checkpoint before). */
  heldMs: (number | undefined)[];
}

/**
 * A call's facts with how it stands (running, or how it ended) and whether a live edit changed its arguments, and
 * its place in the run's ledger (`seq`: 0, 1, … in the order calls were begun).
 */
export type ToolCallMarks = ToolCallFacts & { seq: number; state: 'running' | ToolOutcome; liveEdited: boolean };

/** Which calls listToolCallMarks reads of a run a reader follows: those begun after `afterSeq`, and `ids`. */
export interface ToolCallMarksSince {
  /** The `seq` of the last call read (-1: none). */
  afterSeq: number;
  /** Calls read before that may have changed since (those still open then). */
  ids?: readonly string[];
}

export interface ListsFrom {
  checkpointId: string;
  messages: readonly Message[];
  /**
   * How many of `messages` are the checkpoint's (default all): a writer's conversation grows in place, so by the
   * time the next checkpoint is written it may hold that checkpoint's new messages too.
   */
  messageCount?: number;
  /** Absent: the ledger is not the checkpoint's (only the messages are adopted). */
  ledger?: readonly ToolCallRecord[];
}

/**
 * What a copy of a run recorded since this store's copy of it, as `RunStore.continueRunIn` appends it: the run is
 * here, still running, with `from` checkpoints, the last of them `lastCheckpointId`.
 */
/** How RunStore.copyRunIn copies a run. */
export interface CopyOptions {
  /** What errors name the run's source as. */
  where?: string;
  /**
   * The run goes on being recorded elsewhere and is continued here next (continueRunIn, the shipper): where its
   * lists end is kept, so the first continuation reads nothing of them, as the ones after it.
   */
  continues?: boolean;
}

export interface RunContinuation {
  runId: string;
  /** How many checkpoints the run holds here: the continuation's first checkpoint is at this index. */
  from: number;
  /** The id of the run's last checkpoint here (checked: a different one refuses the continuation). */
  lastCheckpointId?: string;
  /** That checkpoint as the copy holds it: the new checkpoints' lists continue its lists (not hashed again). */
  listsFrom?: ListsFrom;
  /** Tool calls begun since (finished or not), and calls open here that finished since: whole records. */
  toolCalls: readonly ToolCallRecord[];
  /** The run's heartbeat (a run still being recorded). */
  heartbeatAt?: number;
  /** The run's end, when it ended. */
  end?: FinishRunInput;
}

/** How a checkpoint is appended (RunStore.appendCheckpoint). */
export interface AppendOptions {
  listsFrom?: ListsFrom;
  validated?: boolean;
}

export interface RunStore {
  readonly path: string;
  readonly driverName: string;

  createRun(input: CreateRunInput): RunSummary;
  /**
   * Appends a checkpoint at the end of its (running) run. `options.listsFrom` says the run's lists continue those
   * of another checkpoint (a fork's first checkpoint continues its source's): its nodes are reused for the items
   * the new lists share with the given ones by identity, so they are neither hashed nor written again.
   * `options.validated`: the caller checked every part of the checkpoint against the schemas the store reads it
   * back with, as it came in (the importers' plan does: `importers/runPlan.ts` `storable`; so does the SDK:
   * `recorder/recorder.ts`), so the store does not parse it again.
   */
  appendCheckpoint(checkpoint: Checkpoint, options?: AppendOptions): CheckpointSummary;
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
   * Sets the process that owns a `running` run (crash detection), or clears it with null: a run with no owner
   * (a fork waiting for its runner or agent program, a run recorded over HTTP) is judged on its heartbeat alone,
   * beaten now: crashed when nothing writes to it for HEARTBEAT_STALE_MS. A runner claims a fork with its pid.
   */
  setRunOwner(runId: string, owner: { pid: number; at: number } | null): void;

  hasRun(runId: string): boolean;
  getRun(runId: string): RunSummary;
  listRuns(options?: ListRunsOptions): { runs: RunSummary[]; total: number };
  listCheckpoints(runId: string, range?: { offset?: number; limit?: number }): CheckpointSummary[];
  /**
   * listCheckpoints as columns of the rows alone (no join, no id): the Timeline's summary of a long run; from
   * checkpoint `from` on when given (what a run being recorded added since it was read).
   */
  listCheckpointMarks(runId: string, from?: number): CheckpointMarks;
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
   * The items are deep-frozen and shared: the views of checkpoints holding the same message or record hand out
   * the same object, read and validated once (a step re-reads nothing the step before read).
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
  /**
   * listToolCalls with each record read on first access (a lazy list, as getCheckpointView's messages): its row
   * is read at once, its arguments and result when the record is. A debugger launching on a long run reads what it
   * shows, not every call's result.
   */
  listToolCallsView(runId: string): readonly ToolCallRecord[];
  /** A run's calls without their arguments and results (no blob is read), in order. */
  listToolCallFacts(runId: string): ToolCallFacts[];
  /**
   * listToolCallFacts with each call's state and live-edit mark (no blob is read): what the Timeline draws; with
   * `since`, only the calls begun after one and those named (what may have changed since they were read).
   */
  listToolCallMarks(runId: string, since?: ToolCallMarksSince): ToolCallMarks[];
  /** The ids of a run's calls in the order they were begun (no record read: where each stands in the ledger). */
  listToolCallIds(runId: string): string[];
  /** Recorded calls of `toolName` with `argsHash` in any of `runIds`, oldest first (the tool cassette). */
  findToolCalls(runIds: readonly string[], toolName: string, argsHash: string): ToolCallRecord[];

  /**
   * Stores an artifact's content (content-addressed: identical bytes are stored once) and adds its ref to the
   * run's artifacts (`DebugRun.artifactRefs`: every version it recorded), in one transaction; RunNotRunning when
   * the run has ended. The checkpoints that carry the ref are the writer's business (RunWriter.artifact).
   */
  addArtifact(runId: string, artifact: NewArtifact, content: Uint8Array): ArtifactRef;
  /**
   * Adds file versions of a run (in order, one transaction): each text stored once by content; a version equal to
   * its path's newest in the run is not written again. Answers the versions written.
   */
  addFileVersions(runId: string, versions: readonly NewFileVersion[]): FileVersion[];
  /** The run's file versions, oldest first (their texts by `getFileVersionText`). */
  listFileVersions(runId: string): FileVersion[];
  /** The text of a file version by its content hash. */
  getFileVersionText(contentHash: string): string;
  /**
   * Stores an imported run's files as its import rebuilt them (rebuiltFileTable.ts; texts stored once by content):
   * its rows from checkpoint `files.from` on replaced, the earlier ones kept; `undefined` removes them all (its
   * files are then rebuilt from its tool calls when asked). One transaction.
   */
  putRebuiltFiles(runId: string, files: NewFileHistory | undefined): void;
  /** The files an import rebuilt and stored for the run; undefined when none were (rebuild them from its calls). */
  getRebuiltFiles(runId: string): StoredFileHistory | undefined;
  /** The bytes of an artifact's content; ArtifactNotFound when this store does not hold them. */
  getArtifactContent(contentHash: string): Buffer;
  /** Every artifact version a run holds (its own and those its checkpoints carry), in the order they were made. */
  listArtifacts(runId: string): ArtifactRef[];

  deleteRun(runId: string): void;
  /** The run with `artifactContents` when it has artifacts whose content this store holds. */
  exportRun(runId: string): DebugRunExport;
  /** A DebugRun without its checkpoints (what `writeRunExport` streams around them); `artifactContents` as exportRun. */
  exportRunHead(runId: string): Omit<DebugRunExport, 'checkpoints'>;
  /**
   * Loads a DebugRun (validated: schema, nesting, argsHash, unique ids, parents; see loadValidation.ts) in one
   * transaction, with the `artifactContents` of an export (each checked against its hash); fails without
   * writing anything when the run id exists or the run is refused.
   */
  loadRun(run: unknown, options?: LoadRunOptions): RunSummary;
  /**
   * Checkpoints `from` … `to - 1` of a run as a copy into another store reads them (`ocdb push` / `pull`, a team
   * store's copy, `ocdb export`): whole, their items validated and deep-frozen once per content and the same objects
   * in every checkpoint that holds them for the run's whole copy (batches in order from index 0). Call `readAhead`
   * for the same range first on a store over the network.
   */
  exportCheckpoints(runId: string, from: number, to: number): Checkpoint[];
  /**
   * Loads a run read from another store: `head` as exportRunHead gives it, its checkpoints batch by batch as
   * exportCheckpoints gives them. Checked as loadRun checks a run (head, ids, hashes, parents), but what the other
   * store validated is not validated again and what checkpoints share by identity is written once: the copy costs
   * the items the run holds, not the items every checkpoint repeats; over the network, a few round trips a batch.
   * One transaction (the caller's when inside one); RunAlreadyExists when the run is there.
   */
  copyRunIn(
    head: Omit<DebugRunExport, 'checkpoints'>,
    batches: Iterable<readonly Checkpoint[]>,
    options?: CopyOptions,
  ): RunSummary;

  /**
   * Continues a run this store holds while it is being recorded elsewhere (a local-first recorder's shipper): its
   * new tool calls, the calls it finished, checkpoints `from` … (whole, as exportCheckpoints reads them) and its end,
   * checked as copyRunIn checks a copy, in one transaction (the caller's when inside one). Over the network, a
   * constant number of round trips, whatever the run's length and the number of checkpoints. InvalidInput (nothing
   * written) when the run here is not the one continued: ended, another length, another last checkpoint, a call
   * finished differently.
   */
  continueRunIn(
    continuation: RunContinuation,
    batches: Iterable<readonly Checkpoint[]>,
    options?: { where?: string },
  ): void;

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

  // ---- live debugging (the protocol: src/debug/README.md, "Live debugging") ----

  /**
   * A debugger attaches to a running run (RunNotRunning when it ended) or to the runs of an agent id. Its lease is
   * `leaseMs` from now on the store's clock (PostgreSQL's server, a SQLite file's file system): `at` is the
   * debugger's own clock and never decides a lease.
   */
  attachLive(input: AttachLiveInput): LiveAttachment;
  /**
   * Extends the attachment's lease to `leaseMs` from now on the store's clock (the debugger renews every second);
   * true when it had lapsed before (its agents may have gone on). InvalidInput when detached.
   */
  renewLiveLease(attachId: string, at: number, leaseMs: number): boolean;
  /** The debugger leaves: every open stop of the attachment (asking / stopped) is resumed with no edits. */
  detachLive(attachId: string, at: number): void;
  getLiveAttachment(attachId: string): LiveAttachment;
  /**
   * The cheap check an agent makes at each boundary: the newest active attachment naming this run or this agent
   * id whose lease has not run out on the store's clock (`at`, the agent's clock, is not used for it).
   */
  liveAttachmentFor(runId: string, agentId: string, at: number): LiveAttachment | undefined;
  /** The agent asks whether to stop at the checkpoint it just wrote (state asking). */
  askLiveStop(input: AskLiveStopInput): void;
  /** The attachment's stops, oldest first (only those in `states` when given), as they read at `at` (default now). */
  listLiveStops(attachId: string, states?: readonly LiveStopState[], at?: number): LiveStop[];
  /**
   * The debugger answers a stop: hold the agent (`stopped`, with a reason) or let it go on (`resumed`, with the
   * edits to apply). InvalidInput when the stop is already resumed or expired.
   */
  answerLiveStop(stopId: string, answer: LiveStopAnswer, at: number): LiveStop;
  /** The agent gave up waiting (its lease ran out): an open stop becomes expired; an answered one is returned as it is. */
  expireLiveStop(stopId: string, at: number): LiveStop;
  /** A stop as it reads at `at` (default now): open under a lease that ran out reads `expired`. LiveStopNotFound. */
  getLiveStop(stopId: string, at?: number): LiveStop;
  /**
   * Records an edit the agent applied at a stop (DebugRun.liveEdits), and with `toolArgs` the arguments the open
   * call `toolCallId` runs with (its ledger record's args, argsHash and liveEdit), in one transaction.
   */
  recordLiveEdit(
    runId: string,
    record: LiveEditRecord,
    tool?: { toolCallId: string; args: unknown; liveEdit: ToolCallLiveEdit },
  ): ToolCallRecord | undefined;
  /** The edits applied in a run, in order; from the `from`-th on when given (those recorded since a read). */
  listLiveEdits(runId: string, from?: number): LiveEditRecord[];

  /** Current value of the store-wide change counter. */
  changeSeq(): number;
  /** Runs written or deleted after `since` (for live views that must not re-read everything). */
  changesSince(since: number): StoreChanges;
  /**
   * Calls `listener` soon after any process commits a write to the store (PostgreSQL: LISTEN/NOTIFY; SQLite: a
   * watch on the file's folder), so a live view asks `changesSince` then instead of polling. A wake-up only: it
   * may come more often than the store changes. Answers the function that stops it (close stops them all).
   */
  onChange?(listener: () => void): () => void;
  /**
   * Reads ahead, in a few round trips, what reading checkpoints `fromSeq`..`toSeq` of a run will ask for (a store
   * reached over the network: runReadAhead.ts); a copy or export calls it before each batch. With `nextToSeq`, it
   * also starts reading checkpoints `toSeq + 1`..`nextToSeq` (the next batch), answered while the caller works on
   * this one. Absent: nothing to do.
   */
  readAhead?(runId: string, fromSeq: number, toSeq: number, nextToSeq?: number): void;

  /** Runs `fn` in one write transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T;
  /**
   * Commits the writes a group holds (OpenStoreOptions.groupCommit): when it returns they are in the store for every
   * other connection. Without group commit every write committed as it returned, and this does nothing. A commit
   * that fails is thrown here and by the next write; one that failed at the end of a turn, by the next write.
   */
  flush(): void;
  /** Commits what a group holds (flush), then closes. */
  close(): void;
}
