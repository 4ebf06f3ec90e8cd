/**
 * Many rows read as one row of columns: `json_group_array` (PostgreSQL: `json_agg`, pgDialect.ts) of each column, so
 * the engine hands back a few JSON texts and the driver builds one row object instead of one a row. What the
 * Timeline's marks read (checkpointMarks.ts, ToolCallTable.marks): a long run's rows at the cost of parsing
 * their values.
 *
 * The columns come in the order the engine fed its aggregates, the same for every column of the statement (one scan
 * feeds them all). That is `seq` order on SQLite (the primary key's, or the ordered subquery's), but neither engine
 * promises it, so `seq` is read too and the columns are put in its order when they are not.
 */
import { OcdbError } from '../model';
import type { SqlStatement, SqlValue } from './sqlDriver';

/** Each column's values in `seq` order (JSON values: numbers, strings, booleans, null). */
export type MarkColumns<K extends string> = Record<K | 'seq', unknown[]>;

/**
 * Reads `columns` (and `seq`) of the rows of `from` (a table and its WHERE, or a subquery with its alias; its
 * parameters `params`) as columns. `what` names the rows in an error.
 */
export function markColumns<K extends string>(
  sql: (text: string) => SqlStatement,
  columns: readonly K[],
  from: string,
  params: SqlValue | readonly SqlValue[],
  what: string,
): MarkColumns<K> {
  const names = ['seq', ...columns] as (K | 'seq')[];
  const row = sql(
    `SELECT count(*) AS n, ${names.map((c) => `CAST(json_group_array(${c}) AS TEXT) AS ${c}`).join(', ')} FROM ${from}`,
  ).get(...(Array.isArray(params) ? (params as readonly SqlValue[]) : [params as SqlValue]));
  const n = Number(row?.n ?? 0);
  const out = {} as MarkColumns<K>;
  for (const name of names) {
    const text = row?.[name];
    // no rows: SQLite's aggregate is [], PostgreSQL's NULL
    const values: unknown = text === null || text === undefined ? [] : JSON.parse(String(text));
    if (!Array.isArray(values) || values.length !== n)
      throw new OcdbError('StoreCorrupt', `store ${what}: column ${name} does not have one value a row`, { what });
    out[name] = values;
  }
  return inSeqOrder(out, names);
}

function inSeqOrder<K extends string>(cols: MarkColumns<K>, names: readonly (K | 'seq')[]): MarkColumns<K> {
  const seq = cols.seq;
  let ordered = true;
  for (let i = 0; i < seq.length; i++) {
    if (typeof seq[i] !== 'number') seq[i] = Number(seq[i]);
    if (i > 0 && !((seq[i - 1] as number) < (seq[i] as number))) ordered = false;
  }
  if (ordered) return cols;
  const order = seq.map((_, i) => i).sort((a, b) => (seq[a] as number) - (seq[b] as number));
  const out = {} as MarkColumns<K>;
  for (const name of names) {
    const values = cols[name];
    out[name] = order.map((i) => values[i]);
  }
  return out;
}
