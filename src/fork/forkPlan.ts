/**
 * Fork planning: from a ForkConfig and the store, the effective replay policy
 * of every tool the source run (and its lineage) used, the merged and
 * validated runtime context of the fork's first checkpoint, and the hazard
 * report (tools that would re-execute with write / external_irreversible
 * effects), and where a captured fork will stop because the edit changes the
 * rendered system prompt. Reads the store, writes nothing; no UI, no network.
 */
import {
  OcdbError,
  SIDE_EFFECT_LEVELS,
  applyContextPatch,
  assertJsonInput,
  changedPaths,
  hazardOf,
  parseWith,
  resolvePolicy,
  ForkConfigSchema,
  type Checkpoint,
  type ForkConfig,
  type Hazard,
  type ModelConfig,
  type ModelMode,
  type RuntimeContextSnapshot,
  type SideEffectLevel,
  type ToolCallRecord,
  type ToolPlanEntry,
} from '../model';
import { itemFacts, type RunStore, type ToolCallFacts } from '../store';
import { startLedgerLength } from '../writer';
import { lineageOf } from './lineage';
import { promptTemplateFor, renderTemplate } from './promptRender';

export type { ToolPlanEntry } from '../model';

export interface ForkPlan {
  config: ForkConfig;
  sourceRunId: string;
  sourceCheckpointId: string;
  /** Position of the source checkpoint in its run. */
  sourceCheckpointIndex: number;
  /** The source run followed by its ancestors: where the tool cassette is looked up. */
  lineage: string[];
  modelMode: ModelMode;
  /** The model of the fork's first checkpoint (override applied). */
  model?: ModelConfig;
  /** The prompt version of the fork's first checkpoint (override applied). */
  promptVersion?: string;
  /** The merged, validated runtime context of the fork's first checkpoint. */
  runtimeContext: RuntimeContextSnapshot;
  /** Runtime-context paths the patch changed (dotted), for display. */
  changedPaths: string[];
  tools: ToolPlanEntry[];
  /** Every hazard, acknowledged or not (use openHazards() with the acknowledgements). */
  hazards: Hazard[];
  /** Human-readable notes (missing mocks, unnamed irreversible tools, ...). */
  warnings: string[];
  /** Captured / recorded model: the first recorded model call whose system prompt this edit changes. */
  predictedDivergence?: PredictedDivergence;
}

/** Where a captured fork will stop, known before it runs: the edit changes the rendered system prompt there. */
export interface PredictedDivergence {
  stepIndex: number;
  /** The recorded before_model_call checkpoint whose prompt changes. */
  sourceCheckpointIndex: number;
  sourceCheckpointId: string;
  field: 'systemPrompt';
  /** "this edit changes the system prompt at step 5; a captured fork stops there". */
  message: string;
}

/** How many recorded model calls after the fork point the prediction looks at (the first change is usually the next). */
const PREDICTION_MODEL_CALLS = 100;

const SEVERITY: Readonly<Record<SideEffectLevel, number>> = Object.fromEntries(
  SIDE_EFFECT_LEVELS.map((level, i) => [level, i]),
) as Record<SideEffectLevel, number>;

/** Loads the source checkpoint and checks that it belongs to the source run. */
export function loadSourceCheckpoint(store: RunStore, config: ForkConfig): { checkpoint: Checkpoint; index: number } {
  store.getRun(config.sourceRunId); // RunNotFound with a clear message
  // As state: its messages and ledger records are read when used (a fork of a late checkpoint reads none of them).
  const checkpoint = store.getCheckpointState(config.sourceCheckpointId);
  if (checkpoint.runId !== config.sourceRunId) {
    throw new OcdbError(
      'CheckpointNotFound',
      `Checkpoint ${config.sourceCheckpointId} belongs to run ${checkpoint.runId}, not ${config.sourceRunId}; pick a checkpoint of the run you fork.`,
      { checkpointId: config.sourceCheckpointId, runId: config.sourceRunId, path: 'sourceCheckpointId' },
    );
  }
  return { checkpoint, index: store.getCheckpointSummary(checkpoint.checkpointId).index };
}

/** Paths (dotted) whose value differs between two JSON-like values (model/deepMerge.ts). */
export { changedPaths } from '../model';

