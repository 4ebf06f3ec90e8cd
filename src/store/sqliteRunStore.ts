/**
 * The SQL implementation of RunStore — SQLite (the embedded default) and PostgreSQL through the same code over
 * the driver seam (sqlDriver.ts; the name is SQLite's, which came first). SQLite: WAL, busy timeout, foreign keys,
 * migrations at open, every write one IMMEDIATE transaction, heavy values in
 * content-addressed blobs (see contentStore.ts). Runs, export/load and the
 * change feed live here; checkpoints, tool calls, fork requests and
 * confirmations in their table modules. SQL stays inside src/store.
 *
 * Over the ~600 lines a file should hold: it does six jobs (opening, transactions, the runs table, pass-throughs,
 * export/load, the change feed) for both engines. Splitting them, one class per job with engine differences in one
 * place, belongs with moving the team store off the synchronous bridge, and is planned, not done here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ArtifactContentsSchema,
  ArtifactRefSchema,
  assertJsonInput,
  DebugRunSchema,
  MessageSchema,
  OcdbError,
  errorMessage,
  RuntimeContextSnapshotSchema,
  formatPath,
  toolOutcomeOf,
  parseWith,
  type ArtifactRef,
  type Checkpoint,
  type LiveAttachment,
  type LiveEditRecord,
  type LiveStop,
  type LiveStopAnswer,
  type LiveStopState,
  type Message,
  type ToolCallLiveEdit,
  type ToolCallRecord,
} from '../model';
import { z } from 'zod';
import { ArtifactTable } from './artifactTable';
import { checkpointMarks } from './checkpointMarks';
import { CheckpointTable, parseCheckpointShell } from './checkpointTable';
import { ConfirmationTable } from './confirmationTable';
import { ContentStore } from './contentStore';
import { ForkRequestTable } from './forkRequestTable';
import { applyFixups } from './fixups';
import { LiveTable } from './liveTable';
import { CLOCK_SKEW_MS, isCrashed, THIS_HOST } from './liveness';
import { migrate } from './migrations';
import { openDriver } from './openDriver';
import { isPostgresLocation } from './pgDialect';
import { openPgDriver } from './pgStore';
import { parseStoreUrl } from './storePath';
import { compact, json, rowToRunSummary as decodeRunRow, str, toJson } from './rowCodec';
import { checkLoadedRun } from './loadValidation';
import type {
  AskLiveStopInput,
  AttachLiveInput,
  LoadRunOptions,
  BeginToolCallInput,
  ConfirmationAnswer,
  ConfirmationFilter,
  ConfirmationRecord,
  CheckpointSummary,
  CreateRunInput,
  DebugRunExport,
  FinishRunInput,
  ReopenRunInput,
  FinishToolCallInput,
  ForkRequestRecord,
  ListRunsOptions,
  AppendOptions,
  NewArtifact,
  RunStore,
  RunSummary,
  StoreChanges,
  ToolCallFacts,
  ToolCallMarks,
  CheckpointMarks,
} from './runStore';
import type { DriverName, SqlDriver, SqlRow, SqlStatement, SqlValue } from './sqlDriver';
import { translateSqliteError } from './sqliteErrors';
import type { RunDelta, StoreContext } from './storeContext';
import { ToolCallTable } from './toolCallTable';
import { readAheadRun } from './runReadAhead';

export interface OpenStoreOptions {
  /** Create the file (and its folder) when missing; default true. Readers pass false to get a clear error instead. */
  create?: boolean;
  driver?: DriverName;
  /** Milliseconds a writer waits for another process's lock before StoreLocked; default 5000. */
  busyTimeoutMs?: number;
  /**
   * A long-lived writer (the SDK's recorder, `ocdb serve`): WAL checkpoints in a thread of its own, so no commit
   * stalls on copying the WAL into the database (SQLite with better-sqlite3; walCheckpointer.ts).
   */
  backgroundCheckpoints?: boolean;
  /**
   * Group commit (SQLite; PostgreSQL ignores it): the writes of one event-loop turn share one transaction, each in a
   * savepoint of its own (a failed write rolls back alone). The transaction commits at the end of the turn
   * (setImmediate), after `maxWrites` writes or `maxMs` of being open, at `flush()`, at `close()`, an exclusive write,
   * or the process's exit (SqliteRunStore.groupedWrite).
   */
  groupCommit?: boolean | GroupCommitOptions;
  /** PostgreSQL: milliseconds a connection attempt may take before the store reads unreachable; default 10000. */
  connectTimeoutMs?: number;
}

export interface GroupCommitOptions {
  /** Writes one group commits at most; default 64. */
  maxWrites?: number;
  /** Milliseconds a group stays open at most (checked as each write ends); default 20. */
  maxMs?: number;
}

/**
 * Opens (and migrates) the store at `file`: a SQLite file, or — for a `postgres://` / `postgresql://` connection
 * string — a PostgreSQL database (pgStore.ts; the same store over another driver, see src/README.md "Two engines").
 */
export function openRunStore(file: string, options: OpenStoreOptions = {}): SqliteRunStore {
  const create = options.create ?? true;
  if (isPostgresLocation(file)) {
    parseStoreUrl(file); // a malformed URL refused here, in one line without its password
    const { db, location } = openPgDriver(file, {
      create,
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      connectTimeoutMs: options.connectTimeoutMs,
    });
    return new SqliteRunStore(location, db);
  }
  const abs = path.resolve(file);
  if (!create && !fs.existsSync(abs)) {
    throw new OcdbError(
      'StoreUnavailable',
      `No run store at ${abs}. Record a run, run \`ocdb demo --store ${abs}\`, or point --store / OCDB_STORE at an existing store.`,
      { path: abs },
    );
  }
  if (create) fs.mkdirSync(path.dirname(abs), { recursive: true });
  let db: SqlDriver;
  try {
    db = openDriver(abs, { create, driver: options.driver });
  } catch (e) {
    throw translateSqliteError(e, abs);
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    // a migration or fix-up that writes commits this process's open groups first (see openGroups)
    const writing: SqlDriver = {
      ...db,
      exec: (sql) => {
        if (sql.startsWith('BEGIN')) SqliteRunStore.commitOpenGroups();
        db.exec(sql);
      },
    };
    migrate(writing);
    applyFixups(writing);
    if (options.backgroundCheckpoints) db.checkpointInBackground?.();
  } catch (e) {
    db.close();
    throw translateSqliteError(e, abs);
  }
  const store = new SqliteRunStore(abs, db);
  if (options.groupCommit) store.groupCommits(options.groupCommit === true ? {} : options.groupCommit);
  return store;
}

