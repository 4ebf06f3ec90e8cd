/**
 * The runs tree as data: node kinds with stable ids, and how each node looks
 * (label, description, tooltip, codicon + colour, contextValue) from store
 * summaries. The provider turns these into vscode.TreeItems; keeping them pure
 * lets unit tests check what a user sees without VS Code. No vscode import.
 */
import {
  byteSize,
  checkpointHoldPlace,
  heldText,
  readRunError,
  runStatusText as statusTextOf,
  toolOutcomeOf,
  type ArtifactRef,
  type ToolCallRecord,
  toolOwnMs,
} from '../model';
import type { CheckpointSummary, RunSummary } from '../store';
import {
  BOUNDARY_ICON,
  POLICY_TEXT,
  SIDE_EFFECT_BADGE,
  SIDE_EFFECT_TEXT,
  formatDuration,
  formatTime,
  formatTokens,
  plural,
  shorten,
  toJson,
} from './format';
import { COMMANDS, ITEM_CONTEXT, type ItemContext } from './ids';
import { mdCode, mdText } from './markdownText';

/** Runs shown per page before a "Load more" item. */
export const RUNS_PAGE_SIZE = 200;

export type RunsNode =
  | { kind: 'run'; id: string; runId: string }
  | { kind: 'loadMore'; id: string; shown: number; total: number }
  | { kind: 'step'; id: string; runId: string; stepIndex: number }
  | { kind: 'checkpoint'; id: string; runId: string; checkpointId: string; stepIndex: number }
  | { kind: 'ledger'; id: string; runId: string }
  | { kind: 'toolCall'; id: string; runId: string; toolCallId: string }
  | { kind: 'artifacts'; id: string; runId: string }
  | { kind: 'artifact'; id: string; runId: string; name: string }
  | { kind: 'sessions'; id: string }
  | { kind: 'session'; id: string; file: string };

export const nodeIds = {
  run: (runId: string) => `run:${runId}`,
  loadMore: () => 'more',
  step: (runId: string, stepIndex: number) => `step:${runId}:${stepIndex}`,
  checkpoint: (checkpointId: string) => `cp:${checkpointId}`,
  ledger: (runId: string) => `ledger:${runId}`,
  toolCall: (runId: string, toolCallId: string) => `tool:${runId}:${toolCallId}`,
  artifacts: (runId: string) => `artifacts:${runId}`,
  artifact: (runId: string, name: string) => `artifact:${runId}:${name}`,
  sessions: () => 'sessions',
  session: (file: string) => `session:${file}`,
};

/** How one node looks. `tooltip` is markdown in which every piece of run data went through markdownText.ts. */
export interface NodeView {
  label: string;
  description?: string;
  tooltip?: string;
  icon: { id: string; color?: string };
  contextValue: ItemContext;
  collapsible: 'none' | 'collapsed' | 'expanded';
  command?: { id: string; title: string; args: unknown[] };
}

/**
 * A run's name in the tree: the title an import found (a coding session's summary or first prompt), so sessions
 * are told apart at a narrow side bar where ids such as `cc-4d5611e5-…` all look alike; else its id.
 */
export function runLabel(run: RunSummary): string {
  const title = run.metadata.title;
  return typeof title === 'string' && title.trim() !== '' ? shorten(title.trim(), 100) : run.runId;
}

/**
 * The run `run` hangs from in the tree: a fork's parent, or the session whose tool call started a sub-agent run (an
 * import's `metadata.subagentOf`), so a coding session's sub-agents sit under it rather than beside it.
 */
export function hangsFrom(run: RunSummary): string | undefined {
  if (run.parentRunId) return run.parentRunId;
  const caller = (run.metadata.subagentOf as { runId?: unknown } | undefined)?.runId;
  return typeof caller === 'string' && caller !== run.runId ? caller : undefined;
}

/** The sub-agent runs a run's metadata names (`subagents: [{ runId }]`, an import's links), in its order. */
export function subagentRunIds(run: RunSummary): string[] {
  const list = run.metadata.subagents;
  if (!Array.isArray(list)) return [];
  return list
    .map((s) => (s as { runId?: unknown } | null)?.runId)
    .filter((id): id is string => typeof id === 'string' && id !== run.runId);
}

