/** What the store's table modules share with SqlRunStore: cached statements, blobs, the transaction and run bookkeeping. */
import type { ContentStore } from './contentStore';
import type { SqlRow, SqlStatement } from './sqlDriver';

export interface StoreContext {
  readonly path: string;
  readonly content: ContentStore;
  /**
   * A statement that breaks a unique constraint fails alone and the transaction goes on (SQLite): a write may then
   * let the constraint find a used id and read its owner afterwards. False on PostgreSQL, whose transaction is
   * aborted by the failed statement (and whose writes are sent later, in a batch): it reads first.
   */
  readonly uniqueErrorKeepsTransaction: boolean;
  /**
   * The store's clock (ms since epoch): this host's, corrected to the PostgreSQL server's or the SQLite file
   * system's when they differ by more than CLOCK_SKEW_MS. Leases and owners' liveness are judged on it, never on a
   * caller's clock.
   */
  now(): number;
  /**
   * A cached prepared statement. `runs` declares how it uses rows of `runs` (default 'none': not at all, or only
   * columns no write changes, such as run_key, run_id, parent_run_id): see RunsUse. `returnsId`: an INSERT's id
   * column, whose new value its lastInsertRowid answers (PrepareOptions.returnsId).
   */
  sql(text: string, runs?: RunsUse, returnsId?: string): SqlStatement;
  transaction<T>(fn: () => T): T;
  /** Bumps the store's change counter at commit and stamps the run with it (live views refresh from it). */
  touchRun(runId: string): void;
  hasRun(runId: string): boolean;
  /** The run's row, or RunNotFound. */
  requireRunRow(runId: string): SqlRow;
  /** The run's status, counts and artifacts (not its whole row) when it is still `running`, or RunNotRunning / RunNotFound. */
  requireRunning(runId: string): SqlRow;
  /**
   * The run's key, status, checkpoint_count and tool_call_count only (a write's read); RunNotRunning too when
   * `running`. Read once per transaction: later calls in it get what the first read, with the counts `counted` added.
   */
  requireRunCounts(runId: string, running: boolean): SqlRow;
  /**
   * After the UPDATE that counted a checkpoint or a tool call in the row `requireRunCounts` gave (every other write
   * of a runs row forgets what was read): the transaction's next requireRunCounts of the run gets the new counts.
   */
  counted(runId: string, row: SqlRow, column: 'checkpoint_count' | 'tool_call_count'): void;
  /**
   * Adds to the run's counters (a checkpoint or a tool call written): kept with the transaction and written in the
   * one UPDATE that stamps the run at its end (or before a statement of this connection reads or writes runs rows),
   * not by an UPDATE per checkpoint. Marks the run changed too (touchRun). Call inside a write transaction.
   */
  countRun(runId: string, delta: RunDelta): void;
}

/**
 * How a statement uses rows of `runs`, declared where it is written (never read from its text):
 * - 'readsCounters': it reads a run's counters (checkpoint_count, max_step, tokens, heartbeat_at,
 *   last_checkpoint_at, tool call counts, change_seq) or its whole row: what the transaction added to them
 *   (countRun) is written first;
 * - 'writes': it inserts, updates or deletes runs rows: the same, and the counts requireRunCounts read are forgotten.
 */
export type RunsUse = 'none' | 'readsCounters' | 'writes';

/** What a write adds to its run's row (StoreContext.countRun). */
export interface RunDelta {
  checkpoints?: number;
  /** The checkpoint's step index: `max_step` becomes the largest. */
  step?: number;
  inputTokens?: number;
  outputTokens?: number;
  /** The checkpoint's `createdAt`: `last_checkpoint_at` becomes the latest. */
  checkpointAt?: number;
  /** This host's clock when the checkpoint was written: the run's heartbeat. */
  heartbeatAt?: number;
  toolCalls?: number;
  toolErrors?: number;
}
