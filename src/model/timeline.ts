/**
 * The Timeline's data: a run and its lineage (forks, sub-agent runs) as summaries only — per run its checkpoints
 * as parallel columns (time, step, boundary), its model and tool calls with their timings, tokens, side-effect
 * levels and outcomes, its live edits, where it forks from its parent and where it diverged. What the store's
 * summary query answers (replay/timeline.ts) and what both Timeline pages draw (the VS Code panel and
 * `ocdb view`'s file), which it reaches as timelineWire.ts's columns. Never a checkpoint's messages or a call's arguments. Pure, browser-safe.
 */
// zod's mini build: the page bundle that parses these (inlined in every `ocdb view` file) stays small
import * as z from 'zod/mini';
import { heldText } from './holds';

/** Boundaries by their code in `TimelineRun.cpBoundary` (the order of CHECKPOINT_BOUNDARIES). */
export const TIMELINE_BOUNDARIES = [
  'before_prompt_build',
  'before_model_call',
  'after_model_call',
  'before_tool_call',
  'after_tool_call',
  'agent_end',
] as const;

export const TIMELINE_SIDE_EFFECTS = ['none', 'read_only', 'expensive_read', 'write', 'external_irreversible'] as const;

export const TimelineCallSchema = z.object({
  kind: z.enum(['model', 'tool']),
  /** Index of the checkpoint the call starts at (before_model_call / before_tool_call): the `[n]` the UI shows. */
  cp: z.int(),
  /** Index of the checkpoint it ends at, when it ended. */
  endCp: z.optional(z.int()),
  step: z.int(),
  start: z.number(),
  end: z.optional(z.number()),
  /** The tool's name, or "model call". */
  name: z.string(),
  toolCallId: z.optional(z.string()),
  sideEffect: z.optional(z.enum(TIMELINE_SIDE_EFFECTS)),
  /** How a tool call ended; `running` while open. */
  state: z.optional(z.enum(['running', 'success', 'error', 'cancelled'])),
  tokensIn: z.optional(z.number()),
  tokensOut: z.optional(z.number()),
  /** A re-emitted (captured) turn that spent no tokens. */
  captured: z.optional(z.boolean()),
  /** The call's arguments were edited at a live stop. */
  edited: z.optional(z.boolean()),
  /** How long a live debugger held the agent before the tool ran or the model was called (ms): part of end − start, not the call's own time. */
  held: z.optional(z.number()),
});
export type TimelineCall = z.infer<typeof TimelineCallSchema>;

export const TimelineRunSchema = z.object({
  runId: z.string(),
  agentId: z.string(),
  /** `run` (the one asked for), `fork` (of a run shown), `subagent` (started by a tool call of a run shown). */
  kind: z.enum(['run', 'fork', 'subagent']),
  /** The run this one hangs from (a fork's parent, a sub-agent's caller). */
  parentRunId: z.optional(z.string()),
  /** A fork's fork point: the parent's checkpoint index it continues from. */
  forkIndex: z.optional(z.int()),
  /** A sub-agent's caller: the tool call of the parent that started it. */
  calledBy: z.optional(z.string()),
  status: z.string(),
  /** How the status reads everywhere: "completed", "crashed", "diverged at step 5 · system prompt". */
  statusText: z.string(),
  startedAt: z.number(),
  endedAt: z.optional(z.number()),
  stepCount: z.int(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  /** Checkpoints as columns: createdAt, stepIndex, boundary code (TIMELINE_BOUNDARIES). */
  cpAt: z.array(z.number()),
  cpStep: z.array(z.number()),
  cpBoundary: z.array(z.number()),
  calls: z.array(TimelineCallSchema),
  /** Checkpoint indexes where an edit was applied at a live stop (✎). */
  liveEdits: z.array(z.int()),
  /** Where the fork diverged: its step and (when it has one) its own checkpoint holding the prompt. */
  divergence: z.optional(z.object({ stepIndex: z.int(), cp: z.optional(z.int()) })),
  /** A live run paused at a checkpoint by its debugger (PAUSED before a tool). */
  pausedAt: z.optional(z.int()),
});
export type TimelineRun = z.infer<typeof TimelineRunSchema>;

export const TimelineSchema = z.object({
  rootRunId: z.string(),
  /** The root first; each fork and sub-agent after the run it hangs from (depth first). */
  runs: z.array(TimelineRunSchema),
});
export type Timeline = z.infer<typeof TimelineSchema>;

/** A call's summary line, as hovers and the screen-reader list read it. */
export function timelineCallText(call: TimelineCall): string {
  const parts = [`[${call.cp}] step ${call.step}`, call.name];
  if (call.sideEffect) parts.push(call.sideEffect);
  if (call.state && call.state !== 'success') parts.push(call.state === 'running' ? 'running' : call.state);
  if (call.end !== undefined) parts.push(`${formatDuration(Math.max(0, call.end - call.start - (call.held ?? 0)))}`);
  if (call.held) parts.push(heldText(formatDuration(call.held)));
  if (call.tokensIn !== undefined || call.tokensOut !== undefined)
    parts.push(`${call.tokensIn ?? 0} in / ${call.tokensOut ?? 0} out tokens${call.captured ? ' (captured)' : ''}`);
  if (call.edited) parts.push('✎ edited live');
  return parts.join(' · ');
}

/** "12 ms", "3.4 s", "2 min 5 s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** " · PAUSED before lookup_order at [3]": a live run its debugger holds, as its lane and the status bar say it. */
function pausedText(run: TimelineRun): string {
  const at = run.pausedAt;
  if (at === undefined) return '';
  const tool = run.calls.find((c) => c.kind === 'tool' && c.cp === at);
  return tool ? ` · PAUSED before ${tool.name} at [${at}]` : ` · PAUSED at [${at}]`;
}

/** A run's one-line description: "fork of demo-support-refund at [12] · diverged at step 3 · system prompt". */
export function timelineRunText(run: TimelineRun): string {
  const where =
    run.kind === 'fork'
      ? `fork of ${run.parentRunId ?? '?'} at [${run.forkIndex ?? '?'}]`
      : run.kind === 'subagent'
        ? `sub-agent of ${run.parentRunId ?? '?'}`
        : 'run';
  const n = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
  return `${run.runId}: ${where} · ${run.statusText}${pausedText(run)} · ${n(run.cpAt.length, 'checkpoint')} · ${n(run.stepCount, 'step')} · ${run.inputTokens} in / ${run.outputTokens} out tokens`;
}