/**
 * Stores with an open group: committed when the process exits (a group never outlives its process silently), and
 * before any other connection of this process begins a write (SqliteRunStore.commitOpenGroups): a group holds
 * SQLite's write lock, and a second connection of the same thread waiting for it would wait out its busy timeout,
 * since the turn that commits the group cannot end meanwhile (two recorders of one store in one process, the SDK
 * beside an import).
 */
const openGroups = new Set<SqliteRunStore>();

let exitHook = false;
function hookExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const store of [...openGroups]) {
      try {
        store.flush();
      } catch {
        // the process is going: nothing is left to report it to
      }
    }
  });
}

/** Statements that write rows of `runs` (see SqliteRunStore.txRunCounts). */
const WRITES_RUNS = /^\s*(?:UPDATE|INSERT\s+INTO|INSERT\s+OR\s+\w+\s+INTO|DELETE\s+FROM|REPLACE\s+INTO)\s+runs\b/i;
/** Statements that read or write rows of `runs`: the counts a transaction added are written first (txRunDeltas). */
const USES_RUNS = /\bruns\b/i;

/** The SET clause that adds a RunDelta to a run's row (StoreContext.countRun), its parameters in runDeltaParams' order. */
const RUN_DELTA_SET = `checkpoint_count = checkpoint_count + ?, max_step = MAX(max_step, COALESCE(?, max_step)),
  input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, heartbeat_at = COALESCE(?, heartbeat_at),
  last_checkpoint_at = COALESCE(MAX(COALESCE(last_checkpoint_at, ?), ?), last_checkpoint_at),
  tool_call_count = tool_call_count + ?, tool_error_count = tool_error_count + ?`;

function runDeltaParams(d: RunDelta): SqlValue[] {
  const at = d.checkpointAt ?? null;
  return [
    d.checkpoints ?? 0,
    d.step ?? null,
    d.inputTokens ?? 0,
    d.outputTokens ?? 0,
    d.heartbeatAt ?? null,
    at,
    at,
    d.toolCalls ?? 0,
    d.toolErrors ?? 0,
  ];
}

/** `delta` added to `into` (sums, the larger step, the later times). */
function addRunDelta(into: RunDelta, delta: RunDelta): void {
  const sum = (a: number | undefined, b: number | undefined) => (b === undefined ? a : (a ?? 0) + b);
  const max = (a: number | undefined, b: number | undefined) =>
    b === undefined ? a : a === undefined ? b : Math.max(a, b);
  into.checkpoints = sum(into.checkpoints, delta.checkpoints);
  into.inputTokens = sum(into.inputTokens, delta.inputTokens);
  into.outputTokens = sum(into.outputTokens, delta.outputTokens);
  into.toolCalls = sum(into.toolCalls, delta.toolCalls);
  into.toolErrors = sum(into.toolErrors, delta.toolErrors);
  into.step = max(into.step, delta.step);
  into.checkpointAt = max(into.checkpointAt, delta.checkpointAt);
  if (delta.heartbeatAt !== undefined) into.heartbeatAt = delta.heartbeatAt;
}

export class SqliteRunStore implements RunStore {
  readonly driverName: string;
  private readonly content: ContentStore;
  private readonly confirmations: ConfirmationTable;
  private readonly checkpoints: CheckpointTable;
  private readonly toolCalls: ToolCallTable;
  private readonly forkRequests: ForkRequestTable;
  private readonly live: LiveTable;
  private readonly artifacts: ArtifactTable;
  private readonly stmts: Record<string, SqlStatement> = {};
  private depth = 0;
  private closed = false;
  private readonly watchers = new Set<() => void>();

  constructor(
    readonly path: string,
    private readonly db: SqlDriver,
  ) {
    this.driverName = db.name;
    this.content = new ContentStore(db);
    this.confirmations = new ConfirmationTable(db, (fn) => this.transaction(fn), path);
    const ctx: StoreContext = {
      path,
      content: this.content,
      uniqueErrorKeepsTransaction: db.name !== 'pg',
      sql: (text) => this.sql(text),
      transaction: (fn) => this.transaction(fn),
      touchRun: (runId) => this.touchRun(runId),
      hasRun: (runId) => this.hasRun(runId),
      requireRunRow: (runId) => this.requireRunRow(runId),
      requireRunning: (runId) => this.requireRunning(runId),
      requireRunCounts: (runId, running) => this.requireRunCounts(runId, running),
      counted: (runId, row, column) => {
        if (this.depth > 0) this.txRunCounts.set(runId, { ...row, [column]: Number(row[column]) + 1 });
      },
      countRun: (runId, delta) => {
        this.touchRun(runId);
        const had = this.txRunDeltas.get(runId);
        if (had) addRunDelta(had, delta);
        else this.txRunDeltas.set(runId, { ...delta });
      },
    };
    this.checkpoints = new CheckpointTable(ctx);
    this.toolCalls = new ToolCallTable(ctx);
    this.forkRequests = new ForkRequestTable(ctx);
    this.live = new LiveTable(ctx);
    this.artifacts = new ArtifactTable(ctx);
  }

  private sql(text: string): SqlStatement {
    let stmt = this.stmts[text];
    if (!stmt) {
      stmt = this.db.prepare(text);
      // A statement that writes runs rows makes the transaction forget the counts it read (requireRunCounts).
      if (WRITES_RUNS.test(text)) stmt = this.forgettingRunCounts(stmt);
      // One that reads or writes them sees the counts the transaction added (written first).
      if (USES_RUNS.test(text)) stmt = this.afterRunDeltas(stmt);
      this.stmts[text] = stmt;
    }
    return stmt;
  }

  private afterRunDeltas(stmt: SqlStatement): SqlStatement {
    const write = () => {
      if (this.txRunDeltas.size > 0) this.writeRunDeltas(false);
    };
    return {
      run: (...params) => (write(), stmt.run(...params)),
      get: (...params) => (write(), stmt.get(...params)),
      all: (...params) => (write(), stmt.all(...params)),
    };
  }

  /**
   * What the current transaction's checkpoints and tool calls added to their runs' rows (StoreContext.countRun):
   * written in one UPDATE a run at its end, with the change stamp (stampChanges), or before a statement of this
   * connection uses runs rows (sql). Four or five UPDATEs of the run's row a ReAct step were ~10 % of its SQL.
   */
  private readonly txRunDeltas = new Map<string, RunDelta>();

  /** Writes txRunDeltas; `stamp`: with the change counter the transaction commits with (stampChanges). */
  private writeRunDeltas(stamp: boolean): void {
    const set = stamp
      ? `${RUN_DELTA_SET}, change_seq = (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'change_seq')`
      : RUN_DELTA_SET;
    const stmt = this.rawSql(`UPDATE runs SET ${set} WHERE run_id = ?`);
    for (const [runId, delta] of this.txRunDeltas) stmt.run(...runDeltaParams(delta), runId);
    this.txRunDeltas.clear();
  }

