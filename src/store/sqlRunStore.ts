/**
 * The RunStore contract over the driver seam (sqlDriver.ts), on either engine: SQLite (the embedded default) or
 * PostgreSQL (pgStore.ts). This class only wires the parts and passes each call to the one that owns it:
 * transactions and group commit (storeTransactions.ts), the runs table (runTable.ts) beside the other tables
 * (checkpointTable.ts, toolCallTable.ts, …), export/load (runTransfer.ts), the change feed (changeFeed.ts), content
 * (contentStore.ts); engine differences are EngineTraits (engineTraits.ts). Opening is openRunStore.ts.
 */
import type {
  ArtifactRef,
  Checkpoint,
  LiveAttachment,
  LiveEditRecord,
  LiveStop,
  LiveStopAnswer,
  LiveStopState,
  Message,
  NewFileHistory,
  StoredFileHistory,
  ToolCallLiveEdit,
  ToolCallRecord,
} from '../model';
import { ArtifactTable } from './artifactTable';
import { ChangeFeed } from './changeFeed';
import { checkpointMarks } from './checkpointMarks';
import { CheckpointExport } from './checkpointExport';
import { CheckpointTable } from './checkpointTable';
import { parseCheckpointShell } from './checkpointShell';
import { ConfirmationTable } from './confirmationTable';
import { ContentStore } from './contentStore';
import { engineTraits, type EngineTraits } from './engineTraits';
import { FileVersionTable } from './fileVersionTable';
import { RebuiltFileTable } from './rebuiltFileTable';
import { ForkRequestTable } from './forkRequestTable';
import { LiveTable } from './liveTable';
import { readAheadRun } from './runReadAhead';
import { RunTable } from './runTable';
import { RunTransfer } from './runTransfer';
import type {
  AppendOptions,
  AskLiveStopInput,
  AttachLiveInput,
  BeginToolCallInput,
  CheckpointMarks,
  CheckpointSummary,
  ConfirmationAnswer,
  ConfirmationFilter,
  ConfirmationRecord,
  CopyOptions,
  CreateRunInput,
  DebugRunExport,
  FinishRunInput,
  FinishToolCallInput,
  ForkRequestRecord,
  ListRunsOptions,
  LoadRunOptions,
  FileVersion,
  NewArtifact,
  NewFileVersion,
  ReopenRunInput,
  RunStore,
  RunContinuation,
  RunSummary,
  StoreChanges,
  ToolCallFacts,
  ToolCallMarks,
  ToolCallMarksSince,
} from './runStore';
import type { SqlDriver } from './sqlDriver';
import type { StoreContext } from './storeContext';
import { RunContinuer } from './runContinuation';
import { StoreTransactions, type GroupCommitOptions } from './storeTransactions';
import { ToolCallTable } from './toolCallTable';

export class SqlRunStore implements RunStore {
  readonly driverName: string;
  /** What differs between the engines (the one place the store asks). */
  readonly traits: EngineTraits;
  private readonly content: ContentStore;
  private readonly tx: StoreTransactions;
  private readonly runs: RunTable;
  private readonly confirmations: ConfirmationTable;
  private readonly checkpoints: CheckpointTable;
  private readonly checkpointExport: CheckpointExport;
  private readonly toolCalls: ToolCallTable;
  private readonly forkRequests: ForkRequestTable;
  private readonly live: LiveTable;
  private readonly artifacts: ArtifactTable;
  private readonly fileVersions: FileVersionTable;
  private readonly rebuiltFiles: RebuiltFileTable;
  private readonly transfer: RunTransfer;
  private readonly continuer: RunContinuer;
  private readonly feed: ChangeFeed;

