/**
 * The "Runs" tree of the Agent Runs container: top-level runs newest first
 * (paged), forks nested under their parent, each run expanding into its forks,
 * its Tool Ledger, its Artifacts (when it has some; a click opens one
 * read-only) and its ReAct steps (which expand into checkpoints). Caches
 * summaries per run and refreshes only the runs a store change touched.
 * Presentation comes from runsTreeModel.ts; no store writes here.
 */
import * as vscode from 'vscode';
import { errorMessage, isTextContent, redactText, type ArtifactRef, type ToolCallRecord } from '../model';
import { runArtifacts, type CheckpointSummary, type RunSummary, type RunStore } from '../store';
import { artifactUri } from './compareDocuments';
import { COMMANDS, CONTEXT_KEYS } from './ids';
import {
  RUNS_PAGE_SIZE,
  artifactView,
  artifactsView,
  type ArtifactContentFacts,
  checkpointView,
  groupBySteps,
  hangsFrom,
  ledgerView,
  loadMoreView,
  nodeIds,
  runView,
  stepView,
  subagentRunIds,
  toolCallView,
  type LiveMark,
  type NodeView,
  type RunsNode,
} from './runsTreeModel';
import type { StoreConnection, StoreEvent } from './storeConnection';
import type { AgentSessions } from './agentSessions';
import { sessionView, sessionsSectionView } from './sessionsTreeModel';

const CRASH_CHECK_MS = 5000;

export class RunsTreeProvider implements vscode.TreeDataProvider<RunsNode>, vscode.Disposable {
  private shown = RUNS_PAGE_SIZE;
  private readonly nodes = new Map<string, RunsNode>();
  /** Per step (`runId:stepIndex`), how often its node was made again to come back collapsed (followStep). */
  private readonly stepRemade = new Map<string, number>();
  /** Per run, the step the debugger's position was last revealed in. */
  private readonly followedStep = new Map<string, number>();
  private readonly runs = new Map<string, RunSummary>();
  /** Runs the view was given as children (a changed one refreshes in place; a new one refreshes its parent). */
  private readonly shownRuns = new Set<string>();
  private readonly checkpoints = new Map<string, CheckpointSummary[]>();
  private readonly toolCalls = new Map<string, ToolCallRecord[]>();
  /** Runs a debugger is attached to (live debugging), set by LiveRuns. */
  private liveMarks: ReadonlyMap<string, LiveMark> = new Map();
  private readonly artifacts = new Map<string, ArtifactRef[]>();
  /** Size and kind of each content read (content-addressed: it never changes). */
  private readonly contents = new Map<string, ArtifactContentFacts | undefined>();
  private readonly emitter = new vscode.EventEmitter<RunsNode | undefined>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly crashTimer: NodeJS.Timeout;
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly problemEmitter = new vscode.EventEmitter<string | undefined>();
  /** What the view says above the runs when the store cannot be read (the tree view's message); undefined: fine. */
  problem: string | undefined;
  readonly onDidChangeProblem = this.problemEmitter.event;

  constructor(
    private readonly connection: StoreConnection,
    private readonly log: vscode.LogOutputChannel,
    /** The coding-agent sessions found on disk, shown in a section above the runs. */
    private readonly agentSessions?: AgentSessions,
  ) {
    this.disposables.push(connection.onDidChange((e) => this.onStoreEvent(e)));
    if (agentSessions) this.disposables.push(agentSessions.onDidChange(() => this.emitter.fire(undefined)));
    // the team store's listing (runs not copied here yet) or its connection changed: the top of the tree again
    this.disposables.push(
      connection.onDidChangeTeam(() => {
        this.updateEmptyContext();
        this.emitter.fire(undefined);
      }),
    );
    this.crashTimer = setInterval(() => this.checkRunning(), CRASH_CHECK_MS);
    this.updateEmptyContext();
  }

