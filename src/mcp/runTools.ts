/**
 * The MCP tools that find runs and summarise one: `find_runs` (by agent, status, mode, time, text, metadata,
 * parent) and `run_summary` (counts, tokens, how and where it failed — step, checkpoint, tool call and error —,
 * its tools, its forks, its divergence, its steps). Read-only, over the RunStore contract.
 */
import { z } from 'zod';
import {
  OcdbError,
  RUN_MODES,
  RUN_STATUSES,
  canonicalJson,
  readRunError,
  runStatusText,
  type ToolCallRecord,
} from '../model';
import type { CheckpointSummary, RunStore, RunSummary } from '../store';
import { DEFAULT_CLIP, SMALL_CLIP, clip, fitItems, type ClipReport } from './bounded';
import { UNITS, callLine, callOutcome, callPlaces, divergenceOf, iso, runLine } from './shapes';
import { defineTool, type ToolResultBody } from './toolContext';

/** Runs a filter that the store cannot apply reads, at most, per call (summaries only). */
const MAX_SCAN = 50_000;
const SCAN_PAGE = 1_000;

const FIND_STATUSES = [...RUN_STATUSES, 'crashed'] as const;
const Scalar = z.union([z.string(), z.number(), z.boolean()]);

const FindRunsInput = z
  .object({
    agentId: z.string().min(1).optional().describe('Only runs of this agent id.'),
    status: z
      .enum(FIND_STATUSES)
      .optional()
      .describe('Only runs of this status; "crashed": the recording process died, "running" excludes those.'),
    mode: z.enum(RUN_MODES).optional().describe('live: recorded; fork / replay: made from another run.'),
    text: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Case-insensitive text in the run id, agent id, session id, metadata or error message.'),
    metadata: z
      .record(z.string(), Scalar)
      .optional()
      .describe('Metadata fields that must equal these values; a dotted key ("fork.kind") reads a nested field.'),
    since: z.string().optional().describe('Only runs started at or after this time (ISO 8601, e.g. 2026-11-02).'),
    until: z.string().optional().describe('Only runs started before this time (ISO 8601).'),
    parentRunId: z.string().min(1).optional().describe('Only forks (and replays) made from this run.'),
    offset: z.number().int().min(0).default(0).describe('Runs to skip (newest first): the nextOffset of a page.'),
    limit: z.number().int().min(1).max(100).default(20).describe('Runs per page.'),
  })
  .strict();

function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t)) {
    throw new OcdbError('InvalidInput', `${field}: "${value}" is not a time; give ISO 8601 (2026-11-02T10:00:00Z).`, {
      path: field,
    });
  }
  return t;
}