  constructor(
    readonly path: string,
    private readonly db: SqlDriver,
  ) {
    this.driverName = db.name;
    this.traits = engineTraits(db.name);
    this.content = new ContentStore(db, this.traits);
    const tx = (this.tx = new StoreTransactions(db, path, this.traits, this.content));
    this.confirmations = new ConfirmationTable(db, (fn) => tx.transaction(fn), path);
    const ctx: StoreContext = {
      path,
      content: this.content,
      uniqueErrorKeepsTransaction: this.traits.uniqueErrorKeepsTransaction,
      now: () => this.runs.heartbeatTime(),
      sql: (text, runs, returnsId) => tx.sql(text, runs, returnsId),
      transaction: (fn) => tx.transaction(fn),
      touchRun: (runId) => tx.touchRun(runId),
      hasRun: (runId) => this.runs.has(runId),
      requireRunRow: (runId) => this.runs.requireRow(runId),
      requireRunning: (runId) => this.runs.requireRunning(runId),
      requireRunCounts: (runId, running) => this.runs.requireCounts(runId, running),
      counted: (runId, row, column) => tx.counted(runId, row, column),
      countRun: (runId, delta) => tx.countRun(runId, delta),
    };
    this.checkpoints = new CheckpointTable(ctx);
    this.checkpointExport = new CheckpointExport(ctx, this.checkpoints);
    this.toolCalls = new ToolCallTable(ctx);
    this.forkRequests = new ForkRequestTable(ctx);
    this.live = new LiveTable(ctx);
    this.artifacts = new ArtifactTable(ctx);
    this.fileVersions = new FileVersionTable(ctx);
    this.rebuiltFiles = new RebuiltFileTable(ctx);
    this.runs = new RunTable(path, db, tx, this.content, this.checkpoints, this.live, this.traits);
    this.transfer = new RunTransfer(path, tx, this.content, {
      runs: this.runs,
      checkpoints: this.checkpoints,
      toolCalls: this.toolCalls,
      live: this.live,
      artifacts: this.artifacts,
    });
    this.continuer = new RunContinuer(
      tx,
      this.content,
      this.traits,
      { runs: this.runs, checkpoints: this.checkpoints, toolCalls: this.toolCalls },
      (ids) => this.transfer.ownersOf(ids),
    );
    this.feed = new ChangeFeed(path, db, this.traits, tx, this.runs);
  }

  private assertOpen(): void {
    this.tx.assertOpen();
  }

  // ---- transactions (storeTransactions.ts) ---------------------------------------------

  transaction<T>(fn: () => T): T {
    return this.tx.transaction(fn);
  }

  /** Turns group commit on (see OpenStoreOptions.groupCommit) where the engine has it (EngineTraits.groupCommit). */
  groupCommits(options: GroupCommitOptions): void {
    this.tx.groupCommits(options);
  }

  /** Commits the open group, if any (its writes visible to every other connection when this returns). */
  flush(): void {
    this.tx.flush();
  }

  // ---- runs (runTable.ts) -----------------------------------------------------------------

  createRun(input: CreateRunInput): RunSummary {
    return this.runs.create(input);
  }

  hasRun(runId: string): boolean {
    this.assertOpen();
    return this.runs.has(runId);
  }

  getRun(runId: string): RunSummary {
    this.assertOpen();
    return this.runs.get(runId);
  }

  listRuns(options: ListRunsOptions = {}): { runs: RunSummary[]; total: number } {
    this.assertOpen();
    return this.runs.list(options);
  }

  finishRun(runId: string, input: FinishRunInput): RunSummary {
    return this.runs.finish(runId, input);
  }

  reopenRun(runId: string, input: ReopenRunInput): RunSummary {
    return this.runs.reopen(runId, input);
  }

  heartbeat(runId: string, at: number): void {
    this.runs.heartbeat(runId, at);
  }

  setRunOwner(runId: string, owner: { pid: number; at: number } | null): void {
    this.runs.setOwner(runId, owner);
  }

  deleteRun(runId: string): void {
    this.runs.delete(runId);
  }

  // ---- checkpoints (checkpointTable.ts) --------------------------------------------------

  appendCheckpoint(input: Checkpoint, options: AppendOptions = {}): CheckpointSummary {
    // validated by the caller (AppendOptions.validated): taken as it is, its new items too
    const cp = options.validated ? input : parseCheckpointShell(input);
    return this.tx.writeRun(cp.runId, () => {
      const run = this.runs.requireCounts(cp.runId, true);
      const summary = this.checkpoints.insert(cp, !options.validated, options.listsFrom, run);
      // the heartbeat a checkpoint writes is this host's clock: the server's instead when this host's is off
      this.runs.heartbeatOnServerClock(cp.runId);
      return summary;
    });
  }