/** Applies the patch, the model override and the prompt version override to the source state. */
export function forkStartState(
  checkpoint: Checkpoint,
  config: ForkConfig,
): { runtimeContext: RuntimeContextSnapshot; model?: ModelConfig; promptVersion?: string } {
  const patched = applyContextPatch(checkpoint.runtimeContext, config.contextPatch);
  let model = checkpoint.model ? { ...checkpoint.model } : undefined;
  const override = config.modelOverride;
  if (override?.mode === 'override') {
    if (!override.model) {
      throw new OcdbError(
        'InvalidInput',
        'modelOverride.model: a model is required when modelOverride.mode is "override" (e.g. { mode: "override", provider: "openai", model: "gpt-4o-mini" })',
        { path: 'modelOverride.model' },
      );
    }
    const provider = override.provider ?? model?.provider ?? patched.model.provider;
    model = { ...(model ?? {}), provider, model: override.model };
    patched.model = { ...patched.model, provider, model: override.model };
  }
  let promptVersion = checkpoint.promptVersion ?? patched.model.promptVersion;
  if (config.promptVersionOverride !== undefined) {
    promptVersion = config.promptVersionOverride;
    patched.model = { ...patched.model, promptVersion };
  }
  return { runtimeContext: patched, model, promptVersion };
}

/** Every tool recorded in the lineage (and in the checkpoint's ledger snapshot), most severe call per tool. */
function recordedTools(store: RunStore, lineage: string[], checkpoint: Checkpoint): Map<string, ToolCallFacts[]> {
  const byTool = new Map<string, ToolCallFacts[]>();
  const seen = new Set<string>();
  const add = (record: ToolCallFacts, runId: string) => {
    const key = `${runId}\u0000${record.toolCallId}`;
    if (seen.has(key)) return;
    seen.add(key);
    const list = byTool.get(record.toolName) ?? [];
    list.push(record);
    byTool.set(record.toolName, list);
  };
  // Facts only (no arguments or results read): the plan weighs levels and policies.
  for (const runId of lineage) for (const record of store.listToolCallFacts(runId)) add(record, runId);
  // The records the run started with (a fork's inherited ledger, an import's initial one) may be in no lineage
  // run's calls: add them from the snapshot. The writer keeps them first, in place, and adds the run's own calls
  // after them — which the lineage loop has — so a late checkpoint's long ledger is not read; of the start
  // records only the inline fields (arguments and results stay unread).
  const startCount = startLedgerLength(store, checkpoint.runId);
  const snapshot = checkpoint.toolLedgerSnapshot;
  for (let i = 0; i < Math.min(startCount, snapshot.length); i++) {
    add(itemFacts(snapshot[i] as ToolCallRecord) as ToolCallFacts, checkpoint.runId);
  }
  return byTool;
}

/** What happens at the predicted divergence, by model mode: stop, hand over to the real model, or go on. */
function consequence(config: ForkConfig, modelMode: ModelMode): string | undefined {
  if (modelMode === 'recorded') return 'the recorded outputs go on under the new prompt';
  if (modelMode !== 'captured') return undefined;
  return config.onDivergence === 'continue_real'
    ? 'a captured fork continues there with the real model'
    : 'a captured fork stops there';
}

/**
 * The first recorded model call after the fork point whose system prompt, rendered from the run's template
 * (metadata.promptTemplate / promptTemplates) with the fork's context and prompt version, differs from the
 * recorded one — what the captured walk will find first. Undefined when the edit changes no prompt (or the run
 * keeps no template: the recorded prompt stands). Message differences (a mock's other result) are not predicted.
 */
function predictDivergence(
  store: RunStore,
  config: ForkConfig,
  fromIndex: number,
  modelMode: ModelMode,
): PredictedDivergence | undefined {
  const then = consequence(config, modelMode);
  if (!then) return undefined;
  if (!config.contextPatch && config.promptVersionOverride === undefined) return undefined;
  const metadata = store.getRun(config.sourceRunId).metadata;
  if (metadata.promptTemplates === undefined && typeof metadata.promptTemplate !== 'string') return undefined;
  const calls = store
    .listCheckpoints(config.sourceRunId, { offset: fromIndex + 1 })
    .filter((c) => c.boundary === 'before_model_call')
    .slice(0, PREDICTION_MODEL_CALLS);
  for (const summary of calls) {
    const cp = store.getCheckpoint(summary.checkpointId);
    const start = forkStartState(cp, config);
    const template = promptTemplateFor(metadata, start.promptVersion);
    if (template === undefined) continue;
    const rendered = renderTemplate(template, start.runtimeContext, start.promptVersion);
    if (rendered !== (cp.systemPrompt ?? '')) {
      return {
        stepIndex: cp.stepIndex,
        sourceCheckpointIndex: summary.index,
        sourceCheckpointId: cp.checkpointId,
        field: 'systemPrompt',
        message: `this edit changes the system prompt at step ${cp.stepIndex}; ${then}`,
      };
    }
  }
  return undefined;
}