  // ---- nodes (one object per id, so reveal and getParent agree) ----

  private node<N extends RunsNode>(node: N): N {
    const known = this.nodes.get(node.id);
    if (known) return known as N;
    this.nodes.set(node.id, node);
    return node;
  }

  runNode(runId: string): RunsNode {
    return this.node({ kind: 'run', id: nodeIds.run(runId), runId });
  }

  private stepNode(runId: string, stepIndex: number): RunsNode {
    const made = this.stepRemade.get(`${runId}:${stepIndex}`) ?? 0;
    const id = made > 0 ? `${nodeIds.step(runId, stepIndex)}~${made}` : nodeIds.step(runId, stepIndex);
    return this.node({ kind: 'step', id, runId, stepIndex });
  }

  /**
   * The debugger's position is revealed in step `stepIndex` of `runId` (which expands that step): the step it was
   * revealed in before comes back collapsed. VS Code cannot collapse one row from an extension, so that step's
   * node is made again under a new id (a new row, collapsed as a step starts) and the run's rows are listed again;
   * steps the user opened by hand stay as they are.
   */
  followStep(runId: string, stepIndex: number): void {
    const left = this.followedStep.get(runId);
    this.followedStep.set(runId, stepIndex);
    if (left === undefined || left === stepIndex) return;
    const key = `${runId}:${left}`;
    this.stepRemade.set(key, (this.stepRemade.get(key) ?? 0) + 1);
    this.emitter.fire(this.runNode(runId));
  }

  private artifactsNode(runId: string): RunsNode {
    return this.node({ kind: 'artifacts', id: nodeIds.artifacts(runId), runId });
  }

  private checkpointNode(c: CheckpointSummary): RunsNode {
    return this.node({
      kind: 'checkpoint',
      id: nodeIds.checkpoint(c.checkpointId),
      runId: c.runId,
      checkpointId: c.checkpointId,
      stepIndex: c.stepIndex,
    });
  }

  private sessionNode(file: string): RunsNode {
    return this.node({ kind: 'session', id: nodeIds.session(file), file });
  }

  /** The sessions section (first at the root) when the workspace has coding-agent sessions. */
  private sessionsSection(): RunsNode[] {
    const list = this.agentSessions?.sessions() ?? [];
    return list.length > 0 ? [this.node({ kind: 'sessions', id: nodeIds.sessions() })] : [];
  }

  // ---- cached reads ----

  private get store(): RunStore | undefined {
    return this.connection.tryGet();
  }

  summary(runId: string): RunSummary | undefined {
    const known = this.runs.get(runId);
    if (known) return known;
    const store = this.store;
    if (!store || !store.hasRun(runId)) return this.connection.team?.summary(runId);
    const run = store.getRun(runId);
    this.runs.set(runId, run);
    return run;
  }

  checkpointsOf(runId: string): CheckpointSummary[] {
    let list = this.checkpoints.get(runId);
    if (!list) {
      list = this.store?.listCheckpoints(runId) ?? [];
      this.checkpoints.set(runId, list);
    }
    return list;
  }

  private toolCallsOf(runId: string): ToolCallRecord[] {
    let list = this.toolCalls.get(runId);
    if (!list) {
      list = this.store?.listToolCalls(runId) ?? [];
      this.toolCalls.set(runId, list);
    }
    return list;
  }

  /** The run's artifacts: the newest version of each name. */
  private artifactsOf(runId: string): ArtifactRef[] {
    let list = this.artifacts.get(runId);
    if (!list) {
      const store = this.store;
      list = store ? runArtifacts(store, runId) : [];
      this.artifacts.set(runId, list);
    }
    return list;
  }