  countToolCheckpointsAfter(runId: string, after: number): Map<string, number> {
    this.assertOpen();
    return this.checkpoints.toolCallsAfter(runId, after);
  }

  getCheckpointSummary(checkpointId: string): CheckpointSummary {
    this.assertOpen();
    return this.checkpoints.summary(checkpointId);
  }

  sharedMessageCount(a: string, b: string): number {
    this.assertOpen();
    return this.checkpoints.sharedMessages(a, b);
  }

  listCheckpoints(runId: string, range: { offset?: number; limit?: number } = {}): CheckpointSummary[] {
    this.assertOpen();
    return this.checkpoints.list(runId, range);
  }

  listCheckpointMarks(runId: string, from?: number): CheckpointMarks {
    this.assertOpen();
    this.runs.requireRow(runId);
    return checkpointMarks((text) => this.tx.sql(text), runId, from);
  }

  getCheckpoint(checkpointId: string): Checkpoint {
    this.assertOpen();
    return this.checkpoints.get(checkpointId);
  }

  getCheckpointView(checkpointId: string): Checkpoint {
    this.assertOpen();
    return this.checkpoints.view(checkpointId);
  }

  getCheckpointState(checkpointId: string): Checkpoint {
    this.assertOpen();
    return this.checkpoints.state(checkpointId);
  }

  getCheckpointAt(runId: string, index: number): Checkpoint {
    this.assertOpen();
    return this.checkpoints.getAt(runId, index);
  }

  getLastMessage(checkpointId: string): Message | undefined {
    this.assertOpen();
    return this.checkpoints.lastMessage(checkpointId);
  }

  // ---- tool calls (toolCallTable.ts) -----------------------------------------------------

  beginToolCall(runId: string, input: BeginToolCallInput): ToolCallRecord {
    this.assertOpen();
    return this.tx.writeRun(runId, () => this.toolCalls.begin(runId, input));
  }

  finishToolCall(runId: string, toolCallId: string, input: FinishToolCallInput): ToolCallRecord {
    this.assertOpen();
    return this.tx.writeRun(runId, () => this.toolCalls.finish(runId, toolCallId, input));
  }

  getToolCall(runId: string, toolCallId: string): ToolCallRecord {
    this.assertOpen();
    return this.toolCalls.get(runId, toolCallId);
  }

  listToolCallIds(runId: string): string[] {
    this.assertOpen();
    return this.toolCalls.ids(runId);
  }

  listToolCallFacts(runId: string): ToolCallFacts[] {
    this.assertOpen();
    return this.toolCalls.facts(runId);
  }

  listToolCallMarks(runId: string, since?: ToolCallMarksSince): ToolCallMarks[] {
    this.assertOpen();
    return this.toolCalls.marks(runId, since);
  }

  listToolCalls(runId: string): ToolCallRecord[] {
    this.assertOpen();
    return this.toolCalls.list(runId);
  }

  listToolCallsView(runId: string): readonly ToolCallRecord[] {
    this.assertOpen();
    return this.toolCalls.view(runId, () => this.assertOpen());
  }

  findToolCalls(runIds: readonly string[], toolName: string, hash: string): ToolCallRecord[] {
    this.assertOpen();
    return this.toolCalls.find(runIds, toolName, hash);
  }

  // ---- artifacts (artifactTable.ts) --------------------------------------------------------

  addArtifact(runId: string, artifact: NewArtifact, content: Uint8Array): ArtifactRef {
    this.assertOpen();
    return this.tx.writeRun(runId, () => this.artifacts.add(runId, artifact, content));
  }

  // ---- file versions (fileVersionTable.ts) --------------------------------------------------

  addFileVersions(runId: string, versions: readonly NewFileVersion[]): FileVersion[] {
    this.assertOpen();
    return this.tx.writeRun(runId, () => this.fileVersions.add(runId, versions));
  }

  listFileVersions(runId: string): FileVersion[] {
    this.assertOpen();
    return this.fileVersions.list(runId);
  }

  getFileVersionText(contentHash: string): string {
    this.assertOpen();
    return this.fileVersions.text(contentHash);
  }

  putRebuiltFiles(runId: string, files: NewFileHistory | undefined): void {
    this.assertOpen();
    this.tx.writeRun(runId, () => this.rebuiltFiles.put(runId, files));
  }

