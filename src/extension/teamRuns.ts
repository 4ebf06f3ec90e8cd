/**
 * The team store as the extension sees it (a `postgres://` store setting): the runs it holds, listed through the
 * asynchronous `TeamStore` (src/team: every wait on the network in a thread of its own), and the local cache the
 * debugger, forks and transcripts work on (a SQLite store under `~/.ocdb/stores/<hash>/`, StoreConnection's store).
 *
 * - The listing is read when the connection comes up, when the team store's change feed says another process
 *   wrote (LISTEN/NOTIFY, a few wake-ups coalesced), and by a slow poll of its change counter besides.
 * - Opening a run the cache does not hold copies it (with its ancestors and artifacts) under a progress
 *   notification; the tree and the debugger then read the local copy.
 * - What was made here (forks, demo runs, imports) is shipped to the team store once it has settled.
 * - The connection's state (connecting, connected, offline with its retry, wrong password) is `state`, shown by
 *   the tree's description and the status bar; a failure is logged once per message, never a notification storm.
 */
import * as vscode from 'vscode';
import { errorMessage, redactText } from '../model';
import type { RunStore, RunSummary } from '../store';
import { TeamStore, type TeamState } from '../team/teamClient';

const POLL_MS = 15_000;
const LIST_LIMIT = 5000;

export class TeamRuns implements vscode.Disposable {
  private readonly client: TeamStore;
  private readonly all = new Map<string, RunSummary>();
  private listed = false;
  private seq = -1;
  private relisting: Promise<void> | undefined;
  private again = false;
  private wake: NodeJS.Timeout | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly opening = new Map<string, Promise<boolean>>();
  private readonly shipping = new Set<string>();
  private lastError: string | undefined;
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires when the listing or the connection's state changed. */
  readonly onDidChange = this.emitter.event;

  constructor(
    url: string,
    /** The local cache store's file. */
    readonly cachePath: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly local: () => RunStore | undefined,
  ) {
    this.client = new TeamStore(url);
    this.client.onState((state) => {
      if (state.kind === 'connected') this.relist();
      else if (state.kind === 'offline' || state.kind === 'wrong-password') this.logOnce(state.message);
      this.emitter.fire();
    });
    this.client.onChange(() => this.relistSoon());
    this.timer = setInterval(() => this.pollSeq(), POLL_MS);
    this.client.connect().catch(() => undefined);
  }

  get state(): TeamState {
    return this.client.state;
  }

  /** A few words for the tree's description and the status bar; empty when connected. */
  get stateText(): string {
    const s = this.client.state;
    switch (s.kind) {
      case 'connecting':
        return 'connecting…';
      case 'connected':
        return '';
      case 'offline':
        // counted down to the next attempt (the status bar and the tree's description tick while offline)
        return `${s.noStore ? 'no run store there, looking again' : 'offline, retrying'} in ${Math.max(1, Math.ceil((s.retryAt - Date.now()) / 1000))} s`;
      case 'wrong-password':
        return 'wrong password (Set Store Password…)';
      case 'closed':
        return 'closed';
    }
  }

  /** The team's top-level runs not in the cache, newest first (the cache's own are the tree's). */
  roots(): RunSummary[] {
    return [...this.all.values()].filter((r) => r.parentRunId === undefined);
  }

  forksOf(runId: string): RunSummary[] {
    return [...this.all.values()].filter((r) => r.parentRunId === runId);
  }

  summary(runId: string): RunSummary | undefined {
    return this.all.get(runId);
  }

  /** Connects again now (a new password, the user's retry). */
  reconnect(): void {
    this.client.reconnect().catch(() => undefined);
  }

  /**
   * Copies `runId` (with its ancestors) into the cache unless it is there: answers true when the cache holds it.
   * One copy per run at a time, under a progress notification.
   */
  ensureLocal(runId: string): Promise<boolean> {
    if (this.local()?.hasRun(runId)) return Promise.resolve(true);
    const known = this.opening.get(runId);
    if (known) return known;
    const copy = Promise.resolve(
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Copying ${runId} from the team store…` },
        async () => {
          try {
            await this.client.pull([runId], this.cachePath);
            return true;
          } catch (e) {
            const message = redactText(errorMessage(e));
            this.log.warn(`copying ${runId} from ${this.client.location} failed: ${message}`);
            void vscode.window.showErrorMessage(`Cannot open ${runId} from the team store: ${message}`);
            return false;
          }
        },
      ),
    ).finally(() => this.opening.delete(runId));
    this.opening.set(runId, copy);
    return copy;
  }

  /** Starts copying `runId` into the cache (the tree's expand of a run only the team holds). */
  open(runId: string): void {
    void this.ensureLocal(runId);
  }

  /**
   * Ships the settled runs of the cache the team store does not list (forks made here, demo runs, imports), each
   * once at a time; a failure is logged and retried at the next change.
   */
  ship(): void {
    if (!this.listed || this.client.state.kind !== 'connected') return;
    const store = this.local();
    if (!store) return;
    let runs: RunSummary[];
    try {
      runs = store.listRuns({ limit: LIST_LIMIT }).runs;
    } catch (e) {
      this.logOnce(`reading the local cache failed: ${errorMessage(e)}`);
      return;
    }
    const due = runs
      .filter((r) => !this.all.has(r.runId) && !this.shipping.has(r.runId))
      .filter((r) => r.status !== 'running' || r.crashed)
      .map((r) => r.runId);
    if (due.length === 0) return;
    for (const id of due) this.shipping.add(id);
    this.client
      .push(due, this.cachePath)
      .then(
        (outcome) => {
          this.log.info(`shipped to ${this.client.location}: ${[...outcome.copied, ...outcome.unchanged].join(', ')}`);
          this.relist();
        },
        (e: unknown) => this.logOnce(`shipping ${due.join(', ')} to the team store failed: ${errorMessage(e)}`),
      )
      .finally(() => {
        for (const id of due) this.shipping.delete(id);
      });
  }

  private relistSoon(): void {
    if (this.wake) return;
    this.wake = setTimeout(() => {
      this.wake = undefined;
      this.relist();
    }, 50);
  }

  private pollSeq(): void {
    if (this.client.state.kind !== 'connected') return;
    this.client.changeSeq().then(
      (seq) => seq !== this.seq && this.relist(),
      () => undefined,
    );
  }

  /** Reads the team's runs again (one request; a relist asked meanwhile runs once after it). */
  private relist(): void {
    if (this.relisting) {
      this.again = true;
      return;
    }
    this.relisting = (async () => {
      try {
        const seq = await this.client.changeSeq();
        const { runs } = await this.client.listRuns({ limit: LIST_LIMIT });
        this.all.clear();
        for (const r of runs) this.all.set(r.runId, r);
        this.seq = seq;
        this.listed = true;
        this.lastError = undefined;
        this.emitter.fire();
        this.ship();
      } catch (e) {
        this.logOnce(`listing the team store's runs failed: ${errorMessage(e)}`);
      }
    })().finally(() => {
      this.relisting = undefined;
      if (this.again) {
        this.again = false;
        this.relist();
      }
    });
  }

  private logOnce(message: string): void {
    const text = redactText(message);
    if (text === this.lastError) return;
    this.lastError = text;
    this.log.warn(`team store ${this.client.location}: ${text}`);
  }

  dispose(): void {
    clearInterval(this.timer);
    if (this.wake) clearTimeout(this.wake);
    this.client.close();
    this.emitter.dispose();
  }
}
