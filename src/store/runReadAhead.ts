/**
 * Reading a whole run from PostgreSQL in a few round trips a batch (a copy into a local cache, `ocdb pull`,
 * `ocdb export`): before a batch of checkpoints is read, the rows its reads will ask for — the checkpoints, the list
 * nodes their messages and ledger snapshots reach, the blobs those name — are read in one query per table
 * (pgDialect RUN_READ_AHEAD), all in one flight, and the driver answers the reads from them (PgDriver.readAheadSets);
 * the next batch's are sent before the caller works on this one, so the network's wait overlaps the caller's work. SQLite reads its
 * own file: nothing to do there.
 */
import { CHECKPOINT_AT, CHECKPOINTS_BETWEEN } from './checkpointTable';
import { RUN_READ_AHEAD, toPostgres } from './pgDialect';
import type { ReadAheadSpec } from './pgDriver';
import type { SqlDriver, SqlValue } from './sqlDriver';

/** How many checkpoints one read-ahead batch covers. */
export const READ_AHEAD_BATCH = 500;

interface ReadsAhead {
  readAheadSets(specs: readonly ReadAheadSpec[], next?: readonly ReadAheadSpec[]): void;
}

const readsAhead = (db: SqlDriver): db is SqlDriver & ReadsAhead =>
  typeof (db as Partial<ReadsAhead>).readAheadSets === 'function';

/** The queries that read ahead checkpoints `fromSeq`..`toSeq` of `runId`: their rows, list nodes and blobs. */
function specsOf(runId: string, fromSeq: number, toSeq: number): ReadAheadSpec[] {
  const range: SqlValue[] = [runId, fromSeq, toSeq];
  return [
    {
      text: toPostgres(CHECKPOINTS_BETWEEN).text,
      params: range,
      sql: CHECKPOINT_AT,
      paramsOf: (r) => [runId, Number(r.seq)],
    },
    {
      text: RUN_READ_AHEAD.nodes,
      params: range,
      sql: 'SELECT parent, item FROM list_nodes WHERE id = ?',
      paramsOf: (r) => [Number(r.id)],
    },
    {
      text: RUN_READ_AHEAD.blobs,
      params: range,
      sql: 'SELECT data, refs FROM blobs WHERE hash = ?',
      paramsOf: (r) => [r.hash as Uint8Array],
    },
  ];
}

/**
 * Reads ahead what reading checkpoints `fromSeq`..`toSeq` of `runId` asks for (one flight), and starts reading
 * checkpoints `toSeq + 1`..`nextToSeq` (when given) while the caller works on these; false where the driver has no
 * need (SQLite reads its own file).
 */
export function readAheadRun(
  db: SqlDriver,
  runId: string,
  fromSeq: number,
  toSeq: number,
  nextToSeq?: number,
): boolean {
  if (!readsAhead(db)) return false;
  const next = nextToSeq !== undefined && nextToSeq > toSeq ? specsOf(runId, toSeq + 1, nextToSeq) : undefined;
  db.readAheadSets(specsOf(runId, fromSeq, toSeq), next);
  return true;
}
