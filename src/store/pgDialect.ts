/**
 * The one place the store's SQLite statements become PostgreSQL: the table modules keep ONE set of DML strings
 * (written for SQLite), and the PostgreSQL driver passes each through `toPostgres` once (cached). What differs:
 *
 * | SQLite                                  | PostgreSQL                                                        |
 * | --------------------------------------- | ----------------------------------------------------------------- |
 * | `?` parameters                          | `$1`, `$2`, …                                                     |
 * | `INSERT OR IGNORE INTO t …`             | `INSERT INTO t … ON CONFLICT DO NOTHING`                          |
 * | `lastInsertRowid` of an INSERT          | `… RETURNING <id>` where the caller names its id (`returnsId`)    |
 * | `INSERT OR IGNORE` of a hash-consed row | `… ON CONFLICT DO NOTHING RETURNING id` (no row: it was there)    |
 * | `t INDEXED BY idx`                      | `t` (the planner picks the partial index itself)                  |
 * | scalar `MAX(a, b)` / `MIN(a, b)`        | `GREATEST(a, b)` / `LEAST(a, b)`                                  |
 * | `CAST(x AS INTEGER)` / `AS BLOB`        | `CAST(x AS BIGINT)` / `AS BYTEA`                                  |
 * | `LIMIT ?` with -1 for "no limit"        | `LIMIT NULLIF($n, -1)` (NULL is no limit)                         |
 * | `rowid`                                 | a `rowid` column (runs: `BIGSERIAL`)                              |
 * | `json_each(text)`, `json_extract(t, p)` | SQL functions of the same name (pgMigrations.ts)                  |
 * | aggregate `json_group_array(x)`         | `json_agg(x)` (NULL over no rows, where SQLite's is `[]`)         |
 * | `unhex(text)` (hex to bytes, or NULL)   | a SQL function of the same name (pgMigrations.ts)                 |
 *
 * Transactions (begin/commit/rollback) and the lock timeout are the driver's calls (pgDriver.ts). Engine-specific DDL lives only in
 * the migrations (migrations.ts, pgMigrations.ts). Pure: no I/O.
 */

/**
 * Reads of immutable rows that walk a chain one row at a time in SQLite (a list node, then its parent, …): one
 * round trip each would make a cold read of a 300-message conversation 300 round trips. A statement prepared with
 * `readAhead: name` (SqlDriver.prepare; its caller names it, its text is not looked at) is answered on PostgreSQL by
 * `chain` (the row and up to 2,000 ancestors in one query): the driver keeps those rows and answers the next steps of
 * the walk from them. Safe because list nodes never change once written (ids are never reused).
 */
export const READ_AHEAD: Readonly<Record<ReadAheadName, { chain: string; key: string }>> = {
  listNodeChain: {
    chain: `WITH RECURSIVE chain (id, parent, item, depth) AS (
        SELECT id, parent, item, 1 FROM list_nodes WHERE id = $1
        UNION ALL
        SELECT n.id, n.parent, n.item, c.depth + 1 FROM list_nodes n JOIN chain c ON n.id = c.parent WHERE c.depth < 2000)
      SELECT id, parent, item FROM chain`,
    key: 'id',
  },
};

/**
 * A run's checkpoints `seq` $2..$3 (of run $1) and what reading them asks for, each in one query (PgDriver
 * readAheadRun): their rows as the checkpoint-at-index read answers them, the list nodes their messages and ledger
 * snapshots reach (each once), and the blobs those nodes, the checkpoints' heads and the run's tool calls name,
 * with the blobs their parts name. A copy of a run then costs a few round trips a batch, not some a checkpoint.
 * The walk up a list stops below the shortest list of its kind in the batch: a batch after the first continues the
 * lists of the batch before (read then), so each batch walks what it adds, not the whole conversation again.
 */
