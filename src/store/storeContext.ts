/** What the store's table modules share with SqliteRunStore: cached statements, blobs, the transaction and run bookkeeping. */
import type { ContentStore } from './contentStore';
import type { SqlRow, SqlStatement } from './sqlDriver';

export interface StoreContext {
  readonly path: string;
  readonly content: ContentStore;
  /** A cached prepared statement. */
  sql(text: string): SqlStatement;
  transaction<T>(fn: () => T): T;
  /** Bumps the store's change counter and stamps the run with it (live views refresh from it). */
  touchRun(runId: string): void;
  hasRun(runId: string): boolean;
  /** The run's row, or RunNotFound. */
  requireRunRow(runId: string): SqlRow;
  /** The run's status, counts and artifacts (not its whole row) when it is still `running`, or RunNotRunning / RunNotFound. */
  requireRunning(runId: string): SqlRow;
}
