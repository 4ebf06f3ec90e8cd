/**
 * The store's transactions: one write transaction per call (nested calls join it), group commit (SQLite: the writes
 * of one event-loop turn share one transaction, each in a savepoint of its own), the commit tail that bumps the change
 * counter and stamps the runs a transaction changed, and what a transaction keeps of its runs' rows meanwhile (the
 * counts it read, the counts it added). Cached statements come from here too, since some of them must see what the
 * transaction added to its runs' counters first.
 */
import { OcdbError, errorMessage } from '../model';
import type { ContentStore } from './contentStore';
import type { EngineTraits } from './engineTraits';
import { addRunDelta, RUN_DELTA_SET, runDeltaParams } from './runDeltas';
import type { BeginMode, SqlDriver, SqlRow, SqlStatement } from './sqlDriver';
import { translateSqliteError } from './sqliteErrors';
import type { RunDelta, RunsUse } from './storeContext';

export interface GroupCommitOptions {
  /** Writes one group commits at most; default 64. */
  maxWrites?: number;
  /** Milliseconds a group stays open at most (checked as each write ends); default 20. */
  maxMs?: number;
}

/**
 * Stores with an open group: committed when the process exits (a group never outlives its process silently), and
 * before any other connection of this process begins a write (StoreTransactions.commitOpenGroups): a group holds
 * SQLite's write lock, and a second connection of the same thread waiting for it would wait out its busy timeout,
 * since the turn that commits the group cannot end meanwhile (two recorders of one store in one process, the SDK
 * beside an import).
 */
const openGroups = new Set<StoreTransactions>();

let exitHook = false;
function hookExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const tx of [...openGroups]) {
      try {
        tx.flush();
      } catch {
        // the process is going: nothing is left to report it to
      }
    }
  });
}

export class StoreTransactions {
  /** How deep the current write is (0: none open; a group's writes count while each runs). */
  private depth = 0;
  /** The store is closed: a group's end-of-turn commit does nothing more. */
  private closed = false;
  private readonly stmts: Record<string, SqlStatement> = {};

  constructor(
    private readonly db: SqlDriver,
    private readonly path: string,
    private readonly traits: EngineTraits,
    private readonly content: ContentStore,
  ) {}

