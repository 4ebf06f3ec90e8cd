/**
 * A team store (a PostgreSQL run store shared by a team) reached asynchronously: every call answers a Promise and
 * the waiting happens in worker threads (teamWorker.ts), so the caller's event loop — VS Code's extension host,
 * an agent — never blocks on the network, however slow or dead the server is. Two threads: one for quick requests
 * (listings, the change counter and feed), one for copies of runs (`Lane`), so a long push never holds a listing.
 *
 * Connection states are explicit and cheap: `connecting` (one attempt, bounded by a short connect timeout),
 * `connected`, `offline` (retried by itself with exponential back-off, 1 s doubling to 60 s), `wrong-password`
 * (not retried until `reconnect()`: a new password). A request while offline fails at once with the reason; a
 * request the server does not answer in time (counted from when its thread takes it) fails, marks the store
 * offline and replaces the threads (a hung server costs a bounded wait, never a frozen thread).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { OcdbError, redactUrl } from '../model';
import type { ListRunsOptions, RunSummary, StoreChanges } from '../store';
import type { TeamFailure, TeamOp, TeamReply, TeamValue, TeamWorkerData } from './teamProtocol';

export type TeamState =
  | { kind: 'connecting' }
  | { kind: 'connected' }
  /** `retryAt`: when the next attempt starts (ms since epoch, this host's clock), `retryInMs` after it went offline. */
  | { kind: 'offline'; message: string; retryInMs: number; retryAt: number; noStore?: boolean }
  | { kind: 'wrong-password'; message: string }
  | { kind: 'closed' };

export interface TeamStoreOptions {
  /** Milliseconds one connection attempt may take; default 3000. */
  connectTimeoutMs?: number;
  /** Milliseconds a quick request (a listing, the change counter) may wait for its answer; default 15000. */
  requestTimeoutMs?: number;
  /** Milliseconds a copy of runs may take; default 600000. */
  transferTimeoutMs?: number;
  /** The first retry after a failed connection; default 1000 (doubling up to maxBackoffMs). */
  minBackoffMs?: number;
  /** The longest wait between retries; default 30000 (a user whose network came back waits at most that). */
  maxBackoffMs?: number;
}

export interface TransferOutcome {
  copied: string[];
  unchanged: string[];
  skipped: string[];
}

/** A request waiting in a lane, or the one its worker is answering. */
interface Queued {
  id: number;
  op: TeamOp;
  timeoutMs: number;
  resolve(value: TeamValue): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

/**
 * A worker and the requests waiting for it, answered one at a time. A request's time bound starts when its worker
 * takes it, not when it was asked: a listing queued behind another listing waits its turn without running out.
 * Quick requests (a listing, the change counter, the change feed) and copies of runs have a lane each, so a long
 * copy never holds the tree's listing back (nor makes it look as if the server stopped answering).
 */
interface Lane {
  name: 'quick' | 'transfer';
  worker?: Worker;
  queue: Queued[];
  current?: Queued;
}

/** Where the worker's code is: beside this bundle (dist/teamWorker.js), or beside this source file under tsx. */
function workerSource(): { code: string } {
  let file: string;
  let preload = '';
  if (__filename.endsWith('.ts')) {
    file = path.join(__dirname, 'teamWorker.ts');
    const tsx = 'tsx/cjs'; // resolved at run time: from source only, never bundled
    preload = `require(${JSON.stringify(require.resolve(tsx))});`;
  } else {
    file = path.join(__dirname, 'teamWorker.js');
    if (!fs.existsSync(file))
      throw new Error(`the team store worker ${file} is missing from this installation (npm run build makes it)`);
  }
  return { code: `${preload}require(${JSON.stringify(file)});` };
}

function errorOf(failure: TeamFailure): OcdbError {
  const code = (failure.code ?? 'StoreUnavailable') as ConstructorParameters<typeof OcdbError>[0];
  return new OcdbError(code, failure.message);
}

export class TeamStore {
  /** The store as shown (the URL without its password). */
  readonly location: string;
  private readonly quick: Lane = { name: 'quick', queue: [] };
  private readonly transfers: Lane = { name: 'transfer', queue: [] };
  private nextId = 1;
  private current: TeamState = { kind: 'connecting' };
  private connecting: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private backoffMs: number;
  private readonly stateListeners = new Set<(state: TeamState) => void>();
  private readonly changeListeners = new Set<() => void>();
  private readonly opts: Required<TeamStoreOptions>;