/** The status a user sees: a crashed recording is never "running"; "diverged at step 5 · system prompt". */
export function runStatusText(run: RunSummary): string {
  return statusTextOf(run);
}

function runIcon(run: RunSummary): NodeView['icon'] {
  if (run.crashed) return { id: 'flame', color: 'list.errorForeground' };
  switch (run.status) {
    case 'running':
      return { id: 'sync~spin', color: 'charts.blue' };
    case 'completed':
      return run.mode === 'fork'
        ? { id: 'repo-forked', color: 'testing.iconPassed' }
        : { id: 'pass', color: 'testing.iconPassed' };
    case 'failed':
      return { id: 'error', color: 'list.errorForeground' };
    case 'cancelled':
      return { id: 'circle-slash', color: 'disabledForeground' };
    case 'diverged':
      // an answer to the what-if question, not a failure: its own icon, never the red ✗
      return { id: 'git-compare', color: 'charts.yellow' };
    default: {
      const unreachable: never = run.status;
      return { id: String(unreachable) };
    }
  }
}

function runDuration(run: RunSummary, now: number): string {
  if (run.endedAt !== undefined) return formatDuration(run.endedAt - run.startedAt);
  if (run.crashed) {
    // the recording stopped after its newest checkpoint; without one, how long it ran is unknown
    return run.lastCheckpointAt !== undefined
      ? `${formatDuration(run.lastCheckpointAt - run.startedAt)}+`
      : 'incomplete';
  }
  return `${formatDuration(now - run.startedAt)} so far`;
}

/**
 * A debugger attached to a run being recorded (live debugging): who, and where the agent waits if it is stopped
 * (`before lookup_order`, liveModel.ts `stopPlaceText`).
 */
export interface LiveMark {
  client: string;
  stoppedAt?: string;
}

function runContextValue(run: RunSummary): ItemContext {
  const fork = run.mode === 'fork' || Boolean(run.parentRunId);
  if (run.status === 'running' && !run.crashed) return fork ? ITEM_CONTEXT.runningForkRun : ITEM_CONTEXT.runningRun;
  if (fork && run.status === 'diverged' && !run.crashed) return ITEM_CONTEXT.divergedForkRun;
  return fork ? ITEM_CONTEXT.forkRun : ITEM_CONTEXT.run;
}

/** A run: status icon, mode, duration and tokens; a run under a debugger says so first (`PAUSED before …`). */
export function runView(run: RunSummary, now: number, live?: LiveMark): NodeView {
  const status = runStatusText(run);
  const parts: string[] = [];
  const attached = live !== undefined && run.status === 'running' && !run.crashed;
  if (attached) parts.push(live.stoppedAt ? `PAUSED ${live.stoppedAt}` : 'ATTACHED');
  else if (run.status === 'diverged' && !run.crashed) parts.push(status);
  else if (status !== 'completed') parts.push(status.toUpperCase());
  if (run.mode !== 'live') parts.push(run.mode);
  parts.push(run.agentId, runDuration(run, now), `${formatTokens(run.inputTokens + run.outputTokens)} tok`);
  if (run.toolErrorCount > 0) parts.push(`${run.toolErrorCount} tool error${run.toolErrorCount > 1 ? 's' : ''}`);
  const tooltip = [
    `**${mdText(run.runId)}** — ${status}${run.mode !== 'live' ? ` (${run.mode})` : ''}`,
    '',
    `Agent ${mdCode(run.agentId)} · started ${formatTime(run.startedAt)}${run.endedAt !== undefined ? ` · ended ${formatTime(run.endedAt)}` : ''}`,
    '',
    `${plural(run.stepCount, 'step')} · ${plural(run.checkpointCount, 'checkpoint')} · ${plural(run.toolCallCount, 'tool call')} (${plural(run.toolErrorCount, 'error')}) · tokens ${run.inputTokens} in / ${run.outputTokens} out`,
  ];
  if (run.crashed) {
    tooltip.push(
      '',
      `$(flame) The recording process${run.ownerPid !== undefined ? ` (pid ${run.ownerPid})` : ''} died before the run ended${run.heartbeatAt !== undefined ? `; last heartbeat ${formatTime(run.heartbeatAt)}` : ''}. The run is incomplete.`,
    );
  }
  if (attached) {
    tooltip.push(
      '',
      live.stoppedAt
        ? `$(debug-pause) Stopped by ${mdText(live.client)} ${mdText(live.stoppedAt)}: the agent waits until you continue.`
        : `$(debug-alt) ${mdText(live.client)} is attached: the agent stops at its breakpoints.`,
    );
  }
  if (run.parentRunId)
    tooltip.push('', `Forked from ${mdCode(run.parentRunId)} at ${mdCode(run.forkFromCheckpointId ?? '?')}`);
  const stopped = run.status === 'diverged' ? readRunError(run.error)?.message : undefined;
  if (stopped !== undefined) tooltip.push('', `$(git-compare) ${mdText(shorten(stopped, 300))}`);
  else if (run.error !== undefined) tooltip.push('', `Error: ${mdText(shorten(toJson(run.error, 0), 300))}`);
  return {
    label: runLabel(run),
    description: parts.join(' · '),
    tooltip: tooltip.join('\n'),
    icon: attached
      ? live.stoppedAt
        ? { id: 'debug-pause', color: 'debugIcon.pauseForeground' }
        : { id: 'debug-alt', color: 'debugIcon.startForeground' }
      : runIcon(run),
    contextValue: runContextValue(run),
    collapsible: 'collapsed',
  };
}

