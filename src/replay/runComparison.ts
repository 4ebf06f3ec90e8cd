/**
 * Two runs compared as a debugger user expects — the one comparison `ocdb
 * diff` and the extension's Compare with Parent / Compare Runs show. Each run
 * is read as its *view*: a fork's view starts with the checkpoints it
 * inherited from its parent up to the fork point (marked inherited), then its
 * own, so a fork and its parent line up at the fork point and differ only
 * where the fork did. The views are aligned step by step (two unrelated runs
 * of the same agent by step index and, inside a step, tool call by tool
 * call); each step says what differs — context by path, system prompt,
 * messages, model output, tool calls with args and results — with tokens and
 * time; the first divergence is named by its checkpoints; the artifacts of
 * the two runs are compared by name (added, removed, changed, with sizes).
 * Its text (the summary, the two sides of a diff editor) is comparisonText.ts.
 * Reads through the RunStore contract only; no vscode, no DAP.
 */
import {
  liveEditSummary,
  canonicalJson,
  changedPaths,
  messageText,
  messageToolCalls,
  runStatusText,
  toolOutcomeOf,
  type ArtifactRef,
  type Checkpoint,
  type Message,
  type ToolCallRecord,
} from '../model';
import { artifactSize, runArtifacts, type CheckpointSummary, type RunStore, type RunSummary } from '../store';

/** One checkpoint of a run's view: its summary, and whether the run inherited it from an ancestor. */
export interface ViewCheckpoint {
  summary: CheckpointSummary;
  inherited: boolean;
}

/** A tool call as compared: name, args, how it ended. */
export interface ComparedToolCall {
  toolCallId: string;
  toolName: string;
  args: unknown;
  outcome: 'success' | 'error' | 'cancelled' | 'running';
  result?: unknown;
  error?: unknown;
}

/** One step of one run. */
export interface StepSide {
  stepIndex: number;
  inherited: boolean;
  /** The step's first checkpoint and its prompt checkpoint (`before_model_call`), as `runId#index` and id. */
  firstCheckpointId: string;
  promptCheckpointId?: string;
  systemPrompt?: string;
  /** Runtime-context paths this step changed from the previous step of the same run, with their new values. */
  contextChanges: { path: string; value: unknown }[];
  /** Messages of the prompt new in this step (after the previous step's prompt). */
  newMessages: string[];
  modelOutput?: string;
  toolCalls: ComparedToolCall[];
  /** Tokens spent (captured turns re-emitted by a fork spend none). */
  tokens: number;
  durationMs: number;
  /** What a live debugger edited in this step while the run was recorded ("edited by VS Code: args.orderId"). */
  liveEdits?: string[];
}

export type StepDifferenceKind = 'context' | 'systemPrompt' | 'messages' | 'modelOutput' | 'toolCalls' | 'missing';

export interface StepDifference {
  kind: StepDifferenceKind;
  /** One line: "user.roleId, user.permissions", "issue_refund → write_case_report", ... */
  detail: string;
}

export interface StepComparison {
  stepIndex: number;
  /** Both sides inherited it (or the fork inherited it from the other run): the same by construction. */
  inherited: boolean;
  same: boolean;
  differences: StepDifference[];
  left?: StepSide;
  right?: StepSide;
}

export interface RunSideSummary {
  runId: string;
  agentId: string;
  statusText: string;
  parentRunId?: string;
  tokens: number;
  durationMs: number;
  toolCalls: number;
  /** Checkpoints of the view inherited from ancestors. */
  inheritedCheckpoints: number;
}

export interface ForkPoint {
  /** The run that forked, and the run (its ancestor) it forked from. */
  forkRunId: string;
  sourceRunId: string;
  checkpointId: string;
  checkpointIndex: number;
  stepIndex: number;
  boundary: CheckpointSummary['boundary'];
}

export interface ToolDifference {
  toolName: string;
  leftCalls: number;
  rightCalls: number;
  /** Calls in the same place with other args or results. */
  changedCalls: number;
}

export interface FirstDivergence {
  stepIndex: number;
  kind: StepDifferenceKind;
  detail: string;
  left?: { checkpointId: string; index: number };
  right?: { checkpointId: string; index: number };
}

/** One artifact of one run as compared: its ref's facts and its size (undefined: content not in this store). */
export interface ComparedArtifact {
  version: number;
  type: string;
  contentHash: string;
  size?: number;
  createdAt: number;
}