  getRebuiltFiles(runId: string): StoredFileHistory | undefined {
    this.assertOpen();
    return this.rebuiltFiles.get(runId);
  }

  getArtifactContent(contentHash: string): Buffer {
    this.assertOpen();
    return this.artifacts.content(contentHash);
  }

  listArtifacts(runId: string): ArtifactRef[] {
    this.assertOpen();
    return this.artifacts.list(runId);
  }

  // ---- export / load (runTransfer.ts) -------------------------------------------------------

  readAhead(runId: string, fromSeq: number, toSeq: number, nextToSeq?: number): void {
    this.assertOpen();
    readAheadRun(this.db, runId, fromSeq, toSeq, nextToSeq);
  }

  exportRun(runId: string): DebugRunExport {
    this.assertOpen();
    return this.transfer.exportRun(runId);
  }

  exportRunHead(runId: string): Omit<DebugRunExport, 'checkpoints'> {
    this.assertOpen();
    return this.transfer.exportRunHead(runId);
  }

  loadRun(input: unknown, options: LoadRunOptions = {}): RunSummary {
    return this.transfer.loadRun(input, options);
  }

  exportCheckpoints(runId: string, from: number, to: number): Checkpoint[] {
    this.assertOpen();
    return this.checkpointExport.exportBatch(runId, from, to);
  }

  copyRunIn(
    head: Omit<DebugRunExport, 'checkpoints'>,
    batches: Iterable<readonly Checkpoint[]>,
    options: CopyOptions = {},
  ): RunSummary {
    if (!options.continues) return this.transfer.copyRunIn(head, batches, options);
    let last: string | undefined;
    const seen: Iterable<readonly Checkpoint[]> = {
      *[Symbol.iterator]() {
        for (const batch of batches) {
          last = batch.at(-1)?.checkpointId ?? last;
          yield batch;
        }
      },
    };
    const summary = this.transfer.copyRunIn(head, seen, options);
    if (last !== undefined) this.continuer.copied(head.runId, last);
    return summary;
  }

  continueRunIn(
    continuation: RunContinuation,
    batches: Iterable<readonly Checkpoint[]>,
    options: { where?: string } = {},
  ): void {
    this.assertOpen();
    this.continuer.continueRunIn(continuation, batches, options);
  }

  // ---- fork requests (forkRequestTable.ts) ---------------------------------------------------

  saveForkRequest(record: ForkRequestRecord): void {
    this.assertOpen();
    this.tx.writeRow('fork_requests', record.forkRequestId, () => this.forkRequests.save(record));
  }

  getForkRequest(forkRequestId: string): ForkRequestRecord {
    this.assertOpen();
    // read inside a write (a claim: read, check, save): the request's lock first, so two claims do not both pass
    this.tx.lockRowInWrite('fork_requests', forkRequestId);
    return this.forkRequests.get(forkRequestId);
  }

  // ---- fork confirmations (confirmationTable.ts: manual_confirm in agent-program mode) ----------

  createConfirmation(record: Omit<ConfirmationRecord, 'status' | 'answer' | 'mockResult' | 'answeredAt'>): void {
    this.assertOpen();
    this.confirmations.create(record);
  }

  answerConfirmation(id: string, answer: ConfirmationAnswer, at: number, mockResult?: unknown): ConfirmationRecord {
    this.assertOpen();
    return this.tx.writeRow('fork_confirmations', id, () => this.confirmations.answer(id, answer, at, mockResult));
  }

  expireConfirmation(id: string, at: number): ConfirmationRecord {
    this.assertOpen();
    return this.tx.writeRow('fork_confirmations', id, () => this.confirmations.expire(id, at));
  }

  getConfirmation(id: string): ConfirmationRecord {
    this.assertOpen();
    return this.confirmations.get(id);
  }

  listConfirmations(filter?: ConfirmationFilter): ConfirmationRecord[] {
    this.assertOpen();
    return this.confirmations.list(filter);
  }

  // ---- live debugging (liveTable.ts) ----------------------------------------------------------

  attachLive(input: AttachLiveInput): LiveAttachment {
    this.assertOpen();
    const attachId = (input as { attachId?: unknown }).attachId;
    if (typeof attachId !== 'string') return this.live.attach(input);
    return this.tx.writeRow('live_attachments', attachId, () => this.live.attach(input));
  }

