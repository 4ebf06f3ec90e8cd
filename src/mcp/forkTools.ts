/**
 * The MCP tools that fork: `plan_fork` (what a fork would do with every tool, its hazards and the predicted
 * divergence; writes nothing) and `fork_run` (creates the fork through ForkService — the one front door and its
 * hazard gate — and runs it with the built-in runner, which answers tools from the recording or mocks and never
 * runs a tool's code). A write or external_irreversible tool re-executes only when named in `acknowledge` (and an
 * irreversible one also in toolPolicy); "*" never unlocks one: the gate's rule, not restated here. A real or
 * override model only through the endpoint the user configured for this server.
 */
import { z } from 'zod';
import {
  EXECUTING_POLICIES,
  MODEL_MODES,
  ON_DIVERGENCE_CHOICES,
  OcdbError,
  POLICY_WILDCARD,
  REPLAY_POLICIES,
  openHazards,
  readRunError,
  runStatusText,
  type ForkConfig,
} from '../model';
import { ForkService, type ForkPlan } from '../fork/forkService';
import { runFork } from '../fork/runner';
import type { RunStore } from '../store';
import { SMALL_CLIP, clip, type ClipReport } from './bounded';
import { checkpointIndexOf } from './checkpointTools';
import { divergenceOf } from './shapes';
import { defineTool, type ToolContext } from './toolContext';

const ForkInput = z
  .object({
    runId: z.string().min(1).describe('The run to fork.'),
    checkpoint: z
      .union([z.number().int().min(0), z.string().min(1)])
      .describe('Where the fork starts: a checkpoint index (0 = the start) or a checkpoint id.'),
    contextPatch: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Deep-merged into the runtime context, e.g. {"user": {"roleId": "auditor"}}; null removes a key.'),
    toolPolicy: z
      .record(z.string(), z.enum(REPLAY_POLICIES))
      .optional()
      .describe(
        'Replay policy per tool name, or "*" for every tool: reuse_result (answer from the recording), mock_result, forbid_replay, re_execute, manual_confirm. A named tool beats "*".',
      ),
    toolMocks: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('The result a mock_result tool answers, by tool name.'),
    model: z
      .enum(MODEL_MODES)
      .default('captured')
      .describe(
        'captured: the recorded model turns while the prompt matches (the first difference stops the fork: "diverged at step N"); recorded: the recorded turns whatever the prompt; real / override: the endpoint the user configured.',
      ),
    overrideModel: z
      .string()
      .min(1)
      .optional()
      .describe('With model "override": provider/model, e.g. openai/gpt-4.1-mini.'),
    promptVersion: z.string().min(1).optional().describe('Prompt version to render the system prompt with.'),
    onDivergence: z
      .enum(ON_DIVERGENCE_CHOICES)
      .optional()
      .describe('Captured model: stop at the first divergence (fail, default) or go on with the real model.'),
    acknowledge: z
      .array(z.string().min(1))
      .max(50)
      .optional()
      .describe(
        'Tools the USER agreed may run again although they write or have irreversible effects, each by its own name. Never guess these.',
      ),
  })
  .strict();
type ForkArgs = z.output<typeof ForkInput>;

/** The checkpoint id `args.checkpoint` names (an index of the run, or one of its ids). */
function sourceCheckpoint(store: RunStore, runId: string, ref: number | string): string {
  if (typeof ref === 'string') {
    checkpointIndexOf(store, runId, ref);
    return ref;
  }
  const [s] = store.listCheckpoints(runId, { offset: ref, limit: 1 });
  if (!s) {
    const count = store.getRun(runId).checkpointCount;
    throw new OcdbError(
      'CheckpointNotFound',
      `Run ${runId} has ${count} checkpoints (indexes 0-${count - 1}), not ${ref}.`,
      {
        runId,
        path: 'checkpoint',
      },
    );
  }
  return s.checkpointId;
}

