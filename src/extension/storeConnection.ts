/**
 * The extension's handle on the run store: opens the store the settings name
 * (a file, lazily, without creating it; for a `postgres://` URL, the team
 * store, its local cache: TeamRuns lists the team's runs asynchronously, copies
 * a run into the cache when it is opened and ships what was made here, so no
 * call of this class waits on the network), reopens when
 * the setting changes, and reports what changed when another process — or
 * another machine, on a shared store — records into it: a cheap `changeSeq()`
 * poll, woken early by fs.watch on a store file's folder (the -wal file
 * changes on every commit) or by a shared store's change feed (`onChange`:
 * PostgreSQL's LISTEN/NOTIFY), then `changesSince(seq)` for the changed runs
 * only. The password of a PostgreSQL URL that names none comes from
 * SecretStorage (Set Store Password…), read once per location and handed to
 * the store, the debug adapter included; it is never logged or shown (what is
 * shown is `label`). No UI here: errors go to the log and to callers.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage, redactText, storeLocationLabel } from '../model';
import {
  isStoreUrl,
  openRunStore,
  storePasswordKey,
  withStorePassword,
  type RunStore,
  type StoreChanges,
} from '../store';
import { storeFilePath } from './settings';
import { teamCachePath } from '../team/teamShipper';
import { TeamRuns } from './teamRuns';

/** The SecretStorage key of the password of a PostgreSQL store (by its URL without password and options). */
export function storePasswordSecret(location: string): string | undefined {
  const key = storePasswordKey(location);
  return key === undefined ? undefined : `agentTimeTravel.storePassword:${key}`;
}

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
  private readonly emitter = new vscode.EventEmitter<StoreEvent>();
  /** Fires after the store changed (from any process). */
  readonly onDidChange = this.emitter.event;
  /** The team store when the setting names one (a URL): its runs, its connection's state. */
  team: TeamRuns | undefined;
  private teamListener: vscode.Disposable | undefined;
  private readonly teamEmitter = new vscode.EventEmitter<void>();
  /** Fires when the team store's listing or connection state changed. */
  readonly onDidChangeTeam = this.teamEmitter.event;

  /** The password SecretStorage holds for `file` (a PostgreSQL URL), once read; undefined: none, or not read yet. */
  private password: string | undefined;
  /** False while the password of a URL store is being read: the store is not opened without it meanwhile. */
  private passwordRead = true;
  /** The last failure to open, logged once (a shared server that is down is not a warning a second). */
  private lastOpenError: string | undefined;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly secrets?: vscode.SecretStorage,
  ) {
    this.file = storeFilePath();
    this.timer = setInterval(() => this.poll(), POLL_MS);
    this.watchFolder();
    this.readPassword();
    if (this.secrets) {
      const secrets = this.secrets;
      this.secretsListener = secrets.onDidChange((e) => {
        if (e.key === storePasswordSecret(this.file)) this.readPassword(true);
      });
    }
  }

  private secretsListener: vscode.Disposable | undefined;

  /** The store as the settings name it: a file path (it may not exist yet) or a URL (password never added). */
  get path(): string {
    return this.file;
  }

  /** The store as shown to the user (logs, messages, tooltips): no password. */
  get label(): string {
    return storeLocationLabel(this.file);
  }

  /** True when the store is a URL (a shared PostgreSQL), not a file. */
  get isUrl(): boolean {
    return isStoreUrl(this.file);
  }

  /**
   * `location` as a store opens it: the stored password filled in when it names this store's PostgreSQL without
   * one (the debug adapter opens the launch configuration's `store` through this). Other locations as given.
   */
  storeLocation(location: string): string {
    if (!isStoreUrl(location) || storePasswordKey(location) !== storePasswordKey(this.file)) return location;
    return teamCachePath(this.file);
  }

  /** (Re)starts the team store's connection once the password is known (URL settings only). */
  private startTeam(): void {
    this.stopTeam();
    if (!this.isUrl || !this.passwordRead) return;
    const team = new TeamRuns(withStorePassword(this.file, this.password), teamCachePath(this.file), this.log, () =>
      this.tryGet(),
    );
    this.team = team;
    this.teamListener = team.onDidChange(() => this.teamEmitter.fire());
    this.teamEmitter.fire();
  }

  private stopTeam(): void {
    this.teamListener?.dispose();
    this.teamListener = undefined;
    this.team?.dispose();
    this.team = undefined;
  }

  /** Keeps `password` for this store's URL in SecretStorage and reopens the store with it. */
  async setPassword(password: string): Promise<void> {
    const secret = storePasswordSecret(this.file);
    if (!secret || !this.secrets)
      throw new Error(`${this.label} is not a PostgreSQL URL: a store file has no password.`);
    await this.secrets.store(secret, password);
    this.password = password;
    this.passwordRead = true;
    this.startTeam();
    this.poll();
  }

  /** Reads the password of a URL store from SecretStorage, then opens the store (polls). */
  private readPassword(reopen = false): void {
    const secret = storePasswordSecret(this.file);
    this.password = undefined;
    if (!secret || !this.secrets) {
      this.passwordRead = true;
      this.startTeam();
      return;
    }
    this.passwordRead = false;
    const file = this.file;
    this.secrets.get(secret).then(
      (value) => {
        if (this.file !== file) return;
        this.password = value;
        this.passwordRead = true;
        if (reopen || !this.team) this.startTeam();
        this.poll();
      },
      (e: unknown) => {
        this.passwordRead = true;
        this.startTeam();
        this.log.warn(`reading the stored password of ${this.label} failed: ${redactText(errorMessage(e))}`);
      },
    );
  }

  private open(create: boolean): RunStore {
    // a team store's cache is ours: created at once, on this disk (the team's runs are TeamRuns')
    const store = openRunStore(this.storeLocation(this.file), { create: create || this.isUrl });
    this.seq = store.changeSeq();
    this.lastOpenError = undefined;
    this.log.info(
      `opened run store ${this.label}${this.isUrl ? ` (local cache ${store.path})` : ''} (${store.driverName})`,
    );
    return store;
  }

  /** One poll soon after a burst of wake-ups (a folder watch or the store's change feed). */
  private wakeSoon(): void {
    if (this.wake) return;
    this.wake = setTimeout(() => {
      this.wake = undefined;
      this.poll();
    }, 50);
  }

  /** The open store, or undefined when the file does not exist yet (or a URL store's password is being read). */
  tryGet(): RunStore | undefined {
    if (this.store) return this.store;
    if (!this.isUrl && !fs.existsSync(this.file)) return undefined;
    this.store = this.open(false);
    if (this.isUrl && !this.watcher) this.watchFolder();
    return this.store;
  }

  /** The store, created when missing (Run Demo, Import). */
  getOrCreate(): RunStore {
    if (!this.store) {
      this.store = this.open(true);
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
    this.stopTeam();
    this.file = next;
    this.lastOpenError = undefined;
    this.readPassword();
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
      this.team?.ship();
    } catch (e) {
      const message = redactText(errorMessage(e));
      if (message === this.lastOpenError) return;
      this.lastOpenError = message;
      this.log.warn(`polling the run store ${this.label} failed: ${message}`);
    }
  }

  private watchFolder(): void {
    this.watcher?.close();
    this.watcher = undefined;
    // a team store's cache is a file here: its folder is watched as a store file's is
    const file = this.isUrl ? teamCachePath(this.file) : this.file;
    const dir = path.dirname(file);
    if (!fs.existsSync(dir)) return;
    try {
      const base = path.basename(file);
      this.watcher = fs.watch(dir, (_event, name) => {
        if (name && !String(name).startsWith(base)) return;
        this.wakeSoon();
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch (e) {
      this.log.debug(`fs.watch unavailable for ${dir}; polling only (${String(e)})`);
    }
  }

  private closeStore(): void {
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
    this.secretsListener?.dispose();
    this.stopTeam();
    this.closeStore();
    this.emitter.dispose();
    this.teamEmitter.dispose();
  }
}