/** An artifact name in either run: the same content, changed, or only in one of them. */
export interface ArtifactComparison {
  name: string;
  change: 'same' | 'changed' | 'added' | 'removed';
  left?: ComparedArtifact;
  right?: ComparedArtifact;
}

export interface RunComparison {
  left: RunSideSummary;
  right: RunSideSummary;
  /** `fork`: one run is a fork (or a fork's fork) of the other; `related`: they share an ancestor; else `unrelated`. */
  relation: 'fork' | 'related' | 'unrelated';
  forkPoint?: ForkPoint;
  /** Runtime-context paths that differ at the fork point (or at the first step both runs have). */
  contextChanges: { path: string; left: unknown; right: unknown }[];
  steps: StepComparison[];
  firstDivergence?: FirstDivergence;
  tools: ToolDifference[];
  /** The artifacts of both runs by name (the newest version each holds): `added` is only in the right run. */
  artifacts: ArtifactComparison[];
  delta: { tokens: number; durationMs: number; toolCalls: number };
}

interface View {
  run: RunSummary;
  checkpoints: ViewCheckpoint[];
  /** Every tool call of the view's runs, by id: its run, and its state without arguments or results (no blob read). */
  calls: Map<string, { runId: string; toolName: string; state: ComparedToolCall['outcome']; heldMs?: number }>;
  /** The runs whose checkpoints the view holds (ancestors first). */
  runIds: string[];
  /** Live edits of the view's runs, by the checkpoint they were made at. */
  liveEdits: Map<string, string[]>;
}

const MAX_LINEAGE = 32;

/** A run's view: its ancestors' checkpoints up to each fork point (inherited), then its own. */
export function runView(store: RunStore, runId: string): View {
  const run = store.getRun(runId);
  const chain: RunSummary[] = [run];
  for (let r = run; r.parentRunId && chain.length < MAX_LINEAGE && store.hasRun(r.parentRunId);) {
    r = store.getRun(r.parentRunId);
    chain.unshift(r);
  }
  const checkpoints: ViewCheckpoint[] = [];
  const calls: View['calls'] = new Map();
  const liveEdits = new Map<string, string[]>();
  chain.forEach((r, i) => {
    for (const e of store.listLiveEdits(r.runId)) {
      liveEdits.set(e.checkpointId, [...(liveEdits.get(e.checkpointId) ?? []), liveEditSummary(e.edits)]);
    }
    const own = store.listCheckpoints(r.runId);
    const child = chain[i + 1];
    const cut = child?.forkFromCheckpointId ? own.findIndex((c) => c.checkpointId === child.forkFromCheckpointId) : -1;
    const kept = child ? (cut >= 0 ? own.slice(0, cut) : []) : own;
    for (const summary of kept) checkpoints.push({ summary, inherited: r.runId !== runId });
    for (const t of store.listToolCallMarks(r.runId)) {
      calls.set(t.toolCallId, {
        runId: r.runId,
        toolName: t.toolName,
        state: t.state,
        ...(t.heldMs !== undefined ? { heldMs: t.heldMs } : {}),
      });
    }
  });
  return { run, checkpoints, calls, runIds: chain.map((r) => r.runId), liveEdits };
}

function spentTokens(s: CheckpointSummary): number {
  return s.usage && !s.usage.captured ? s.usage.inputTokens + s.usage.outputTokens : 0;
}

function messageLine(m: Message): string {
  const text = typeof m.content === 'string' ? m.content : messageText(m) || canonicalJson(m.content ?? null);
  return `${m.role}${m.toolName ? ` ${m.toolName}` : ''}: ${text}`;
}

/** A call of a step as compared: read whole (arguments, result) when `whole`, else from its marks alone. */
function comparedCall(store: RunStore, view: View, s: CheckpointSummary, whole: boolean): ComparedToolCall {
  const mark = s.toolCallId ? view.calls.get(s.toolCallId) : undefined;
  if (!mark || !s.toolCallId)
    return { toolCallId: s.toolCallId ?? '', toolName: s.toolName ?? '?', args: undefined, outcome: 'running' };
  if (!whole) return { toolCallId: s.toolCallId, toolName: mark.toolName, args: undefined, outcome: mark.state };
  const record: ToolCallRecord = store.getToolCall(mark.runId, s.toolCallId);
  const call: ComparedToolCall = {
    toolCallId: record.toolCallId,
    toolName: record.toolName,
    args: record.args,
    outcome: record.endedAt === undefined ? 'running' : toolOutcomeOf(record),
  };
  if (record.result !== undefined) call.result = record.result;
  if (record.error !== undefined) call.error = record.error;
  return call;
}

