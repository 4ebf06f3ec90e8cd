/**
 * The PostgreSQL implementation of the driver seam (sqlDriver.ts), synchronous like better-sqlite3: the `pg`
 * client runs in a worker thread (pgWorker.ts) and this thread waits for each answer (Atomics.wait on a
 * SharedArrayBuffer, then receiveMessageOnPort), so the RunStore contract and every layer above stay synchronous.
 *
 * - Statements are the store's SQLite text, translated once by pgDialect.ts and prepared by name per connection.
 * - Inside a transaction a statement nobody reads the result of (`run()`: INSERT, UPDATE, DELETE) is queued and
 *   sent with the next query or the COMMIT, in one message: a write costs the round trips of its reads.
 * - Writers run at once (READ COMMITTED), and what SQLite's single writer gives for free is kept with advisory
 *   transaction locks, all in the two-int form (the store's key, derived from its schema: storeLockKeys):
 *   - `begin('write')` is `BEGIN` and the store's write lock taken SHARED: writers never wait for each other on
 *     it; `begin('exclusive')` (deleteRun's garbage collection) takes it exclusively, so it waits for the writers in
 *     flight and runs alone: no blob or list node another transaction is about to reference is collected.
 *   - `lockRow(table, id)`: the row lock of a read-check-write (a run's next checkpoint seq, a tool call finished
 *     once, a run id taken once, a fork request claimed once, a stop answered once): one writer per run at a
 *     time, writers of different runs in parallel. Taken before the rows are read, held to COMMIT/ROLLBACK.
 *   - `lockChanges()`: the commit-tail lock, taken just before COMMIT (storeTransactions.ts `stampChanges`, after
 *     every other lock) and sent with the counter's bump and the COMMIT in one message: the change counter is
 *     bumped in commit order (no change lost or reordered for a reader of changesSince), and the lock is held
 *     for the few statements of the tail, not the transaction.
 *   Shared list nodes and blobs two runs write at once are inserted ON CONFLICT DO NOTHING (a list node then read
 *   again by a statement of its own, which sees the row the other transaction committed: pgDialect.ts).
 *   Readers never take a lock.
 * - Transactions begin, commit and roll back by explicit calls (begin/commit/rollback), never recognised by
 *   reading a statement's text; setLockTimeout sets `lock_timeout` (a writer waits that long, then StoreLocked).
 * The connection string stays in this driver and its worker: every error carries the redacted location only.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { OcdbError } from '../model';
import { READ_AHEAD, toPostgres, type PgStatementText } from './pgDialect';
import { translatePgError } from './pgErrors';
import type { PgOp, PgReply, PgRequest } from './pgWorker';
import {
  lockTimeoutMs,
  type BeginMode,
  type PrepareOptions,
  type SqlDriver,
  type SqlRow,
  type SqlStatement,
  type SqlValue,
} from './sqlDriver';

/** The store-wide advisory locks (two-int form: the store's key, then which lock). */
export const WRITE_LOCK = 1;
export const MIGRATION_LOCK = 2;
/** The commit-tail lock: the change counter's bump, in commit order. */
export const CHANGES_LOCK = 3;

