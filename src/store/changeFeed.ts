/**
 * The change feed: the store's change counter (bumped once per committed transaction, in commit order:
 * storeTransactions.ts `stampChanges`), what changed since a number a reader saw, and a wake-up when another
 * connection commits (the engine's notification, or a watch of the store file's folder: EngineTraits.changeWake).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EngineTraits } from './engineTraits';
import type { RunTable } from './runTable';
import type { StoreChanges } from './runStore';
import type { SqlDriver } from './sqlDriver';
import type { StoreTransactions } from './storeTransactions';

export class ChangeFeed {
  private readonly watchers = new Set<() => void>();

  constructor(
    private readonly path: string,
    private readonly db: SqlDriver,
    private readonly traits: EngineTraits,
    private readonly tx: StoreTransactions,
    private readonly runs: RunTable,
  ) {}

  changeSeq(): number {
    return Number(this.tx.sql("SELECT value FROM meta WHERE key = 'change_seq'").get()?.value ?? 0);
  }

  changesSince(since: number): StoreChanges {
    const changeSeq = this.changeSeq();
    if (changeSeq === since) return { changeSeq, changedRuns: [], deletedRunIds: [] };
    // Up to the counter read first: every change numbered up to it has committed (the counter is bumped in commit
    // order), and one committed since is left to the next call, which asks from here — never reported twice.
    const changedRuns = this.tx
      .sql('SELECT * FROM runs WHERE change_seq > ? AND change_seq <= ? ORDER BY change_seq', 'readsCounters')
      .all(since, changeSeq)
      .map((r) => this.runs.toSummary(r));
    const deletedRunIds = this.tx
      .sql('SELECT run_id FROM deleted_runs WHERE change_seq > ? AND change_seq <= ?')
      .all(since, changeSeq)
      .map((r) => String(r.run_id));
    return { changeSeq, changedRuns, deletedRunIds };
  }

  onChange(listener: () => void): () => void {
    const stop =
      this.traits.changeWake === 'notify' && this.db.onNotify
        ? this.db.onNotify(() => listener())
        : this.watchFolder(listener);
    this.watchers.add(stop);
    return () => {
      if (this.watchers.delete(stop)) stop();
    };
  }

  /** SQLite: every commit writes the -wal file beside the store; a burst of writes is one wake-up. */
  private watchFolder(listener: () => void): () => void {
    const base = path.basename(this.path);
    let wake: NodeJS.Timeout | undefined;
    let watcher: fs.FSWatcher | undefined;
    try {
      watcher = fs.watch(path.dirname(this.path), (_event, name) => {
        if ((name && !String(name).startsWith(base)) || wake) return;
        wake = setTimeout(() => {
          wake = undefined;
          listener();
        }, 50);
      });
      watcher.on('error', () => watcher?.close());
      watcher.unref();
    } catch {
      // no fs.watch here (some network file systems): the caller's poll is all there is
    }
    return () => {
      if (wake) clearTimeout(wake);
      watcher?.close();
    };
  }

  /** Stops every wake-up (the store closes). */
  close(): void {
    for (const stop of this.watchers) stop();
    this.watchers.clear();
  }
}
