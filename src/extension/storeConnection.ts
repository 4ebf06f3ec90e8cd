/**
 * The extension's handle on the run store: opens the file the settings name
 * (lazily, without creating it), reopens when the setting changes, and
 * reports what changed when another process records into it — a cheap
 * `changeSeq()` poll, woken early by fs.watch on the store's folder (the -wal
 * file changes on every commit), then `changesSince(seq)` for the changed
 * runs only. A store with a change feed of its own (`RunStore.onChange`: PostgreSQL's LISTEN/NOTIFY) wakes the
 * poll the same way on every commit, from any machine. No UI here: errors go to the log and to callers.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { openRunStore, type RunStore, type StoreChanges } from '../store';
import { storeFilePath } from './settings';

/** What listeners hear: the changed/deleted runs, or `reset` when the store itself changed (opened, reopened, closed). */
export type StoreEvent = { kind: 'changes'; changes: StoreChanges } | { kind: 'reset' };

const POLL_MS = 1000;

export class StoreConnection implements vscode.Disposable {
  private store: RunStore | undefined;
  private file: string;
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private watcher: fs.FSWatcher | undefined;
  private wake: NodeJS.Timeout | undefined;
  private unlisten: (() => void) | undefined;
  private readonly emitter = new vscode.EventEmitter<StoreEvent>();
  /** Fires after the store changed (from any process). */
  readonly onDidChange = this.emitter.event;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.file = storeFilePath();
    this.timer = setInterval(() => this.poll(), POLL_MS);
    this.watchFolder();
  }

  /** Path of the store file (it may not exist yet). */
  get path(): string {
    return this.file;
  }

  /** The open store, or undefined when the file does not exist yet. */
  tryGet(): RunStore | undefined {
    if (this.store) return this.store;
    if (!fs.existsSync(this.file)) return undefined;
    this.store = openRunStore(this.file, { create: false });
    this.seq = this.store.changeSeq();
    this.log.info(`opened run store ${this.file} (${this.store.driverName})`);
    this.listen(this.store);
    return this.store;
  }

  /** The store, created when missing (Run Demo, Import). */
  getOrCreate(): RunStore {
    if (!this.store) {
      this.store = openRunStore(this.file, { create: true });
      this.seq = this.store.changeSeq();
      this.log.info(`opened run store ${this.file} (${this.store.driverName})`);
      this.listen(this.store);
      this.watchFolder();
      this.emitter.fire({ kind: 'reset' });
    }
    return this.store;
  }

  /** Re-reads the setting; reopens when the path changed. */
  reconfigure(): void {
    const next = storeFilePath();
    if (next === this.file) return;
    this.closeStore();
    this.file = next;
    this.watchFolder();
    this.emitter.fire({ kind: 'reset' });
  }

  /** Checks for changes now (after our own writes, so views update at once). */
  poll(): void {
    try {
      const hadStore = this.store !== undefined;
      const store = this.tryGet();
      if (!store) return;
      if (!hadStore) {
        this.emitter.fire({ kind: 'reset' });
        return;
      }
      const seq = store.changeSeq();
      if (seq === this.seq) return;
      const changes = store.changesSince(this.seq);
      this.seq = changes.changeSeq;
      this.emitter.fire({ kind: 'changes', changes });
    } catch (e) {
      this.log.warn(`polling the run store failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private watchFolder(): void {
    this.watcher?.close();
    this.watcher = undefined;
    const dir = path.dirname(this.file);
    if (!fs.existsSync(dir)) return;
    try {
      const base = path.basename(this.file);
      this.watcher = fs.watch(dir, (_event, name) => {
        if (name && !String(name).startsWith(base)) return;
        this.wakeSoon();
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch (e) {
      this.log.debug(`fs.watch unavailable for ${dir}; polling only (${String(e)})`);
    }
  }

  /** Polls soon: a burst of commits is one poll. */
  private wakeSoon(): void {
    if (this.wake) return;
    this.wake = setTimeout(() => {
      this.wake = undefined;
      this.poll();
    }, 50);
  }

  /** Wakes the poll on the store's own change feed, where it has one. */
  private listen(store: RunStore): void {
    this.unlisten?.();
    try {
      this.unlisten = store.onChange?.(() => this.wakeSoon());
    } catch (e) {
      this.log.warn(`the run store's change feed is unavailable; polling only (${String(e)})`);
    }
  }

  private closeStore(): void {
    this.unlisten?.();
    this.unlisten = undefined;
    try {
      this.store?.close();
    } catch (e) {
      this.log.warn(`closing the run store failed: ${String(e)}`);
    }
    this.store = undefined;
    this.seq = 0;
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.wake) clearTimeout(this.wake);
    this.watcher?.close();
    this.closeStore();
    this.emitter.dispose();
  }
}
