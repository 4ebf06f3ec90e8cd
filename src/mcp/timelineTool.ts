/**
 * The MCP tool `run_timeline`: a run and its lineage (forks at every depth, sub-agent runs) as the Timeline shows
 * them (replay/timeline.ts `timelineOf`, from the store's summaries only: a 20,000-checkpoint run costs its rows),
 * told as a summary per lane — where it hangs from, its status ("diverged at step 5 · system prompt"), steps,
 * time (and the part of it live debuggers held the agent: the calls' and the checkpoints' `heldMs`), tokens, its
 * calls by kind and side-effect level — and its notable calls (errors, cancelled, still running,
 * write and irreversible ones, live edits), each with the checkpoint index read_checkpoints takes. Read-only.
 */
import { z } from 'zod';
import { timelineCallText, type TimelineCall, type TimelineRun } from '../model/timeline';
import { timelineOf } from '../replay/timeline';
import { fitItems, type ClipReport } from './bounded';
import { defineTool } from './toolContext';

const TimelineInput = z
  .object({
    runId: z.string().min(1).describe('The run (from find_runs); its forks and sub-agent runs come with it.'),
    withForks: z.boolean().default(true).describe('Include the forks of the run (and of its forks).'),
    withSubagents: z.boolean().default(true).describe('Include the sub-agent runs its tool calls started.'),
    maxRuns: z.number().int().min(1).max(100).default(20).describe('At most this many lanes, the run first.'),
    notablePerRun: z.number().int().min(0).max(50).default(12).describe('Notable calls listed per lane.'),
  })
  .strict();

const HAZARDOUS = new Set(['write', 'external_irreversible']);

/** A call worth naming: it failed, was cancelled, is still open, writes or cannot be undone, or was edited live. */
function notable(c: TimelineCall): boolean {
  return (
    c.kind === 'tool' &&
    ((c.state !== undefined && c.state !== 'success') || HAZARDOUS.has(c.sideEffect ?? '') || c.edited === true)
  );
}

/**
 * How long live debuggers held the lane's agent (ms), apart from its duration: at the stops before its tools (the
 * calls' `heldMs`) and at its other stops (the checkpoints' `heldMs`, before and after model calls); none when 0.
 */
function holdsOf(r: TimelineRun, checkpointHolds: readonly (number | undefined)[]): Record<string, number> | undefined {
  let toolCalls = 0;
  for (const c of r.calls) if (c.kind === 'tool') toolCalls += c.held ?? 0;
  let atStops = 0;
  for (const h of checkpointHolds) atStops += h ?? 0;
  return toolCalls + atStops > 0
    ? { total: toolCalls + atStops, beforeToolCalls: toolCalls, atOtherStops: atStops }
    : undefined;
}

function lane(
  r: TimelineRun,
  notablePerRun: number,
  checkpointHolds: readonly (number | undefined)[],
): Record<string, unknown> {
  const held = holdsOf(r, checkpointHolds);
  const tools = r.calls.filter((c) => c.kind === 'tool');
  const bySideEffect: Record<string, number> = {};
  for (const c of tools) bySideEffect[c.sideEffect ?? 'unknown'] = (bySideEffect[c.sideEffect ?? 'unknown'] ?? 0) + 1;
  const byState: Record<string, number> = {};
  for (const c of tools) byState[c.state ?? 'success'] = (byState[c.state ?? 'success'] ?? 0) + 1;
  const marks = tools.filter(notable);
  const first = r.cpAt[0];
  const last = r.endedAt ?? r.cpAt.at(-1);
  return {
    runId: r.runId,
    agentId: r.agentId,
    kind: r.kind,
    ...(r.parentRunId ? { parentRunId: r.parentRunId } : {}),
    ...(r.forkIndex !== undefined ? { forkedAtCheckpoint: r.forkIndex } : {}),
    ...(r.calledBy ? { calledByToolCall: r.calledBy } : {}),
    status: r.statusText,
    steps: r.stepCount,
    checkpoints: r.cpAt.length,
    durationMs: first !== undefined && last !== undefined ? last - first : 0,
    // part of durationMs: time the agent waited at a debugger's stops, not its tools' or model's own
    ...(held ? { heldByDebuggerMs: held } : {}),
    tokens: { input: r.inputTokens, output: r.outputTokens },
    modelCalls: r.calls.length - tools.length,
    toolCalls: { total: tools.length, bySideEffect, byOutcome: byState },
    ...(r.divergence ? { divergence: r.divergence } : {}),
    ...(r.pausedAt !== undefined ? { pausedAtCheckpoint: r.pausedAt } : {}),
    ...(r.liveEdits.length > 0 ? { liveEditsAtCheckpoints: r.liveEdits.slice(0, 20) } : {}),
    notableCalls: marks.slice(0, notablePerRun).map((c) => ({
      checkpoint: c.cp,
      ...(c.toolCallId ? { toolCallId: c.toolCallId } : {}),
      ...(c.held ? { heldByDebuggerMs: c.held } : {}),
      text: timelineCallText(c),
    })),
    ...(marks.length > notablePerRun ? { notableCallsNotListed: marks.length - notablePerRun } : {}),
  };
}

export const runTimelineTool = defineTool({
  name: 'run_timeline',
  title: 'Timeline of a run and its forks',
  description:
    "A run's timeline with its lineage: one lane per run (the run, then its forks at every depth and the sub-agent runs its tool calls started), each with where it hangs from (fork point checkpoint, calling tool call), status (e.g. \"diverged at step 5 · system prompt\"), steps, duration, tokens, model and tool calls by side-effect level and outcome, heldByDebuggerMs where a live debugger held the agent (part of the duration, not the tools' or model's own time), and its notable calls — errors, cancelled, running, write / irreversible, live edits — with checkpoint indexes for read_checkpoints. Read from summaries only: cheap on runs of any length.",
  input: TimelineInput,
  readOnly: true,
  run(ctx, args) {
    const report: ClipReport = { clipped: false };
    const t = timelineOf(ctx.store(), args.runId, {
      withForks: args.withForks,
      withSubagents: args.withSubagents,
      maxRuns: args.maxRuns + 1,
    });
    // the checkpoints' holds (at stops other than before a tool) are not on the Timeline's lanes: read by column
    const lanes = t.runs
      .slice(0, args.maxRuns)
      .map((r) => lane(r, args.notablePerRun, ctx.store().listCheckpointMarks(r.runId).heldMs));
    if (t.runs.length > args.maxRuns || lanes.some((l) => l.notableCallsNotListed !== undefined)) report.clipped = true;
    const fitted = fitItems(lanes, 0, ctx.maxChars - 1_000, report);
    return {
      body: { rootRunId: t.rootRunId, runs: fitted.items, lanesListed: fitted.items.length },
      report,
      hint:
        t.runs.length > args.maxRuns || fitted.page.nextOffset !== undefined
          ? 'More runs hang from this one: call run_timeline on a fork (its runId) for its own lineage, or raise maxRuns.'
          : 'tool_calls {runId, outcome: "error"} lists a lane\'s failed calls whole; read_checkpoints at a checkpoint shows its state.',
    };
  },
});
