/**
 * The PostgreSQL connection of one run store, in a worker thread: pgDriver.ts (the calling thread) posts a batch
 * of statements and waits for the answer synchronously (Atomics.wait on `signal`, then receiveMessageOnPort); this
 * thread runs them in order on its `pg` client and answers with the last statement's rows. Statements whose results
 * nobody reads (a transaction's INSERTs and UPDATEs) come in the same batch as the next query: one thread hop for
 * many statements. A second client LISTENs for the change feed (`ocdb_changes`) once asked, and posts each
 * notification on the `notify` port. Its own bundle (dist/pgWorker.js, esbuild.mjs). Never logs: errors go back to
 * the caller, which redacts them.
 */
import { workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import * as os from 'node:os';
import pg from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- pgpass has no types: (connection, callback)
const pgpass = require('pgpass') as (
  conn: { host: string; port: string; database: string; user: string },
  done: (password: string | undefined) => void,
) => void;

/** What the calling thread asks. */
export type PgRequest =
  | { type: 'connect'; url: string; applicationName: string; connectTimeoutMs: number; statementTimeoutMs: number }
  | { type: 'batch'; ops: PgOp[]; sets?: boolean }
  | { type: 'listen'; channel: string }
  | { type: 'close' };

/** One statement: `mode` says what the caller reads of it (`none`: nothing, so it may be batched). */
export interface PgOp {
  text: string;
  /** A prepared-statement name (parsed once per connection), absent for one-off and multi-statement texts. */
  name?: string;
  params?: unknown[];
  mode: 'none' | 'get' | 'all' | 'rowid' | 'exec';
  /** The statement begins or ends the transaction (the driver says so: its text is not read). */
  tx?: 'begin' | 'commit' | 'rollback';
}

export type PgReply =
  | {
      ok: true;
      rows?: Record<string, unknown>[];
      rowid?: number;
      counts?: number[];
      sets?: Record<string, unknown>[][];
    }
  | { ok: false; error: PgErrorInfo; failedAt: number };

/** The fields of a pg error (or a connection error) that error translation reads. */
export interface PgErrorInfo {
  message: string;
  code?: string;
  detail?: string;
  hint?: string;
  errno?: string;
}

export interface PgWorkerData {
  port: MessagePort;
  notify: MessagePort;
  /** Int32Array[0]: 0 while a request is under way, 1 when its answer is posted. */
  signal: SharedArrayBuffer;
}

// The store reads integers as numbers, as SQLite gives them (counts and sequence numbers stay far below 2^53).
pg.types.setTypeParser(20, (v: string) => Number(v)); // int8
pg.types.setTypeParser(1700, (v: string) => Number(v)); // numeric (SUM of bigint)

const data = workerData as PgWorkerData;
const signal = new Int32Array(data.signal);
let client: pg.Client | undefined;
let listener: pg.Client | undefined;
let config: Extract<PgRequest, { type: 'connect' }> | undefined;
/** Set when the connection broke (server restart, network): the next request reconnects. */
let broken: Error | undefined;
/** A transaction is open on `client` (BEGIN sent, no COMMIT/ROLLBACK yet). */
let inTransaction = false;
/** The connection broke inside a transaction: every batch fails until the caller's ROLLBACK (nothing half-written). */
let transactionLost = false;

function errorInfo(e: unknown): PgErrorInfo {
  const err = e as { message?: unknown; code?: unknown; detail?: unknown; hint?: unknown; errno?: unknown };
  return {
    message: typeof err?.message === 'string' ? err.message : String(e),
    ...(typeof err?.code === 'string' ? { code: err.code } : {}),
    ...(typeof err?.detail === 'string' ? { detail: err.detail } : {}),
    ...(typeof err?.hint === 'string' ? { hint: err.hint } : {}),
  };
}

/**
 * The password when the connection string has none and PGPASSWORD is unset: the pgpass file's (~/.pgpass or
 * PGPASSFILE), looked up here because pg's own lookup is deprecated.
 */
function passwordOf(url: string): (() => Promise<string>) | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.password || process.env.PGPASSWORD !== undefined) return undefined;
  const user = decodeURIComponent(parsed.username) || process.env.PGUSER || os.userInfo().username;
  const conn = {
    host: decodeURIComponent(parsed.hostname) || process.env.PGHOST || 'localhost',
    port: parsed.port || process.env.PGPORT || '5432',
    database: decodeURIComponent(parsed.pathname.slice(1)) || process.env.PGDATABASE || user,
    user,
  };
  return () => new Promise((resolve) => pgpass(conn, (password) => resolve(password ?? '')));
}

function newClient(c: NonNullable<typeof config>, pipeline = false): pg.Client {
  const password = passwordOf(c.url);
  // the connection string parsed here, so a password from the pgpass file is not overridden by its empty one
  const { password: _none, ...fields } = parseConnectionString(c.url);
  // no JIT: the store's queries are short and planned with rough row estimates (a recursive walk's), for which the
  // server would spend seconds compiling what runs in milliseconds (a copy's read-ahead: 4 s instead of 10 ms)
  const options = [fields.options, '-c jit=off'].filter(Boolean).join(' ');
  const next = new pg.Client({
    ...(fields as pg.ClientConfig),
    options,
    ...(password ? { password } : _none ? { password: _none } : {}),
    application_name: c.applicationName,
    connectionTimeoutMillis: c.connectTimeoutMs,
    statement_timeout: c.statementTimeoutMs,
    keepAlive: true,
    // a batch's statements are written at once and answered in order: one round trip for the batch, not one each
    pipeline,
  } as pg.ClientConfig);
  next.on('error', (e) => {
    broken = e;
  });
  return next;
}

async function connect(c: NonNullable<typeof config>): Promise<pg.Client> {
  const next = newClient(c, true);
  await next.connect();
  return next;
}

