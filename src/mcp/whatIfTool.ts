/**
 * The MCP tool `what_if`: one fork configuration replayed over a cohort of runs through the cohort engine
 * (cohort/whatIfBatch.ts, as `ocdb what-if`), so the batch is planned whole before any fork exists and refused
 * while a `write` / `external_irreversible` tool would run again unnamed — the single fork's gate, `*` never
 * unlocking one. The answer is bounded: at most MAX_COHORT runs a call, the cohort's rates, the gate's certificate
 * (every call by side-effect level and how it was answered) and the results paged, each clipped.
 */
import { z } from 'zod';
import { MODEL_MODES, OcdbError, REPLAY_POLICIES, CheckpointBoundarySchema, RunStatusSchema } from '../model';
import { runWhatIf, type WhatIfReport } from '../cohort/whatIfBatch';
import {
  AssertionSchema,
  isModelAssertion,
  type ForkPoint,
  type WhatIfRunResult,
  type WhatIfSpecInput,
} from '../cohort/whatIfSpec';
import { SMALL_CLIP, clip, fitItems, type ClipReport } from './bounded';
import { checkAcknowledged } from './forkTools';
import { defineTool, type ToolContext } from './toolContext';

/** The most runs one call forks: a cohort answer stays readable and a call returns in seconds to minutes. */
export const MAX_COHORT = 200;

const WhatIfInput = z
  .object({
    runIds: z.array(z.string().min(1)).max(MAX_COHORT).optional().describe('Exactly these runs.'),
    agentId: z.string().min(1).optional().describe('Runs of this agent (find_runs lists them).'),
    status: RunStatusSchema.optional().describe('Runs that ended so (default: every run that ended).'),
    metadata: z
      .record(z.string(), z.string())
      .optional()
      .describe('Runs whose metadata holds each key with this value (compared as text).'),
    limit: z.number().int().min(1).max(MAX_COHORT).default(50).describe(`At most this many runs, newest first.`),
    at: z
      .union([
        z.literal('first'),
        z.object({ index: z.number().int().min(0) }).strict(),
        z.object({ step: z.number().int().min(0), boundary: CheckpointBoundarySchema.optional() }).strict(),
        z.object({ expression: z.string().min(1) }).strict(),
      ])
      .default('first')
      .describe(
        'Where each run is forked: "first" (its first checkpoint), {index}, {step, boundary?} (the first checkpoint of that step), or {expression} (the first checkpoint the debugger expression matches, e.g. toolName == "issue_refund").',
      ),
    contextPatch: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Deep-merged into each run\'s runtime context, e.g. {"user": {"roleId": "auditor"}}.'),
    toolPolicy: z
      .record(z.string(), z.enum(REPLAY_POLICIES))
      .optional()
      .describe('Replay policy per tool name or "*": reuse_result answers from the recording (the safe default).'),
    toolMocks: z.record(z.string(), z.unknown()).optional().describe('Results of mock_result tools, by name.'),
    model: z
      .enum(MODEL_MODES)
      .default('captured')
      .describe(
        'captured (default): recorded turns until the prompt differs; recorded; real / override need the endpoint the user configured.',
      ),
    promptVersion: z.string().min(1).optional(),
    acknowledge: z
      .array(z.string().min(1))
      .max(50)
      .optional()
      .describe(
        'Tools the USER agreed may run again although they write or are irreversible, each by name. Never guess.',
      ),
    assertions: z
      .array(AssertionSchema)
      .max(20)
      .optional()
      .describe(
        `Checks over each fork's end state, each also evaluated on its recording: an expression in the debugger's expression language, e.g. {"name": "no_refund", "expression": "!tool('issue_refund')"}; or a yes/no question put to the endpoint the user configured (model-graded, priced like a real-model batch: needs maxCostUsd), e.g. {"name": "polite", "question": "Did the agent answer politely?"}.`,
      ),
    maxCostUsd: z
      .number()
      .min(0)
      .optional()
      .describe(
        'Real / override model only: the budget the user agreed; a batch priced above it (or unpriced) is refused.',
      ),
  })
  .strict();
type WhatIfArgs = z.output<typeof WhatIfInput>;

function forkPoint(at: WhatIfArgs['at']): ForkPoint {
  if (at === 'first') return { kind: 'first' };
  if ('index' in at) return { kind: 'index', index: at.index };
  if ('step' in at) return { kind: 'step', stepIndex: at.step, ...(at.boundary ? { boundary: at.boundary } : {}) };
  return { kind: 'expression', expression: at.expression };
}

function specOf(args: WhatIfArgs, acknowledged: string[]): WhatIfSpecInput {
  return {
    cohort: {
      ...(args.runIds ? { runIds: args.runIds } : {}),
      ...(args.agentId ? { agentId: args.agentId } : {}),
      ...(args.status ? { status: args.status } : {}),
      ...(args.metadata ? { metadata: args.metadata } : {}),
      limit: args.limit,
    },
    at: forkPoint(args.at),
    fork: {
      modelOverride: { mode: args.model },
      ...(args.contextPatch ? { contextPatch: args.contextPatch } : {}),
      ...(args.toolPolicy ? { toolPolicyMap: args.toolPolicy } : {}),
      ...(args.toolMocks ? { toolMockResults: args.toolMocks } : {}),
      ...(args.promptVersion !== undefined ? { promptVersionOverride: args.promptVersion } : {}),
    },
    acknowledgedTools: acknowledged,
    assertions: args.assertions ?? [],
  };
}