export function loadMoreView(shown: number, total: number): NodeView {
  return {
    label: 'Load more…',
    description: `${shown} of ${total} runs shown`,
    icon: { id: 'ellipsis' },
    contextValue: ITEM_CONTEXT.loadMore,
    collapsible: 'none',
    command: { id: COMMANDS.loadMore.id, title: 'Load more runs', args: [] },
  };
}

/** A ReAct step: its checkpoints and the tools it called. */
export function stepView(stepIndex: number, checkpoints: readonly CheckpointSummary[]): NodeView {
  const tools = [
    ...new Set(checkpoints.filter((c) => c.boundary === 'before_tool_call').map((c) => c.toolName ?? '?')),
  ];
  const usage = checkpoints.reduce((n, c) => n + (c.usage ? c.usage.inputTokens + c.usage.outputTokens : 0), 0);
  const parts = [plural(checkpoints.length, 'checkpoint')];
  if (tools.length > 0) parts.push(tools.join(', '));
  if (usage > 0) parts.push(`${formatTokens(usage)} tok`);
  return {
    label: stepIndex < 0 ? 'End' : `Step ${stepIndex}`,
    description: parts.join(' · '),
    icon: { id: stepIndex < 0 ? 'debug-stop' : 'layers' },
    contextValue: ITEM_CONTEXT.step,
    collapsible: 'collapsed',
  };
}

/**
 * A checkpoint: `[index] boundary`, with the tool (and its error) or the model turn's finish reason, and how long a
 * live debugger held the agent at the stop before (`previous`: the checkpoint before, which says where).
 */
