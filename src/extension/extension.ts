/**
 * VS Code entry point: builds the context object and wires the parts — the
 * store connection, the runs tree, transcripts and their hover, the context
 * editor webview, the debugger, the status bar and the commands. Wiring
 * only; what the parts show comes from the core layers. Activation errors are
 * shown to the user and rethrown.
 */
import * as vscode from 'vscode';
import type { ExtensionContextObject } from './context';
import { ContextEditorHost } from './contextEditorHost';
import { DebugPositionTracker } from './debugPosition';
import { registerDebugger, replayConfiguration } from './debugConfigProvider';
import { COMMANDS, COMPARE_SCHEME, DEBUG_TYPE, FILE_SCHEME, TRANSCRIPT_LANGUAGE, VALUE_SCHEME, VIEWS } from './ids';
import { registerMcpProvider } from './mcpProvider';
import { setUpModelEndpoint } from './modelEndpointCommand';
import { registerCommand, showError } from './notify';
import { ReplaySessions } from './replaySessions';
import { registerLiveCommands } from './liveCommands';
import { registerDivergedCommands } from './forkActions';
import { LiveRuns } from './liveRuns';
import { registerRunCommands } from './runCommands';
import { RunsTreeProvider } from './runsTreeProvider';
import { AgentSessions } from './agentSessions';
import { registerSessionCommands } from './sessionCommands';
import { affectsSettings } from './settings';
import { ReplayStatusBar } from './statusBar';
import { storeDescription, teamStatusItem, type TeamStatusItem } from './teamStatus';
import { StoreConnection } from './storeConnection';
import { registerStoreCommands } from './storeCommands';
import { registerWhatIfCommands } from './whatIfCommands';
import { WhatIfPanels } from './whatIfPanel';
import { TranscriptExpressionProvider, TranscriptHoverProvider } from './transcriptHoverProvider';
import { TranscriptService } from './transcriptService';
import { registerTimeline } from './timelinePanel';
import { ValueDocumentProvider } from './valueDocuments';
import { CompareDocumentProvider } from './compareDocuments';
import { FileDocumentProvider, FileHistories } from './fileDocuments';
import { registerFileCommands } from './fileCommands';
import type { RunsNode } from './runsTreeModel';

/** What activate() returns: the parts, for the extension-host tests. */
export interface AgentTimeTravelApi {
  ctx: ExtensionContextObject;
  tree: RunsTreeProvider;
  treeView: vscode.TreeView<RunsNode>;
  editor: ContextEditorHost;
  statusBar: ReplayStatusBar;
  tracker: DebugPositionTracker;
  liveRuns: LiveRuns;
  agentSessions: AgentSessions;
  whatIf: WhatIfPanels;
  /** The team store's status bar item as shown (its text and click command). */
  teamStatus: TeamStatusItem;
}

export async function activate(context: vscode.ExtensionContext): Promise<AgentTimeTravelApi> {
  const log = vscode.window.createOutputChannel('Agent Time Travel', { log: true });
  context.subscriptions.push(log);
  try {
    return wire(context, log);
  } catch (e) {
    showError(log, 'Agent Time Travel could not start', e);
    throw e;
  }
}