function fieldAt(root: Record<string, unknown>, dotted: string): unknown {
  if (Object.hasOwn(root, dotted)) return root[dotted];
  let cur: unknown = root;
  for (const key of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

export const findRunsTool = defineTool({
  name: 'find_runs',
  title: 'Find runs',
  description:
    'Lists recorded agent runs, newest first, with status ("failed", "crashed", "diverged at step 5 · system prompt"), steps, tool calls, tool errors and tokens. Filter by agent, status, mode, time, text or metadata; page with offset/limit. Start here; then call run_summary with a runId.',
  input: FindRunsInput,
  readOnly: true,
  run(ctx, args) {
    const store = ctx.store();
    const since = timeOf(args.since, 'since');
    const until = timeOf(args.until, 'until');
    const text = args.text?.toLowerCase();
    const metadata = Object.entries(args.metadata ?? {});
    const storeStatus = args.status === 'crashed' ? 'running' : args.status;
    const base = {
      ...(args.agentId !== undefined ? { agentId: args.agentId } : {}),
      ...(storeStatus !== undefined ? { status: storeStatus } : {}),
      ...(args.mode !== undefined ? { mode: args.mode } : {}),
      ...(args.parentRunId !== undefined ? { parentRunId: args.parentRunId } : {}),
    };
    const inMemory =
      args.status === 'crashed' ||
      args.status === 'running' ||
      since !== undefined ||
      until !== undefined ||
      text !== undefined ||
      metadata.length > 0;
    const report: ClipReport = { clipped: false };
    let runs: RunSummary[];
    let total: number | undefined;
    let scanned: number | undefined;
    if (!inMemory) {
      const page = store.listRuns({ ...base, offset: args.offset, limit: args.limit });
      runs = page.runs;
      total = page.total;
    } else {
      const matches = (r: RunSummary): boolean => {
        if (args.status === 'crashed' && !r.crashed) return false;
        if (args.status === 'running' && r.crashed) return false;
        if (since !== undefined && r.startedAt < since) return false;
        if (until !== undefined && r.startedAt >= until) return false;
        for (const [key, value] of metadata) if (fieldAt(r.metadata, key) !== value) return false;
        if (text !== undefined) {
          const error = readRunError(r.error);
          const hay = `${r.runId}\n${r.agentId}\n${r.sessionId}\n${canonicalJson(r.metadata)}\n${error?.message ?? ''}`;
          if (!hay.toLowerCase().includes(text)) return false;
        }
        return true;
      };
      const found: RunSummary[] = [];
      let count = 0;
      scanned = 0;
      for (let offset = 0; scanned < MAX_SCAN; offset += SCAN_PAGE) {
        const page = store.listRuns({ ...base, offset, limit: SCAN_PAGE });
        for (const r of page.runs) {
          if (!matches(r)) continue;
          if (count >= args.offset && found.length < args.limit) found.push(r);
          count++;
        }
        scanned += page.runs.length;
        if (page.runs.length < SCAN_PAGE) break;
      }
      runs = found;
      total = count;
    }
    const fitted = fitItems(runs.map(runLine), args.offset, ctx.maxChars - 1_500, report, total);
    return {
      body: {
        store: ctx.storeLabel,
        runs: fitted.items,
        page: fitted.page,
        ...(scanned !== undefined && scanned >= MAX_SCAN
          ? { note: `Only the newest ${MAX_SCAN} runs were searched; narrow by agentId, status or mode.` }
          : {}),
        units: UNITS,
        next: 'run_summary {runId} for one run; tool_calls {runId, outcome: "error"} for its failed calls.',
      },
      report,
      hint:
        fitted.page.nextOffset !== undefined
          ? `Call find_runs again with offset ${fitted.page.nextOffset} for the next runs.`
          : undefined,
    } satisfies ToolResultBody;
  },
});

const RunSummaryInput = z.object({ runId: z.string().min(1).describe('The run id (from find_runs).') }).strict();

/** The call a run failed at: the one its error names, else its last call that ended in an error. */
function failingCall(run: RunSummary, calls: readonly ToolCallRecord[]): ToolCallRecord | undefined {
  const error = readRunError(run.error);
  const named = typeof error?.tool === 'string' ? error.tool : undefined;
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i] as ToolCallRecord;
    if (callOutcome(c) === 'error' && (named === undefined || c.toolName === named)) return c;
  }
  return undefined;
}

/** Per step: where it starts and ends, the tools it called, its tokens. */
function stepLines(summaries: readonly CheckpointSummary[]): Record<string, unknown>[] {
  const steps = new Map<number, { from: number; to: number; tools: string[]; tokens: number }>();
  for (const s of summaries) {
    const step = steps.get(s.stepIndex) ?? { from: s.index, to: s.index, tools: [], tokens: 0 };
    step.to = s.index;
    if (s.boundary === 'before_tool_call' && s.toolName !== undefined) step.tools.push(s.toolName);
    if (s.usage && !s.usage.captured) step.tokens += s.usage.inputTokens + s.usage.outputTokens;
    steps.set(s.stepIndex, step);
  }
  return [...steps.entries()].map(([step, v]) => ({
    step: step === -1 ? 'end' : step,
    checkpoints: `${v.from}-${v.to}`,
    ...(v.tools.length > 0 ? { tools: v.tools } : {}),
    ...(v.tokens > 0 ? { tokens: v.tokens } : {}),
  }));
}

