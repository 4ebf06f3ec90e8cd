/**
 * The store's connection inside the PostgreSQL worker thread (pgWorker.ts): runs a batch of statements on its `pg`
 * client, pipelined, and answers as the calling thread reads it; reconnects when the connection broke; fails every
 * batch of a transaction whose connection was lost, until the caller's ROLLBACK (nothing half-written). Its clients
 * come from `makeClient` (the worker's, configured from the connection string; a test's own).
 */
import type pg from 'pg';

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

export function errorInfo(e: unknown): PgErrorInfo {
  const err = e as { message?: unknown; code?: unknown; detail?: unknown; hint?: unknown; errno?: unknown };
  return {
    message: typeof err?.message === 'string' ? err.message : String(e),
    ...(typeof err?.code === 'string' ? { code: err.code } : {}),
    ...(typeof err?.detail === 'string' ? { detail: err.detail } : {}),
    ...(typeof err?.hint === 'string' ? { hint: err.hint } : {}),
  };
}

/** A value as it crosses to the calling thread: a Buffer (often a view on a shared pool) becomes its own copy. */
function plain(v: unknown): unknown {
  return v instanceof Uint8Array ? new Uint8Array(v) : v;
}

function plainRows(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const row of rows) for (const k of Object.keys(row)) if (row[k] instanceof Uint8Array) row[k] = plain(row[k]);
  return rows;
}

export class PgSession {
  private client: pg.Client | undefined;
  /** Set when the connection broke (server restart, network): the next batch reconnects. */
  private broken: Error | undefined;
  /** A transaction is open on `client` (BEGIN sent, no COMMIT/ROLLBACK yet). */
  private inTransaction = false;
  /** The connection broke inside a transaction: every batch fails until the caller's ROLLBACK. */
  private transactionLost = false;
  /** The reconnection under way (reconnect): every batch that comes meanwhile waits for it. */
  private reconnection: Promise<PgErrorInfo | undefined> | undefined;

  constructor(private readonly makeClient: () => pg.Client) {}

  /** A new client, connected; its errors mark the connection broken while it is the session's. */
  private async open(): Promise<pg.Client> {
    const next = this.makeClient();
    // an old client's late error (it was replaced) says nothing of the current connection
    next.on('error', (e) => {
      if (this.client === next) this.broken = e;
    });
    await next.connect();
    return next;
  }

  /**
   * Replaces the broken client: one reconnection however many batches find the connection broken (they all wait
   * for it). Answers its failure, if any.
   */
  private reconnect(): Promise<PgErrorInfo | undefined> {
    this.reconnection ??= (async () => {
      const lost = this.broken;
      const old = this.client;
      this.client = undefined;
      try {
        await old?.end().catch(() => undefined);
        const next = await this.open();
        this.client = next;
        this.broken = undefined;
        return undefined;
      } catch (e) {
        const info = errorInfo(e);
        if (lost) info.message = `the connection was lost (${lost.message}) and reconnecting failed: ${info.message}`;
        this.broken = undefined;
        return info;
      } finally {
        this.reconnection = undefined;
      }
    })();
    return this.reconnection;
  }

  async connect(): Promise<void> {
    this.client = await this.open();
  }

  async runBatch(ops: PgOp[], sets = false): Promise<PgReply> {
    // a batch that comes while another reconnects waits for that reconnection and runs on its client (a copy's
    // read-ahead and the caller's next request are in flight at once): never on the client being replaced
    if (this.reconnection) {
      const failed = await this.reconnection;
      if (failed) return { ok: false, error: failed, failedAt: 0 };
    }
    if (this.transactionLost) {
      if (ops[0]?.tx !== 'rollback') {
        return {
          ok: false,
          error: { message: 'the connection was lost inside this transaction', code: '08006' },
          failedAt: 0,
        };
      }
      this.transactionLost = false;
      return { ok: true, counts: [0] };
    }
    if (!this.client || this.broken) {
      if (this.inTransaction) {
        this.inTransaction = false;
        this.transactionLost = ops[0]?.tx !== 'rollback';
        this.broken = this.broken ?? new Error('no connection');
        if (this.transactionLost) {
          return {
            ok: false,
            error: {
              message: `the connection was lost inside this transaction (${this.broken.message})`,
              code: '08006',
            },
            failedAt: 0,
          };
        }
      }
      const failed = await this.reconnect();
      if (failed) return { ok: false, error: failed, failedAt: 0 };
    }
    const client = this.client;
    if (!client) return { ok: false, error: { message: 'not connected' }, failedAt: 0 };
    return this.send(client, ops, sets);
  }

  /** Runs `ops` on `c`: every statement sent at once (the client pipelines them), answered in order. */
  private async send(c: pg.Client, ops: PgOp[], sets: boolean): Promise<PgReply> {
    // inside a transaction the ones after a failure fail too (the server aborted it), and the first failure is answered
    const sent = ops.map((op) => {
      if (op.tx === 'begin') this.inTransaction = true;
      else if (op.tx === 'commit' || op.tx === 'rollback') this.inTransaction = false;
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

  async close(): Promise<void> {
    await this.reconnection; // its client is ended here, not left open
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }
}
