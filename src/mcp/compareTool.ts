/**
 * The MCP tool `compare_runs`: two runs through the one comparison engine (replay/runComparison.ts, as `ocdb
 * diff` and Compare Runs): relation and fork point, the context changes, the first divergence, the tools called
 * differently, token / time / call deltas, and the steps that differ (paged), each side clipped. Read-only.
 */
import { z } from 'zod';
import { compareRuns, type StepComparison, type StepSide } from '../replay/runComparison';
import { comparisonSummary } from '../replay/comparisonText';
import { SMALL_CLIP, clip, fitItems, type ClipReport } from './bounded';
import { defineTool } from './toolContext';

const CompareRunsInput = z
  .object({
    leftRunId: z.string().min(1).describe('The first run (usually the original).'),
    rightRunId: z.string().min(1).describe('The second run (usually a fork of it).'),
    allSteps: z.boolean().default(false).describe('List every step, not only those that differ.'),
    stepOffset: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Steps (of those listed) to skip: the nextOffset of a page.'),
    stepLimit: z.number().int().min(1).max(50).default(8).describe('Steps per page.'),
  })
  .strict();

function side(s: StepSide | undefined, report: ClipReport): Record<string, unknown> | undefined {
  if (!s) return undefined;
  return {
    firstCheckpointId: s.firstCheckpointId,
    ...(s.promptCheckpointId !== undefined ? { promptCheckpointId: s.promptCheckpointId } : {}),
    ...(s.contextChanges.length > 0 ? { contextChanges: clip(s.contextChanges, SMALL_CLIP, report) } : {}),
    ...(s.modelOutput !== undefined ? { modelOutput: clip(s.modelOutput, SMALL_CLIP, report) } : {}),
    toolCalls: s.toolCalls.map((c) => ({
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      outcome: c.outcome,
      args: clip(c.args, SMALL_CLIP, report),
      ...(c.error !== undefined ? { error: clip(c.error, SMALL_CLIP, report) } : {}),
    })),
    tokens: s.tokens,
    durationMs: s.durationMs,
  };
}

function stepLine(s: StepComparison, report: ClipReport): Record<string, unknown> {
  const left = side(s.left, report);
  const right = side(s.right, report);
  return {
    step: s.stepIndex,
    same: s.same,
    ...(s.inherited ? { inherited: true } : {}),
    differences: s.differences,
    ...(left ? { left } : {}),
    ...(right ? { right } : {}),
  };
}

export const compareRunsTool = defineTool({
  name: 'compare_runs',
  title: 'Compare two runs',
  description:
    'Compares two runs (a run and its fork, or two runs of one agent): relation and fork point, the context paths that differ, the first divergence (step, what differed, the checkpoints on both sides), tools called differently, token / duration / tool-call deltas, and the steps that differ with both sides (tool calls, model output). Page the steps with stepOffset.',
  input: CompareRunsInput,
  readOnly: true,
  run(ctx, args) {
    const report: ClipReport = { clipped: false };
    const c = compareRuns(ctx.store(), args.leftRunId, args.rightRunId);
    const listed = args.allSteps ? c.steps : c.steps.filter((s) => !s.same);
    const page = listed.slice(args.stepOffset, args.stepOffset + args.stepLimit).map((s) => stepLine(s, report));
    const summary = comparisonSummary(c);
    const head = {
      summary: clip(summary, { maxString: 300, maxItems: 40, maxDepth: 2 }, report),
      left: c.left,
      right: c.right,
      relation: c.relation,
      ...(c.forkPoint ? { forkPoint: c.forkPoint } : {}),
      contextChanges: clip(c.contextChanges, SMALL_CLIP, report),
      ...(c.firstDivergence ? { firstDivergence: c.firstDivergence } : {}),
      tools: c.tools.slice(0, 30),
      delta: c.delta,
      artifacts: c.artifacts.slice(0, 20).map((a) => ({ name: a.name, change: a.change })),
      stepsCompared: c.steps.length,
      stepsDiffering: c.steps.filter((s) => !s.same).length,
    };
    const budget = ctx.maxChars - JSON.stringify(head).length - 800;
    const fitted = fitItems(page, args.stepOffset, Math.max(2_000, budget), report, listed.length);
    return {
      body: { ...head, steps: fitted.items, page: fitted.page },
      report,
      ...(fitted.page.nextOffset !== undefined
        ? { hint: `Call compare_runs again with stepOffset ${fitted.page.nextOffset} for the next steps.` }
        : { hint: 'read_checkpoints at the checkpoint ids of a step shows its state whole.' }),
    };
  },
});