interface Steps {
  sides: Map<number, StepSide>;
  /** Runtime context at a step's prompt (or first) checkpoint, read when first asked for. */
  contextAt(stepIndex: number): unknown;
}

/** A view's checkpoints by step (agent_end left out), steps in order. */
function checkpointsByStep(view: View): Map<number, ViewCheckpoint[]> {
  const byStep = new Map<number, ViewCheckpoint[]>();
  for (const c of view.checkpoints) {
    if (c.summary.boundary === 'agent_end') continue;
    const list = byStep.get(c.summary.stepIndex) ?? [];
    list.push(c);
    byStep.set(c.summary.stepIndex, list);
  }
  return new Map([...byStep.entries()].sort((a, b) => a[0] - b[0]));
}

/**
 * The steps of a view. A step in `shared` (the same checkpoints on both sides: a fork's inherited prefix) is built
 * from the summaries alone — tokens, time, its calls' names and states — since it cannot differ; every other step
 * loads its prompt checkpoint, its answer and its calls whole. So a late fork of a long run reads only its own steps.
 */
function stepsOf(
  store: RunStore,
  view: View,
  byStep: Map<number, ViewCheckpoint[]>,
  shared: ReadonlySet<number>,
): Steps {
  const sides = new Map<number, StepSide>();
  const loadedContexts = new Map<number, unknown>();
  const contextCheckpoint = new Map<number, string>();
  const contextAt = (stepIndex: number): unknown => {
    if (!loadedContexts.has(stepIndex)) {
      const id = contextCheckpoint.get(stepIndex);
      loadedContexts.set(stepIndex, id === undefined ? undefined : store.getCheckpointView(id).runtimeContext);
    }
    return loadedContexts.get(stepIndex);
  };
  let previousMessages = 0;
  let previousStep: number | undefined;
  for (const [stepIndex, list] of byStep) {
    const first = list[0] as ViewCheckpoint;
    const prompt = list.filter((c) => c.summary.boundary === 'before_model_call').at(-1);
    contextCheckpoint.set(stepIndex, (prompt ?? first).summary.checkpointId);
    const whole = !shared.has(stepIndex);
    const side: StepSide = {
      stepIndex,
      inherited: list.every((c) => c.inherited),
      firstCheckpointId: first.summary.checkpointId,
      contextChanges: [],
      newMessages: [],
      toolCalls: list
        .filter((c) => c.summary.boundary === 'before_tool_call')
        .map((c) => comparedCall(store, view, c.summary, whole)),
      tokens: list.reduce((n, c) => n + spentTokens(c.summary), 0),
      durationMs: stepDuration(list, view.calls),
    };
    if (prompt) side.promptCheckpointId = prompt.summary.checkpointId;
    const edited = list.flatMap((c) => view.liveEdits.get(c.summary.checkpointId) ?? []);
    if (edited.length > 0) side.liveEdits = edited;
    if (whole) {
      const loaded: Checkpoint = store.getCheckpointView((prompt ?? first).summary.checkpointId);
      loadedContexts.set(stepIndex, loaded.runtimeContext);
      if (previousStep !== undefined) {
        const before = contextAt(previousStep);
        side.contextChanges = changedPaths(before, loaded.runtimeContext).map((path) => ({
          path,
          value: valueAt(loaded.runtimeContext, path),
        }));
      }
      if (prompt) {
        side.newMessages = loaded.messages.slice(previousMessages).map(messageLine);
        if (loaded.systemPrompt !== undefined) side.systemPrompt = loaded.systemPrompt;
      }
      const answer = list.find((c) => c.summary.boundary === 'after_model_call');
      const reply = answer ? store.getLastMessage(answer.summary.checkpointId) : undefined;
      if (reply?.role === 'assistant') {
        const calls = messageToolCalls(reply).map((c) => `→ ${c.toolName}(${canonicalJson(c.args ?? null)})`);
        side.modelOutput = [messageText(reply), ...calls].filter(Boolean).join(' ');
      }
    }
    if (prompt) previousMessages = prompt.summary.messageCount;
    previousStep = stepIndex;
    sides.set(stepIndex, side);
  }
  return { sides, contextAt };
}