  /** A cached statement without sql's wrappers (the deltas' own UPDATE). */
  private rawSql(text: string): SqlStatement {
    const key = `raw:${text}`;
    return (this.stmts[key] ??= this.db.prepare(text));
  }

  private forgettingRunCounts(stmt: SqlStatement): SqlStatement {
    const forget = () => this.txRunCounts.clear();
    return {
      run: (...params) => (forget(), stmt.run(...params)),
      get: (...params) => (forget(), stmt.get(...params)),
      all: (...params) => (forget(), stmt.all(...params)),
    };
  }

  /**
   * What requireRunCounts read of each run in the current transaction, with what it counted since (`counted`):
   * a long write (an import's one transaction) reads each run's row once, not at every checkpoint and call. Any
   * other write of a runs row clears it (`sql`), and so do the transaction's start and end. The run is held for
   * the transaction (lockRun): nothing else changes its row meanwhile.
   */
  private readonly txRunCounts = new Map<string, SqlRow>();

  // ---- transactions ------------------------------------------------------

  transaction<T>(fn: () => T): T {
    return this.write(fn, false);
  }

  /**
   * One write transaction (nested calls join the outer one). `exclusive`: nothing else writes while it runs
   * (deleteRun's garbage collection; on SQLite every write is that already). The change counter is bumped at its
   * end, just before COMMIT (stampChanges).
   */
  private write<T>(fn: () => T, exclusive: boolean): T {
    this.assertOpen();
    if (this.depth > 0) {
      if (exclusive) this.db.lockStore?.();
      return fn();
    }
    if (this.grouping && !exclusive) return this.groupedWrite(fn);
    this.throwLostGroup();
    this.flush(); // an exclusive write of a grouped store: what the group holds goes first
    this.begin(exclusive ? 'BEGIN EXCLUSIVE' : 'BEGIN IMMEDIATE');
    this.depth++;
    try {
      const result = fn();
      this.stampChanges();
      this.db.exec('COMMIT');
      return result;
    } catch (e) {
      this.rollBack();
      throw translateSqliteError(e, this.path);
    } finally {
      this.depth--;
      this.txRunCounts.clear();
      this.txRunDeltas.clear();
      this.content.transactionEnded();
    }
  }

  /** Group commit's limits; undefined: every write is its own transaction. */
  private grouping: Required<GroupCommitOptions> | undefined;
  /** The open group: when it began, how many writes it holds, the end of the turn that commits it. */
  private group: { openedAt: number; writes: number; timer: NodeJS.Immediate } | undefined;
  /** A group's COMMIT that failed: thrown by the next write (once), wherever the failure was met first. */
  private groupLost: unknown;

  /** Turns group commit on (see OpenStoreOptions.groupCommit). SQLite only: PostgreSQL writes as before. */
  groupCommits(options: GroupCommitOptions): void {
    if (this.db.name === 'pg') return;
    this.grouping = { maxWrites: options.maxWrites ?? 64, maxMs: options.maxMs ?? 20 };
    hookExit();
  }

  /** One write in the open group (opening it first): a savepoint of its own, so a failure rolls back only it. */
  private groupedWrite<T>(fn: () => T): T {
    this.throwLostGroup();
    if (!this.group) {
      this.begin('BEGIN IMMEDIATE');
      const timer = setImmediate(() => this.flushAtTurnEnd());
      timer.unref();
      this.group = { openedAt: performance.now(), writes: 0, timer };
      openGroups.add(this);
    }
    const group = this.group;
    this.db.exec('SAVEPOINT w');
    // what the write adds to its runs' counts goes with it if it is rolled back
    const deltasBefore = new Map([...this.txRunDeltas].map(([runId, d]) => [runId, { ...d }]));
    this.depth++;
    let result: T;
    try {
      result = fn();
      this.db.exec('RELEASE w');
    } catch (e) {
      let whole = false;
      try {
        this.db.exec('ROLLBACK TO w');
        this.db.exec('RELEASE w');
      } catch {
        whole = true; // the whole transaction is gone (e.g. SQLITE_FULL rolls back by itself), the group's writes too
      }
      this.content.forgetMemos();
      this.txRunCounts.clear();
      this.txRunDeltas.clear();
      if (!whole) for (const [runId, d] of deltasBefore) this.txRunDeltas.set(runId, d);
      if (whole) {
        this.endGroup(false);
        if (group.writes > 0) throw this.lostGroup(group.writes + 1, e);
      }
      throw translateSqliteError(e, this.path);
    } finally {
      this.depth--;
    }
    group.writes++;
    if (group.writes >= this.grouping!.maxWrites || performance.now() - group.openedAt >= this.grouping!.maxMs) {
      this.flush();
    }
    return result;
  }

  /**
   * Begins a write transaction with its bookkeeping cleared; the open groups of this process's other connections
   * commit first (see openGroups).
   */
  private begin(sql: 'BEGIN IMMEDIATE' | 'BEGIN EXCLUSIVE'): void {
    SqliteRunStore.commitOpenGroups(this);
    try {
      this.db.exec(sql);
    } catch (e) {
      throw translateSqliteError(e, this.path);
    }
    this.txRunCounts.clear();
    this.txRunDeltas.clear();
    this.txTouched.clear();
    this.txDeleted.length = 0;
  }

  /** Commits the open group, if any (its writes visible to every other connection when this returns). */
  flush(): void {
    // inside a write (a flush from its callback) the group commits when that write has ended, not in its middle
    if (this.group && this.depth === 0) this.endGroup(true);
  }

  /**
   * Commits every open group of this process but `except`'s, before a write of another connection (see openGroups;
   * a failure is kept for that group's next write).
   */
  static commitOpenGroups(except?: SqliteRunStore): void {
    for (const store of openGroups) if (store !== except) store.flushAtTurnEnd();
  }

  private flushAtTurnEnd(): void {
    if (!this.group || this.closed || this.depth > 0) return;
    try {
      this.endGroup(true);
    } catch {
      // kept in groupLost: the next write throws it
    }
  }

  private throwLostGroup(): void {
    const lost = this.groupLost;
    if (lost === undefined) return;
    this.groupLost = undefined;
    throw lost;
  }