function configOf(store: RunStore, args: ForkArgs): ForkConfig {
  if (args.model === 'override' && args.overrideModel === undefined) {
    throw new OcdbError(
      'InvalidInput',
      'overrideModel: model "override" needs provider/model (e.g. openai/gpt-4.1-mini).',
      {
        path: 'overrideModel',
      },
    );
  }
  const override = args.overrideModel !== undefined ? /^(?:([^/]+)\/)?(.+)$/.exec(args.overrideModel) : null;
  return {
    sourceRunId: args.runId,
    sourceCheckpointId: sourceCheckpoint(store, args.runId, args.checkpoint),
    modelOverride:
      args.model === 'override'
        ? { mode: 'override', ...(override?.[1] ? { provider: override[1] } : {}), model: override?.[2] ?? '' }
        : { mode: args.model },
    ...(args.contextPatch ? { contextPatch: args.contextPatch } : {}),
    ...(args.toolPolicy ? { toolPolicyMap: args.toolPolicy } : {}),
    ...(args.toolMocks ? { toolMockResults: args.toolMocks } : {}),
    ...(args.promptVersion !== undefined ? { promptVersionOverride: args.promptVersion } : {}),
    ...(args.onDivergence ? { onDivergence: args.onDivergence } : {}),
  };
}

/** The plan as the agent reads it: source, model, changes, every tool's policy and hazard, the prediction. */
function planBody(plan: ForkPlan, acknowledged: readonly string[], report: ClipReport): Record<string, unknown> {
  const open = openHazards(plan.hazards, acknowledged);
  return {
    source: {
      runId: plan.sourceRunId,
      checkpointIndex: plan.sourceCheckpointIndex,
      checkpointId: plan.sourceCheckpointId,
    },
    modelMode: plan.modelMode,
    ...(plan.model ? { model: plan.model } : {}),
    ...(plan.promptVersion !== undefined ? { promptVersion: plan.promptVersion } : {}),
    changedPaths: plan.changedPaths,
    tools: plan.tools.map((t) => ({
      toolName: t.toolName,
      sideEffectLevel: t.sideEffectLevel,
      policy: t.policy,
      from: t.source,
      callsAfterForkPoint: t.callsAfterForkPoint,
      ...(t.hazard ? { hazard: t.hazard.reason, unlockable: t.hazard.unlockable } : {}),
      ...(t.mockMissing ? { mockMissing: true } : {}),
    })),
    openHazards: open.map((h) => ({ toolName: h.toolName, reason: h.reason })),
    ...(plan.predictedDivergence ? { predictedDivergence: plan.predictedDivergence } : {}),
    warnings: clip(plan.warnings, SMALL_CLIP, report),
  };
}

/** The tools acknowledged by name; "*" is refused (it acknowledges nothing). */
export function checkAcknowledged(args: { acknowledge?: string[] | undefined }): string[] {
  const acknowledged = args.acknowledge ?? [];
  if (acknowledged.includes(POLICY_WILDCARD)) {
    throw new OcdbError(
      'InvalidInput',
      'acknowledge: "*" acknowledges nothing — a tool that writes or has irreversible effects runs again only when the user names it.',
      { path: 'acknowledge' },
    );
  }
  return acknowledged;
}

export const planForkTool = defineTool({
  name: 'plan_fork',
  title: 'Plan a fork',
  description:
    "What a fork of a run from a checkpoint would do, without creating it: the context paths the patch changes, each tool's effective replay policy and side-effect level, the hazards (tools that would run again with write or irreversible effects, and what unlocks each), missing mocks, and where a captured fork will diverge. Call before fork_run.",
  input: ForkInput,
  readOnly: true,
  run(ctx, args) {
    const store = ctx.store();
    const acknowledged = checkAcknowledged(args);
    const plan = new ForkService(store).plan(configOf(store, args));
    const report: ClipReport = { clipped: false };
    const body = planBody(plan, acknowledged, report);
    return {
      body: {
        plan: body,
        canFork: (body.openHazards as unknown[]).length === 0,
        next:
          (body.openHazards as unknown[]).length === 0
            ? 'fork_run with the same arguments creates and runs it.'
            : 'Open hazards block fork_run: set toolPolicy {"*": "reuse_result"} to answer every tool from the recording, or — only if the user asked — name each tool in acknowledge (an external_irreversible one also in toolPolicy).',
      },
      report,
    };
  },
});