/** Steps whose checkpoints are the same on both sides (a fork's inherited prefix): the same by construction. */
function sharedSteps(left: Map<number, ViewCheckpoint[]>, right: Map<number, ViewCheckpoint[]>): Set<number> {
  const shared = new Set<number>();
  for (const [step, l] of left) {
    const r = right.get(step);
    if (!r || r.length !== l.length) continue;
    if (l.every((c, i) => c.summary.checkpointId === (r[i] as ViewCheckpoint).summary.checkpointId)) shared.add(step);
  }
  return shared;
}

/**
 * The time a step took: the gaps between its checkpoints, leaving out the one from the last inherited checkpoint to
 * the fork's first own one (a fork made today of a month-old run would count the month) and the time a live
 * debugger held the agent (before a tool ran: the call's hold; at a model call's stops: the checkpoint's).
 */
function stepDuration(list: readonly ViewCheckpoint[], calls: View['calls']): number {
  let ms = 0;
  for (let i = 1; i < list.length; i++) {
    const before = list[i - 1] as ViewCheckpoint;
    const at = list[i] as ViewCheckpoint;
    if (before.inherited !== at.inherited) continue;
    ms += at.summary.createdAt - before.summary.createdAt - (at.summary.heldMs ?? 0);
    const id = at.summary.toolCallId;
    if (at.summary.boundary === 'after_tool_call' && id !== undefined) ms -= calls.get(id)?.heldMs ?? 0;
  }
  return Math.max(0, ms);
}

const callKey = (c: ComparedToolCall) =>
  canonicalJson({ n: c.toolName, a: c.args ?? null, o: c.outcome, r: c.result ?? null, e: c.error ?? null });

function toolCallsDetail(left: readonly ComparedToolCall[], right: readonly ComparedToolCall[]): string | undefined {
  const names = (list: readonly ComparedToolCall[]) => list.map((c) => c.toolName).join(', ') || 'none';
  if (names(left) !== names(right)) return `${names(left)} → ${names(right)}`;
  const changed = left
    .map((c, i) => {
      const other = right[i] as ComparedToolCall;
      if (canonicalJson(c.args ?? null) !== canonicalJson(other.args ?? null)) return `${c.toolName} args`;
      if (callKey(c) !== callKey(other)) return `${c.toolName} result`;
      return undefined;
    })
    .filter((d): d is string => d !== undefined);
  return changed.length > 0 ? changed.join(', ') : undefined;
}

function firstLineDifference(a: string, b: string): string {
  const la = a.split('\n');
  const lb = b.split('\n');
  const i = la.findIndex((line, k) => line !== lb[k]);
  const at = i < 0 ? la.length : i;
  const clip = (t: string | undefined) => {
    const text = (t ?? '').trim();
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  };
  return `line ${at + 1}: "${clip(la[at])}" → "${clip(lb[at])}"`;
}

function compareStep(
  stepIndex: number,
  left: StepSide | undefined,
  right: StepSide | undefined,
  contexts: { left: unknown; right: unknown },
): StepComparison {
  const inherited =
    Boolean(left?.inherited || right?.inherited) && left?.firstCheckpointId === right?.firstCheckpointId;
  const differences: StepDifference[] = [];
  if (!left || !right) {
    differences.push({ kind: 'missing', detail: left ? 'only in the left run' : 'only in the right run' });
  } else if (!inherited) {
    const paths = changedPaths(contexts.left, contexts.right);
    if (paths.length > 0) differences.push({ kind: 'context', detail: paths.join(', ') });
    if ((left.systemPrompt ?? '') !== (right.systemPrompt ?? '')) {
      differences.push({
        kind: 'systemPrompt',
        detail: firstLineDifference(left.systemPrompt ?? '', right.systemPrompt ?? ''),
      });
    }
    if (canonicalJson(left.newMessages) !== canonicalJson(right.newMessages)) {
      differences.push({
        kind: 'messages',
        detail: `${left.newMessages.length} → ${right.newMessages.length} new messages`,
      });
    }
    if ((left.modelOutput ?? '') !== (right.modelOutput ?? '')) {
      differences.push({ kind: 'modelOutput', detail: 'the model answered differently' });
    }
    const calls = toolCallsDetail(left.toolCalls, right.toolCalls);
    if (calls) differences.push({ kind: 'toolCalls', detail: calls });
  }
  const step: StepComparison = { stepIndex, inherited, same: differences.length === 0, differences };
  if (left) step.left = left;
  if (right) step.right = right;
  return step;
}