  private contentOf(contentHash: string): ArtifactContentFacts | undefined {
    if (this.contents.has(contentHash)) return this.contents.get(contentHash);
    let facts: ArtifactContentFacts | undefined;
    try {
      const bytes = this.store?.getArtifactContent(contentHash);
      facts = bytes ? { size: bytes.byteLength, text: isTextContent(bytes) } : undefined;
    } catch {
      facts = undefined; // not in this store (a run loaded without its contents): the item says so
    }
    this.contents.set(contentHash, facts);
    return facts;
  }

  // ---- TreeDataProvider ----

  getTreeItem(node: RunsNode): vscode.TreeItem {
    const view = this.viewOf(node);
    const state = {
      none: vscode.TreeItemCollapsibleState.None,
      collapsed: vscode.TreeItemCollapsibleState.Collapsed,
      expanded: vscode.TreeItemCollapsibleState.Expanded,
    }[view.collapsible];
    const item = new vscode.TreeItem(view.label, state);
    item.id = node.id;
    item.description = view.description;
    if (view.tooltip) {
      // run data in the tooltip is escaped (markdownText.ts); no command links, no HTML
      const tooltip = new vscode.MarkdownString(view.tooltip, true);
      tooltip.isTrusted = false;
      tooltip.supportHtml = false;
      item.tooltip = tooltip;
    }
    item.iconPath = new vscode.ThemeIcon(
      view.icon.id,
      view.icon.color ? new vscode.ThemeColor(view.icon.color) : undefined,
    );
    item.contextValue = view.contextValue;
    if (view.command)
      item.command = { command: view.command.id, title: view.command.title, arguments: view.command.args };
    else if (node.kind === 'checkpoint' || node.kind === 'toolCall') {
      // a click shows the line in the run's transcript (the focus stays in the tree)
      item.command = { command: COMMANDS.openTranscript.id, title: 'Show in Transcript', arguments: [node, true] };
    }
    return item;
  }

  /** What a node shows (exported for tests through the extension API). */
  viewOf(node: RunsNode): NodeView {
    switch (node.kind) {
      case 'run': {
        const run = this.summary(node.runId);
        if (!run)
          return {
            label: node.runId,
            description: 'deleted',
            icon: { id: 'trash' },
            contextValue: 'agentRun',
            collapsible: 'none',
          };
        return runView(run, Date.now(), this.liveMarks.get(node.runId));
      }
      case 'loadMore':
        return loadMoreView(node.shown, node.total);
      case 'step':
        return stepView(
          node.stepIndex,
          this.checkpointsOf(node.runId).filter((c) => c.stepIndex === node.stepIndex),
        );
      case 'checkpoint': {
        const checkpoints = this.checkpointsOf(node.runId);
        const at = checkpoints.findIndex((x) => x.checkpointId === node.checkpointId);
        const c = checkpoints[at];
        if (!c)
          return {
            label: node.checkpointId,
            icon: { id: 'question' },
            contextValue: 'agentCheckpoint',
            collapsible: 'none',
          };
        const call = c.toolCallId ? this.toolCallsOf(node.runId).find((t) => t.toolCallId === c.toolCallId) : undefined;
        return checkpointView(c, call, checkpoints[at - 1]);
      }
      case 'ledger':
        return ledgerView(this.toolCallsOf(node.runId));
      case 'toolCall': {
        const call = this.toolCallsOf(node.runId).find((t) => t.toolCallId === node.toolCallId);
        if (!call)
          return {
            label: node.toolCallId,
            icon: { id: 'question' },
            contextValue: 'agentToolCall',
            collapsible: 'none',
          };
        return toolCallView(call);
      }
      case 'artifacts':
        return artifactsView(this.artifactsOf(node.runId));
      case 'artifact': {
        const ref = this.artifactsOf(node.runId).find((r) => r.artifactId === node.name);
        if (!ref)
          return { label: node.name, icon: { id: 'question' }, contextValue: 'agentArtifact', collapsible: 'none' };
        const content = this.contentOf(ref.contentHash);
        const uri = artifactUri({
          runId: node.runId,
          name: ref.artifactId,
          contentHash: ref.contentHash,
          binary: content !== undefined && !content.text,
        });
        // a click opens the content read-only (the artifact document of compareDocuments.ts)
        return artifactView(ref, content, { id: 'vscode.open', args: [uri, { preview: true }] });
      }
      case 'sessions':
        return sessionsSectionView(this.agentSessions?.sessions() ?? [], this.shownRuns.size > 0);
      case 'session': {
        const session = this.agentSessions?.find(node.file);
        if (!session)
          return {
            label: node.file,
            description: 'gone',
            icon: { id: 'trash' },
            contextValue: 'agentSession',
            collapsible: 'none',
          };
        return sessionView(session, Date.now(), {
          subagent: this.agentSessions?.ownerOf(node.file)?.file !== node.file,
          followed: this.agentSessions?.isFollowed(node.file) === true,
          live: this.agentSessions?.isLive(session) === true,
        });
      }
      default: {
        const unreachable: never = node;
        throw new Error(`unknown tree node ${JSON.stringify(unreachable)}`);
      }
    }
  }

