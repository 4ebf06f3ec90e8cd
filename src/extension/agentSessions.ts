/**
 * The workspace's coding-agent sessions for the Runs view: found on disk by
 * importers/sessions (never imported up front), listed again when a file in
 * the agents' folders changes (debounced), and a session the user opened is
 * followed: when its file grows it is imported again, which continues the
 * run in the store (importers/growth.ts), so the tree and an open replay grow
 * with it. VS Code wiring only.
 */
import * as vscode from 'vscode';
import { importPath } from '../importers';
import { SessionDiscovery, sessionRoots, sessionsHome, type DiscoveredSession } from '../importers/sessions';
import { SESSION_LIVE_MS, isLiveAt } from '../replay/sessionLive';
import { affectsSettings, readSettings } from './settings';
import type { StoreConnection } from './storeConnection';

const RELIST_DELAY_MS = 300;

export class AgentSessions implements vscode.Disposable {
  private readonly discovery = new SessionDiscovery();
  private list: DiscoveredSession[] | undefined;
  private signature = '';
  private watchers: vscode.FileSystemWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Fires when the earliest "live" mark runs out: the tree drops it although no file changed. */
  private liveTimer: NodeJS.Timeout | undefined;
  /** Session files opened (imported) in this window, followed as they grow; the value: the size last imported. */
  private readonly followed = new Map<string, number>();
  private importing: Promise<void> = Promise.resolve();
  private readonly emitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  readonly onDidChange = this.emitter.event;

  constructor(
    private readonly connection: StoreConnection,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.watch();
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (affectsSettings(e)) {
          this.watch();
          this.relist();
        }
      }),
    );
  }

  private options() {
    const settings = readSettings();
    const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!settings.sessionsEnabled || workspace === undefined) return undefined;
    return {
      workspace,
      home: sessionsHome({ home: settings.sessionsHome }),
      extraFolders: settings.sessionsFolders,
    };
  }

  /** The sessions, newest first (read on first ask, then kept until a file changes); empty when turned off. */
  sessions(): DiscoveredSession[] {
    if (this.list) return this.list;
    const options = this.options();
    try {
      this.list = options ? this.discovery.discover(options) : [];
    } catch (e) {
      this.log.warn(`listing coding-agent sessions failed: ${e instanceof Error ? e.message : String(e)}`);
      this.list = [];
    }
    this.signature = signatureOf(this.list);
    this.scheduleLiveEnd(this.list);
    return this.list;
  }

  /** Lists the sessions again; tells the view only when what it shows changed. */
  relist(): void {
    this.list = undefined;
    const before = this.signature;
    this.sessions();
    if (this.signature !== before) this.emitter.fire();
  }

  /** Watches the folders the agents write into (and the added ones), whether or not they exist yet. */
  private watch(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
    const options = this.options();
    if (!options) return;
    const dirs = new Set<string>([
      ...sessionRoots(options).map((r) => r.dir),
      `${options.home}/.claude/projects`,
      `${options.home}/.gemini/tmp`,
      ...options.extraFolders,
    ]);
    for (const dir of dirs) {
      const w = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(vscode.Uri.file(dir), '**/*.{jsonl,json}'),
      );
      const changed = () => this.changed();
      w.onDidCreate(changed);
      w.onDidChange(changed);
      w.onDidDelete(changed);
      this.watchers.push(w);
    }
  }

  private changed(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.relist();
      for (const f of this.followed.keys()) this.follow(f);
    }, RELIST_DELAY_MS);
  }

  /** Imports a session file (again: what it wrote since continues its runs); later growth is imported too. */
  async open(file: string, onProgress?: (fraction: number) => void): Promise<Awaited<ReturnType<typeof importPath>>> {
    const run = this.importing.then(() =>
      importPath(this.connection.getOrCreate(), file, {
        onProgress: (p) => onProgress?.(p.allBytesTotal > 0 ? p.allBytesRead / p.allBytesTotal : 0),
      }),
    );
    this.importing = run.then(
      () => undefined,
      () => undefined,
    );
    const summary = await run;
    this.list = undefined; // the sizes as imported
    const session = this.find(file);
    this.followed.set(file, session ? totalBytes(session) : 0);
    this.connection.poll();
    return summary;
  }

  /** Imports what a followed session wrote since (one import at a time). */
  private follow(file: string): void {
    const session = this.find(file);
    if (!session) return;
    const total = totalBytes(session);
    if (this.followed.get(file) === total) return;
    this.followed.set(file, total);
    this.importing = this.importing
      .then(() => importPath(this.connection.getOrCreate(), file))
      .then(
        (summary) => {
          this.log.info(
            `followed ${file}: ${summary.appended > 0 ? 'grew' : 'imported'} (${summary.runIds.join(', ')})`,
          );
          this.connection.poll();
        },
        (e: unknown) => this.log.warn(`following ${file} failed: ${e instanceof Error ? e.message : String(e)}`),
      );
  }

  /** True while the session's file (or a subagent's) is still being written (replay/sessionLive.ts). */
  isLive(session: DiscoveredSession, now = Date.now()): boolean {
    return isLiveAt(lastWrite(session), now);
  }

  /** Lists again when the newest "live" mark runs out, so the tree stops saying it. */
  private scheduleLiveEnd(list: DiscoveredSession[]): void {
    if (this.liveTimer) clearTimeout(this.liveTimer);
    this.liveTimer = undefined;
    const now = Date.now();
    const ends = list.filter((s) => this.isLive(s, now)).map((s) => lastWrite(s) + SESSION_LIVE_MS - now);
    if (ends.length === 0) return;
    this.liveTimer = setTimeout(
      () => {
        this.liveTimer = undefined;
        this.list = undefined;
        this.sessions();
        this.emitter.fire();
      },
      Math.max(50, Math.min(...ends) + 50),
    );
  }

  /** True when this window imported the session and follows its file. */
  isFollowed(file: string): boolean {
    return this.followed.has(file);
  }

  find(file: string): DiscoveredSession | undefined {
    for (const s of this.sessions()) {
      if (s.file === file) return s;
      const sub = s.subagents.find((x) => x.file === file);
      if (sub) return sub;
    }
    return undefined;
  }

  /** The session a subagent file belongs to (itself for a session). */
  ownerOf(file: string): DiscoveredSession | undefined {
    return this.sessions().find((s) => s.file === file || s.subagents.some((x) => x.file === file));
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.liveTimer) clearTimeout(this.liveTimer);
    for (const w of this.watchers) w.dispose();
    for (const d of this.disposables) d.dispose();
    this.emitter.dispose();
  }
}

const totalBytes = (s: DiscoveredSession): number => s.bytes + s.subagents.reduce((n, x) => n + x.bytes, 0);

const lastWrite = (s: DiscoveredSession): number => Math.max(s.modifiedAt, ...s.subagents.map((x) => x.modifiedAt));

const signatureOf = (list: DiscoveredSession[]): string =>
  JSON.stringify(list.map((s) => [s.file, s.title, s.bytes, s.subagents.map((x) => [x.file, x.title, x.bytes])]));