/** The checkpoint of a step where `kind` shows: the prompt for context / prompt / messages, the answer, the tool. */
function divergenceCheckpoint(
  side: StepSide | undefined,
  view: View,
  kind: StepDifferenceKind,
): { checkpointId: string; index: number } | undefined {
  if (!side) return undefined;
  const inStep = view.checkpoints.filter((c) => c.summary.stepIndex === side.stepIndex).map((c) => c.summary);
  const pick =
    kind === 'modelOutput'
      ? inStep.find((c) => c.boundary === 'after_model_call')
      : kind === 'toolCalls'
        ? inStep.find((c) => c.boundary === 'before_tool_call')
        : (inStep.find((c) => c.checkpointId === side.promptCheckpointId) ?? inStep[0]);
  return pick ? { checkpointId: pick.checkpointId, index: pick.index } : undefined;
}

function sideSummary(view: View, steps: readonly StepSide[]): RunSideSummary {
  const summary: RunSideSummary = {
    runId: view.run.runId,
    agentId: view.run.agentId,
    statusText: runStatusText(view.run),
    tokens: steps.reduce((n, s) => n + s.tokens, 0),
    durationMs: steps.reduce((n, s) => n + s.durationMs, 0),
    toolCalls: steps.reduce((n, s) => n + s.toolCalls.length, 0),
    inheritedCheckpoints: view.checkpoints.filter((c) => c.inherited).length,
  };
  if (view.run.parentRunId) summary.parentRunId = view.run.parentRunId;
  return summary;
}

function forkPointOf(store: RunStore, left: View, right: View): ForkPoint | undefined {
  // the deeper run forked (directly or through its ancestors) from the other: its fork point nearest the other
  const [fork, other] = right.runIds.includes(left.run.runId) ? [right, left] : [left, right];
  const shared = fork.runIds.filter((id) => other.runIds.includes(id));
  const base = shared.at(-1);
  if (!base) return undefined;
  const child = fork.runIds[fork.runIds.indexOf(base) + 1];
  if (!child) return undefined;
  const childRun = store.getRun(child);
  const at = childRun.forkFromCheckpointId;
  const summary = at ? store.getCheckpointSummary(at) : undefined;
  if (!summary || summary.runId !== base) return undefined;
  return {
    forkRunId: child,
    sourceRunId: base,
    checkpointId: summary.checkpointId,
    checkpointIndex: summary.index,
    stepIndex: summary.stepIndex,
    boundary: summary.boundary,
  };
}

function comparedArtifact(store: RunStore, ref: ArtifactRef): ComparedArtifact {
  const size = artifactSize(store, ref.contentHash);
  return {
    version: ref.version,
    type: ref.type,
    contentHash: ref.contentHash,
    ...(size !== undefined ? { size } : {}),
    createdAt: ref.createdAt,
  };
}

/** The artifacts of two runs by name: left's order, then names only the right run has. */
export function compareArtifacts(store: RunStore, leftId: string, rightId: string): ArtifactComparison[] {
  const left = runArtifacts(store, leftId);
  const right = runArtifacts(store, rightId);
  const names = [...new Set([...left, ...right].map((r) => r.artifactId))];
  return names.map((name) => {
    const l = left.find((r) => r.artifactId === name);
    const r = right.find((x) => x.artifactId === name);
    const change = !l ? 'added' : !r ? 'removed' : l.contentHash === r.contentHash ? 'same' : 'changed';
    return {
      name,
      change,
      ...(l ? { left: comparedArtifact(store, l) } : {}),
      ...(r ? { right: comparedArtifact(store, r) } : {}),
    };
  });
}

/** How much of the steps both runs share (a fork's inherited prefix) is read. */
export interface CompareOptions {
  /**
   * `summary` (default): a shared step is built from the checkpoints' summaries and the calls' marks (no prompt,
   * messages or arguments: it cannot differ), so comparing a late fork of a 20,000-checkpoint run reads its own
   * steps only; `whole`: every step is read whole, for the two sides of a diff editor.
   */
  sharedSteps?: 'summary' | 'whole';
}