const RUN_WALK = `batch (messages_node, ledger_node, message_count, ledger_count) AS (
    SELECT messages_node, ledger_node, message_count, ledger_count FROM checkpoints
     WHERE run_key = (SELECT run_key FROM runs WHERE run_id = $1) AND seq BETWEEN $2 AND $3),
  floor (m, l) AS (SELECT MIN(message_count) - 1, MIN(ledger_count) - 1 FROM batch),
  walk (id, parent, item, kind) AS (
    SELECT n.id, n.parent, n.item, 'm' FROM batch c JOIN list_nodes n ON n.id = c.messages_node
    UNION
    SELECT n.id, n.parent, n.item, 'l' FROM batch c JOIN list_nodes n ON n.id = c.ledger_node
    UNION
    SELECT n.id, n.parent, n.item, w.kind FROM walk w JOIN list_nodes n ON n.id = w.parent CROSS JOIN floor f
     WHERE n.len >= CASE w.kind WHEN 'm' THEN f.m ELSE f.l END)`;
export const RUN_READ_AHEAD = {
  nodes: `WITH RECURSIVE ${RUN_WALK} SELECT DISTINCT id, parent, item FROM walk`,
  blobs: `WITH RECURSIVE ${RUN_WALK},
    named (hash) AS (
      SELECT item FROM walk
      UNION SELECT h.context_hash FROM checkpoints c JOIN checkpoint_heads h ON h.head_id = c.head_id
       WHERE c.run_key = (SELECT run_key FROM runs WHERE run_id = $1) AND c.seq BETWEEN $2 AND $3
      UNION SELECT h.system_prompt_hash FROM checkpoints c JOIN checkpoint_heads h ON h.head_id = c.head_id
       WHERE c.run_key = (SELECT run_key FROM runs WHERE run_id = $1) AND c.seq BETWEEN $2 AND $3
         AND h.system_prompt_hash IS NOT NULL
      UNION SELECT args_ref FROM tool_calls WHERE run_id = $1
      UNION SELECT result_ref FROM tool_calls WHERE run_id = $1 AND result_ref IS NOT NULL),
    blob (hash, data, refs) AS (
      SELECT b.hash, b.data, b.refs FROM blobs b WHERE b.hash IN (SELECT hash FROM named)
      UNION
      SELECT b.hash, b.data, b.refs FROM blob p CROSS JOIN LATERAL jsonb_array_elements(p.refs::jsonb) e
        JOIN blobs b ON b.hash = decode(e.value ->> 1, 'hex')
       WHERE p.refs IS NOT NULL)
    SELECT hash, data, refs FROM blob`,
} as const;

/**
 * `PRAGMA integrity_check` on PostgreSQL: the server keeps its own pages sound, so what is checked is the store's
 * own invariant — every reference resolves (a checkpoint's lists, a list node's parent and item, contexts, tool
 * arguments and results): 'ok', or how many do not.
 */
export const INTEGRITY_CHECK = `SELECT CASE WHEN n = 0 THEN 'ok' ELSE n || ' dangling references in the store' END
    AS integrity_check FROM (SELECT
    (SELECT count(*) FROM checkpoints c WHERE c.messages_node <> 0
       AND NOT EXISTS (SELECT 1 FROM list_nodes l WHERE l.id = c.messages_node))
  + (SELECT count(*) FROM checkpoints c WHERE c.ledger_node <> 0
       AND NOT EXISTS (SELECT 1 FROM list_nodes l WHERE l.id = c.ledger_node))
  + (SELECT count(*) FROM list_nodes l WHERE l.parent <> 0
       AND NOT EXISTS (SELECT 1 FROM list_nodes p WHERE p.id = l.parent))
  + (SELECT count(*) FROM list_nodes l WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.hash = l.item))
  + (SELECT count(*) FROM checkpoints c WHERE NOT EXISTS (SELECT 1 FROM checkpoint_heads h WHERE h.head_id = c.head_id))
  + (SELECT count(*) FROM checkpoint_heads h WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.hash = h.context_hash))
  + (SELECT count(*) FROM tool_calls t WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.hash = t.args_ref))
  + (SELECT count(*) FROM tool_calls t WHERE t.result_ref IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.hash = t.result_ref)) AS n) AS counts`;