  constructor(
    private readonly url: string,
    options: TeamStoreOptions = {},
  ) {
    this.location = redactUrl(url.trim());
    this.opts = {
      connectTimeoutMs: options.connectTimeoutMs ?? 3000,
      requestTimeoutMs: options.requestTimeoutMs ?? 15_000,
      transferTimeoutMs: options.transferTimeoutMs ?? 600_000,
      minBackoffMs: options.minBackoffMs ?? 1000,
      maxBackoffMs: options.maxBackoffMs ?? 30_000,
    };
    this.backoffMs = this.opts.minBackoffMs;
  }

  get state(): TeamState {
    return this.current;
  }

  /** Calls `listener` on every change of state; answers a function that stops it. */
  onState(listener: (state: TeamState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Calls `listener` when another process wrote to the team store (its change feed); answers a stop function. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Connects (once; a second call while connecting or connected waits for the same attempt). */
  connect(): Promise<void> {
    if (this.current.kind === 'closed') return Promise.reject(new Error(`the team store ${this.location} is closed`));
    if (this.current.kind === 'connected') return Promise.resolve();
    if (this.connecting) return this.connecting;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    this.setState({ kind: 'connecting' });
    // the worker answers an unreachable or silent host itself, within connectTimeoutMs; this bound only catches a
    // worker that never answers, so it leaves room for the thread's first start on a loaded machine
    const bound = this.opts.connectTimeoutMs + 20_000;
    const attempt = this.send(this.quick, { type: 'open' }, bound).then(
      () => {
        this.markConnected();
        // the copy lane's thread starts and connects now, so opening a run later does not pay for it (not before:
        // a refused password or a missing store is tried once, on one connection)
        if (!this.transfers.worker) this.send(this.transfers, { type: 'open' }, bound).catch(() => undefined);
      },
      (e: Error & { auth?: boolean; noStore?: boolean }) => {
        if (this.current.kind === 'closed') throw e;
        if (e.auth) this.setState({ kind: 'wrong-password', message: e.message });
        else this.goOffline(e.message, e.noStore === true);
        throw e;
      },
    );
    this.connecting = attempt.finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Drops the connection and connects again now (a new password, the user's Retry). */
  reconnect(): Promise<void> {
    this.stopWorkers(new OcdbError('StoreUnavailable', `the connection to ${this.location} was replaced`));
    this.backoffMs = this.opts.minBackoffMs;
    this.current = { kind: 'connecting' };
    this.connecting = undefined;
    return this.connect();
  }

  listRuns(options: ListRunsOptions = {}): Promise<{ runs: RunSummary[]; total: number }> {
    return this.call({ type: 'listRuns', options }) as Promise<{ runs: RunSummary[]; total: number }>;
  }

  /** The runs of `runIds` the team store holds (the others left out). */
  getRuns(runIds: string[]): Promise<RunSummary[]> {
    return this.call({ type: 'getRuns', runIds }) as Promise<RunSummary[]>;
  }

  changeSeq(): Promise<number> {
    return this.call({ type: 'changeSeq' }) as Promise<number>;
  }

  changesSince(seq: number): Promise<StoreChanges> {
    return this.call({ type: 'changesSince', seq }) as Promise<StoreChanges>;
  }

  /** Copies `runIds` (with their ancestors) from the team store into the SQLite store at `localPath`. */
  pull(runIds: string[], localPath: string): Promise<TransferOutcome> {
    return this.call({ type: 'pull', runIds, localPath }, this.transfers) as Promise<TransferOutcome>;
  }

  /** Copies `runIds` (with their ancestors) from the SQLite store at `localPath` to the team store. */
  push(runIds: string[], localPath: string): Promise<TransferOutcome> {
    return this.call({ type: 'push', runIds, localPath }, this.transfers) as Promise<TransferOutcome>;
  }

  /** Ships a local-first recorder's runs, ended or still being recorded (runShipping.ts), in the background. */
  ship(runIds: string[], localPath: string): Promise<TransferOutcome> {
    return this.call({ type: 'ship', runIds, localPath }, this.transfers) as Promise<TransferOutcome>;
  }

  /**
   * Ships `runIds` and waits for the answer on this thread, blocked for at most `timeoutMs`: a recorder confirming
   * its run before a write tool runs, or at its end, where the agent's synchronous call must not return first. The
   * request goes straight to the copies' thread (it waits there behind the copy in flight, never behind this
   * thread's queue, which cannot move while this thread waits). A store whose password was refused fails at once;
   * an offline one is tried (one connection attempt, bounded by connectTimeoutMs). Throws StoreUnavailable when
   * the time runs out (the copies' thread is replaced, the store marked offline: a server that does not answer).
   */
  shipSync(runIds: string[], localPath: string, timeoutMs: number): TransferOutcome {
    const state = this.current;
    if (state.kind === 'closed') throw new OcdbError('StoreUnavailable', `the team store ${this.location} is closed`);
    if (state.kind === 'wrong-password') throw new OcdbError('StoreUnavailable', state.message);
    const worker = this.ensureWorker(this.transfers);
    const flag = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    try {
      const request = { id: this.nextId++, op: { type: 'ship', runIds, localPath }, sync: { flag, port: port2 } };
      worker.postMessage(request, [port2]);
      const waited = Atomics.wait(new Int32Array(flag), 0, 0, timeoutMs);
      const reply = receiveMessageOnPort(port1)?.message as TeamReply | undefined;
      if (waited === 'timed-out' || !reply || 'event' in reply) {
        const error = new OcdbError(
          'StoreUnavailable',
          `The team store ${this.location} did not confirm within ${Math.round(timeoutMs / 1000)} s; working offline and retrying.`,
        );
        this.stopLane(this.transfers, error);
        this.goOffline(error.message);
        throw error;
      }
      if (reply.ok) {
        this.markConnected();
        return reply.value as TransferOutcome;
      }
      if (reply.error.auth) this.setState({ kind: 'wrong-password', message: reply.error.message });
      else if (reply.error.offline) this.goOffline(reply.error.message);
      throw errorOf(reply.error);
    } finally {
      port1.close();
    }
  }

  close(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    this.stopWorkers(new OcdbError('StoreUnavailable', `the team store ${this.location} was closed`));
    this.setState({ kind: 'closed' });
    this.stateListeners.clear();
    this.changeListeners.clear();
  }

  /** A request on a connected store: offline and wrong-password fail at once, connecting waits for the attempt. */
  private async call(op: TeamOp, lane: Lane = this.quick): Promise<TeamValue> {
    const state = this.current;
    if (state.kind === 'offline' || state.kind === 'wrong-password')
      throw new OcdbError('StoreUnavailable', state.message);
    if (state.kind !== 'connected') await this.connect();
    try {
      const timeoutMs = lane === this.transfers ? this.opts.transferTimeoutMs : this.opts.requestTimeoutMs;
      return await this.send(lane, op, timeoutMs);
    } catch (e) {
      const failed = e as Error & { offline?: boolean; auth?: boolean };
      if (failed.offline) this.goOffline(failed.message);
      else if (failed.auth) this.setState({ kind: 'wrong-password', message: failed.message });
      throw e;
    }
  }

  private send(lane: Lane, op: TeamOp, timeoutMs: number): Promise<TeamValue> {
    return new Promise<TeamValue>((resolve, reject) => {
      lane.queue.push({ id: this.nextId++, op, timeoutMs, resolve, reject });
      this.pump(lane);
    });
  }

  /** Hands the lane's next request to its worker when the worker is free. */
  private pump(lane: Lane): void {
    if (lane.current || lane.queue.length === 0) return;
    const next = lane.queue.shift() as Queued;
    let worker: Worker;
    try {
      worker = this.ensureWorker(lane);
    } catch (e) {
      next.reject(e instanceof Error ? e : new Error(String(e)));
      this.pump(lane);
      return;
    }
    lane.current = next;
    next.timer = setTimeout(() => {
      // after the messages already here: a caller that blocked this thread (a recorder's confirmation, shipSync)
      // delays the answer's delivery, not the worker; an answer that came meanwhile is taken, not a time-out
      setImmediate(() => lane.current === next && this.timedOut(lane, next));
    }, next.timeoutMs);
    next.timer.unref();
    worker.postMessage({ id: next.id, op: next.op });
  }

  /** A request its worker did not answer in time. */
  private timedOut(lane: Lane, next: Queued): void {
    // a server that does not answer: the worker is stuck in its wait; replace it, fail what waited for it. A
    // quick request that runs out says the server hung: the copies in flight wait on the same server
    const seconds = Math.round(next.timeoutMs / 1000);
    const error = Object.assign(
      new OcdbError(
        'StoreUnavailable',
        `The team store ${this.location} did not answer within ${seconds} s; working offline and retrying.`,
      ),
      { offline: true },
    );
    if (lane === this.quick) this.stopWorkers(error);
    else this.stopLane(lane, error);
  }

  private ensureWorker(lane: Lane): Worker {
    if (lane.worker) return lane.worker;
    const { code } = workerSource();
    // only the quick lane listens to the change feed: one wake-up per change, not one per thread
    const data: TeamWorkerData = {
      url: this.url,
      connectTimeoutMs: this.opts.connectTimeoutMs,
      changeFeed: lane === this.quick,
    };
    const worker = new Worker(code, { eval: true, workerData: data, stdout: false, stderr: false });
    worker.unref();
    worker.on('message', (reply: TeamReply) => this.onReply(lane, reply));
    worker.on('error', (e) => {
      if (lane.worker !== worker) return;
      this.stopLane(
        lane,
        Object.assign(new OcdbError('StoreUnavailable', `the team store's thread failed: ${e.message}`), {
          offline: true,
        }),
      );
    });
    worker.on('exit', () => {
      if (lane.worker !== worker) return;
      this.stopLane(
        lane,
        Object.assign(new OcdbError('StoreUnavailable', `the team store's thread stopped`), { offline: true }),
      );
    });
    lane.worker = worker;
    return worker;
  }

  private onReply(lane: Lane, reply: TeamReply): void {
    if ('event' in reply) {
      for (const l of this.changeListeners) l();
      return;
    }
    const current = lane.current;
    if (!current || current.id !== reply.id) return;
    lane.current = undefined;
    clearTimeout(current.timer);
    if (reply.ok) current.resolve(reply.value);
    else
      current.reject(
        Object.assign(errorOf(reply.error), {
          ...(reply.error.offline ? { offline: true } : {}),
          ...(reply.error.auth ? { auth: true } : {}),
          ...(reply.error.noStore ? { noStore: true } : {}),
        }),
      );
    this.pump(lane);
  }

  private stopWorkers(error: Error): void {
    this.stopLane(this.quick, error);
    this.stopLane(this.transfers, error);
  }

  /** Ends the lane's worker and fails its requests, the one in flight and those waiting. */
  private stopLane(lane: Lane, error: Error): void {
    const worker = lane.worker;
    lane.worker = undefined;
    const all = [...(lane.current ? [lane.current] : []), ...lane.queue];
    lane.current = undefined;
    lane.queue = [];
    for (const w of all) {
      clearTimeout(w.timer);
      w.reject(error);
    }
    if (worker) void worker.terminate();
  }

  /** Not usable now: looked for again after the back-off (`noStore`: the server answered, its database has no store). */
  private goOffline(message: string, noStore = false): void {
    if (this.current.kind === 'closed') return;
    const retryInMs = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.maxBackoffMs);
    const retryAt = Date.now() + retryInMs;
    this.setState({ kind: 'offline', message, retryInMs, retryAt, ...(noStore ? { noStore } : {}) });
    if (this.retry) clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connect().catch(() => undefined);
    }, retryInMs);
    this.retry.unref();
  }

  /** A request went through: connected, the back-off starts again from its first step. */
  private markConnected(): void {
    if (this.current.kind === 'connected' || this.current.kind === 'closed') return;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    this.backoffMs = this.opts.minBackoffMs;
    this.setState({ kind: 'connected' });
  }

  private setState(state: TeamState): void {
    const before = this.current;
    this.current = state;
    if (before.kind === state.kind && state.kind !== 'offline') return;
    for (const l of this.stateListeners) l(state);
  }
}
