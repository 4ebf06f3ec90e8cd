/**
 * The Timeline panel (a webview panel beside the editor, the page of src/webview/timelineMain.ts): the lineage of
 * a run from its top-most ancestor — forks and sub-agents included — as the store's summary query answers it
 * (replay/timeline.ts), then, as the store changes (a live run grows as it records), what changed since it was sent
 * (replay/timelineLive.ts: a delta the page applies in place, read at the cost of what is new). It is a debugger view:
 * it draws where the active replay is (DebugPositionTracker, which follows the stopped events: F10, Step Back), and
 * a bar the user activates moves the paused replay of that run there (DAP `goto`) or starts a replay at it.
 * VS Code wiring only.
 */
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { runIdOfTranscript } from '../debug/transcriptFiles';
import { errorMessage, redactValue } from '../model';
import {
  TimelinePageMessageSchema,
  packTimeline,
  packTimelineDelta,
  type TimelineHostMessage,
  type TimelinePageMessage,
  type TimelineWire,
} from '../model/timelineWire';
import { LiveTimeline } from '../replay/timelineLive';
import { excerpt } from '../replay/transcript';
import type { ExtensionContextObject } from './context';
import type { DebugPositionTracker } from './debugPosition';
import { registerCommand } from './notify';
import { runIdOfArg } from './runCommands';
import { pickRun } from './runPicker';
import { newNonce } from './webviewHtml';

export const TIMELINE_VIEW_TYPE = 'agentTimeTravel.timeline';
/** The replay's one thread (src/debug/agentReplaySession.ts). */
const REPLAY_THREAD = 1;
/** How often a changing lineage is read again, at most. */
const REFRESH_MS = 300;
/**
 * A read again waits at least this many times as long as the last one took: a long run being recorded (a query of
 * most of a second at 20,000 checkpoints) leaves the extension host free between reads.
 */
const REFRESH_COST_FACTOR = 3;

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/**
 * The panel's page: nothing but the nonce'd bundle, inline (its stylesheet inside, added under the same nonce). Inline
 * rather than a webview resource: a resource is fetched through the webview's service worker and the workbench
 * before the page's script can start; inline, it runs as the page is written.
 */
