/** What the store's table modules share with SqliteRunStore: cached statements, blobs, the transaction and run bookkeeping. */
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
  /** A cached prepared statement. */
  sql(text: string): SqlStatement;
  transaction<T>(fn: () => T): T;
  /**
   * Bumps the store's change counter and stamps the run with it (live views refresh from it). `stamped`: an UPDATE
   * of the run's row in this transaction carried `inlineStamp` already (its stamp at commit is not written again).
   */
  touchRun(runId: string, stamped?: boolean): void;
  /**
   * A `, change_seq = …` to append to the SET of an UPDATE of a run's row: the change counter this transaction
   * commits with, known in advance where writers are serialised and the counter is bumped once at the end (SQLite);
   * '' on PostgreSQL, where the stamp is written at commit, in commit order. Then pass `stamped` to touchRun.
   */
  readonly inlineStamp: string;
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
}