  renewLiveLease(attachId: string, at: number, leaseMs: number): boolean {
    this.assertOpen();
    return this.tx.writeRow('live_attachments', attachId, () => this.live.renew(attachId, at, leaseMs));
  }

  detachLive(attachId: string, at: number): void {
    this.assertOpen();
    this.tx.writeRow('live_attachments', attachId, () => this.live.detach(attachId, at));
  }

  getLiveAttachment(attachId: string): LiveAttachment {
    this.assertOpen();
    return this.live.getAttachment(attachId);
  }

  liveAttachmentFor(runId: string, agentId: string, at: number): LiveAttachment | undefined {
    this.assertOpen();
    return this.live.attachmentFor(runId, agentId, at);
  }

  askLiveStop(input: AskLiveStopInput): void {
    this.assertOpen();
    this.live.ask(input);
  }

  listLiveStops(attachId: string, states?: readonly LiveStopState[], at: number = Date.now()): LiveStop[] {
    this.assertOpen();
    return this.live.list(attachId, states, at);
  }

  answerLiveStop(stopId: string, answer: LiveStopAnswer, at: number): LiveStop {
    this.assertOpen();
    return this.tx.writeRow('live_stops', stopId, () => this.live.answer(stopId, answer, at));
  }

  expireLiveStop(stopId: string, at: number): LiveStop {
    this.assertOpen();
    return this.tx.writeRow('live_stops', stopId, () => this.live.expire(stopId, at));
  }

  getLiveStop(stopId: string, at: number = Date.now()): LiveStop {
    this.assertOpen();
    return this.live.get(stopId, at);
  }

  recordLiveEdit(
    runId: string,
    record: LiveEditRecord,
    tool?: { toolCallId: string; args: unknown; liveEdit: ToolCallLiveEdit },
  ): ToolCallRecord | undefined {
    this.assertOpen();
    return this.tx.writeRun(runId, () => {
      this.live.recordEdit(runId, record);
      return tool ? this.toolCalls.reviseArgs(runId, tool.toolCallId, tool.args, tool.liveEdit) : undefined;
    });
  }

  listLiveEdits(runId: string, from?: number): LiveEditRecord[] {
    this.assertOpen();
    this.runs.requireRow(runId);
    return this.live.edits(runId, from);
  }

  // ---- change feed (changeFeed.ts) -------------------------------------------------------------

  changeSeq(): number {
    this.assertOpen();
    return this.feed.changeSeq();
  }

  changesSince(since: number): StoreChanges {
    this.assertOpen();
    return this.feed.changesSince(since);
  }

  onChange(listener: () => void): () => void {
    this.assertOpen();
    return this.feed.onChange(listener);
  }

  // ---- maintenance -----------------------------------------------------------------------------

  /** Folds the WAL into the main file (for size measurements and before copying the file). */
  checkpointWal(): void {
    this.assertOpen();
    this.tx.flush();
    StoreTransactions.commitOpenGroups(this.tx);
    if (this.traits.walFile) this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  /** `PRAGMA integrity_check` result: 'ok' when the file is sound. */
  integrityCheck(): string {
    this.assertOpen();
    return this.db
      .prepare(this.traits.integrityCheck)
      .all()
      .map((r) => String(Object.values(r)[0]))
      .join('; ');
  }

  /** Byte counts for benchmarks: unique content in blobs, and the size of the database file. */
  contentBytes(): { blobBytes: number; blobCount: number; listNodes: number } {
    this.assertOpen();
    const b = this.db
      .prepare('SELECT COALESCE(SUM(LENGTH(CAST(data AS BLOB))), 0) AS bytes, COUNT(*) AS n FROM blobs')
      .get();
    const n = this.db.prepare('SELECT COUNT(*) AS n FROM list_nodes').get();
    return { blobBytes: Number(b?.bytes ?? 0), blobCount: Number(b?.n ?? 0), listNodes: Number(n?.n ?? 0) };
  }

  close(): void {
    if (this.tx.isClosed) return;
    try {
      this.tx.close();
    } finally {
      this.feed.close();
      this.db.close();
    }
  }
}