export function timelineHtml(bundle: string, nonce: string, title: string): string {
  const csp = ["default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src 'nonce-${nonce}'`, 'img-src data:'].join(
    '; ',
  );
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${attr(title)}</title>
</head>
<body>
<main id="timeline" aria-label="${attr(title)}"></main>
<script nonce="${attr(nonce)}">${bundle.replace(/<\/(script)/gi, '<\\/$1')}</script>
</body>
</html>`;
}

/** A lineage read from the store, packed to be posted. */
interface Queried {
  rootRunId: string;
  timeline: TimelineWire;
  queryMs: number;
  packMs: number;
}

/** The page bundle's text, read once (it changes only with the extension). */
let bundleText: string | undefined;
function timelineBundle(extensionUri: vscode.Uri): string {
  bundleText ??= readFileSync(vscode.Uri.joinPath(extensionUri, 'dist', 'timeline.js').fsPath, 'utf8');
  return bundleText;
}

export class TimelinePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private rootRunId: string | undefined;
  private runIds = new Set<string>();
  private ready = false;
  private refreshTimer: NodeJS.Timeout | undefined;
  private lastRefresh = 0;
  /** How long the last summary query took (ms). */
  private lastQueryMs = 0;
  /** The lineage as last sent to the page, which reads what changed since; none: the next post is whole. */
  private live: LiveTimeline | undefined;
  /**
   * The lineage read while a new panel's page loads (the query and the page's loading overlap): posted when the
   * page says it is ready, unless the store changed meanwhile.
   */
  private prefetched: Queried | undefined;
  /**
   * The timeline was posted to a page still loading (a new panel's): VS Code holds it until the page has loaded and
   * its script runs, so the page's "ready" needs no second one, unless the store changed since.
   */
  private postedEarly = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly ctx: ExtensionContextObject,
    private readonly tracker: DebugPositionTracker,
  ) {
    this.disposables.push(
      tracker.onDidChange(() => this.postPosition()),
      ctx.connection.onDidChange((e) => {
        this.prefetched = undefined;
        this.postedEarly = false;
        // a store opened again, or a run shown deleted (it may come back under its id): the page gets it whole
        if (e.kind === 'reset' || e.changes.deletedRunIds.some((id) => this.runIds.has(id))) this.live = undefined;
        if (!this.panel) return;
        if (e.kind === 'reset' || e.changes.changedRuns.some((r) => this.concerns(r.runId, r.parentRunId)))
          this.refreshSoon();
      }),
    );
  }

  /** The run whose lineage is shown; a fork shows from its top-most ancestor, so its branch point is on screen. */
  private rootOf(runId: string): string {
    const store = this.ctx.connection.getOrCreate();
    let id = runId;
    for (let i = 0; i < 64; i++) {
      const parent = store.getRun(id).parentRunId;
      if (!parent || !store.hasRun(parent)) break;
      id = parent;
    }
    return id;
  }

  private concerns(runId: string, parentRunId: string | undefined): boolean {
    return this.runIds.has(runId) || (parentRunId !== undefined && this.runIds.has(parentRunId));
  }

  /** Shows the lineage of `runId`; `commandAt` is when the command that asked started (epoch ms). */
  async show(runId: string, commandAt = Date.now()): Promise<void> {
    this.rootRunId = this.rootOf(runId);
    const title = `Timeline: ${this.rootRunId}`;
    if (!this.panel) {
      const html = timelineHtml(timelineBundle(this.ctx.vscodeContext.extensionUri), newNonce(), title);
      this.panel = vscode.window.createWebviewPanel(
        TIMELINE_VIEW_TYPE,
        title,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
        // no retainContextWhenHidden: a hidden panel's page (tens of MB at 20,000 checkpoints) is let go; shown
        // again, the page is built anew, says "ready", and gets the lineage and the position again (its zoom, axis
        // and folds it saved itself). The page loads nothing: its script is inline.
        { enableScripts: true, localResourceRoots: [] },
      );
      this.panel.webview.html = html;
      const panelAt = Date.now();
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.ready = false;
        this.prefetched = undefined;
        this.postedEarly = false;
      });
      this.panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m));
      this.panel.onDidChangeViewState(({ webviewPanel }) => {
        if (webviewPanel.visible) {
          // the page is being built again: the query runs while it loads, as for a new panel
          if (!this.ready) setTimeout(() => this.prefetch(), 0);
        } else {
          this.ready = false;
          this.prefetched = undefined;
          this.postedEarly = false;
        }
      });
      // after the panel and its html have gone to the workbench (the host's messages leave on the next turn): the
      // query runs while the workbench builds the page, and its answer waits there for the page
      setTimeout(() => this.postEarly(commandAt, panelAt), 0);
    } else {
      this.panel.title = title;
      this.panel.reveal(vscode.ViewColumn.Beside);
      // what a page still loading was sent is another run's: it gets this one when it says "ready"
      this.postedEarly = false;
      this.postTimeline();
    }
  }

  /**
   * A run being recorded changes the store at every step: read the lineage again at most every REFRESH_MS, so a
   * long live run grows on the timeline without the query running at each commit.
   */
  private refreshSoon(): void {
    if (this.refreshTimer) return;
    const gap = Math.max(REFRESH_MS, this.lastQueryMs * REFRESH_COST_FACTOR);
    const wait = Math.max(0, this.lastRefresh + gap - Date.now());
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.postChanges();
      this.lastRefresh = Date.now();
    }, wait);
  }

  /** What changed in the lineage shown since it was sent, as a delta (the whole lineage when the page has none). */
  private postChanges(): void {
    const live = this.live;
    if (!this.rootRunId || !this.ready) return;
    if (!live || live.rootRunId !== this.rootRunId) return this.postTimeline();
    try {
      const started = performance.now();
      const delta = live.next();
      this.lastQueryMs = performance.now() - started;
      if (!delta) return;
      this.runIds = new Set(delta.order);
      this.post({ type: 'delta', delta: packTimelineDelta(delta), queryMs: this.lastQueryMs });
      if (delta.runs.length > 0) this.postPosition();
    } catch (e) {
      this.live = undefined;
      this.ctx.log.warn(`timeline of ${this.rootRunId}: ${errorMessage(e)}`);
    }
  }

  private post(message: TimelineHostMessage): void {
    if (this.panel && this.ready) void this.panel.webview.postMessage(message);
  }

  /** The summary query of the lineage shown, in the form it travels in (and how long the query took). */
  private query(rootRunId: string): Queried {
    const started = performance.now();
    const live = new LiveTimeline(this.ctx.connection.getOrCreate(), rootRunId, { withForks: true });
    const timeline = live.full();
    this.live = live;
    const queried = performance.now();
    this.lastQueryMs = queried - started;
    const wire = packTimeline(timeline);
    return { rootRunId, timeline: wire, queryMs: this.lastQueryMs, packMs: performance.now() - queried };
  }

  /**
   * A new panel's timeline, posted while its page loads: VS Code keeps a message to a webview's first page until
   * that page has loaded (its script has run and listens), so the page draws without first saying "ready" and
   * waiting for the answer.
   */
  private postEarly(commandAt: number, panelAt: number): void {
    const rootRunId = this.rootRunId;
    if (!rootRunId || this.ready || !this.panel) return;
    try {
      const { timeline, queryMs, packMs } = this.query(rootRunId);
      this.runIds = new Set(timeline.runs.map((r) => r.runId));
      const opening = { commandAt, panelAt, queryMs, packMs, postedAt: Date.now() };
      void this.panel.webview.postMessage({
        type: 'timeline',
        timeline,
        queryMs,
        opening,
      } satisfies TimelineHostMessage);
      this.postedEarly = true;
    } catch (e) {
      // the page's "ready" reads it again, and says what went wrong
      this.ctx.log.debug(`timeline of ${rootRunId}, posted early: ${errorMessage(e)}`);
    }
  }

  private prefetch(): void {
    // a new panel's page already has its timeline on the way (a view-state change as it opens asks for this too)
    if (!this.rootRunId || this.ready || !this.panel || this.postedEarly) return;
    try {
      this.prefetched = this.query(this.rootRunId);
    } catch {
      // postTimeline reads it again when the page is ready, and says what went wrong
    }
  }

  private postTimeline(): void {
    if (!this.rootRunId || !this.ready) return;
    try {
      const fresh = this.prefetched?.rootRunId === this.rootRunId ? this.prefetched : this.query(this.rootRunId);
      this.prefetched = undefined;
      const { timeline, queryMs } = fresh;
      this.runIds = new Set(timeline.runs.map((r) => r.runId));
      this.post({ type: 'timeline', timeline, queryMs });
      this.postPosition();
    } catch (e) {
      this.ctx.log.warn(`timeline of ${this.rootRunId}: ${errorMessage(e)}`);
    }
  }

  private postPosition(): void {
    const p = this.tracker.position;
    const position = p && this.runIds.has(p.run.runId) ? { runId: p.run.runId, index: p.checkpoint.index } : undefined;
    this.post({ type: 'position', ...(position ? { position } : {}) });
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = TimelinePageMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.ctx.log.warn(`timeline page: a message the host does not know: ${parsed.error.message}`);
      return;
    }
    const m: TimelinePageMessage = parsed.data;
    if (m.type === 'ready') {
      this.ready = true;
      if (this.postedEarly) {
        // the timeline posted while the page loaded is on its way to it: the position is all that is missing
        this.postedEarly = false;
        this.postPosition();
      } else this.postTimeline();
    } else if (m.type === 'resync') {
      this.ctx.log.debug(`timeline page of ${this.rootRunId ?? '?'}: a delta did not fit, sent whole`);
      this.postTimeline();
    } else if (m.type === 'activate') {
      await this.moveReplay(m.runId, m.index).catch((e: unknown) =>
        vscode.window.showErrorMessage(`Timeline: could not move the replay: ${errorMessage(e)}`),
      );
    } else {
      this.post({ type: 'details', requestId: m.requestId, ...this.details(m.runId, m.toolCallId) });
    }
  }

  /** A tool call's arguments and result as short excerpts (secrets redacted), read for its hover alone. */
  private details(runId: string, toolCallId: string): { text?: string } {
    try {
      const call = this.ctx.connection.getOrCreate().getToolCall(runId, toolCallId);
      const lines = [`args ${excerpt(redactValue(call.args), 160)}`];
      if (call.result !== undefined) lines.push(`result ${excerpt(redactValue(call.result), 160)}`);
      if (call.error !== undefined) lines.push(`error ${excerpt(redactValue(call.error), 160)}`);
      return { text: lines.join('\n') };
    } catch (e) {
      this.ctx.log.debug(`timeline details of ${toolCallId}: ${errorMessage(e)}`);
      return {};
    }
  }

  /** The paused replay of `runId` jumps to checkpoint `index`; without one, a replay starts there. */
  private async moveReplay(runId: string, index: number): Promise<void> {
    const p = this.tracker.position;
    if (p && p.run.runId === runId) {
      await p.session.customRequest('goto', { threadId: REPLAY_THREAD, targetId: index + 1 });
      return;
    }
    const checkpoint = this.ctx.connection.getOrCreate().listCheckpoints(runId, { offset: index, limit: 1 })[0];
    if (!checkpoint) throw new Error(`run ${runId} has no checkpoint [${index}]`);
    await this.ctx.startReplay(runId, checkpoint.checkpointId);
  }

  dispose(): void {
    clearTimeout(this.refreshTimer);
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/** Show Timeline: from a tree item, a Call Stack frame, a transcript's title bar, or the palette (the replay's run). */
export function registerTimeline(ctx: ExtensionContextObject, tracker: DebugPositionTracker): vscode.Disposable[] {
  const panel = new TimelinePanel(ctx, tracker);
  const runOf = async (arg: unknown): Promise<string | undefined> => {
    const direct = runIdOfArg(arg);
    if (direct && ctx.connection.getOrCreate().hasRun(direct)) return direct;
    const uri = arg instanceof vscode.Uri ? arg : typeof arg === 'string' ? vscode.Uri.parse(arg) : undefined;
    const fromFile = uri ? runIdOfTranscript(uri.fsPath) : undefined;
    if (fromFile) return fromFile;
    const editor = vscode.window.activeTextEditor?.document.uri;
    const fromEditor = editor ? runIdOfTranscript(editor.fsPath) : undefined;
    if (fromEditor) return fromEditor;
    await tracker.update();
    if (tracker.position) return tracker.position.run.runId;
    return pickRun(ctx.connection, { title: 'Show the timeline of which run?' });
  };
  return [
    panel,
    registerCommand(ctx.log, 'showTimeline', async (arg) => {
      const commandAt = Date.now();
      const runId = await runOf(arg);
      if (runId) await panel.show(runId, commandAt);
    }),
  ];
}