/** One run's result as the agent reads it: the outcome line, where it diverged, the calls that differ. */
function resultLine(r: WhatIfRunResult, report: ClipReport): Record<string, unknown> {
  return {
    runId: r.sourceRunId,
    ...(r.forkRunId ? { forkRunId: r.forkRunId } : {}),
    outcome: r.outcome,
    detail: clip(r.detail, SMALL_CLIP, report),
    ...(r.divergedAtStep !== undefined ? { divergedAtStep: r.divergedAtStep } : {}),
    ...(r.forkCheckpointIndex !== undefined ? { forkedAtCheckpoint: r.forkCheckpointIndex } : {}),
    toolChanges: clip(r.toolChanges, SMALL_CLIP, report),
    ...(r.assertions.length > 0
      ? {
          assertions: r.assertions.map((a) => ({
            name: a.name,
            passed: a.passed,
            sourcePassed: a.sourcePassed,
            ...(a.error ? { error: clip(a.error, SMALL_CLIP, report) } : {}),
            ...(a.reason ? { reason: clip(a.reason, SMALL_CLIP, report) } : {}),
          })),
        }
      : {}),
    tokens: r.tokens,
    executed: r.gate.filter((g) => g.answeredBy === 'executed').map((g) => `${g.toolName} × ${g.count}`),
  };
}

async function run(ctx: ToolContext, args: WhatIfArgs, signal: AbortSignal): Promise<WhatIfReport> {
  const acknowledged = checkAcknowledged(args);
  const real = args.model === 'real' || args.model === 'override';
  const graded = (args.assertions ?? []).filter(isModelAssertion);
  const chat = real || graded.length > 0 ? ctx.chatModel() : undefined;
  if (real && !chat) {
    throw new OcdbError(
      'InvalidInput',
      `model: a ${args.model} what-if needs a model endpoint, and the user configured none for this server (OCDB_MODEL_BASE_URL). Use model "captured" or "recorded", or ask the user to configure one.`,
      { path: 'model' },
    );
  }
  const graderModel = ctx.modelName();
  if (graded.length > 0 && (!chat || (!graderModel && graded.some((a) => !a.model)))) {
    throw new OcdbError(
      'InvalidInput',
      `assertions: "${graded[0]?.name}" is model-graded and needs ${chat ? 'a model: name one in the assertion ("model"), or ask the user to set OCDB_MODEL' : 'a model endpoint, and the user configured none for this server (OCDB_MODEL_BASE_URL, OCDB_MODEL)'}. Use an expression instead, or ask the user to configure one.`,
      { path: 'assertions' },
    );
  }
  return runWhatIf(ctx.store(), specOf(args, acknowledged), {
    ...(chat && real ? { chatModel: chat } : {}),
    ...(chat && graded.length > 0 ? { grader: { chatModel: chat, model: graderModel ?? graded[0]?.model ?? '' } } : {}),
    signal,
    maxCostUsd: args.maxCostUsd ?? 0,
    confirmCost: () => Promise.resolve(false),
  });
}

export const whatIfTool = defineTool({
  name: 'what_if',
  title: 'What-if across runs',
  description: `Replays one change (context patch, tool policies or mocks, prompt version, model mode) over a cohort of recorded runs — by ids, agent, status or metadata, up to ${MAX_COHORT} — each forked at the same point (its first checkpoint, an index, a step, or where an expression first holds), in captured mode by default. Answers per run: same / diverged at step N / different outcome / failed, the tool calls that differ and the assertions; the cohort's rates; and the gate's certificate of every tool call by side-effect level. Nothing runs with a side effect: the whole batch is refused before any fork while a write or external_irreversible tool would run again unless the user named it in acknowledge ("*" never unlocks one). Creates one fork run per cohort run.`,
  input: WhatIfInput,
  readOnly: false,
  run(ctx, args, signal) {
    return ctx.exclusive(async () => {
      const report: ClipReport = { clipped: false };
      const r = await run(ctx, args, signal);
      // what the agent acts on first: failures, failed assertions, changes; the runs that came out the same last
      const rank = (x: WhatIfRunResult) =>
        x.outcome === 'failed' ? 0 : x.assertions.some((a) => !a.passed) ? 1 : x.outcome === 'same' ? 3 : 2;
      const page = [...r.results].sort((a, b) => rank(a) - rank(b)).map((x) => resultLine(x, report));
      const head = {
        runs: r.total,
        outcomes: r.rates.outcomes,
        ...(r.rates.assertions.length > 0 ? { assertions: r.rates.assertions } : {}),
        certificate: {
          clean: r.certificate.clean,
          statement: r.certificate.statement,
          calls: r.certificate.calls,
          bySideEffect: r.certificate.rows,
          executed: r.certificate.executed,
        },
        ...(r.estimate ? { estimate: r.estimate } : {}),
      };
      const budget = ctx.maxChars - JSON.stringify(head).length - 800;
      const fitted = fitItems(page, 0, Math.max(1_500, budget), report, r.results.length);
      return {
        body: { ...head, results: fitted.items, listed: fitted.items.length },
        report,
        hint:
          fitted.page.nextOffset !== undefined
            ? `${r.results.length - fitted.items.length} more results did not fit (the runs that came out the same are listed last): every fork is a run, find_runs {parentRunId} lists a run's forks and compare_runs {leftRunId, rightRunId: forkRunId} reads one.`
            : 'compare_runs {leftRunId: runId, rightRunId: forkRunId} shows what changed in one run.',
      };
    });
  },
});
