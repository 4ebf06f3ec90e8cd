/**
 * Ships the runs an agent recorded into its local store (a SQLite file on its own disk) to the team store, in the
 * background: the agent's thread never waits on the network. A run ships once it has ended (the transfer rules of
 * runTransfer.ts: its ancestors first, idempotent — a run already there with the same content is left alone), in
 * batches (what ended while a push was in flight goes in the next one), retried when the connection comes back.
 * Resumable: a shipper that starts ships the ended runs its local store holds that the team store does not (a
 * previous process that was killed, or recorded offline).
 *
 * Durability is promised where it matters: `confirm` ships one run as it stands (still being recorded, or ended)
 * and waits on the caller's thread, bounded, until the team store holds it — a recorder calls it before a `write`
 * or `external_irreversible` tool runs and at a run's end; `shipped()` waits (bounded, without blocking) until every
 * run handed over is in the team store. Either says which runs are not, and where they stay, when the wait runs out.
 */
import * as path from 'node:path';
import { OcdbError } from '../model';
import { openRunStore, storeLocalFolder } from '../store';
import { TeamStore, type TeamStoreOptions } from './teamClient';

/** The local store of a team store on this machine: the extension's cache, and local-first agents' store. */
export function teamCachePath(location: string): string {
  return path.join(storeLocalFolder(location), 'cache.db');
}

export interface ShipperOptions extends TeamStoreOptions {
  /** Ship the ended runs the local store holds and the team store lacks, at start; default true. */
  resume?: boolean;
}

export class TeamShipper {
  readonly team: TeamStore;
  private readonly pending = new Set<string>();
  private inFlight: Promise<void> | undefined;
  private lastError: string | undefined;
  private readonly waiters = new Set<() => void>();
  private readonly stopState: () => void;
  /** The look at start for what earlier processes left unshipped: failed (offline) is tried again once connected. */
  private resuming: 'running' | 'done' | 'failed' | undefined;
  /** Batches tried again at once because another shipper copied one of their runs first (see kick). */
  private raced = 0;

  constructor(
    url: string,
    /** The SQLite store the agent records into. */
    readonly localPath: string,
    options: ShipperOptions = {},
  ) {
    this.team = new TeamStore(url, options);
    // a connection that comes back ships what waited meanwhile, and what a start could not look up
    this.stopState = this.team.onState((s) => {
      if (s.kind !== 'connected') return;
      if (this.resuming === 'failed') void this.resume();
      this.kick();
    });
    if (options.resume !== false) void this.resume();
  }

  /** Runs handed over and not yet confirmed in the team store. */
  get unshipped(): string[] {
    return [...this.pending];
  }

  /** Hands an ended run over; it ships in the background. */
  runEnded(runId: string): void {
    this.pending.add(runId);
    this.kick();
  }

  /**
   * Resolves once every run handed over is in the team store; rejects after `timeoutMs` naming the runs that are
   * not (they stay in the local store and ship when the connection returns, or with the next shipper).
   */
  shipped(timeoutMs = 30_000): Promise<void> {
    if (this.pending.size === 0 && !this.inFlight) return Promise.resolve();
    this.kick();
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        if (this.pending.size > 0 || this.inFlight) return;
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(done);
        const runs = [...this.pending];
        reject(
          new OcdbError(
            'StoreUnavailable',
            `${runs.length} run${runs.length === 1 ? '' : 's'} not confirmed in the team store ${this.team.location} after ${Math.round(timeoutMs / 1000)} s (${runs.join(', ')})${this.lastError ? `: ${this.lastError}` : ''}. They are kept in ${this.localPath} and ship when the store is reachable again (or with ocdb push).`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(done);
    });
  }

  /**
   * Ships `runIds` as they stand now and waits for the team store's answer on this thread, at most `timeoutMs`;
   * throws StoreUnavailable naming the runs, why, and where they stay when they are not confirmed. `when` says at
   * which point of the recording (for the message).
   */
  confirm(runIds: string[], timeoutMs: number, when: string): void {
    if (runIds.length === 0) return;
    try {
      this.team.shipSync(runIds, this.localPath, timeoutMs);
    } catch (e) {
      this.lastError = e instanceof Error ? e.message : String(e);
      throw this.notConfirmed(runIds, when, this.lastError);
    }
    for (const id of runIds) this.pending.delete(id);
    for (const w of [...this.waiters]) w();
  }

  private notConfirmed(runIds: string[], when: string, why: string): OcdbError {
    const runs = `Run${runIds.length === 1 ? '' : 's'} ${runIds.join(', ')}`;
    return new OcdbError(
      'StoreUnavailable',
      `${runs} not confirmed in the team store ${this.team.location} ${when}: ${why.replace(/\.?$/, '.')} ${runIds.length === 1 ? 'It is' : 'They are'} kept in ${this.localPath} and ship when the store is reachable again (or with ocdb push).`,
      { runIds },
    );
  }

  close(): void {
    this.stopState();
    this.team.close();
  }

  private kick(): void {
    if (this.inFlight || this.pending.size === 0) return;
    const state = this.team.state.kind;
    if (state === 'offline' || state === 'wrong-password' || state === 'closed') return;
    const batch = [...this.pending];
    this.inFlight = this.team
      .ship(batch, this.localPath)
      .then(
        () => {
          for (const id of batch) this.pending.delete(id);
          this.lastError = undefined;
        },
        (e: unknown) => {
          this.lastError = e instanceof Error ? e.message : String(e);
          // another shipper (an earlier process of this agent, still finishing) copied a run of the batch between
          // this one's look and its copy: tried again, the run is found there and compared, not copied twice
          if (e instanceof OcdbError && e.code === 'RunAlreadyExists' && / is already in /.test(this.lastError)) {
            if (this.raced++ < 3) this.lastError = undefined;
          }
        },
      )
      .finally(() => {
        this.inFlight = undefined;
        for (const w of [...this.waiters]) w();
        // what ended meanwhile; a failed batch is retried when the connection is back (onState)
        if (this.lastError === undefined) this.kick();
      });
  }

  /** The ended runs of the local store the team store does not hold: handed over again. */
  private async resume(): Promise<void> {
    this.resuming = 'running';
    let ended: string[];
    try {
      const local = openRunStore(this.localPath, { create: false });
      try {
        ended = local
          .listRuns({ limit: 10_000 })
          .runs.filter((r) => r.status !== 'running' || r.crashed)
          .map((r) => r.runId);
      } finally {
        local.close();
      }
    } catch {
      this.resuming = 'done';
      return; // no local store yet: nothing was recorded here
    }
    if (ended.length === 0) {
      this.resuming = 'done';
      return;
    }
    try {
      const there = new Set((await this.team.getRuns(ended)).map((r) => r.runId));
      for (const id of ended) if (!there.has(id)) this.pending.add(id);
      this.resuming = 'done';
      this.kick();
    } catch {
      this.resuming = 'failed';
      // offline: tried again when the connection comes back (onState) (or a run's end once the connection is back) tries again
    }
  }
}