  /** True inside a write transaction (or a write of an open group). */
  get inWrite(): boolean {
    return this.depth > 0;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** StoreUnavailable once the store is closed. */
  assertOpen(): void {
    if (this.closed)
      throw new OcdbError('StoreUnavailable', `The run store ${this.path} is closed.`, { path: this.path });
  }

  // ---- statements ----------------------------------------------------------------

  /** A cached prepared statement; `runs`: how it uses rows of `runs` (StoreContext.sql), as its caller declares. */
  sql(text: string, runs: RunsUse = 'none', returnsId?: string): SqlStatement {
    const key = `${runs === 'none' ? '' : `${runs}:`}${returnsId === undefined ? '' : `${returnsId}#`}${text}`;
    let stmt = this.stmts[key];
    if (!stmt) {
      stmt = this.db.prepare(text, returnsId === undefined ? {} : { returnsId });
      // A statement that writes runs rows makes the transaction forget the counts it read (requireRunCounts).
      if (runs === 'writes') stmt = this.forgettingRunCounts(stmt);
      // One that reads their counters or writes them sees the counts the transaction added (written first).
      if (runs !== 'none') stmt = this.afterRunDeltas(stmt);
      this.stmts[key] = stmt;
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

  private forgettingRunCounts(stmt: SqlStatement): SqlStatement {
    const forget = () => this.txRunCounts.clear();
    return {
      run: (...params) => (forget(), stmt.run(...params)),
      get: (...params) => (forget(), stmt.get(...params)),
      all: (...params) => (forget(), stmt.all(...params)),
    };
  }

  /** A cached statement without sql's wrappers (the deltas' own UPDATE). */
  private rawSql(text: string): SqlStatement {
    const key = `raw:${text}`;
    return (this.stmts[key] ??= this.db.prepare(text));
  }

  // ---- what a transaction keeps of its runs ----------------------------------------

  /**
   * What the current transaction's checkpoints and tool calls added to their runs' rows (StoreContext.countRun):
   * written in one UPDATE a run at its end, with the change stamp (stampChanges), or before a statement of this
   * connection uses runs rows (sql).
   */
  private readonly txRunDeltas = new Map<string, RunDelta>();

  /**
   * What requireRunCounts read of each run in the current transaction, with what it counted since (`counted`):
   * a long write (an import's one transaction) reads each run's row once, not at every checkpoint and call. Any
   * other write of a runs row clears it (`sql`), and so do the transaction's start and end. The run is held for
   * the transaction (lockRun): nothing else changes its row meanwhile.
   */
  private readonly txRunCounts = new Map<string, SqlRow>();
  /** The runs the current transaction changed: stamped with its change counter at its end. */
  private readonly txTouched = new Set<string>();
  /** The runs the current transaction deleted: listed in deleted_runs with its change counter at its end. */
  private readonly txDeleted: string[] = [];

  /** The counts the transaction read of `runId` (RunTable.requireRunCounts), if it read them. */
  runCounts(runId: string): SqlRow | undefined {
    return this.txRunCounts.get(runId);
  }

  /** Keeps the counts read of `runId` for the rest of the transaction (outside one: nothing to keep). */
  keepRunCounts(runId: string, row: SqlRow): void {
    if (this.depth > 0) this.txRunCounts.set(runId, row);
  }

  /** StoreContext.counted: the transaction's next requireRunCounts of the run gets the new count. */
  counted(runId: string, row: SqlRow, column: 'checkpoint_count' | 'tool_call_count'): void {
    if (this.depth > 0) this.txRunCounts.set(runId, { ...row, [column]: Number(row[column]) + 1 });
  }

  /** StoreContext.countRun: kept with the transaction, written at its end. */
  countRun(runId: string, delta: RunDelta): void {
    this.touchRun(runId);
    const had = this.txRunDeltas.get(runId);
    if (had) addRunDelta(had, delta);
    else this.txRunDeltas.set(runId, { ...delta });
  }

  /** Writes txRunDeltas; `stamp`: with the change counter the transaction commits with (stampChanges). */
  private writeRunDeltas(stamp: boolean): void {
    const set = stamp
      ? `${RUN_DELTA_SET}, change_seq = (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'change_seq')`
      : RUN_DELTA_SET;
    const stmt = this.rawSql(`UPDATE runs SET ${set} WHERE run_id = ?`);
    for (const [runId, delta] of this.txRunDeltas) stmt.run(...runDeltaParams(delta), runId);
    this.txRunDeltas.clear();
  }

  /**
   * Marks `runId` changed by this transaction (the change feed); its row is stamped with the change counter at
   * COMMIT, in the UPDATE that writes what the transaction added to its counts (txRunDeltas).
   */
  touchRun(runId: string): void {
    if (this.depth === 0) {
      this.transaction(() => this.touchRun(runId));
      return;
    }
    if (this.txTouched.has(runId)) return;
    // the run's lock before the commit tail: stamping its row there then never waits for another writer
    this.lockRun(runId);
    this.txTouched.add(runId);
  }

  /** `runId` was deleted by this transaction: listed in deleted_runs at its end (the change feed). */
  deleted(runId: string): void {
    this.txDeleted.push(runId);
  }

  /**
   * Holds run `runId` for this transaction (PostgreSQL: its row lock; SQLite's single writer needs none): taken
   * where a write on a run starts, before its row is read, so a read-check-write on the run (its next checkpoint
   * seq, a tool call finished once, its id taken once) is never raced. Writers of other runs go on in parallel.
   */
  lockRun(runId: string): void {
    this.db.lockRow?.('runs', runId);
  }

  /** Holds row `id` of `table` for this transaction when it is inside one (a claim's read before its write). */
  lockRowInWrite(table: string, id: string): void {
    if (this.depth > 0) this.db.lockRow?.(table, id);
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

  // ---- transactions ----------------------------------------------------------------

  transaction<T>(fn: () => T): T {
    return this.write(fn, false);
  }

  /** A write on `runId`: its lock first, then `fn`, in one transaction. */
  writeRun<T>(runId: string, fn: () => T): T {
    return this.transaction(() => {
      this.lockRun(runId);
      return fn();
    });
  }

  /** A write on row `id` of `table` (a fork request, a stop, an attachment, a confirmation): its lock, then `fn`. */
  writeRow<T>(table: string, id: string, fn: () => T): T {
    return this.transaction(() => {
      this.db.lockRow?.(table, id);
      return fn();
    });
  }

  /**
   * One write transaction (nested calls join the outer one). `exclusive`: nothing else writes while it runs
   * (deleteRun's garbage collection; on SQLite every write is that already). The change counter is bumped at its
   * end, just before COMMIT (stampChanges).
   */
  write<T>(fn: () => T, exclusive: boolean): T {
    this.assertOpen();
    if (this.depth > 0) {
      if (exclusive) this.db.lockStore?.();
      return fn();
    }
    if (this.grouping && !exclusive) return this.groupedWrite(fn);
    this.throwLostGroup();
    this.flush(); // an exclusive write of a grouped store: what the group holds goes first
    this.begin(exclusive ? 'exclusive' : 'write');
    this.depth++;
    try {
      const result = fn();
      this.stampChanges();
      this.db.commit();
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

  /**
   * Begins a write transaction with its bookkeeping cleared; the open groups of this process's other connections
   * commit first (see openGroups).
   */
  private begin(mode: BeginMode): void {
    StoreTransactions.commitOpenGroups(this);
    try {
      this.db.begin(mode);
    } catch (e) {
      throw translateSqliteError(e, this.path);
    }
    this.txRunCounts.clear();
    this.txRunDeltas.clear();
    this.txTouched.clear();
    this.txDeleted.length = 0;
  }

  /** Rolls the transaction back; nodes written in it are gone, so memos pointing at them go too. */
  private rollBack(): void {
    this.txRunDeltas.clear();
    try {
      this.db.rollback();
    } catch {
      // the transaction may already be gone (e.g. SQLITE_FULL rolls back by itself)
    }
    this.content.forgetMemos();
  }

  // ---- group commit ----------------------------------------------------------------

  /** Group commit's limits; undefined: every write is its own transaction. */
  private grouping: Required<GroupCommitOptions> | undefined;
  /** The open group: when it began, how many writes it holds, the end of the turn that commits it. */
  private group: { openedAt: number; writes: number; timer: NodeJS.Immediate } | undefined;
  /** A group's COMMIT that failed: thrown by the next write (once), wherever the failure was met first. */
  private groupLost: unknown;

  /** Turns group commit on (see OpenStoreOptions.groupCommit) where the engine has it (EngineTraits.groupCommit). */
  groupCommits(options: GroupCommitOptions): void {
    if (!this.traits.groupCommit) return;
    this.grouping = { maxWrites: options.maxWrites ?? 64, maxMs: options.maxMs ?? 20 };
    hookExit();
  }

  /** One write in the open group (opening it first): a savepoint of its own, so a failure rolls back only it. */
  private groupedWrite<T>(fn: () => T): T {
    this.throwLostGroup();
    if (!this.group) {
      this.begin('write');
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

  /** Commits the open group, if any (its writes visible to every other connection when this returns). */
  flush(): void {
    // inside a write (a flush from its callback) the group commits when that write has ended, not in its middle
    if (this.group && this.depth === 0) this.endGroup(true);
  }

  /**
   * Commits every open group of this process but `except`'s, before a write of another connection (see openGroups;
   * a failure is kept for that group's next write).
   */
  static commitOpenGroups(except?: StoreTransactions): void {
    for (const tx of openGroups) if (tx !== except) tx.flushAtTurnEnd();
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
        this.db.commit();
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

  /** The store closes: the open group commits; one whose commit failed is rolled back before the connection goes. */
  close(): void {
    if (this.closed) return;
    try {
      this.flush();
    } finally {
      this.endGroup(false);
      this.closed = true;
    }
  }
}
