/**
 * Host of the RuntimeContext / fork editor (a webview view in Agent Runs):
 * serves the page with a strict CSP and resource roots limited to the
 * bundle, waits for "ready" before posting, validates every message both
 * ways (protocol.ts), answers plan requests through ForkService.plan and
 * creates forks through forkActions.createFork. Follows the checkpoint that
 * extension.ts tells it to show (tree selection or active debug frame), with
 * the edits a running replay staged at that checkpoint (setVariable), which
 * the page applies to its draft and a fork from the page then uses (and
 * clears in the session). In batch mode (What-if Across Runs…) the checkpoint is a
 * sample of the cohort and the page's Run hands the change to the batch runner.
 */
import * as vscode from 'vscode';
import { z } from 'zod';
import { LaunchArgsSchema } from '../debug/launchArgs';
import { errorMessage, isOcdbError, type ForkConfig } from '../model';
import {
  HazardViewSchema,
  HostMessageSchema,
  type BatchView,
  type DivergedAction,
  PageMessageSchema,
  parseMessage,
  type EditorCheckpoint,
  type HostMessage,
  type PageMessage,
} from '../webview/protocol';
import type { ExtensionContextObject } from './context';
import { createFork, planFor } from './forkActions';
import { DIVERGED_ACTION_COMMANDS, forkOutcomeOf } from './forkOutcome';
import { DEBUG_TYPE, VIEWS } from './ids';
import type { ReplaySessions } from './replaySessions';
import { readSettings } from './settings';
import { webviewHtml } from './webviewHtml';

/** The `program` of the active agent-replay session's launch configuration, or ''. */
function activeProgram(): string {
  const session = vscode.debug.activeDebugSession;
  if (session?.type !== DEBUG_TYPE) return '';
  const program = LaunchArgsSchema.shape.program.safeParse(session.configuration.program);
  return program.success ? (program.data ?? '') : '';
}

/** What the page's Run in batch mode asks for: the change (on the sample checkpoint), where to fork, the checks. */
export interface BatchRequest {
  config: ForkConfig;
  acknowledgedTools: readonly string[];
  at: string;
  assertions: string;
}

/** Runs a batch for the page; resolves to the words the page shows when it is done (throws to show an error). */
export type BatchRunner = (request: BatchRequest) => Promise<string>;