/** A block of list node ids taken from their sequence ahead (EngineTraits.nodeIdBlock): $1 of them. */
export const NODE_ID_BLOCK = `SELECT nextval(pg_get_serial_sequence('list_nodes', 'id')) AS id FROM generate_series(1, $1)`;

/** The walks over immutable rows an engine may read ahead (READ_AHEAD). */
export type ReadAheadName = 'listNodeChain';

/** What a statement turns into: the PostgreSQL text, and whether it returns the inserted row's id. */
export interface PgStatementText {
  text: string;
  /** `RETURNING <id>` was added: the first row's first column is the statement's lastInsertRowid. */
  returnsRowid: boolean;
  /** The number of parameters. */
  params: number;
}

/** Splits SQL into code and quoted parts ('…', "…"), so rewrites never touch a literal. */
function segments(sql: string): { code: boolean; text: string }[] {
  const out: { code: boolean; text: string }[] = [];
  let i = 0;
  let start = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      if (i > start) out.push({ code: true, text: sql.slice(start, i) });
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === c) {
          if (sql[j + 1] === c) j += 2;
          else break;
        } else j++;
      }
      out.push({ code: false, text: sql.slice(i, j + 1) });
      i = j + 1;
      start = i;
    } else if (c === '-' && sql[i + 1] === '-') {
      // a comment to the end of the line: dropped
      if (i > start) out.push({ code: true, text: sql.slice(start, i) });
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      start = i;
    } else i++;
  }
  if (start < sql.length) out.push({ code: true, text: sql.slice(start) });
  return out;
}

/** `MAX(a, b)` → `GREATEST(a, b)` (and MIN → LEAST) where the call has two or more arguments at its top level. */
function scalarMinMax(sql: string): string {
  const re = /\b(MAX|MIN)\s*\(/gi;
  let out = '';
  let last = 0;
  for (let m = re.exec(sql); m; m = re.exec(sql)) {
    let depth = 0;
    let commas = 0;
    let j = m.index + m[0].length - 1;
    for (; j < sql.length; j++) {
      const c = sql[j];
      if (c === '(') depth++;
      else if (c === ')') {
        depth--;
        if (depth === 0) break;
      } else if (c === ',' && depth === 1) commas++;
    }
    if (commas === 0) continue;
    out += sql.slice(last, m.index) + ((m[1] as string).toUpperCase() === 'MAX' ? 'GREATEST(' : 'LEAST(');
    last = m.index + m[0].length;
  }
  return out + sql.slice(last);
}

/**
 * Translates one SQLite statement of the store to PostgreSQL (see the table above). `returnsId`: the INSERT's id
 * column its caller reads back (PrepareOptions.returnsId), returned by the statement.
 */
export function toPostgres(sql: string, returnsId?: string): PgStatementText {
  const parts = segments(sql.trim().replace(/;\s*$/, ''));
  let n = 0;
  let ignore = false;
  const code = (text: string): string => {
    let t = text
      .replace(/\bINSERT\s+OR\s+IGNORE\s+INTO\b/gi, () => {
        ignore = true;
        return 'INSERT INTO';
      })
      .replace(/\s+INDEXED\s+BY\s+\w+/gi, '')
      .replace(/\bAS\s+INTEGER\s*\)/gi, 'AS BIGINT)')
      .replace(/\bAS\s+BLOB\s*\)/gi, 'AS BYTEA)')
      .replace(/\bLIMIT\s+\?/gi, 'LIMIT NULLIF(?, -1)')
      .replace(/\bjson_group_array\s*\(/gi, 'json_agg(');
    t = t.replace(/\?/g, () => `$${++n}`);
    return t;
  };
  // the rewrites that look at whole calls run on the code with literals masked
  const joined = parts.map((p) => (p.code ? code(p.text) : p.text)).join('');
  let text = scalarMinMax(joined);
  if (ignore) text += ' ON CONFLICT DO NOTHING';
  const returnsRowid = returnsId !== undefined;
  if (returnsRowid) text += ` RETURNING ${returnsId}`;
  return { text, returnsRowid, params: n };
}

/** True for a store location that names a PostgreSQL database rather than a SQLite file. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(location.trim());
}