/** Builds the plan of a fork (validating the config); throws RunNotFound / CheckpointNotFound / InvalidInput. */
export function planFork(store: RunStore, input: ForkConfig): ForkPlan {
  assertJsonInput(input, 'fork config'); // the front door of every fork: no input nests past MAX_JSON_DEPTH
  const config = parseWith(ForkConfigSchema, input, 'fork config');
  const { checkpoint, index } = loadSourceCheckpoint(store, config);
  const start = forkStartState(checkpoint, config);
  const lineage = lineageOf(store, config.sourceRunId);

  const afterCounts = store.countToolCheckpointsAfter(config.sourceRunId, index);

  const tools: ToolPlanEntry[] = [];
  const hazards: Hazard[] = [];
  const warnings: string[] = [];
  const byTool = recordedTools(store, lineage, checkpoint);
  for (const toolName of [...byTool.keys()].sort()) {
    const calls = byTool.get(toolName) ?? [];
    const worst = calls.reduce((a, b) => (SEVERITY[b.sideEffectLevel] >= SEVERITY[a.sideEffectLevel] ? b : a));
    const resolved = resolvePolicy(toolName, worst.replayPolicy, config.toolPolicyMap);
    const hazard = hazardOf(toolName, worst.sideEffectLevel, resolved);
    const mockMissing =
      resolved.policy === 'mock_result' &&
      !(config.toolMockResults && Object.hasOwn(config.toolMockResults, toolName)) &&
      !(start.runtimeContext.tools.toolMocks && Object.hasOwn(start.runtimeContext.tools.toolMocks, toolName));
    if (hazard) hazards.push(hazard);
    if (mockMissing) {
      warnings.push(
        `${toolName} is set to mock_result but toolMockResults has no entry for it: the fork fails if it is called`,
      );
    }
    tools.push({
      toolName,
      sideEffectLevel: worst.sideEffectLevel,
      recordedPolicy: worst.replayPolicy,
      policy: resolved.policy,
      source: resolved.source,
      callsAfterForkPoint: afterCounts.get(toolName) ?? 0,
      recordedCalls: calls.length,
      ...(hazard ? { hazard } : {}),
      ...(mockMissing ? { mockMissing } : {}),
    });
  }
  if (config.promptVersionOverride !== undefined) {
    const metadata = store.getRun(config.sourceRunId).metadata;
    const templates = metadata.promptTemplates;
    const known =
      typeof templates === 'object' && templates !== null && Object.hasOwn(templates, config.promptVersionOverride);
    if (!known && typeof metadata.promptTemplate !== 'string') {
      warnings.push(
        `the run keeps no prompt template for ${config.promptVersionOverride} (metadata.promptTemplates): the built-in runner keeps the recorded system prompt; run the agent program to use the new prompt`,
      );
    }
  }
  for (const name of Object.keys(config.toolPolicyMap ?? {})) {
    if (name !== '*' && !byTool.has(name)) {
      warnings.push(`toolPolicyMap names ${name}, which the run never called`);
    }
  }

  const modelMode = config.modelOverride?.mode ?? 'captured';
  const predicted = predictDivergence(store, config, index, modelMode);
  return {
    config,
    sourceRunId: config.sourceRunId,
    sourceCheckpointId: config.sourceCheckpointId,
    sourceCheckpointIndex: index,
    lineage,
    modelMode,
    ...(start.model ? { model: start.model } : {}),
    ...(start.promptVersion !== undefined ? { promptVersion: start.promptVersion } : {}),
    runtimeContext: start.runtimeContext,
    changedPaths: changedPaths(checkpoint.runtimeContext, start.runtimeContext),
    tools,
    hazards,
    warnings,
    ...(predicted ? { predictedDivergence: predicted } : {}),
  };
}