/** The body of run_summary (and of the `ocdb://run/<id>` resource). */
export function runSummaryBody(store: RunStore, runId: string, maxChars: number, report: ClipReport) {
  const run = store.getRun(runId);
  const summaries = store.listCheckpoints(runId);
  const places = callPlaces(summaries);
  const calls = store.listToolCallsView(runId);
  const facts = store.listToolCallFacts(runId);
  const byTool = new Map<string, { calls: number; errors: number; sideEffectLevel: string; replayPolicy: string }>();
  const errors: Record<string, unknown>[] = [];
  facts.forEach((f, i) => {
    const entry = byTool.get(f.toolName) ?? {
      calls: 0,
      errors: 0,
      sideEffectLevel: f.sideEffectLevel,
      replayPolicy: f.replayPolicy,
    };
    entry.calls++;
    byTool.set(f.toolName, entry);
    // a record is read (arguments and result) only when the run has errors to find among them
    if (run.toolErrorCount === 0 || i >= calls.length) return;
    const record = calls[i] as ToolCallRecord;
    if (record.error !== undefined && callOutcome(record) === 'error') {
      entry.errors++;
      if (errors.length < 10) errors.push(callLine(record, places.get(record.toolCallId), report));
    }
  });
  const error = readRunError(run.error);
  const divergence = divergenceOf(run);
  const status = runStatusText(run);
  let failure: Record<string, unknown> | undefined;
  if (run.status === 'failed' || run.status === 'cancelled' || run.crashed) {
    const call = failingCall(run, calls);
    const last = summaries.at(-1);
    failure = {
      status,
      ...(error?.message !== undefined ? { message: error.message } : {}),
      ...(call
        ? { at: callLine(call, places.get(call.toolCallId), report, DEFAULT_CLIP) }
        : last
          ? { lastCheckpoint: { index: last.index, checkpointId: last.checkpointId, step: last.stepIndex } }
          : {}),
      ...(run.crashed ? { why: 'the recording process died (its pid is gone or its heartbeat stopped)' } : {}),
    };
  }
  const forkPage = store.listRuns({ parentRunId: runId, limit: 20 });
  const forkFrom =
    run.forkFromCheckpointId !== undefined && run.parentRunId !== undefined && store.hasRun(run.parentRunId)
      ? store.getCheckpointSummary(run.forkFromCheckpointId)
      : undefined;
  const steps = fitItems(stepLines(summaries), 0, Math.floor(maxChars / 4), report);
  const artifacts = store.listArtifacts(runId);
  return {
    run: {
      ...runLine(run),
      sessionId: run.sessionId,
      ...(run.endedAt !== undefined ? { endedAt: iso(run.endedAt) } : {}),
      tokens: { input: run.inputTokens, output: run.outputTokens },
      ...(forkFrom
        ? {
            forkedFrom: {
              runId: run.parentRunId,
              checkpointIndex: forkFrom.index,
              checkpointId: forkFrom.checkpointId,
              step: forkFrom.stepIndex,
            },
          }
        : {}),
      metadata: clip(run.metadata, SMALL_CLIP, report),
      ...(run.error !== undefined ? { error: clip(run.error, DEFAULT_CLIP, report) } : {}),
    },
    ...(failure ? { failure } : {}),
    ...(divergence ? { divergence } : {}),
    toolErrors: errors,
    tools: Object.fromEntries(byTool),
    forks: {
      total: forkPage.total,
      runs: forkPage.runs.map((f) => ({
        runId: f.runId,
        status: runStatusText(f),
        mode: f.mode,
        ...(f.forkFromCheckpointId !== undefined ? { forkFromCheckpointId: f.forkFromCheckpointId } : {}),
      })),
    },
    steps: { items: steps.items, page: steps.page },
    artifacts: artifacts.slice(0, 20).map((a) => ({ name: a.artifactId, version: a.version, type: a.type })),
  };
}

export const runSummaryTool = defineTool({
  name: 'run_summary',
  title: 'Summarise a run',
  description:
    'One run in a page: status, steps, checkpoints, tool calls per tool, tool errors (with step, checkpoint index and error), tokens, and — for a failed, cancelled or crashed run — the step, checkpoint and tool call it failed at and why; a diverged fork says "diverged at step N" and what differed. Also its forks and its parent.',
  input: RunSummaryInput,
  readOnly: true,
  run(ctx, args) {
    const report: ClipReport = { clipped: false };
    const body = runSummaryBody(ctx.store(), args.runId, ctx.maxChars, report);
    return {
      body: {
        ...body,
        units: UNITS,
        next: `read_checkpoints {runId: "${args.runId}", offset: <checkpointIndex>, detail: "state"} around a failure; tool_calls for the whole ledger; compare_runs with a fork.`,
      },
      report,
      hint: 'Steps, errors and forks are the first of their lists: read_checkpoints and tool_calls page through the rest.',
    };
  },
});