export function checkpointView(c: CheckpointSummary, call?: ToolCallRecord, previous?: CheckpointSummary): NodeView {
  const parts: string[] = [];
  let icon: NodeView['icon'] = { id: BOUNDARY_ICON[c.boundary] };
  if (c.toolName) parts.push(c.toolName);
  if (c.boundary === 'after_tool_call' && call && toolOutcomeOf(call) === 'cancelled') {
    parts.push(`⊘ cancelled`);
    icon = { id: 'circle-slash' };
  } else if (c.boundary === 'after_tool_call' && call?.error !== undefined) {
    parts.push(`✗ ${shorten(errorText(call.error), 60)}`);
    icon = { id: 'error', color: 'list.errorForeground' };
  }
  if (c.boundary === 'before_tool_call' && call) {
    icon = {
      id: BOUNDARY_ICON[c.boundary],
      ...(SIDE_EFFECT_BADGE[call.sideEffectLevel].color
        ? { color: SIDE_EFFECT_BADGE[call.sideEffectLevel].color }
        : {}),
    };
    parts.push(call.sideEffectLevel);
  }
  if (c.finishReason) parts.push(`finish ${c.finishReason}`);
  if (c.usage)
    parts.push(
      `${formatTokens(c.usage.inputTokens + c.usage.outputTokens)} tok${c.usage.captured ? ' (captured)' : ''}`,
    );
  parts.push(plural(c.messageCount, 'msg'));
  // a model call's hold (or one at any stop not before a tool), as a tool call's entry shows its own
  if (c.heldMs) parts.push(`held ${formatDuration(c.heldMs)}`);
  const tooltip = `Checkpoint ${mdCode(c.checkpointId)} · step ${c.stepIndex} · ${formatTime(c.createdAt)}`;
  const held = c.heldMs
    ? `\n\n$(debug-pause) ${capitalized(heldText(formatDuration(c.heldMs), checkpointHoldPlace(c.boundary, previous?.boundary)))}`
    : '';
  return {
    label: `[${c.index}] ${c.boundary}`,
    description: parts.join(' · '),
    tooltip: `${tooltip}${held}`,
    icon,
    contextValue: ITEM_CONTEXT.checkpoint,
    collapsible: 'none',
  };
}

export function ledgerView(calls: readonly ToolCallRecord[]): NodeView {
  const errors = calls.filter((c) => toolOutcomeOf(c) === 'error').length;
  const cancelled = calls.filter((c) => toolOutcomeOf(c) === 'cancelled').length;
  const risky = calls.filter(
    (c) => c.sideEffectLevel === 'write' || c.sideEffectLevel === 'external_irreversible',
  ).length;
  const parts = [plural(calls.length, 'call')];
  if (errors > 0) parts.push(`${errors} error${errors > 1 ? 's' : ''}`);
  if (cancelled > 0) parts.push(`${cancelled} cancelled`);
  if (risky > 0) parts.push(`${risky} with side effects`);
  return {
    label: 'Tool Ledger',
    description: parts.join(' · '),
    icon: { id: 'book' },
    contextValue: ITEM_CONTEXT.ledger,
    collapsible: calls.length > 0 ? 'collapsed' : 'none',
  };
}

/** Text of a recorded tool error (`{ name, message }` or anything). */
export function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'message' in error && typeof error.message === 'string') {
    const name = 'name' in error && typeof error.name === 'string' ? `${error.name}: ` : '';
    return `${name}${error.message}`;
  }
  return toJson(error, 0);
}

/** A ledger entry: side-effect badge (icon + tooltip), policy, duration, error. */
export function toolCallView(call: ToolCallRecord): NodeView {
  const badge = SIDE_EFFECT_BADGE[call.sideEffectLevel];
  const cancelled = toolOutcomeOf(call) === 'cancelled';
  const failed = call.error !== undefined && !cancelled;
  const parts: string[] = [call.sideEffectLevel, call.replayPolicy];
  const own = toolOwnMs(call);
  parts.push(own === undefined ? 'unfinished' : formatDuration(own));
  if (call.heldMs) parts.push(`held ${formatDuration(call.heldMs)}`);
  if (failed) parts.unshift(`✗ ${shorten(errorText(call.error), 60)}`);
  if (cancelled) parts.unshift('⊘ cancelled');
  // a live debugger changed the call before it ran (its args are those it ran with)
  if (call.liveEdit) parts.unshift(call.liveEdit.mocked ? '✎ mocked live' : '✎ edited live');
  const tooltip = [
    `**${mdText(call.toolName)}** · ${mdCode(call.toolCallId)}`,
    '',
    `$(${badge.icon}) **${call.sideEffectLevel}**: ${SIDE_EFFECT_TEXT[call.sideEffectLevel]}`,
    '',
    `Replay policy **${call.replayPolicy}**: ${POLICY_TEXT[call.replayPolicy]}`,
    '',
    `Args: ${mdCode(shorten(toJson(call.args, 0), 200))}`,
  ];
  if (call.heldMs)
    tooltip.push('', `$(debug-pause) ${capitalized(heldText(formatDuration(call.heldMs), 'before it ran'))}`);
  if (call.liveEdit) {
    tooltip.push(
      '',
      call.liveEdit.mocked
        ? `$(edit) Not run: ${mdText(call.liveEdit.editedBy)} gave its outcome at a live stop (${formatTime(call.liveEdit.at)}).`
        : `$(edit) Edited by ${mdText(call.liveEdit.editedBy)} at a live stop (${formatTime(call.liveEdit.at)}): it ran with these args.`,
    );
  }
  if (cancelled) tooltip.push('', `$(circle-slash) Cancelled: ${mdText(shorten(errorText(call.error), 300))}`);
  else if (failed) tooltip.push('', `$(error) Error: ${mdText(shorten(errorText(call.error), 300))}`);
  else if (call.result !== undefined) tooltip.push('', `Result: ${mdCode(shorten(toJson(call.result, 0), 200))}`);
  return {
    label: call.toolName,
    description: parts.join(' · '),
    tooltip: tooltip.join('\n'),
    icon: { id: badge.icon, ...(badge.color ? { color: badge.color } : {}) },
    contextValue: ITEM_CONTEXT.toolCall,
    collapsible: 'none',
  };
}

