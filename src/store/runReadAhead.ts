/**
 * Reading a whole run from PostgreSQL in a few round trips a batch (a copy into a local cache, `ocdb pull`,
 * `ocdb export`): before a batch of checkpoints is read, the rows its reads will ask for — the checkpoints, the list
 * nodes their messages and ledger snapshots reach, the blobs those name — are read in one query per table
 * (pgDialect RUN_READ_AHEAD) and the driver answers the reads from them (PgDriver.readAheadBatch). SQLite reads its
 * own file: nothing to do there.
 */
import { CHECKPOINT_AT, CHECKPOINTS_BETWEEN } from './checkpointTable';
import { RUN_READ_AHEAD, toPostgres } from './pgDialect';
import type { SqlDriver, SqlRow, SqlValue } from './sqlDriver';

/** How many checkpoints one read-ahead batch covers. */
export const READ_AHEAD_BATCH = 500;

interface ReadsAhead {
  readAheadBatch(
    text: string,
    params: SqlValue[],
    sql: string,
    paramsOf: (row: SqlRow) => SqlValue[],
    fresh: boolean,
  ): number;
}

const readsAhead = (db: SqlDriver): db is SqlDriver & ReadsAhead =>
  typeof (db as Partial<ReadsAhead>).readAheadBatch === 'function';

/** Reads ahead what reading checkpoints `fromSeq`..`toSeq` of `runId` asks for; false where the driver has no need. */
export function readAheadRun(db: SqlDriver, runId: string, fromSeq: number, toSeq: number): boolean {
  if (!readsAhead(db)) return false;
  const range: SqlValue[] = [runId, fromSeq, toSeq];
  db.readAheadBatch(toPostgres(CHECKPOINTS_BETWEEN).text, range, CHECKPOINT_AT, (r) => [runId, Number(r.seq)], true);
  db.readAheadBatch(
    RUN_READ_AHEAD.nodes,
    range,
    'SELECT parent, item FROM list_nodes WHERE id = ?',
    (r) => [Number(r.id)],
    false,
  );
  db.readAheadBatch(
    RUN_READ_AHEAD.blobs,
    range,
    'SELECT data, refs FROM blobs WHERE hash = ?',
    (r) => [r.hash as Uint8Array],
    false,
  );
  return true;
}