/** A value as it crosses to the calling thread: a Buffer (often a view on a shared pool) becomes its own copy. */
function plain(v: unknown): unknown {
  return v instanceof Uint8Array ? new Uint8Array(v) : v;
}

function plainRows(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const row of rows) for (const k of Object.keys(row)) if (row[k] instanceof Uint8Array) row[k] = plain(row[k]);
  return rows;
}

async function runBatch(ops: PgOp[], sets = false): Promise<PgReply> {
  if (transactionLost) {
    if (ops[0]?.tx !== 'rollback') {
      return {
        ok: false,
        error: { message: 'the connection was lost inside this transaction', code: '08006' },
        failedAt: 0,
      };
    }
    transactionLost = false;
    return { ok: true, counts: [0] };
  }
  if (!client || broken) {
    if (inTransaction) {
      inTransaction = false;
      transactionLost = ops[0]?.tx !== 'rollback';
      broken = broken ?? new Error('no connection');
      if (transactionLost) {
        return {
          ok: false,
          error: { message: `the connection was lost inside this transaction (${broken.message})`, code: '08006' },
          failedAt: 0,
        };
      }
    }
    if (!config) return { ok: false, error: { message: 'not connected' }, failedAt: 0 };
    const lost = broken;
    broken = undefined;
    try {
      await client?.end().catch(() => undefined);
      client = await connect(config);
    } catch (e) {
      client = undefined;
      const info = errorInfo(e);
      if (lost) info.message = `the connection was lost (${lost.message}) and reconnecting failed: ${info.message}`;
      return { ok: false, error: info, failedAt: 0 };
    }
  }
  const c = client;
  // every statement of the batch is sent at once (the client pipelines them) and answered in order; inside a
  // transaction the ones after a failure fail too (the server aborted it), and the first failure is answered
  const sent = ops.map((op) => {
    if (op.tx === 'begin') inTransaction = true;
    else if (op.tx === 'commit' || op.tx === 'rollback') inTransaction = false;
    const params = op.params?.map((p) => (typeof p === 'bigint' ? p.toString() : p));
    return op.mode === 'exec'
      ? c.query(op.text)
      : c.query(
          op.name ? { name: op.name, text: op.text, values: params ?? [] } : { text: op.text, values: params ?? [] },
        );
  });
  const settled = await Promise.allSettled(sent);
  const failedAt = settled.findIndex((r) => r.status === 'rejected');
  if (failedAt >= 0) {
    return { ok: false, error: errorInfo((settled[failedAt] as PromiseRejectedResult).reason), failedAt };
  }
  const results = settled.map((r) => (r as PromiseFulfilledResult<pg.QueryResult | pg.QueryResult[]>).value);
  const counts = results.map((r) => (Array.isArray(r) ? 0 : (r.rowCount ?? 0)));
  // several reads in one flight (a copy's read-ahead of a batch): every statement's rows
  if (sets) return { ok: true, counts, sets: results.map((r) => (Array.isArray(r) ? [] : plainRows(r.rows))) };
  const last = results.at(-1);
  const op = ops[ops.length - 1];
  if (!op || !last) return { ok: true, counts };
  const rows = Array.isArray(last) ? [] : (last.rows as Record<string, unknown>[]);
  switch (op.mode) {
    case 'get':
      return { ok: true, rows: plainRows(rows.slice(0, 1)), counts };
    case 'all':
      return { ok: true, rows: plainRows(rows), counts };
    case 'rowid':
      return { ok: true, rowid: Number(Object.values(rows[0] ?? {})[0] ?? 0), counts };
    default:
      return { ok: true, counts };
  }
}

async function listen(channel: string): Promise<PgReply> {
  if (listener || !config) return { ok: true };
  try {
    const l = newClient(config);
    l.on('notification', (n) => data.notify.postMessage({ channel: n.channel, payload: n.payload ?? '' }));
    l.on('error', () => {
      // the feed is a wake-up only: the store's poll still finds every change; try again on the next listen
      listener = undefined;
      data.notify.postMessage({ channel, payload: '', lost: true });
    });
    await l.connect();
    await l.query(`LISTEN ${channel}`);
    listener = l;
    return { ok: true };
  } catch (e) {
    return { ok: false, error: errorInfo(e), failedAt: 0 };
  }
}

async function handle(req: PgRequest): Promise<PgReply> {
  switch (req.type) {
    case 'connect':
      config = req;
      try {
        client = await connect(req);
        return { ok: true };
      } catch (e) {
        return { ok: false, error: errorInfo(e), failedAt: 0 };
      }
    case 'batch':
      return runBatch(req.ops, req.sets);
    case 'listen':
      return listen(req.channel);
    case 'close':
      await Promise.all(
        [client, listener].map((c) => (c ? c.end().catch(() => undefined) : Promise.resolve(undefined))),
      );
      client = undefined;
      listener = undefined;
      return { ok: true };
  }
}

/** Posts an answer: `id` of the request it answers, -1 for the worker's own failure (answers whatever is waiting). */
function answer(reply: PgReply, id: number): void {
  data.port.postMessage({ ...reply, id });
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}

data.port.on('message', (req: PgRequest & { id: number }) => {
  handle(req).then(
    (reply) => answer(reply, req.id),
    (e: unknown) => answer({ ok: false, error: errorInfo(e), failedAt: 0 }, req.id),
  );
});
// nothing here may take the worker down silently: the calling thread is blocked on the answer
process.on('uncaughtException', (e) => answer({ ok: false, error: errorInfo(e), failedAt: 0 }, -1));
process.on('exit', () =>
  answer({ ok: false, error: { message: 'the PostgreSQL worker thread stopped' }, failedAt: 0 }, -1),
);