/** Groups a run's checkpoints by ReAct step, in run order (agent_end's step -1 last). */
export function groupBySteps(
  checkpoints: readonly CheckpointSummary[],
): { stepIndex: number; checkpoints: CheckpointSummary[] }[] {
  const groups = new Map<number, CheckpointSummary[]>();
  for (const c of checkpoints) {
    const list = groups.get(c.stepIndex);
    if (list) list.push(c);
    else groups.set(c.stepIndex, [c]);
  }
  return [...groups].map(([stepIndex, list]) => ({ stepIndex, checkpoints: list }));
}

/** The Artifacts node of a run: how many it has (the newest version of each name). */
export function artifactsView(refs: readonly ArtifactRef[]): NodeView {
  return {
    label: 'Artifacts',
    description: `${refs.length} artifact${refs.length === 1 ? '' : 's'}`,
    icon: { id: 'files' },
    contextValue: ITEM_CONTEXT.artifacts,
    collapsible: refs.length > 0 ? 'collapsed' : 'none',
  };
}

/** What a tree item knows of an artifact's content: its size and whether it is text (undefined: not in the store). */
export interface ArtifactContentFacts {
  size: number;
  text: boolean;
}

/** An artifact: type, size, version; a click opens its content read-only (`open`: the command and its arguments). */
export function artifactView(
  ref: ArtifactRef,
  content: ArtifactContentFacts | undefined,
  open: { id: string; args: unknown[] } | undefined,
): NodeView {
  const parts = [ref.type, content ? byteSize(content.size) : 'content not in this store'];
  if (ref.version > 1) parts.push(`v${ref.version}`);
  if (content && !content.text) parts.push('binary');
  const metadata = Object.keys(ref.metadata).length > 0 ? toJson(ref.metadata, 0) : undefined;
  const tooltip = [
    `**${mdText(ref.artifactId)}** · ${mdText(ref.type)} · version ${ref.version}`,
    '',
    `Content ${mdCode(ref.contentHash)}${content ? ` · ${content.size} bytes` : ''} · recorded ${formatTime(ref.createdAt)}`,
  ];
  if (metadata !== undefined) tooltip.push('', `Metadata: ${mdCode(shorten(metadata, 200))}`);
  const image = /^image\//i.test(ref.type);
  return {
    label: ref.artifactId,
    description: parts.join(' · '),
    tooltip: tooltip.join('\n'),
    icon: { id: image ? 'file-media' : content && !content.text ? 'file-binary' : 'file' },
    contextValue: ITEM_CONTEXT.artifact,
    collapsible: 'none',
    ...(open ? { command: { id: open.id, title: 'Open Artifact', args: open.args } } : {}),
  };
}

/** "Held 1.5 s by the debugger …": heldText's words opening a sentence. */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