  getChildren(node?: RunsNode): RunsNode[] {
    if (node?.kind === 'sessions') return (this.agentSessions?.sessions() ?? []).map((s) => this.sessionNode(s.file));
    if (node?.kind === 'session')
      return (this.agentSessions?.find(node.file)?.subagents ?? []).map((s) => this.sessionNode(s.file));
    let store: RunStore | undefined;
    try {
      store = this.store;
    } catch {
      // a store that cannot be opened: the view's message says why (updateEmptyContext); the sessions still list
      return node ? [] : this.sessionsSection();
    }
    if (!store) return node ? [] : this.sessionsSection();
    try {
      if (!node) {
        const { runs, total } = this.withTeam(store.listRuns({ parentRunId: null, limit: this.shown }), (t) =>
          t.roots(),
        );
        for (const r of runs) {
          this.runs.set(r.runId, r);
          this.shownRuns.add(r.runId);
        }
        // a sub-agent run whose session is in the store is listed under that session, not beside it
        const top = runs.filter((r) => {
          const caller = hangsFrom(r);
          return caller === undefined || !store.hasRun(caller);
        });
        const children: RunsNode[] = [...this.sessionsSection(), ...top.map((r) => this.runNode(r.runId))];
        if (total > runs.length) {
          // a fresh object each time: its label carries the counts
          const more: RunsNode = { kind: 'loadMore', id: nodeIds.loadMore(), shown: runs.length, total };
          this.nodes.set(more.id, more);
          children.push(more);
        }
        return children;
      }
      switch (node.kind) {
        case 'run': {
          const team = this.connection.team;
          if (team && !store.hasRun(node.runId)) {
            // a run only the team store holds: expanding it copies it here; the cache's change shows its steps
            team.open(node.runId);
            const forks = team.forksOf(node.runId);
            for (const r of forks) this.shownRuns.add(r.runId);
            return forks.map((r) => this.runNode(r.runId));
          }
          const forks = this.withTeam(store.listRuns({ parentRunId: node.runId }), (t) => t.forksOf(node.runId)).runs;
          // read afresh: an import names its sub-agents in the session's metadata when it ends, after the tree
          // may have shown (and kept) the session's summary
          const parent = store.hasRun(node.runId) ? store.getRun(node.runId) : undefined;
          if (parent) this.runs.set(parent.runId, parent);
          for (const id of parent ? subagentRunIds(parent) : []) {
            if (store.hasRun(id)) forks.push(store.getRun(id));
          }
          for (const r of forks) {
            this.runs.set(r.runId, r);
            this.shownRuns.add(r.runId);
          }
          const steps = groupBySteps(this.checkpointsOf(node.runId));
          const artifacts = this.artifactsOf(node.runId).length > 0 ? [this.artifactsNode(node.runId)] : [];
          return [
            ...forks.map((r) => this.runNode(r.runId)),
            this.node({ kind: 'ledger', id: nodeIds.ledger(node.runId), runId: node.runId }),
            ...artifacts,
            ...steps.map((s) => this.stepNode(node.runId, s.stepIndex)),
          ];
        }
        case 'artifacts':
          return this.artifactsOf(node.runId).map((r) =>
            this.node({
              kind: 'artifact',
              id: nodeIds.artifact(node.runId, r.artifactId),
              runId: node.runId,
              name: r.artifactId,
            }),
          );
        case 'step':
          return this.checkpointsOf(node.runId)
            .filter((c) => c.stepIndex === node.stepIndex)
            .map((c) => this.checkpointNode(c));
        case 'ledger':
          return this.toolCallsOf(node.runId).map((t) =>
            this.node({
              kind: 'toolCall',
              id: nodeIds.toolCall(node.runId, t.toolCallId),
              runId: node.runId,
              toolCallId: t.toolCallId,
            }),
          );
        default:
          return [];
      }
    } catch (e) {
      this.log.error(`reading the runs tree failed: ${e instanceof Error ? e.message : String(e)}`);
      return [];
    }
  }