/** A 32-bit FNV-1a hash of `text` (UTF-8), as a signed int4: one half of a two-int advisory lock key. */
export function lockHash(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/**
 * The advisory lock keys of the store in `schema`: two stores in different schemas of one database (or two
 * databases: advisory locks are per database) never share a lock. `store` is the first int of the store-wide
 * locks (WRITE_LOCK, MIGRATION_LOCK, CHANGES_LOCK); `row(table)` the first int of a row lock, whose second is
 * lockHash(id).
 */
export function storeLockKeys(schema: string): { store: number; row: (table: string) => number } {
  return { store: lockHash(`ocdb ${schema}`), row: (table) => lockHash(`ocdb ${schema} ${table}`) };
}

/** The channel the change feed is notified on (pgMigrations.ts: a trigger on meta's change_seq). */
export const CHANGE_CHANNEL = 'ocdb_changes';

export interface PgDriverOptions {
  /** The connection string (postgres://…); its password, if any, never leaves this driver. */
  url: string;
  /** What errors name instead of the URL (redacted). */
  location: string;
  connectTimeoutMs?: number;
  /** Milliseconds one statement may run on the server; default 60000. */
  statementTimeoutMs?: number;
}

/** Where the worker's code is: beside this bundle (dist/pgWorker.js), or beside this source file under tsx. */
function workerFile(): { file: string; preload?: string } {
  if (__filename.endsWith('.ts')) {
    // from source (tests, `node --import tsx`): a worker does not inherit tsx's hooks, so it registers them itself
    const tsx = 'tsx/cjs';
    return { file: path.join(__dirname, 'pgWorker.ts'), preload: require.resolve(tsx) };
  }
  const bundled = path.join(__dirname, 'pgWorker.js');
  if (fs.existsSync(bundled)) return { file: bundled };
  throw new Error(`the PostgreSQL worker ${bundled} is missing from this installation (npm run build makes it)`);
}

/**
 * The worker's first code: loads the worker module, and answers a failure to load it on the request port (the
 * calling thread is blocked on that port and would not see an `error` event).
 */
function bootstrap(file: string, preload?: string): string {
  return `const { workerData } = require('node:worker_threads');
try {
  ${preload ? `require(${JSON.stringify(preload)});` : ''}
  require(${JSON.stringify(file)});
} catch (e) {
  workerData.port.postMessage({ id: -1, ok: false, failedAt: 0,
    error: { message: 'the PostgreSQL worker did not start: ' + (e && e.message ? e.message : String(e)) } });
  const signal = new Int32Array(workerData.signal);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}`;
}

interface Pending {
  op: PgOp;
  changes?: number;
}

export class PgDriver implements SqlDriver {
  readonly name = 'pg' as const;
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly notifyPort: MessagePort;
  private readonly signal: Int32Array;
  private readonly texts = new Map<string, PgStatementText & { name: string }>();
  private queue: Pending[] = [];
  private inTransaction = false;
  /** The row locks this transaction holds (table + id), so a second ask costs nothing. */
  private readonly held = new Set<string>();
  /** The schema the store lives in (`current_schema()` at connect) and its lock keys. */
  readonly schema: string;
  private readonly keys: ReturnType<typeof storeLockKeys>;
  /**
   * Inside a transaction, what each read answered since the last write or lock: the rows a transaction reads
   * again are its own run's (held under its row lock, so no other writer changes them) or immutable content, so
   * until this transaction writes, the same query answers the same (a write asked twice for its run's row).
   */
  private readonly reads = new Map<string, SqlRow[]>();
  private nextId = 1;
  private closed = false;
  private readonly listeners = new Set<(payload: string) => void>();
  /** Immutable rows read ahead (READ_AHEAD), by statement and key. */
  private readonly readAhead = new Map<string, Map<string, SqlRow>>();
  private readAheadRows = 0;
  /** Rows read for a batch (readAheadBatch), by statement and params: answered once asked, until the next batch or write. */
  private primed = new Map<string, SqlRow[]>();
  /**
   * The batch read before the current one (readAheadBatch): a copy's first checkpoint of a batch continues the last
   * of the batch before, whose list nodes it walks up from.
   */
  private primedBefore = new Map<string, SqlRow[]>();
  private listening = false;
  /** The read-ahead sent before it was asked for (readAheadSets' `next`): its request id and what it reads. */
  private sentAhead: { id: number; key: string } | undefined;
  /** Answers to sentAhead that came while this thread waited for another request's. */
  private readonly kept = new Map<number, PgReply & { id: number }>();
  /** How long this thread waits for one answer before it gives up on the worker. */
  private readonly answerTimeoutMs: number;

  constructor(private readonly options: PgDriverOptions) {
    const statementTimeoutMs = options.statementTimeoutMs ?? 60_000;
    const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.answerTimeoutMs = statementTimeoutMs + connectTimeoutMs + 30_000;
    const shared = new SharedArrayBuffer(4);
    this.signal = new Int32Array(shared);
    const calls = new MessageChannel();
    const notes = new MessageChannel();
    this.port = calls.port1;
    this.notifyPort = notes.port1;
    const { file, preload } = workerFile();
    this.worker = new Worker(bootstrap(file, preload), {
      eval: true,
      workerData: { port: calls.port2, notify: notes.port2, signal: shared },
      transferList: [calls.port2, notes.port2],
      stdout: false,
      stderr: false,
    });
    this.worker.unref();
    this.notifyPort.on('message', (m: { channel?: string; payload?: string }) => {
      for (const l of this.listeners) l(String(m.payload ?? ''));
    });
    this.notifyPort.unref();
    try {
      this.request({
        type: 'connect',
        url: options.url,
        applicationName: 'agent-time-travel',
        connectTimeoutMs,
        statementTimeoutMs,
      });
      const row = this.flush({ text: 'SELECT current_schema() AS s', mode: 'get' }).rows?.[0];
      this.schema = String(row?.s ?? 'public');
      this.keys = storeLockKeys(this.schema);
      this.measureClock();
    } catch (e) {
      this.closed = true;
      this.notifyPort.close();
      this.port.close();
      void this.worker.terminate();
      throw e;
    }
  }

  private clockOffset = 0;
  private clockMeasuredAt = 0;

  /** The server's clock against this host's (the middle of one round trip). */
  private measureClock(): void {
    const t0 = Date.now();
    const row = this.flush({ text: 'SELECT extract(epoch FROM clock_timestamp()) * 1000 AS t', mode: 'get' }).rows?.[0];
    const t1 = Date.now();
    const server = Number(row?.t);
    if (Number.isFinite(server)) this.clockOffset = server - (t0 + t1) / 2;
    this.clockMeasuredAt = t1;
  }

  /** How far the server's clock is ahead of this host's (ms); measured again after a minute, between transactions. */
  clockOffsetMs(): number {
    if (!this.inTransaction && !this.closed && Date.now() - this.clockMeasuredAt > 60_000) this.measureClock();
    return this.clockOffset;
  }

  /** The first int of this store's store-wide advisory locks (MIGRATION_LOCK, …). */
  get storeKey(): number {
    return this.keys.store;
  }

  /** Queues one advisory lock statement of this transaction (sent with the next read or the COMMIT). */
  private queueLock(name: string, fn: string, a: number, b: number): void {
    this.queue.push({ op: { text: `SELECT ${fn}($1, $2)`, name, params: [a, b], mode: 'none' } });
    this.reads.clear();
  }

  /**
   * Holds the row lock of `id` in `table` to the end of this transaction (waiting for the writer that holds it):
   * a read-check-write on it is not raced by another connection. Outside a transaction: nothing to hold.
   */
  lockRow(table: string, id: string): void {
    if (!this.inTransaction) return;
    const key = `${table}\u0000${id}`;
    if (this.held.has(key)) return;
    this.held.add(key);
    this.queueLock('ocdb_row_lock', 'pg_advisory_xact_lock', this.keys.row(table), lockHash(id));
  }

  /** The commit-tail lock (CHANGES_LOCK), held to COMMIT: taken last, just before the counter's bump. */
  lockChanges(): void {
    if (!this.inTransaction || this.held.has('\u0000changes')) return;
    this.held.add('\u0000changes');
    this.queueLock('ocdb_changes_lock', 'pg_advisory_xact_lock', this.keys.store, CHANGES_LOCK);
  }

  /** The store's write lock, exclusively (a transaction begun shared takes it here too: nested garbage collection). */
  lockStore(): void {
    if (!this.inTransaction || this.held.has('\u0000store')) return;
    this.held.add('\u0000store');
    this.queueLock('ocdb_store_lock', 'pg_advisory_xact_lock', this.keys.store, WRITE_LOCK);
  }

  /** Sends one request and waits for its answer; a failure is thrown translated (and redacted). */
  private request(req: PgRequest): PgReply & { ok: true } {
    return this.answerOf(this.post(req));
  }

  /** Sends one request without waiting for its answer (answerOf waits): its id. */
  private post(req: PgRequest): number {
    if (this.closed && req.type !== 'close') {
      throw new OcdbError('StoreUnavailable', `The run store ${this.options.location} is closed.`, {
        path: this.options.location,
      });
    }
    const id = this.nextId++;
    this.port.postMessage({ ...req, id });
    return id;
  }

  /**
   * Waits for the answer to request `id`; a failure is thrown translated (and redacted). The answer of a request
   * sent ahead (`sentAhead`) that comes first is kept for its own answerOf; any other is late (given up on) and dropped.
   */
  private answerOf(id: number): PgReply & { ok: true } {
    const kept = this.kept.get(id);
    this.kept.delete(id);
    const deadline = Date.now() + this.answerTimeoutMs;
    for (let reply = kept; ;) {
      if (reply) {
        if (!reply.ok) throw translatePgError(reply.error, this.options.location);
        return reply;
      }
      // re-armed before the port is read: an answer posted after the read sets it again and ends the wait
      Atomics.store(this.signal, 0, 0);
      for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
        const r = m.message as PgReply & { id: number };
        if (r.id === id || r.id === -1) {
          reply = r;
          break; // what follows stays on the port for its own wait
        }
        if (this.sentAhead?.id === r.id) this.kept.set(r.id, r);
      }
      if (reply) continue;
      if (Date.now() > deadline) {
        throw new OcdbError(
          'StoreUnavailable',
          `The PostgreSQL run store ${this.options.location} did not answer within ${Math.round(this.answerTimeoutMs / 1000)} s.`,
          { path: this.options.location },
        );
      }
      Atomics.wait(this.signal, 0, 0, 1000);
    }
  }

  private statement(sql: string, returnsId?: string): PgStatementText & { name: string } {
    const key = returnsId === undefined ? sql : `${returnsId}\u0000${sql}`;
    let t = this.texts.get(key);
    if (!t) {
      t = { ...toPostgres(sql, returnsId), name: `ocdb_${this.texts.size + 1}` };
      this.texts.set(key, t);
    }
    return t;
  }

  /** Sends the queued statements, then `last` (if any), in one message; answers `last`'s reply. */
  private flush(last?: PgOp): PgReply & { ok: true } {
    const pending = this.queue;
    this.queue = [];
    const ops = pending.map((p) => p.op);
    if (last) ops.push(last);
    if (ops.length === 0) return { ok: true };
    const reply = this.request({ type: 'batch', ops });
    pending.forEach((p, i) => (p.changes = reply.counts?.[i] ?? 0));
    return reply;
  }

  exec(sql: string): void {
    this.forgetPrimed();
    this.reads.clear();
    this.flush({ text: sql.trim(), mode: 'exec' });
  }

  /**
   * `BEGIN`, queued (sent with the transaction's first read or its COMMIT) with the store's write lock: shared for a
   * write (writers run at once), exclusive for 'exclusive' (garbage collection runs alone).
   */
  begin(mode: BeginMode): void {
    this.forgetPrimed();
    this.queue.push({ op: { text: 'BEGIN', mode: 'none', tx: 'begin' } });
    this.inTransaction = true;
    this.held.clear();
    if (mode === 'exclusive') this.lockStore();
    else this.queueLock('ocdb_write_lock', 'pg_advisory_xact_lock_shared', this.keys.store, WRITE_LOCK);
    this.reads.clear();
  }

  commit(): void {
    this.forgetPrimed();
    this.inTransaction = false;
    this.held.clear();
    this.reads.clear();
    this.flush({ text: 'COMMIT', mode: 'none', tx: 'commit' });
  }

  rollback(): void {
    this.forgetPrimed();
    // the BEGIN still queued: nothing was sent yet, so there is nothing to roll back on the server
    const sent = this.queue.length === 0 || this.queue[0]?.op.tx !== 'begin';
    this.queue = [];
    this.inTransaction = false;
    this.held.clear();
    this.reads.clear();
    if (sent) this.request({ type: 'batch', ops: [{ text: 'ROLLBACK', mode: 'none', tx: 'rollback' }] });
  }

  /** `lock_timeout`: a writer waits that long for a lock (a row's, an advisory one), then StoreLocked. */
  setLockTimeout(ms: number): void {
    this.reads.clear();
    this.flush({ text: `SET lock_timeout = ${lockTimeoutMs(ms)}`, mode: 'exec' });
  }

  prepare(sql: string, options: PrepareOptions = {}): SqlStatement {
    if (options.readAhead) return this.readAheadStatement(sql, READ_AHEAD[options.readAhead]);
    const t = this.statement(sql, options.returnsId);
    const op = (params: SqlValue[], mode: PgOp['mode']): PgOp => ({
      text: t.text,
      name: t.name,
      params: params.map((p) => (typeof p === 'bigint' ? p.toString() : p)),
      mode,
    });
    /** A read inside a transaction, answered again without a round trip until the transaction writes. */
    const read = (params: SqlValue[], mode: 'get' | 'all'): SqlRow[] => {
      const ready = this.primed.size > 0 ? this.primedRows(primeKey(sql, params)) : undefined;
      if (ready) return ready.map((r) => ({ ...r }));
      if (!this.inTransaction || options.volatile) return (this.flush(op(params, mode)).rows ?? []) as SqlRow[];
      const key = `${mode}\u0000${sql}\u0000${JSON.stringify(params, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`;
      const known = this.reads.get(key);
      if (known && this.queue.length === 0) return known.map((r) => ({ ...r }));
      const rows = (this.flush(op(params, mode)).rows ?? []) as SqlRow[];
      this.reads.set(
        key,
        rows.map((r) => ({ ...r })),
      );
      return rows;
    };
    return {
      run: (...params) => {
        this.reads.clear();
        this.forgetPrimed();
        if (t.returnsRowid) {
          const reply = this.flush(op(params, 'rowid'));
          return { changes: reply.counts?.at(-1) ?? 0, lastInsertRowid: reply.rowid ?? 0 };
        }
        if (!this.inTransaction) {
          const reply = this.flush(op(params, 'none'));
          return { changes: reply.counts?.at(-1) ?? 0, lastInsertRowid: 0 };
        }
        // queued: sent with the next read or the COMMIT; reading `changes` sends it now
        const pending: Pending = { op: op(params, 'none') };
        this.queue.push(pending);
        const flush = () => this.flush();
        return {
          get changes(): number {
            if (pending.changes === undefined) flush();
            return pending.changes ?? 0;
          },
          get lastInsertRowid(): number {
            return 0;
          },
        };
      },
      get: (...params) => read(params, 'get')[0],
      all: (...params) => read(params, 'all'),
    };
  }

  /** A walk over immutable rows (READ_AHEAD): the first step reads the chain, the next ones are answered here. */
  private readAheadStatement(sql: string, ahead: { chain: string; key: string }): SqlStatement {
    let rows = this.readAhead.get(sql);
    if (!rows) {
      rows = new Map();
      this.readAhead.set(sql, rows);
    }
    const known = rows;
    const name = `ocdb_chain_${this.readAhead.size}`;
    const get = (...params: SqlValue[]): SqlRow | undefined => {
      const key = String(params[0]);
      const hit = known.get(key) ?? (this.primed.size > 0 ? this.primedRows(primeKey(sql, params))?.[0] : undefined);
      if (hit) return hit;
      const chain = this.flush({ text: ahead.chain, name, params: [params[0] ?? null], mode: 'all' }).rows ?? [];
      if (this.readAheadRows + chain.length > 500_000) {
        for (const m of this.readAhead.values()) m.clear();
        this.readAheadRows = 0;
      }
      for (const row of chain as SqlRow[]) {
        const { [ahead.key]: id, ...rest } = row;
        known.set(String(id), rest);
      }
      this.readAheadRows += chain.length;
      return known.get(key);
    };
    return {
      get,
      all: (...params) => {
        const row = get(...params);
        return row ? [row] : [];
      },
      run: () => {
        throw new Error(`${sql} is a read`);
      },
    };
  }

  /**
   * Reads every spec's `text` (PostgreSQL's own, `$n` parameters) in one flight and keeps each row as the answer the
   * read `sql` with the params `paramsOf(row)` gives, until the next batch or write (the batch before kept too: a
   * copy's first checkpoint of a batch continues the last of the one before): a copy of a run reads its batch's rows
   * in a query per table, not a query per checkpoint, list node or blob. `next`, the specs of the batch after, is
   * sent now and answered while the caller works on this batch, so the network and the server's time overlap the
   * caller's (a copy writing its target); its answer is used when the next call asks for the same specs.
   */
  readAheadSets(specs: readonly ReadAheadSpec[], next?: readonly ReadAheadSpec[]): void {
    const key = aheadKey(specs);
    const sent = this.sentAhead;
    this.sentAhead = undefined;
    let sets: SqlRow[][];
    if (sent && sent.key === key && this.queue.length === 0) {
      sets = (this.answerOf(sent.id).sets ?? []) as SqlRow[][];
    } else {
      if (sent) this.kept.delete(sent.id);
      const pending = this.queue;
      this.queue = [];
      const ops = specs.map((spec): PgOp => ({ text: spec.text, params: spec.params, mode: 'all' }));
      const reply = this.request({ type: 'batch', ops: [...pending.map((p) => p.op), ...ops], sets: true });
      pending.forEach((p, i) => (p.changes = reply.counts?.[i] ?? 0));
      sets = ((reply.sets ?? []) as SqlRow[][]).slice(pending.length);
    }
    this.primedBefore = this.primed;
    this.primed = new Map();
    specs.forEach((spec, i) => {
      for (const row of sets[i] ?? []) this.primed.set(primeKey(spec.sql, spec.paramsOf(row)), [row]);
    });
    // only with nothing queued: a write of this transaction must reach the server before any later read
    if (next && next.length > 0 && this.queue.length === 0) {
      const ops = next.map((spec): PgOp => ({ text: spec.text, params: spec.params, mode: 'all' }));
      this.sentAhead = { id: this.post({ type: 'batch', ops, sets: true }), key: aheadKey(next) };
    }
  }

  private primedRows(key: string): SqlRow[] | undefined {
    return this.primed.get(key) ?? this.primedBefore.get(key);
  }

  private forgetPrimed(): void {
    if (this.primed.size > 0) this.primed = new Map();
    if (this.primedBefore.size > 0) this.primedBefore = new Map();
  }

  /**
   * Calls `listener` with the payload (the new change counter) of each change committed to the store, by any
   * process: LISTEN on a connection of its own, started on the first subscription. A wake-up only; the reader asks
   * changesSince for what changed.
   */
  onNotify(listener: (payload: string) => void): () => void {
    this.listeners.add(listener);
    if (!this.listening) {
      this.request({ type: 'listen', channel: CHANGE_CHANNEL });
      this.listening = true;
    }
    this.notifyPort.ref();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.notifyPort.unref();
    };
  }

  close(): void {
    if (this.closed) return;
    try {
      this.request({ type: 'close' });
    } finally {
      this.closed = true;
      this.listeners.clear();
      this.notifyPort.close();
      this.port.close();
      void this.worker.terminate();
    }
  }
}

/** One query of a read-ahead (PgDriver.readAheadSets): its rows answer the read `sql` with the params `paramsOf(row)`. */
export interface ReadAheadSpec {
  text: string;
  params: SqlValue[];
  sql: string;
  paramsOf: (row: SqlRow) => SqlValue[];
}

function aheadKey(specs: readonly ReadAheadSpec[]): string {
  return JSON.stringify(specs.map((s) => [s.text, s.params]));
}

/** A read's statement and params as one key: bytes as hex (a hash cell), numbers as text (PostgreSQL's BIGINT). */
function primeKey(sql: string, params: readonly SqlValue[]): string {
  const parts = params.map((p) => (p instanceof Uint8Array ? `x${Buffer.from(p).toString('hex')}` : String(p)));
  return `${sql}\u0000${parts.join('\u0000')}`;
}