const SAME_CONTEXT = { left: undefined, right: undefined };

function contextDifferences(left: unknown, right: unknown): RunComparison['contextChanges'] {
  return changedPaths(left, right).map((path) => ({ path, left: valueAt(left, path), right: valueAt(right, path) }));
}

/** Compares run `leftId` with run `rightId` (RunNotFound when either is unknown). */
export function compareRuns(
  store: RunStore,
  leftId: string,
  rightId: string,
  options: CompareOptions = {},
): RunComparison {
  const left = runView(store, leftId);
  const right = runView(store, rightId);
  const lb = checkpointsByStep(left);
  const rb = checkpointsByStep(right);
  const light = options.sharedSteps === 'whole' ? new Set<number>() : sharedSteps(lb, rb);
  const ls = stepsOf(store, left, lb, light);
  const rs = stepsOf(store, right, rb, light);
  const indexes = [...new Set([...ls.sides.keys(), ...rs.sides.keys()])].sort((a, b) => a - b);
  const steps = indexes.map((i) => {
    const l = ls.sides.get(i);
    const r = rs.sides.get(i);
    const same = l && r && l.firstCheckpointId === r.firstCheckpointId && light.has(i);
    return compareStep(i, l, r, same ? SAME_CONTEXT : { left: ls.contextAt(i), right: rs.contextAt(i) });
  });
  const shared = left.runIds.some((id) => right.runIds.includes(id));
  const relation =
    left.runIds.includes(right.run.runId) || right.runIds.includes(left.run.runId)
      ? 'fork'
      : shared
        ? 'related'
        : 'unrelated';
  const forkPoint = shared ? forkPointOf(store, left, right) : undefined;
  const compareAt = forkPoint?.stepIndex ?? steps.find((s) => s.left && s.right)?.stepIndex;
  const contextChanges =
    compareAt === undefined ? [] : contextDifferences(ls.contextAt(compareAt), rs.contextAt(compareAt));
  const first = steps.find((s) => !s.same);
  const firstKind = first?.differences[0];
  const lsum = sideSummary(left, [...ls.sides.values()]);
  const rsum = sideSummary(right, [...rs.sides.values()]);
  const comparison: RunComparison = {
    left: lsum,
    right: rsum,
    relation,
    contextChanges,
    steps,
    tools: toolDifferences(steps),
    artifacts: compareArtifacts(store, leftId, rightId),
    delta: {
      tokens: rsum.tokens - lsum.tokens,
      durationMs: rsum.durationMs - lsum.durationMs,
      toolCalls: rsum.toolCalls - lsum.toolCalls,
    },
  };
  if (forkPoint) comparison.forkPoint = forkPoint;
  if (first && firstKind) {
    const d: FirstDivergence = { stepIndex: first.stepIndex, kind: firstKind.kind, detail: firstKind.detail };
    const l = divergenceCheckpoint(first.left, left, firstKind.kind);
    const r = divergenceCheckpoint(first.right, right, firstKind.kind);
    if (l) d.left = l;
    if (r) d.right = r;
    comparison.firstDivergence = d;
  }
  return comparison;
}

function valueAt(value: unknown, path: string): unknown {
  let cur = value;
  for (const key of path.split('.')) {
    cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[key] : undefined;
  }
  return cur;
}

function toolDifferences(steps: readonly StepComparison[]): ToolDifference[] {
  const by = new Map<string, ToolDifference>();
  const entry = (name: string) => {
    const known = by.get(name) ?? { toolName: name, leftCalls: 0, rightCalls: 0, changedCalls: 0 };
    by.set(name, known);
    return known;
  };
  for (const s of steps) {
    const l = s.left?.toolCalls ?? [];
    const r = s.right?.toolCalls ?? [];
    for (const c of l) entry(c.toolName).leftCalls++;
    for (const c of r) entry(c.toolName).rightCalls++;
    l.forEach((c, i) => {
      const other = r[i];
      if (other && other.toolName === c.toolName && callKey(other) !== callKey(c)) entry(c.toolName).changedCalls++;
    });
  }
  return [...by.values()]
    .filter((t) => t.leftCalls !== t.rightCalls || t.changedCalls > 0)
    .sort((a, b) => a.toolName.localeCompare(b.toolName));
}