  /** Ends the open group: COMMIT with the change counter stamped (`commit`), or what is left of it rolled back. */
  private endGroup(commit: boolean): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    openGroups.delete(this);
    clearImmediate(group.timer);
    this.depth++;
    try {
      if (!commit) return this.rollBack();
      try {
        this.stampChanges();
        this.db.exec('COMMIT');
      } catch (e) {
        this.rollBack();
        // thrown here, and by the next write too: a caller that only flushed (a live stop) may go on without it
        throw (this.groupLost = this.lostGroup(group.writes, e));
      }
    } finally {
      this.depth--;
      this.txRunCounts.clear();
      this.txRunDeltas.clear();
      this.content.transactionEnded();
    }
  }

  /** The error of a group that did not commit: the writes it held had returned, and they are not in the store. */
  private lostGroup(writes: number, e: unknown): OcdbError {
    return new OcdbError(
      'StoreUnavailable',
      `The last ${writes} writes to ${this.path} could not be committed and are not in the store: ${errorMessage(translateSqliteError(e, this.path))}`,
      { path: this.path },
      { cause: e },
    );
  }

  /** Rolls the transaction back; nodes written in it are gone, so memos pointing at them go too. */
  private rollBack(): void {
    this.txRunDeltas.clear();
    try {
      this.db.exec('ROLLBACK');
    } catch {
      // the transaction may already be gone (e.g. SQLITE_FULL rolls back by itself)
    }
    this.content.forgetMemos();
  }

  /** The runs the current transaction changed: stamped with its change counter at its end. */
  private readonly txTouched = new Set<string>();
  /** The runs the current transaction deleted: listed in deleted_runs with its change counter at its end. */
  private readonly txDeleted: string[] = [];

  /**
   * Holds run `runId` for this transaction (PostgreSQL: its row lock; SQLite's single writer needs none): taken
   * where a write on a run starts, before its row is read, so a read-check-write on the run (its next checkpoint
   * seq, a tool call finished once, its id taken once) is never raced. Writers of other runs go on in parallel.
   */
  private lockRun(runId: string): void {
    this.db.lockRow?.('runs', runId);
  }

  /** A write on `runId`: its lock first, then `fn`, in one transaction. */
  private writeRun<T>(runId: string, fn: () => T): T {
    return this.transaction(() => {
      this.lockRun(runId);
      return fn();
    });
  }

  /** A write on row `id` of `table` (a fork request, a stop, an attachment, a confirmation): its lock, then `fn`. */
  private writeRow<T>(table: string, id: string, fn: () => T): T {
    return this.transaction(() => {
      this.db.lockRow?.(table, id);
      return fn();
    });
  }

  /**
   * Marks `runId` changed by this transaction (the change feed); its row is stamped with the change counter at
   * COMMIT, in the UPDATE that writes what the transaction added to its counts (txRunDeltas).
   */
  private touchRun(runId: string): void {
    if (this.depth === 0) {
      this.transaction(() => this.touchRun(runId));
      return;
    }
    if (this.txTouched.has(runId)) return;
    // the run's lock before the commit tail: stamping its row there then never waits for another writer
    this.lockRun(runId);
    this.txTouched.add(runId);
  }

  /**
   * The end of a transaction that changed something: the change counter bumped once, the runs it changed stamped
   * with it and the runs it deleted listed with it, just before COMMIT. On PostgreSQL these statements go with the
   * COMMIT in one message, under the commit-tail lock taken here (after every other lock of the transaction): two
   * transactions bump the counter in the order they commit, so a reader of changesSince(n) that saw n never misses
   * a change numbered n or lower; and the counter's row, which every writer updates, is held for the tail only.
   */
  private stampChanges(): void {
    if (this.txTouched.size === 0 && this.txDeleted.length === 0) return;
    this.db.lockChanges?.();
    this.sql("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'change_seq'").run();
    // a run the transaction counted in gets its counts and its stamp in one UPDATE
    for (const runId of this.txTouched) {
      if (this.txRunDeltas.has(runId)) continue;
      this.rawSql(
        "UPDATE runs SET change_seq = (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'change_seq') WHERE run_id = ?",
      ).run(runId);
    }
    this.writeRunDeltas(true);
    for (const runId of this.txDeleted) {
      this.sql(
        "INSERT INTO deleted_runs (run_id, change_seq) SELECT ?, CAST(value AS INTEGER) FROM meta WHERE key = 'change_seq'",
      ).run(runId);
    }
  }

  /**
   * The time a heartbeat is written with: `given` (this host's clock, or the caller's), unless the store's server
   * says this host's clock is off by more than CLOCK_SKEW_MS — then the server's time, so hosts compare one clock.
   */
  private heartbeatTime(given: number = Date.now()): number {
    return this.clockSkewed() ? Date.now() + (this.db.clockOffsetMs?.() ?? 0) : given;
  }

  /** This host's clock is off the store server's by more than CLOCK_SKEW_MS. */
  private clockSkewed(): boolean {
    return Math.abs(this.db.clockOffsetMs?.() ?? 0) > CLOCK_SKEW_MS;
  }

  /** A runs row as a RunSummary, crash state judged on the server's clock when the store has one. */
  private rowToRunSummary(row: SqlRow): RunSummary {
    const summary = decodeRunRow(row);
    const offset = this.db.clockOffsetMs?.();
    if (offset !== undefined && summary.status === 'running') {
      summary.crashed = isCrashed(
        summary.status,
        summary.ownerPid ?? null,
        str(row.owner_host) ?? null,
        summary.heartbeatAt ?? null,
        Date.now() + offset,
      );
    }
    return summary;
  }

  changeSeq(): number {
    this.assertOpen();
    return Number(this.sql("SELECT value FROM meta WHERE key = 'change_seq'").get()?.value ?? 0);
  }

  // ---- runs ----------------------------------------------------------------

  createRun(input: CreateRunInput): RunSummary {
    const metadata = input.metadata ?? {};
    const artifactRefs = parseWith(z.array(ArtifactRefSchema), input.artifactRefs ?? [], 'artifactRefs');
    return this.writeRun(input.runId, () => {
      if (this.hasRun(input.runId)) {
        throw new OcdbError('RunAlreadyExists', `Run ${input.runId} already exists in ${this.path}.`, {
          runId: input.runId,
        });
      }
      this.sql(
        `INSERT INTO runs (run_id, session_id, agent_id, parent_run_id, fork_from_checkpoint_id, status, mode,
           started_at, metadata_json, artifact_refs_json, owner_pid, owner_host, heartbeat_at)
         VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        input.runId,
        input.sessionId,
        input.agentId,
        input.parentRunId ?? null,
        input.forkFromCheckpointId ?? null,
        input.mode ?? 'live',
        input.startedAt,
        JSON.stringify(metadata),
        JSON.stringify(artifactRefs),
        input.ownerPid ?? process.pid,
        THIS_HOST,
        this.heartbeatTime(),
      );
      this.touchRun(input.runId);
      return this.getRun(input.runId);
    });
  }

  private requireRunRow(runId: string): SqlRow {
    return this.runRowOrThrow(runId, this.sql('SELECT * FROM runs WHERE run_id = ?').get(runId));
  }

  private runRowOrThrow(runId: string, row: SqlRow | undefined): SqlRow {
    if (!row) {
      throw new OcdbError('RunNotFound', `No run ${runId} in ${this.path}. \`ocdb runs\` lists the runs there.`, {
        runId,
      });
    }
    return row;
  }

  /**
   * The columns of the run's row a write on a running run reads (its status, the next checkpoint and tool call
   * seq, its artifacts): not `SELECT *`, which was a tenth of an import's writes (issue 11 item 6, branch
   * i11import3).
   */
  private requireRunning(runId: string): SqlRow {
    const row = this.sql(
      'SELECT run_id, status, checkpoint_count, tool_call_count, artifact_refs_json FROM runs WHERE run_id = ?',
    ).get(runId);
    if (!row) return this.requireRunRow(runId);
    return this.runningOrThrow(runId, row);
  }

  private runningOrThrow(runId: string, row: SqlRow): SqlRow {
    if (row.status !== 'running') {
      throw new OcdbError(
        'RunNotRunning',
        `Run ${runId} has already ended (${String(row.status)}); it cannot record more.`,
        {
          runId,
          status: row.status,
        },
      );
    }
    return row;
  }

  /**
   * What a write of a checkpoint or a tool call reads of its run: its status and counters, not the whole row (the
   * hot path of recording reads it once or twice per write). RunNotFound, or RunNotRunning when `running`.
   */
  private requireRunCounts(runId: string, running: boolean): SqlRow {
    let row = this.txRunCounts.get(runId);
    if (!row) {
      row = this.runRowOrThrow(
        runId,
        this.sql('SELECT run_key, status, checkpoint_count, tool_call_count FROM runs WHERE run_id = ?').get(runId),
      );
      if (this.depth > 0) this.txRunCounts.set(runId, row);
    }
    return running ? this.runningOrThrow(runId, row) : row;
  }

  hasRun(runId: string): boolean {
    this.assertOpen();
    return this.sql('SELECT 1 AS x FROM runs WHERE run_id = ?').get(runId) !== undefined;
  }

  getRun(runId: string): RunSummary {
    this.assertOpen();
    return this.rowToRunSummary(this.requireRunRow(runId));
  }

  listRuns(options: ListRunsOptions = {}): { runs: RunSummary[]; total: number } {
    this.assertOpen();
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (options.agentId !== undefined) {
      where.push('agent_id = ?');
      params.push(options.agentId);
    }
    if (options.status !== undefined) {
      where.push('status = ?');
      params.push(options.status);
    }
    if (options.mode !== undefined) {
      where.push('mode = ?');
      params.push(options.mode);
    }
    if (options.parentRunId === null) where.push('parent_run_id IS NULL');
    else if (options.parentRunId !== undefined) {
      where.push('parent_run_id = ?');
      params.push(options.parentRunId);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    // The tree page (top-level runs, newest first) walks the partial index of root runs backwards: no sort of
    // every root run (the planner would otherwise pick runs_by_parent and sort in a temporary B-tree).
    const from = options.parentRunId === null ? 'runs INDEXED BY runs_roots_by_start' : 'runs';
    // The count of top-level runs alone is kept in meta by triggers (schema 4): the tree page does not count them.
    const total =
      where.length === 1 && options.parentRunId === null
        ? Number(this.sql("SELECT value AS n FROM meta WHERE key = 'root_runs'").get()?.n ?? 0)
        : Number(this.sql(`SELECT COUNT(*) AS n FROM ${from} ${clause}`).get(...params)?.n ?? 0);
    const limit = Math.max(0, Math.min(options.limit ?? 200, 10_000));
    const offset = Math.max(0, options.offset ?? 0);
    const rows = this.sql(`SELECT * FROM ${from} ${clause} ORDER BY started_at DESC, rowid DESC LIMIT ? OFFSET ?`).all(
      ...params,
      limit,
      offset,
    );
    return { runs: rows.map((r) => this.rowToRunSummary(r)), total };
  }

  finishRun(runId: string, input: FinishRunInput): RunSummary {
    return this.writeRun(runId, () => {
      this.requireRunning(runId);
      this.sql('UPDATE runs SET status = ?, ended_at = ?, error_json = ?, heartbeat_at = ? WHERE run_id = ?').run(
        input.status,
        input.endedAt,
        toJson(input.error),
        this.heartbeatTime(),
        runId,
      );
      if (input.metadata !== undefined) {
        this.sql('UPDATE runs SET metadata_json = ? WHERE run_id = ?').run(JSON.stringify(input.metadata), runId);
      }
      this.touchRun(runId);
      return this.getRun(runId);
    });
  }

  reopenRun(runId: string, input: ReopenRunInput): RunSummary {
    const keep = input.keepCheckpoints;
    const summary = this.writeRun(runId, () => {
      const row = this.requireRunRow(runId);
      const where = `Run ${runId} cannot be continued`;
      if (row.status === 'running') throw new OcdbError('InvalidInput', `${where}: it has not ended.`, { runId });
      if (!Number.isInteger(keep) || keep < 0 || keep > Number(row.checkpoint_count)) {
        throw new OcdbError(
          'InvalidInput',
          `${where} after checkpoint ${keep}: it has ${String(row.checkpoint_count)}.`,
          {
            runId,
            path: 'keepCheckpoints',
          },
        );
      }
      const cut = this.checkpoints
        .from(runId, keep)
        .map((c) => ({ checkpoint_id: c.checkpointId, boundary: c.boundary, tool_call_id: c.toolCallId }));
      const ids = cut.map((c) => c.checkpoint_id);
      const marks = ids.map(() => '?').join(', ');
      const forks =
        ids.length === 0
          ? []
          : this.sql(
              `SELECT run_id AS id FROM runs WHERE fork_from_checkpoint_id IN (${marks})
         UNION SELECT fork_request_id AS id FROM fork_requests WHERE source_checkpoint_id IN (${marks})`,
            ).all(...ids, ...ids);
      const rewritten = new Set(input.rewrittenForks ?? []);
      const blocking = forks.filter((f) => !rewritten.has(String(f.id)));
      if (blocking.length > 0) {
        throw new OcdbError(
          'InvalidInput',
          `${where}: ${blocking.map((f) => String(f.id)).join(', ')} fork(s) from its end (${ids.join(', ')}), which continuing would replace.`,
          { runId, forks: blocking.map((f) => String(f.id)) },
        );
      }
      // Tool calls begun in the part removed go with it; those only closed there are open again.
      const begun = new Set(
        cut.filter((c) => c.boundary === 'before_tool_call' && c.tool_call_id).map((c) => String(c.tool_call_id)),
      );
      for (const c of cut) {
        const toolCallId = c.tool_call_id;
        if (toolCallId === null || toolCallId === undefined) continue;
        if (c.boundary !== 'before_tool_call' && c.boundary !== 'after_tool_call') continue;
        if (c.boundary === 'after_tool_call' && begun.has(String(toolCallId))) continue;
        const call = this.sql('SELECT state FROM tool_calls WHERE run_id = ? AND tool_call_id = ?').get(
          runId,
          toolCallId,
        );
        if (!call) continue;
        const failed = call.state === 'error' ? 1 : 0;
        if (c.boundary === 'before_tool_call') {
          this.sql('DELETE FROM tool_calls WHERE run_id = ? AND tool_call_id = ?').run(runId, toolCallId);
          this.sql(
            'UPDATE runs SET tool_call_count = tool_call_count - 1, tool_error_count = tool_error_count - ? WHERE run_id = ?',
          ).run(failed, runId);
        } else if (call.state !== 'running') {
          this.sql(
            "UPDATE tool_calls SET result_ref = NULL, error_json = NULL, ended_at = NULL, state = 'running' WHERE run_id = ? AND tool_call_id = ?",
          ).run(runId, toolCallId);
          this.sql('UPDATE runs SET tool_error_count = tool_error_count - ? WHERE run_id = ?').run(failed, runId);
        }
      }
      this.sql(`DELETE FROM checkpoints WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND seq >= ?`).run(
        runId,
        keep,
      );
      this.live.removeEditsAt(runId, ids);
      const segments = input.runtimeContexts ?? [];
      segments.forEach((segment, i) => {
        const context = parseWith(RuntimeContextSnapshotSchema, segment.runtimeContext, 'runtimeContext');
        const to = Math.min(segments[i + 1]?.fromCheckpoint ?? keep, keep);
        this.checkpoints.setContext(runId, segment.fromCheckpoint, to, this.content.putValue(context));
      });
      // The run's counters over what is kept (usage counted as appendCheckpoint counts it: when not captured).
      const tokens = { inputTokens: 0, outputTokens: 0 };
      for (const u of this.checkpoints.usages(runId)) {
        const usage = u as { inputTokens?: number; outputTokens?: number; captured?: boolean } | null;
        if (!usage || usage.captured) continue;
        tokens.inputTokens += Number(usage.inputTokens ?? 0);
        tokens.outputTokens += Number(usage.outputTokens ?? 0);
      }
      this.sql(
        `UPDATE runs SET status = 'running', ended_at = NULL, error_json = NULL, metadata_json = ?, owner_pid = ?,
           owner_host = ?, heartbeat_at = ?, checkpoint_count = ?,
           max_step = (SELECT COALESCE(MAX(step_index), -1) FROM checkpoints WHERE run_key = runs.run_key),
           last_checkpoint_at = (SELECT MAX(created_at) FROM checkpoints WHERE run_key = runs.run_key),
           input_tokens = ?, output_tokens = ?
         WHERE run_id = ?`,
      ).run(
        JSON.stringify(input.metadata),
        process.pid,
        THIS_HOST,
        this.heartbeatTime(),
        keep,
        tokens.inputTokens,
        tokens.outputTokens,
        runId,
      );
      this.touchRun(runId);
      return this.getRun(runId);
    });
    this.content.forgetMemos();
    return summary;
  }

  heartbeat(runId: string, at: number): void {
    this.writeRun(runId, () => {
      this.sql("UPDATE runs SET heartbeat_at = ? WHERE run_id = ? AND status = 'running'").run(
        this.heartbeatTime(at),
        runId,
      );
    });
  }

  setRunOwner(runId: string, owner: { pid: number; at: number } | null): void {
    this.writeRun(runId, () => {
      this.requireRunning(runId);
      this.sql('UPDATE runs SET owner_pid = ?, owner_host = ?, heartbeat_at = ? WHERE run_id = ?').run(
        owner?.pid ?? null,
        owner ? THIS_HOST : null,
        owner ? this.heartbeatTime(owner.at) : null,
        runId,
      );
      this.touchRun(runId);
    });
  }

  deleteRun(runId: string): void {
    // exclusive: the collection below sees every reference a writer was about to commit (none is in flight)
    this.write(() => {
      this.lockRun(runId);
      this.requireRunRow(runId);
      this.sql('DELETE FROM runs WHERE run_id = ?').run(runId);
      this.txDeleted.push(runId);
      this.collectGarbage();
    }, true);
    this.content.forgetMemos();
  }

  /**
   * Removes list nodes and blobs no run refers to any more (inside the caller's transaction, which holds the
   * store exclusively: on PostgreSQL a writer in flight may hold a blob or a list node it found and is about to
   * reference — its shared write lock keeps this collection waiting until it has committed or rolled back).
   */
  private collectGarbage(): void {
    this.sql('DELETE FROM checkpoint_heads WHERE head_id NOT IN (SELECT head_id FROM checkpoints)').run();
    this.sql(
      `WITH RECURSIVE live(id) AS (
         SELECT messages_node FROM checkpoints UNION SELECT ledger_node FROM checkpoints
         UNION SELECT n.parent FROM list_nodes n JOIN live ON n.id = live.id)
       DELETE FROM list_nodes WHERE id NOT IN (SELECT id FROM live)`,
    ).run();
    // Blobs reachable from a live row, and the member blobs those refer to (blobs.refs), transitively.
    this.sql(
      `WITH RECURSIVE live(hash) AS (
         SELECT item FROM list_nodes
         UNION SELECT context_hash FROM checkpoint_heads
         UNION SELECT system_prompt_hash FROM checkpoint_heads WHERE system_prompt_hash IS NOT NULL
         UNION SELECT args_ref FROM tool_calls
         UNION SELECT result_ref FROM tool_calls WHERE result_ref IS NOT NULL
         UNION SELECT unhex(json_extract(a.value, '$.contentHash')) FROM runs r, json_each(r.artifact_refs_json) a
         UNION SELECT unhex(json_extract(a.value, '$.contentHash')) FROM checkpoint_heads c, json_each(c.artifact_refs_json) a
          WHERE c.artifact_refs_json IS NOT NULL
         UNION SELECT unhex(json_extract(r.value, '$[1]')) FROM blobs b JOIN live ON b.hash = live.hash, json_each(b.refs) r
          WHERE b.refs IS NOT NULL)
       DELETE FROM blobs WHERE hash NOT IN (SELECT hash FROM live)`,
    ).run();
  }

  // ---- checkpoints ------------------------------------------------------------

  appendCheckpoint(input: Checkpoint, options: AppendOptions = {}): CheckpointSummary {
    // validated by the caller (AppendOptions.validated): taken as it is, its new items too
    const cp = options.validated ? input : parseCheckpointShell(input);
    return this.writeRun(cp.runId, () => {
      const run = this.requireRunCounts(cp.runId, true);
      const summary = this.checkpoints.insert(cp, !options.validated, options.listsFrom, run);
      // the heartbeat a checkpoint writes is this host's clock: the server's instead when this host's is off
      if (this.clockSkewed()) {
        this.sql('UPDATE runs SET heartbeat_at = ? WHERE run_id = ?').run(this.heartbeatTime(), cp.runId);
      }
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

  listCheckpointMarks(runId: string): CheckpointMarks {
    this.assertOpen();
    this.requireRunRow(runId);
    return checkpointMarks((text) => this.sql(text), runId);
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

  // ---- tool calls ----------------------------------------------------------------

  beginToolCall(runId: string, input: BeginToolCallInput): ToolCallRecord {
    this.assertOpen();
    return this.writeRun(runId, () => this.toolCalls.begin(runId, input));
  }

  finishToolCall(runId: string, toolCallId: string, input: FinishToolCallInput): ToolCallRecord {
    this.assertOpen();
    return this.writeRun(runId, () => this.toolCalls.finish(runId, toolCallId, input));
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

  listToolCallMarks(runId: string): ToolCallMarks[] {
    this.assertOpen();
    return this.toolCalls.marks(runId);
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

  // ---- artifacts ------------------------------------------------------------------

  addArtifact(runId: string, artifact: NewArtifact, content: Uint8Array): ArtifactRef {
    this.assertOpen();
    return this.writeRun(runId, () => this.artifacts.add(runId, artifact, content));
  }

  getArtifactContent(contentHash: string): Buffer {
    this.assertOpen();
    return this.artifacts.content(contentHash);
  }

  listArtifacts(runId: string): ArtifactRef[] {
    this.assertOpen();
    return this.artifacts.list(runId);
  }

  // ---- export / load ------------------------------------------------------------

  readAhead(runId: string, fromSeq: number, toSeq: number): void {
    this.assertOpen();
    readAheadRun(this.db, runId, fromSeq, toSeq);
  }

  exportRun(runId: string): DebugRunExport {
    const { toolLedger, artifactRefs, metadata, liveEdits, artifactContents, ...first } = this.exportRunHead(runId);
    const checkpoints = this.checkpoints.allOf(runId);
    // the DebugRun key order, then the contents of its artifacts (only when it has some)
    return compact({ ...first, checkpoints, toolLedger, artifactRefs, metadata, liveEdits, artifactContents });
  }

  exportRunHead(runId: string): Omit<DebugRunExport, 'checkpoints'> {
    this.assertOpen();
    const row = this.requireRunRow(runId);
    const summary = this.rowToRunSummary(row);
    const liveEdits = this.live.edits(runId);
    const contents = this.artifacts.exportContents(runId);
    return compact({
      runId: summary.runId,
      sessionId: summary.sessionId,
      agentId: summary.agentId,
      parentRunId: summary.parentRunId,
      forkFromCheckpointId: summary.forkFromCheckpointId,
      status: summary.status,
      mode: summary.mode,
      startedAt: summary.startedAt,
      endedAt: summary.endedAt,
      error: summary.error,
      toolLedger: this.listToolCalls(runId),
      artifactRefs: parseWith(DebugRunSchema.shape.artifactRefs, json(row.artifact_refs_json), `store run ${runId}`, [
        'artifactRefs',
      ]),
      metadata: summary.metadata,
      liveEdits: liveEdits.length > 0 ? liveEdits : undefined,
      artifactContents: Object.keys(contents).length > 0 ? contents : undefined,
    });
  }

  loadRun(input: unknown, options: LoadRunOptions = {}): RunSummary {
    assertJsonInput(input, options.where);
    const run = parseWith(DebugRunSchema, input, options.where);
    const rawContents = (input as { artifactContents?: unknown }).artifactContents;
    const contents =
      rawContents === undefined
        ? {}
        : parseWith(ArtifactContentsSchema, rawContents, options.where, ['artifactContents']);
    run.checkpoints.forEach((cp, i) => {
      if (cp.runId !== run.runId) {
        throw new OcdbError(
          'InvalidInput',
          `${options.where ? `${options.where}: ` : ''}${formatPath(['checkpoints', i, 'runId'])}: checkpoint belongs to run ${cp.runId}, not ${run.runId}`,
          { path: formatPath(['checkpoints', i, 'runId']) },
        );
      }
    });
    const summary = this.writeRun(run.runId, () => {
      if (this.hasRun(run.runId)) {
        if (!options.replace) {
          throw new OcdbError(
            'RunAlreadyExists',
            `Run ${run.runId} is already in ${this.path}; delete it first or load with --replace.`,
            { runId: run.runId },
          );
        }
        this.sql('DELETE FROM runs WHERE run_id = ?').run(run.runId);
      }
      // after a replaced run is gone: its own checkpoint ids are free again (loadValidation.ts)
      checkLoadedRun(
        run,
        {
          checkpointOwner: (id) => this.checkpoints.runOf(id),
          parentOf: (id) => {
            const row = this.sql('SELECT parent_run_id FROM runs WHERE run_id = ?').get(id);
            return row ? (row.parent_run_id as string | null) : undefined;
          },
          ...(options.batch ? { batch: options.batch } : {}),
        },
        options.where,
      );
      const lastAt = run.endedAt ?? run.checkpoints.at(-1)?.createdAt ?? run.startedAt;
      this.sql(
        `INSERT INTO runs (run_id, session_id, agent_id, parent_run_id, fork_from_checkpoint_id, status, mode,
           started_at, ended_at, error_json, metadata_json, artifact_refs_json, owner_pid, owner_host, heartbeat_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?)`,
      ).run(
        run.runId,
        run.sessionId,
        run.agentId,
        run.parentRunId ?? null,
        run.forkFromCheckpointId ?? null,
        run.status,
        run.mode,
        run.startedAt,
        run.endedAt ?? null,
        toJson(run.error),
        JSON.stringify(run.metadata),
        JSON.stringify(run.artifactRefs),
        lastAt,
      );
      for (const record of run.toolLedger) {
        const state = record.endedAt === undefined && record.error === undefined ? 'running' : toolOutcomeOf(record);
        this.toolCalls.insert(run.runId, record, state);
      }
      for (const cp of run.checkpoints) this.checkpoints.insert(cp);
      const ids = new Set(run.checkpoints.map((cp) => cp.checkpointId));
      (run.liveEdits ?? []).forEach((edit, i) => {
        if (!ids.has(edit.checkpointId)) {
          const at = formatPath(['liveEdits', i, 'checkpointId']);
          throw new OcdbError(
            'InvalidInput',
            `${options.where ? `${options.where}: ` : ''}${at}: the edit names checkpoint ${edit.checkpointId}, which is not in run ${run.runId}`,
            { path: at },
          );
        }
        this.live.insertEdit(run.runId, edit);
      });
      this.artifacts.load(contents, options.where ?? 'load');
      this.touchRun(run.runId);
      return this.getRun(run.runId);
    });
    for (const kind of ['m', 'l', 'c', 'p']) this.content.forgetMemo(`${kind}:${run.runId}`);
    return summary;
  }

  // ---- fork requests --------------------------------------------------------------

  saveForkRequest(record: ForkRequestRecord): void {
    this.assertOpen();
    this.writeRow('fork_requests', record.forkRequestId, () => this.forkRequests.save(record));
  }

  getForkRequest(forkRequestId: string): ForkRequestRecord {
    this.assertOpen();
    // read inside a write (a claim: read, check, save): the request's lock first, so two claims do not both pass
    if (this.depth > 0) this.db.lockRow?.('fork_requests', forkRequestId);
    return this.forkRequests.get(forkRequestId);
  }

  // ---- fork confirmations (manual_confirm in agent-program mode) ----------------------

  createConfirmation(record: Omit<ConfirmationRecord, 'status' | 'answer' | 'mockResult' | 'answeredAt'>): void {
    this.assertOpen();
    this.confirmations.create(record);
  }

  answerConfirmation(id: string, answer: ConfirmationAnswer, at: number, mockResult?: unknown): ConfirmationRecord {
    this.assertOpen();
    return this.writeRow('fork_confirmations', id, () => this.confirmations.answer(id, answer, at, mockResult));
  }

  expireConfirmation(id: string, at: number): ConfirmationRecord {
    this.assertOpen();
    return this.writeRow('fork_confirmations', id, () => this.confirmations.expire(id, at));
  }

  getConfirmation(id: string): ConfirmationRecord {
    this.assertOpen();
    return this.confirmations.get(id);
  }

  listConfirmations(filter?: ConfirmationFilter): ConfirmationRecord[] {
    this.assertOpen();
    return this.confirmations.list(filter);
  }

  // ---- live debugging (liveTable.ts) ----------------------------------------------------

  attachLive(input: AttachLiveInput): LiveAttachment {
    this.assertOpen();
    const attachId = (input as { attachId?: unknown }).attachId;
    if (typeof attachId !== 'string') return this.live.attach(input);
    return this.writeRow('live_attachments', attachId, () => this.live.attach(input));
  }

  renewLiveLease(attachId: string, at: number, leaseMs: number): void {
    this.assertOpen();
    this.writeRow('live_attachments', attachId, () => this.live.renew(attachId, at, leaseMs));
  }

  detachLive(attachId: string, at: number): void {
    this.assertOpen();
    this.writeRow('live_attachments', attachId, () => this.live.detach(attachId, at));
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
    return this.writeRow('live_stops', stopId, () => this.live.answer(stopId, answer, at));
  }

  expireLiveStop(stopId: string, at: number): LiveStop {
    this.assertOpen();
    return this.writeRow('live_stops', stopId, () => this.live.expire(stopId, at));
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
    return this.writeRun(runId, () => {
      this.live.recordEdit(runId, record);
      return tool ? this.toolCalls.reviseArgs(runId, tool.toolCallId, tool.args, tool.liveEdit) : undefined;
    });
  }

  listLiveEdits(runId: string): LiveEditRecord[] {
    this.assertOpen();
    this.requireRunRow(runId);
    return this.live.edits(runId);
  }

  // ---- change feed ---------------------------------------------------------------------

  changesSince(since: number): StoreChanges {
    this.assertOpen();
    const changeSeq = this.changeSeq();
    if (changeSeq === since) return { changeSeq, changedRuns: [], deletedRunIds: [] };
    // Up to the counter read first: every change numbered up to it has committed (the counter is bumped in commit
    // order), and one committed since is left to the next call, which asks from here — never reported twice.
    const changedRuns = this.sql('SELECT * FROM runs WHERE change_seq > ? AND change_seq <= ? ORDER BY change_seq')
      .all(since, changeSeq)
      .map((r) => this.rowToRunSummary(r));
    const deletedRunIds = this.sql('SELECT run_id FROM deleted_runs WHERE change_seq > ? AND change_seq <= ?')
      .all(since, changeSeq)
      .map((r) => String(r.run_id));
    return { changeSeq, changedRuns, deletedRunIds };
  }

  onChange(listener: () => void): () => void {
    this.assertOpen();
    let stop: () => void;
    if (this.db.onNotify) stop = this.db.onNotify(() => listener());
    else {
      // SQLite: every commit writes the -wal file beside the store; a burst of writes is one wake-up
      const base = path.basename(this.path);
      let wake: NodeJS.Timeout | undefined;
      let watcher: fs.FSWatcher | undefined;
      try {
        watcher = fs.watch(path.dirname(this.path), (_event, name) => {
          if ((name && !String(name).startsWith(base)) || wake) return;
          wake = setTimeout(() => {
            wake = undefined;
            listener();
          }, 50);
        });
        watcher.on('error', () => watcher?.close());
        watcher.unref();
      } catch {
        // no fs.watch here (some network file systems): the caller's poll is all there is
      }
      stop = () => {
        if (wake) clearTimeout(wake);
        watcher?.close();
      };
    }
    this.watchers.add(stop);
    return () => {
      if (this.watchers.delete(stop)) stop();
    };
  }

  // ---- maintenance ----------------------------------------------------------------------

  /** Folds the WAL into the main file (for size measurements and before copying the file). */
  checkpointWal(): void {
    this.assertOpen();
    this.flush();
    SqliteRunStore.commitOpenGroups(this);
    this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  /** `PRAGMA integrity_check` result: 'ok' when the file is sound. */
  integrityCheck(): string {
    this.assertOpen();
    return this.db
      .prepare('PRAGMA integrity_check')
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
    if (this.closed) return;
    try {
      this.flush();
    } finally {
      this.endGroup(false); // a group whose commit failed: rolled back before the connection goes
      this.closed = true;
      for (const stop of this.watchers) stop();
      this.watchers.clear();
      this.db.close();
    }
  }

  private assertOpen(): void {
    if (this.closed)
      throw new OcdbError('StoreUnavailable', `The run store ${this.path} is closed.`, { path: this.path });
  }
}

/** Validates one message (used by the HTTP ingest and importers for per-item errors). */
export const validateMessage = (m: unknown, where: string): unknown => parseWith(MessageSchema, m, where);
/** Validates a runtime context snapshot. */
export const validateContext = (c: unknown, where: string): unknown =>
  parseWith(RuntimeContextSnapshotSchema, c, where);