function wire(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): AgentTimeTravelApi {
  const subs = context.subscriptions;
  const replays = new Set<vscode.DebugSession>();
  subs.push(
    vscode.debug.onDidStartDebugSession((s) => {
      if (s.type === DEBUG_TYPE && s.configuration.request === 'launch') replays.add(s);
    }),
    vscode.debug.onDidTerminateDebugSession((s) => replays.delete(s)),
  );
  const endReplays = async () => {
    await Promise.all([...replays].map((s) => vscode.debug.stopDebugging(s)));
  };
  const connection = new StoreConnection(log, context.secrets);
  const transcripts = new TranscriptService(connection);
  const agentSessions = new AgentSessions(connection, log);
  const tree = new RunsTreeProvider(connection, log, agentSessions);
  // several runs selected: What-if Across Runs… and Compare Several Runs… take the selection
  const treeView = vscode.window.createTreeView(VIEWS.runs, {
    treeDataProvider: tree,
    showCollapseAll: true,
    canSelectMany: true,
  });
  // a store that cannot be opened says so above the view, naming the file, instead of the empty store's welcome
  treeView.message = tree.problem;
  subs.push(tree.onDidChangeProblem((problem) => (treeView.message = problem)));
  // the runs a debugger is attached to (any client), marked in the tree
  const liveRuns = new LiveRuns(connection, (marks) => tree.setLiveMarks(marks), log);
  subs.push(connection, transcripts, agentSessions, tree, treeView, liveRuns);
  // a shared store says which one it is above the runs (its URL without password)
  const describeStore = () => (treeView.description = storeDescription(connection));
  describeStore();
  subs.push(connection.onDidChange((e) => e.kind === 'reset' && describeStore()));
  const teamStatus = teamStatusItem(connection, describeStore);
  subs.push(connection.onDidChangeTeam(describeStore), teamStatus);

  /**
   * Reveals a node; retried briefly because a run just written may not be in the view's refreshed children yet.
   * `whileVisible` (following the debugger): give up once the tree is hidden, so a retry never takes the side bar
   * back from the view the user switched to (Run and Debug) in the meantime.
   */
  const reveal = async (node: RunsNode | undefined, select: boolean, whileVisible = false) => {
    if (!node) return;
    for (let attempt = 1; ; attempt++) {
      if (whileVisible && !treeView.visible) return;
      try {
        await treeView.reveal(node, { select, focus: false, expand: node.kind === 'run' ? false : true });
        return;
      } catch (e) {
        if (attempt >= 5) {
          log.debug(`reveal ${node.id} failed: ${String(e)}`); // e.g. a run beyond the loaded page
          return;
        }
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  };
  const ctx: ExtensionContextObject = {
    vscodeContext: context,
    log,
    connection,
    transcripts,
    revealRun: async (runId) => {
      connection.poll();
      tree.relist(runId);
      await reveal(tree.runNode(runId), true);
    },
    revealCheckpoint: (runId, checkpointId) => {
      const node = tree.checkpointNodeOf(runId, checkpointId);
      // the step the debugger leaves folds again: stepping leaves one step open, not every step passed
      if (node?.kind === 'checkpoint') tree.followStep(runId, node.stepIndex);
      return reveal(node, true, true);
    },
    startReplay: async (runId, checkpointId) => {
      // VS Code leaves the Call Stack, the editor and so the status bar on a paused session while another stops:
      // the replay asked for now is the one to show, so the replays before it end (attach sessions stay)
      await endReplays();
      return vscode.debug.startDebugging(
        vscode.workspace.workspaceFolders?.[0],
        replayConfiguration(runId, connection.path, checkpointId),
      );
    },
    editCheckpoint: async (runId, checkpointId, focus) => {
      // `editor` is created just below; these run only after activation. Asked for explicitly (Fork from this
      // checkpoint, Edit Context): post again even when shown, with the edits the debugger staged since.
      editor.show(runId, checkpointId, { refresh: true });
      if (focus) await editor.focus();
    },
  };
  const replaySessions = new ReplaySessions(log);
  const editor = new ContextEditorHost(ctx, replaySessions);
  subs.push(replaySessions, editor, vscode.window.registerWebviewViewProvider(VIEWS.contextEditor, editor));

  // The editor follows the checkpoint selected in the tree...
  subs.push(
    treeView.onDidChangeSelection((e) => {
      const node = e.selection[0];
      if (node?.kind === 'checkpoint') editor.show(node.runId, node.checkpointId);
    }),
  );

  // ...and the active debug frame, which the tree reveals and the status bar shows.
  const tracker = new DebugPositionTracker(ctx);
  let followed: string | undefined;
  const statusBar = new ReplayStatusBar(COMMANDS.openTranscript.id);
  const ended = new Set<string>();
  const liveSession = () => {
    const active = vscode.debug.activeDebugSession;
    return active && !ended.has(active.id) ? active : undefined;
  };
  subs.push(
    tracker,
    statusBar,
    // an attach session shows even while no agent is stopped in it (once it ended, never again)
    vscode.debug.onDidTerminateDebugSession((s) => {
      ended.add(s.id);
      statusBar.update(tracker.position, liveSession());
      if (s.type === DEBUG_TYPE && !liveSession()) {
        transcripts.reopenServedTranscripts().catch((e: unknown) => log.debug(`reopening transcripts: ${String(e)}`));
      }
    }),
    vscode.debug.onDidChangeActiveDebugSession(() => statusBar.update(tracker.position, liveSession())),
    tracker.onDidChange((p) => {
      statusBar.update(p, liveSession());
      const key = p ? `${p.run.runId}/${p.checkpoint.checkpointId}` : undefined;
      // follow moves of the replay, but a re-read of the same position must not undo the user's own pick
      if (!p || key === followed) {
        followed = key;
        return;
      }
      followed = key;
      editor.show(p.run.runId, p.checkpoint.checkpointId);
      if (treeView.visible) void ctx.revealCheckpoint(p.run.runId, p.checkpoint.checkpointId);
    }),
    // a hidden tree (the Run and Debug view took the sidebar) catches up when it is shown again
    treeView.onDidChangeVisibility((e) => {
      const p = tracker.position;
      if (e.visible && p) void ctx.revealCheckpoint(p.run.runId, p.checkpoint.checkpointId);
    }),
  );

  const compareDocuments = new CompareDocumentProvider(connection);
  const fileHistories = new FileHistories(connection);
  const whatIf = new WhatIfPanels(ctx);
  subs.push(
    vscode.languages.registerHoverProvider(
      { language: TRANSCRIPT_LANGUAGE },
      new TranscriptHoverProvider(transcripts, connection, fileHistories),
    ),
    vscode.languages.registerEvaluatableExpressionProvider(
      { language: TRANSCRIPT_LANGUAGE },
      new TranscriptExpressionProvider(transcripts),
    ),
    vscode.workspace.registerTextDocumentContentProvider(VALUE_SCHEME, new ValueDocumentProvider(connection)),
    vscode.workspace.registerTextDocumentContentProvider(COMPARE_SCHEME, compareDocuments),
    vscode.workspace.registerTextDocumentContentProvider(FILE_SCHEME, new FileDocumentProvider(fileHistories)),
    ...registerFileCommands(ctx, tracker, fileHistories),
    compareDocuments,
    connection.onDidChange(() => compareDocuments.refresh()),
    ...registerDebugger(ctx),
    ...registerRunCommands(ctx, tracker),
    ...registerTimeline(ctx, tracker),
    ...registerLiveCommands(ctx),
    ...registerDivergedCommands(ctx),
    ...registerStoreCommands(ctx, tree),
    ...registerMcpProvider(ctx),
    ...registerSessionCommands(ctx, agentSessions),
    whatIf,
    ...registerWhatIfCommands(ctx, whatIf, editor),
    registerCommand(log, 'setUpModelEndpoint', (args) => setUpModelEndpoint(ctx, args)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsSettings(e)) connection.reconfigure();
    }),
  );
  log.info(`Agent Time Travel active; store ${connection.label}; debug type ${DEBUG_TYPE}`);
  return { ctx, tree, treeView, editor, statusBar, tracker, liveRuns, agentSessions, whatIf, teamStatus };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