  getParent(node: RunsNode): RunsNode | undefined {
    switch (node.kind) {
      case 'run': {
        const run = this.summary(node.runId);
        const parent = run && hangsFrom(run);
        return parent && this.summary(parent) ? this.runNode(parent) : undefined;
      }
      case 'loadMore':
        return undefined;
      case 'step':
      case 'ledger':
      case 'artifacts':
        return this.runNode(node.runId);
      case 'artifact':
        return this.artifactsNode(node.runId);
      case 'checkpoint':
        return this.stepNode(node.runId, node.stepIndex);
      case 'toolCall':
        return this.node({ kind: 'ledger', id: nodeIds.ledger(node.runId), runId: node.runId });
      case 'sessions':
        return undefined;
      case 'session': {
        const owner = this.agentSessions?.ownerOf(node.file);
        return owner && owner.file !== node.file
          ? this.sessionNode(owner.file)
          : this.node({ kind: 'sessions', id: nodeIds.sessions() });
      }
      default: {
        const unreachable: never = node;
        throw new Error(`unknown tree node ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** The node of a checkpoint (for reveal), or undefined when the run has no such checkpoint. */
  checkpointNodeOf(runId: string, checkpointId: string): RunsNode | undefined {
    const c = this.checkpointsOf(runId).find((x) => x.checkpointId === checkpointId);
    return c ? this.checkpointNode(c) : undefined;
  }

  /** Tells the view to re-list where `runId` sits (its parent, or the root), so a reveal finds a just-written run. */
  relist(runId: string): void {
    const run = this.summary(runId);
    const parent = run && hangsFrom(run);
    this.emitter.fire(parent && this.summary(parent) ? this.runNode(parent) : undefined);
  }

  /** Marks the runs a debugger is attached to; refreshes the rows whose mark changed. */
  setLiveMarks(marks: ReadonlyMap<string, LiveMark>): void {
    const before = this.liveMarks;
    this.liveMarks = marks;
    for (const runId of new Set([...before.keys(), ...marks.keys()])) {
      const a = before.get(runId);
      const b = marks.get(runId);
      if (a?.client === b?.client && a?.stoppedAt === b?.stoppedAt) continue;
      this.runs.delete(runId); // re-read: the run may have grown since
      if (this.shownRuns.has(runId)) this.emitter.fire(this.runNode(runId));
    }
  }

  /** Shows the next page of runs. */
  loadMore(): void {
    this.shown += RUNS_PAGE_SIZE;
    this.emitter.fire(undefined);
  }

  refresh(): void {
    this.runs.clear();
    this.shownRuns.clear();
    this.checkpoints.clear();
    this.toolCalls.clear();
    this.artifacts.clear();
    this.contents.clear();
    this.updateEmptyContext();
    this.agentSessions?.relist();
    this.emitter.fire(undefined);
  }

  // ---- live refresh ----

  /** `local` with the team store's runs of the same place that are not in the cache, newest first. */
  private withTeam(
    local: { runs: RunSummary[]; total: number },
    pick: (team: NonNullable<StoreConnection['team']>) => RunSummary[],
  ): { runs: RunSummary[]; total: number } {
    const team = this.connection.team;
    if (!team) return local;
    const have = new Set(local.runs.map((r) => r.runId));
    const extra = pick(team).filter((r) => !have.has(r.runId));
    for (const r of extra) this.runs.set(r.runId, r);
    const runs = [...local.runs, ...extra].sort((a, b) => b.startedAt - a.startedAt);
    return { runs, total: local.total + extra.length };
  }

  private onStoreEvent(e: StoreEvent): void {
    if (e.kind === 'reset') {
      this.refresh();
      return;
    }
    let root = false;
    const changed = new Set<RunsNode>();
    for (const run of e.changes.changedRuns) {
      const known = this.shownRuns.has(run.runId);
      this.runs.set(run.runId, run);
      this.checkpoints.delete(run.runId);
      this.toolCalls.delete(run.runId);
      this.artifacts.delete(run.runId);
      const parent = hangsFrom(run);
      if (known) changed.add(this.runNode(run.runId));
      else if (parent && this.shownRuns.has(parent)) changed.add(this.runNode(parent));
      else root = true;
    }
    for (const runId of e.changes.deletedRunIds) {
      const gone = this.runs.get(runId);
      const parent = gone && hangsFrom(gone);
      this.runs.delete(runId);
      this.shownRuns.delete(runId);
      this.checkpoints.delete(runId);
      this.toolCalls.delete(runId);
      this.artifacts.delete(runId);
      if (parent && this.shownRuns.has(parent)) changed.add(this.runNode(parent));
      else root = true;
    }
    this.log.debug(
      `store changed: ${e.changes.changedRuns.length} runs written, ${e.changes.deletedRunIds.length} deleted`,
    );
    this.updateEmptyContext();
    if (root) this.emitter.fire(undefined);
    else for (const n of changed) this.emitter.fire(n);
  }

  /** A running run whose recorder died turns "crashed" without a write: re-read only the running ones. */
  private checkRunning(): void {
    const store = this.store;
    if (!store) return;
    for (const [runId, run] of this.runs) {
      if (run.status !== 'running' || run.crashed || !store.hasRun(runId)) continue;
      try {
        const now = store.getRun(runId);
        if (now.crashed) {
          this.runs.set(runId, now);
          this.emitter.fire(this.runNode(runId));
        }
      } catch (e) {
        this.log.debug(`crash check of ${runId} failed: ${String(e)}`);
      }
    }
  }

  private updateEmptyContext(): void {
    let empty = true;
    let problem: string | undefined;
    try {
      empty =
        (this.store?.listRuns({ limit: 1 }).total ?? 0) === 0 && (this.connection.team?.roots().length ?? 0) === 0;
    } catch (e) {
      this.log.warn(`reading the run store failed: ${String(e)}`);
      // a store that cannot be opened is not an empty one: no Run Demo welcome, which would fail on the same file
      empty = false;
      problem = `The run store ${this.connection.label} cannot be opened (${redactText(errorMessage(e))}). Move or repair that file (Run Demo creates a new store there once it is gone), or set agentTimeTravel.storePath to another.`;
    }
    if (problem !== this.problem) {
      this.problem = problem;
      this.problemEmitter.fire(problem);
    }
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.storeEmpty, empty);
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.hasRuns, !empty);
  }

  dispose(): void {
    clearInterval(this.crashTimer);
    for (const d of this.disposables) d.dispose();
    this.emitter.dispose();
    this.problemEmitter.dispose();
  }
}
