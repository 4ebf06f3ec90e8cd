/**
 * The PostgreSQL connection of one run store, in a worker thread: pgDriver.ts (the calling thread) posts a batch
 * of statements and waits for the answer synchronously (Atomics.wait on `signal`, then receiveMessageOnPort); this
 * thread runs them on its `pg` client (pgSession.ts: batches, one shared reconnection) and answers with the last
 * statement's rows. Statements whose results nobody reads (a transaction's INSERTs and UPDATEs) come in the same
 * batch as the next query: one thread hop for many statements. A second client LISTENs for the change feed (`ocdb_changes`) once asked, and posts each
 * notification on the `notify` port. Its own bundle (dist/pgWorker.js, esbuild.mjs). Never logs: errors go back to
 * the caller, which redacts them.
 */
import { workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import * as os from 'node:os';
import pg from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import { errorInfo, PgSession, type PgOp, type PgReply } from './pgSession';

export type { PgErrorInfo, PgOp, PgReply } from './pgSession';
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
let session: PgSession | undefined;
let listener: pg.Client | undefined;
let config: Extract<PgRequest, { type: 'connect' }> | undefined;

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
  return next;
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
    case 'connect': {
      config = req;
      const c = req;
      try {
        session = new PgSession(() => newClient(c, true));
        await session.connect();
        return { ok: true };
      } catch (e) {
        return { ok: false, error: errorInfo(e), failedAt: 0 };
      }
    }
    case 'batch':
      return session
        ? session.runBatch(req.ops, req.sets)
        : { ok: false, error: { message: 'not connected' }, failedAt: 0 };
    case 'listen':
      return listen(req.channel);
    case 'close':
      await Promise.all([session?.close(), listener?.end().catch(() => undefined)]);
      session = undefined;
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