/** Creates the fork and runs it with the built-in runner; the answer says how it ended and what ran. */
async function createAndRun(
  ctx: ToolContext,
  args: ForkArgs & { run?: boolean },
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const store = ctx.store();
  const acknowledged = checkAcknowledged(args);
  const chat = ctx.chatModel();
  const needsEndpoint = args.model === 'real' || args.model === 'override' || args.onDivergence === 'continue_real';
  if (needsEndpoint && !chat) {
    throw new OcdbError(
      'InvalidInput',
      `model: a ${args.model === 'captured' ? 'continue_real' : args.model} fork needs a model endpoint, and the user configured none for this server (OCDB_MODEL_BASE_URL, OCDB_MODEL_API_KEY_ENV in its environment). Use model "captured" or "recorded", or ask the user to configure one.`,
      { path: 'model' },
    );
  }
  const created = new ForkService(store).create(configOf(store, args), acknowledged);
  if (args.run === false) {
    return {
      forkRunId: created.runId,
      forkRequestId: created.forkRequestId,
      status: 'pending',
      next: `The fork waits for the agent program: OCDB_FORK=${created.forkRequestId} OCDB_STORE=<this store> <the agent's command>.`,
    };
  }
  const outcome = await runFork(store, created.forkRequestId, { ...(chat ? { chatModel: chat } : {}), signal });
  const run = store.getRun(created.runId);
  const own = store.listToolCallFacts(created.runId);
  const byPolicy: Record<string, number> = {};
  for (const c of own) byPolicy[c.replayPolicy] = (byPolicy[c.replayPolicy] ?? 0) + 1;
  const executed = own.filter((c) => EXECUTING_POLICIES.has(c.replayPolicy)).map((c) => c.toolName);
  const failure = readRunError(outcome.failure);
  return {
    forkRunId: created.runId,
    forkRequestId: created.forkRequestId,
    status: runStatusText(run),
    checkpoints: outcome.checkpointCount,
    ...(divergenceOf(run) ? { divergence: divergenceOf(run) } : {}),
    ...(failure ? { stoppedBy: { code: failure.code, message: failure.message } } : {}),
    toolCalls: { total: own.length, byPolicy, executed },
    note:
      executed.length === 0
        ? 'No tool was executed: every call of the fork was answered from the recording or a mock.'
        : `Executed: ${executed.join(', ')}.`,
    next: `compare_runs {leftRunId: "${args.runId}", rightRunId: "${created.runId}"} shows what changed; run_summary {runId: "${created.runId}"} the fork alone.`,
  };
}

export const forkRunTool = defineTool({
  name: 'fork_run',
  title: 'Fork a run',
  description:
    'Creates a fork of a run from a checkpoint with a changed context, tool policies or mocks, and runs it without re-running anything dangerous: tools are answered from the recording or mocks; a tool that writes or has irreversible effects is refused (with the reason) unless the user named it in acknowledge, and "*" never unlocks one. In "captured" mode the fork reports "diverged at step N" where the new context changes the prompt. Answers the fork run id, how it ended and which tools (none, normally) were executed.',
  input: ForkInput.extend({
    run: z
      .boolean()
      .default(true)
      .describe('Run it now with the built-in runner (default); false: create it for the agent program to run.'),
  }).strict(),
  readOnly: false,
  run(ctx, args, signal) {
    return ctx.exclusive(async () => ({
      body: await createAndRun(ctx, args, signal),
      report: { clipped: false },
    }));
  },
});