export class ContextEditorHost implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private current: { runId: string; checkpointId: string } | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** Messages the page sent, parsed (for tests and the log). */
  private readonly received = new vscode.EventEmitter<PageMessage>();
  readonly onDidReceive = this.received.event;
  /** Messages posted to the page (for tests). */
  private readonly posted = new vscode.EventEmitter<HostMessage>();
  readonly onDidPost = this.posted.event;
  /** Counts show posts, so a slow staged-edits answer cannot post over a newer checkpoint. */
  private showGeneration = 0;
  /** The last fork made from the page (or the fork that replaced it), while it is in the store. */
  private followed: string | undefined;
  /** The outcome last posted of it (as JSON), so a store change that leaves it as it was posts nothing. */
  private shownOutcome: string | undefined;
  /** Batch mode: the cohort in words and what Run starts, until another checkpoint is shown. */
  private batch: { view: BatchView; run: BatchRunner } | undefined;
  /** The last batch started from the page (for tests): settles when it is done. */
  batchDone: Promise<void> = Promise.resolve();
  /** How many sessions the last fork from the page cleared staged edits in (for tests). */
  stagedCleared: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly ctx: ExtensionContextObject,
    private readonly sessions: ReplaySessions,
  ) {
    // an edit staged in the Variables view while the editor shows its checkpoint joins the page's draft
    this.disposables.push(
      sessions.onDidStage(() => this.refresh()),
      ctx.connection.onDidChange(() => void this.postOutcome()),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const ext = this.ctx.vscodeContext.extensionUri;
    const dist = vscode.Uri.joinPath(ext, 'dist');
    const media = vscode.Uri.joinPath(ext, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
    view.webview.html = webviewHtml({
      cspSource: view.webview.cspSource,
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'contextEditor.css')).toString(),
      codiconsUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css')).toString(),
    });
    this.disposables.push(
      view.webview.onDidReceiveMessage((data: unknown) => this.onMessage(data)),
      // A hidden view loses its page (no retainContextWhenHidden; the draft lives in the page's setState):
      // when shown again, post the checkpoint; a reloaded page asks again with "ready".
      view.onDidChangeVisibility(() => {
        if (this.view !== view) return;
        if (view.visible) void this.postShow(true);
      }),
      view.onDidDispose(() => {
        // a late dispose of an older page must not orphan a newer one
        if (this.view !== view) return;
        this.view = undefined;
        this.ready = false;
      }),
    );
  }

  /** The checkpoint shown (or last asked for). */
  get shown(): { runId: string; checkpointId: string } | undefined {
    return this.current;
  }

  /**
   * Shows a checkpoint; posts at once when the page is ready, else on its "ready". Showing the checkpoint already
   * shown posts again only with `refresh` (Fork from this checkpoint: the debugger may have staged edits since).
   */
  show(runId: string, checkpointId: string, options: { refresh?: boolean } = {}): void {
    const same = this.current?.runId === runId && this.current.checkpointId === checkpointId;
    if (same && !options.refresh) return;
    this.current = { runId, checkpointId };
    this.batch = undefined; // another checkpoint: the editor forks one run again
    void this.postShow();
  }

  /**
   * Batch mode: shows the sample checkpoint (the cohort's first run at its fork point) with the batch's fields; the
   * page's Run calls `run`. Showing another checkpoint leaves batch mode.
   */
  showBatch(runId: string, checkpointId: string, view: BatchView, run: BatchRunner): void {
    this.current = { runId, checkpointId };
    this.batch = { view, run };
    void this.postShow();
  }

  /** The batch the editor is in, if any (for tests). */
  get batchShown(): BatchView | undefined {
    return this.batch?.view;
  }

  /** Posts the shown checkpoint again (with the staged edits as they are now). */
  refresh(): void {
    if (this.current) void this.postShow();
  }

  /** Reveals the view (creating the page when it was never opened). */
  async focus(): Promise<void> {
    await vscode.commands.executeCommand(`${VIEWS.contextEditor}.focus`);
  }

  private editorCheckpoint(): EditorCheckpoint | null {
    if (!this.current) return null;
    const store = this.ctx.connection.tryGet();
    if (!store || !store.hasRun(this.current.runId)) return null;
    const run = store.getRun(this.current.runId);
    const cp = store.getCheckpoint(this.current.checkpointId);
    // the summary by id carries the position: the view follows every step, so it never lists the whole run
    const index = store.getCheckpointSummary(cp.checkpointId).index;
    return {
      runId: run.runId,
      checkpointId: cp.checkpointId,
      checkpointIndex: index,
      checkpointCount: run.checkpointCount,
      boundary: cp.boundary,
      stepIndex: cp.stepIndex,
      agentId: run.agentId,
      runtimeContext: cp.runtimeContext,
      ...(cp.model ? { model: { provider: cp.model.provider, model: cp.model.model } } : {}),
      ...(cp.promptVersion !== undefined ? { promptVersion: cp.promptVersion } : {}),
    };
  }

  private async postShow(force = false): Promise<void> {
    if (!this.ready && !force) return;
    const generation = ++this.showGeneration;
    const settings = readSettings();
    let checkpoint: EditorCheckpoint | null = null;
    try {
      checkpoint = this.editorCheckpoint();
    } catch (e) {
      this.ctx.log.warn(`cannot show checkpoint in the editor: ${errorMessage(e)}`);
    }
    const staged = checkpoint ? await this.sessions.stagedAt(checkpoint.runId, checkpoint.checkpointId) : undefined;
    if (generation !== this.showGeneration) return; // a newer show is on its way
    this.post({
      type: 'show',
      checkpoint,
      defaults: {
        modelMode: settings.defaultModelMode,
        overrideProvider: '',
        overrideModel: settings.modelName,
        program: activeProgram(),
      },
      ...(staged ? { stagedContextPatch: staged.contextPatch } : {}),
      ...(this.batch ? { batch: this.batch.view } : {}),
    });
  }

  private post(message: HostMessage): void {
    const checked = HostMessageSchema.safeParse(message);
    if (!checked.success) {
      this.ctx.log.error(`refused to post an invalid ${message.type} message to the editor: ${checked.error.message}`);
      return;
    }
    const view = this.view;
    if (!view) return;
    this.posted.fire(checked.data);
    void view.webview.postMessage(checked.data).then((delivered) => {
      // not delivered: the page is gone or reloading; its "ready" will bring the current checkpoint
      if (!delivered && this.view === view) this.ready = false;
    });
  }

  private onMessage(data: unknown): void {
    const parsed = parseMessage(PageMessageSchema, data);
    if (!parsed.ok) {
      this.ctx.log.warn(`ignored a malformed message from the editor page: ${parsed.error}`);
      return;
    }
    const message = parsed.value;
    this.received.fire(message);
    switch (message.type) {
      case 'ready':
        this.ready = true;
        void this.postShow().then(() => this.postOutcome(true));
        return;
      case 'plan':
        this.post({ type: 'plan', requestId: message.requestId, plan: planFor(this.ctx, message.config) });
        return;
      case 'fork':
        this.fork(message.config, message.acknowledgedTools, message.program);
        return;
      case 'divergedAction':
        void this.divergedAction(message.runId, message.action);
        return;
      case 'whatIf':
        this.batchDone = this.runBatch(message);
        return;
      default: {
        const unreachable: never = message;
        return unreachable;
      }
    }
  }

  /**
   * The page's fork path (also called by tests): ForkService.create through createFork, then tell the page. The
   * debugger's staged edits this fork used (the page started from them) are cleared in their session, so the
   * next fork does not apply them again; `stagedCleared` settles when that is done.
   */
  fork(config: ForkConfig, acknowledgedTools: readonly string[], program?: string): string | undefined {
    try {
      const created = createFork(this.ctx, config, acknowledgedTools, program ? { program } : {});
      this.post({ type: 'forked', runId: created.runId, sourceRunId: created.plan.sourceRunId });
      this.follow(created.runId);
      this.stagedCleared = this.sessions
        .clearUsedBy(created.plan.sourceCheckpointId, created.plan.runtimeContext)
        .then((cleared) => {
          if (cleared > 0) this.refresh(); // the page keeps the values but no longer counts them as staged
          return cleared;
        });
      return created.runId;
    } catch (e) {
      const parsed = isOcdbError(e, 'ForkRejected')
        ? z.array(HazardViewSchema).safeParse(e.details.hazards)
        : undefined;
      const hazards = parsed?.success ? parsed.data : undefined;
      this.ctx.log.warn(`fork rejected: ${errorMessage(e)}`);
      this.post({ type: 'forkFailed', message: errorMessage(e), ...(hazards ? { hazards } : {}) });
      return undefined;
    }
  }

  /** Batch mode's Run: the batch runner, then its words (or its error, with the hazards of a refusal) to the page. */
  private async runBatch(request: BatchRequest): Promise<void> {
    const batch = this.batch;
    if (!batch) {
      this.post({
        type: 'forkFailed',
        message: 'This editor is no longer set up for a batch: start What-if Across Runs… again.',
      });
      return;
    }
    try {
      this.post({ type: 'batchDone', text: await batch.run(request) });
    } catch (e) {
      const parsed = isOcdbError(e, 'ForkRejected')
        ? z.array(HazardViewSchema).safeParse(e.details.hazards)
        : undefined;
      const hazards = parsed?.success ? parsed.data : undefined;
      this.ctx.log.warn(`what-if from the editor: ${errorMessage(e)}`);
      this.post({ type: 'forkFailed', message: errorMessage(e), ...(hazards ? { hazards } : {}) });
    }
  }

  /** Follows a fork's result in the page (running, how it ended, its actions while diverged). */
  private follow(runId: string): void {
    this.followed = runId;
    this.shownOutcome = undefined;
    void this.postOutcome();
  }

  /** Posts the followed fork's outcome when it changed (a store change, a page shown again). */
  private async postOutcome(force = false): Promise<void> {
    const runId = this.followed;
    if (runId === undefined || !this.ready) return;
    const outcome = await forkOutcomeOf(this.ctx, runId);
    const key = JSON.stringify(outcome);
    if (runId !== this.followed || (key === this.shownOutcome && !force)) return;
    this.shownOutcome = key;
    if (outcome === null) this.followed = undefined; // gone: nothing more to follow
    this.post({ type: 'forkOutcome', outcome });
  }

  /**
   * A diverged fork's action from the page: the fork's own command (the same as its tree item's); going on follows
   * the fork that replaces it.
   */
  private async divergedAction(runId: string, action: DivergedAction): Promise<void> {
    try {
      const next = await vscode.commands.executeCommand<unknown>(DIVERGED_ACTION_COMMANDS[action].id, runId);
      if (typeof next === 'string' && next !== runId) this.follow(next);
      else void this.postOutcome(true);
    } catch (e) {
      this.post({ type: 'forkFailed', message: errorMessage(e) });
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.received.dispose();
    this.posted.dispose();
  }
}
