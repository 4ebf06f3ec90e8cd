/**
 * Many rows in few statements: a multi-row INSERT (`VALUES (…), (…)`) and a look-up of many keys (`IN (…)`), for
 * the writes that store hundreds of rows at once (an import's rebuilt files, their texts). On PostgreSQL a
 * transaction's writes are queued and sent with its next read or COMMIT (pgDriver.ts), but one statement a row is
 * still a statement the server parses, plans and answers a row at a time; the look-ups are reads, each a round trip.
 *
 * Bounds: a statement holds at most MAX_ROWS rows and, past its first row, MAX_BYTES of values (a file's text can
 * be megabytes), and its parameters stay far under PostgreSQL's 65,535 and SQLite's 32,766. Statements are prepared
 * once per text and the driver keeps each: a batch of any length is written as statements of power-of-two row
 * counts (256, 128, …, 1), so a table has at most nine texts, however many lengths its batches have. SQL text only
 * here; what goes in the rows is the caller's.
 */
import type { SqlRow, SqlStatement, SqlValue } from './sqlDriver';

/** Rows in one statement at most. */
export const MAX_ROWS = 256;
/** Bytes of values in one statement at most (past its first row). */
export const MAX_BYTES = 4 * 1024 * 1024;
/** Keys in one look-up: always this many (the last repeated), so it is one prepared statement. */
export const LOOKUP_KEYS = 500;

/** PostgreSQL's bound on one statement's parameters (its wire protocol counts them in 16 bits). */
const PG_MAX_PARAMS = 65_535;

/** The byte size of a value as the statement carries it (strings counted as UTF-16 length, enough for a bound). */
function sizeOf(v: SqlValue): number {
  if (v === null) return 1;
  if (typeof v === 'string') return v.length;
  if (v instanceof Uint8Array) return v.byteLength;
  return 8;
}

/** `rows` cut into groups of at most MAX_ROWS rows and MAX_BYTES of values (a larger row alone). */
function groups(rows: readonly SqlValue[][]): SqlValue[][][] {
  const out: SqlValue[][][] = [];
  let group: SqlValue[][] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = row.reduce<number>((n, v) => n + sizeOf(v), 0);
    if (group.length > 0 && (group.length >= MAX_ROWS || bytes + size > MAX_BYTES)) {
      out.push(group);
      group = [];
      bytes = 0;
    }
    group.push(row);
    bytes += size;
  }
  if (group.length > 0) out.push(group);
  return out;
}

/**
 * Inserts `rows` (each `columns` values) with `head` (`INSERT [OR IGNORE] INTO t (a, b)`), in statements of
 * power-of-two row counts. Inside a transaction on PostgreSQL nothing is sent until the next read or the COMMIT.
 */
export function insertRows(
  sql: (text: string) => SqlStatement,
  head: string,
  columns: number,
  rows: readonly SqlValue[][],
): void {
  if (columns * MAX_ROWS > PG_MAX_PARAMS)
    throw new Error(`${head}: ${columns} columns exceed a statement's parameters`);
  const tuple = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
  for (const group of groups(rows)) {
    for (let at = 0; at < group.length;) {
      let n = MAX_ROWS;
      while (n > group.length - at) n >>= 1;
      const slice = group.slice(at, at + n);
      sql(`${head} VALUES ${Array.from({ length: n }, () => tuple).join(', ')}`).run(...slice.flat());
      at += n;
    }
  }
}

/**
 * The rows of `select` (a statement ending `WHERE <key> IN`) for every key in `keys`: LOOKUP_KEYS keys a
 * statement, one read (a round trip on PostgreSQL) each.
 */
export function lookUpRows(sql: (text: string) => SqlStatement, select: string, keys: readonly SqlValue[]): SqlRow[] {
  const out: SqlRow[] = [];
  const text = `${select} (${Array.from({ length: LOOKUP_KEYS }, () => '?').join(', ')})`;
  for (let at = 0; at < keys.length; at += LOOKUP_KEYS) {
    const chunk = keys.slice(at, at + LOOKUP_KEYS);
    const last = chunk[chunk.length - 1] as SqlValue;
    while (chunk.length < LOOKUP_KEYS) chunk.push(last);
    out.push(...sql(text).all(...chunk));
  }
  return out;
}
