/**
 * The fork editor's draft (everything the user set in the page, starting
 * from the debugger's staged edits when there are some) and the pure rules
 * over it: the ForkConfig it stands for, the tool-policy table (the ledger's
 * tools plus '*'), the hazard report with one tick per hazardous tool, and
 * whether Fork may be pressed. No DOM, no vscode: unit-tested.
 */
import { z } from 'zod';
import { applyContextPatch } from '../model/deepMerge';
import { ForkConfigSchema, ModelModeSchema, type ForkConfig } from '../model/fork';
import { ReplayPolicySchema, type ReplayPolicy, type SideEffectLevel } from '../model/toolCall';
import { FIELDS, diffPatch, readForm, formValues } from './contextForm';
import type { EditorCheckpoint, EditorDefaults, HazardView, PlanView } from './protocol';

/** The draft as the page keeps it (and saves it with setState, parsed with this schema when restored). */
export const ForkDraftSchema = z.object({
  /** Field texts of the context form, by path. */
  values: z.record(z.string(), z.string()),
  modelMode: ModelModeSchema,
  provider: z.string(),
  model: z.string(),
  /** Captured mode: at the first prompt divergence, go on with the real model instead of failing. */
  continueReal: z.boolean().default(false),
  /** Empty: keep the checkpoint's prompt version. */
  promptVersion: z.string(),
  /** Tool name or '*' -> chosen policy; missing or '' means "not set" (named beats '*' beats recorded). */
  policies: z.record(z.string(), z.union([ReplayPolicySchema, z.literal('')])),
  /** Tool name -> mock result as JSON text (for mock_result tools). */
  mocks: z.record(z.string(), z.string()),
  /** Hazardous tools the user ticked. */
  acknowledged: z.array(z.string()),
  /** Agent program that executes the fork with its own tools ('' = the built-in runner). */
  program: z.string().default(''),
  /** The debugger's staged edits (a contextPatch of this checkpoint) the values were last brought up to date with. */
  staged: ForkConfigSchema.shape.contextPatch,
});
export type ForkDraft = z.output<typeof ForkDraftSchema>;

/** The form texts of the checkpoint's context with `patch` applied (the recorded texts when there is none). */
function valuesWith(checkpoint: EditorCheckpoint, patch: Record<string, unknown> | undefined): Record<string, string> {
  try {
    return formValues(applyContextPatch(checkpoint.runtimeContext, patch));
  } catch {
    return formValues(checkpoint.runtimeContext); // a patch that does not fit this context (the adapter checks it)
  }
}

/**
 * The draft with the debugger's staged edits (setVariable in the Runtime Context scope: a contextPatch of this
 * checkpoint) in its form values, so they count as changed fields exactly like edits made in the page. A field
 * still showing what the recording (or the staged edits applied before) gave it takes the staged value; a field
 * the user edited in the page keeps the user's text. No staged edits (none, or a fork has used them) leaves the
 * values as they are: what the page showed stays the draft's own.
 */
export function withStagedEdits(
  checkpoint: EditorCheckpoint,
  draft: ForkDraft,
  staged: Record<string, unknown> | undefined,
): ForkDraft {
  if (!staged || Object.keys(staged).length === 0) {
    if (draft.staged === undefined) return draft;
    const { staged: _used, ...rest } = draft;
    return rest;
  }
  const before = valuesWith(checkpoint, draft.staged);
  const after = valuesWith(checkpoint, staged);
  const values = { ...draft.values };
  for (const { path } of FIELDS) {
    const untouched = (values[path] ?? before[path]) === before[path];
    if (untouched && after[path] !== undefined) values[path] = after[path];
  }
  return { ...draft, values, staged };
}

/** A fresh draft for a checkpoint, starting from the debugger's staged edits of it when there are some. */
export function newDraft(
  checkpoint: EditorCheckpoint,
  defaults: EditorDefaults,
  staged?: Record<string, unknown>,
): ForkDraft {
  const draft: ForkDraft = {
    values: formValues(checkpoint.runtimeContext),
    modelMode: defaults.modelMode,
    provider: defaults.overrideProvider || checkpoint.model?.provider || checkpoint.runtimeContext.model.provider,
    model: defaults.overrideModel,
    continueReal: false,
    promptVersion: '',
    policies: {},
    mocks: {},
    acknowledged: [],
    program: defaults.program,
  };
  return withStagedEdits(checkpoint, draft, staged);
}

export interface DraftResult {
  config?: ForkConfig;
  /** Errors by field path, `modelOverride`, or `mock:<tool>`. */
  errors: Record<string, string>;
  /** Context fields that differ from the checkpoint. */
  changed: string[];
}

/** The ForkConfig a draft stands for, or the errors that keep it from being one. */
export function buildForkConfig(checkpoint: EditorCheckpoint, draft: ForkDraft): DraftResult {
  const form = readForm(checkpoint.runtimeContext, draft.values);
  const errors: Record<string, string> = { ...form.errors };
  const config: ForkConfig = { sourceRunId: checkpoint.runId, sourceCheckpointId: checkpoint.checkpointId };
  if (form.context) {
    const patch = diffPatch(checkpoint.runtimeContext, form.context);
    if (Object.keys(patch).length > 0) config.contextPatch = patch;
  }
  if (draft.modelMode === 'override') {
    if (draft.model.trim() === '') errors.modelOverride = 'name the model to use (e.g. gpt-4o-mini)';
    config.modelOverride = {
      mode: 'override',
      ...(draft.provider.trim() ? { provider: draft.provider.trim() } : {}),
      ...(draft.model.trim() ? { model: draft.model.trim() } : {}),
    };
  } else if (draft.modelMode === 'real') {
    config.modelOverride = { mode: 'real' };
  } else if (draft.modelMode === 'recorded') {
    config.modelOverride = { mode: 'recorded' };
  } else if (draft.continueReal) {
    config.onDivergence = 'continue_real';
  }
  const policies = Object.entries(draft.policies).filter((e): e is [string, ReplayPolicy] => e[1] !== '');
  if (policies.length > 0) config.toolPolicyMap = Object.fromEntries(policies);
  const mocks: Record<string, unknown> = {};
  for (const [tool, text] of Object.entries(draft.mocks)) {
    if (text.trim() === '') continue;
    try {
      mocks[tool] = JSON.parse(text);
    } catch (e) {
      errors[`mock:${tool}`] = `not valid JSON: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  if (Object.keys(mocks).length > 0) config.toolMockResults = mocks;
  if (draft.promptVersion.trim() !== '') config.promptVersionOverride = draft.promptVersion.trim();
  if (Object.keys(errors).length > 0) return { errors, changed: form.changed };
  return { config, errors, changed: form.changed };
}

/** One row of the tool-policy table. */
export interface ToolTableRow {
  toolName: string;
  /** Undefined for '*'. */
  sideEffectLevel?: SideEffectLevel;
  recordedPolicy?: ReplayPolicy;
  /** What the user picked ('' = not set). */
  chosen: ReplayPolicy | '';
  /** What applies when nothing is picked for this tool: '*' if set, else the recorded policy. */
  fallback?: ReplayPolicy;
  fallbackSource: 'wildcard' | 'recorded';
  /** The policy the fork will apply (from the last plan). */
  effective?: ReplayPolicy;
  /** A mock result editor is shown (effective policy mock_result). */
  showMock: boolean;
  mockMissing: boolean;
  hazardous: boolean;
}

/** '*' first, then the plan's tools in its order. */
export function toolTable(plan: PlanView | undefined, draft: ForkDraft): ToolTableRow[] {
  const hazards = new Set(plan?.hazards.map((h) => h.toolName) ?? []);
  const wildcard = draft.policies['*'] ?? '';
  const rows: ToolTableRow[] = [
    {
      toolName: '*',
      chosen: wildcard,
      fallbackSource: 'recorded',
      showMock: false,
      mockMissing: false,
      hazardous: false,
    },
  ];
  for (const t of plan?.tools ?? []) {
    rows.push({
      toolName: t.toolName,
      sideEffectLevel: t.sideEffectLevel,
      recordedPolicy: t.recordedPolicy,
      chosen: draft.policies[t.toolName] ?? '',
      fallback: wildcard === '' ? t.recordedPolicy : wildcard,
      fallbackSource: wildcard === '' ? 'recorded' : 'wildcard',
      effective: t.policy,
      showMock: t.policy === 'mock_result',
      mockMissing: t.mockMissing === true && (draft.mocks[t.toolName] ?? '').trim() === '',
      hazardous: hazards.has(t.toolName),
    });
  }
  return rows;
}

export interface HazardRow extends HazardView {
  ticked: boolean;
}

/** The hazard report: one row per hazardous tool, ticked when acknowledged (never for a tool that cannot be unlocked). */
export function hazardRows(plan: PlanView | undefined, draft: ForkDraft): HazardRow[] {
  const ack = new Set(draft.acknowledged);
  return (plan?.hazards ?? []).map((h) => ({ ...h, ticked: h.unlockable && ack.has(h.toolName) }));
}

/** Whether Fork may be pressed, and if not, why (shown under the button). */
export function forkReadiness(
  result: DraftResult,
  plan: PlanView | undefined,
  draft: ForkDraft,
): { ok: boolean; why?: string } {
  const errorCount = Object.keys(result.errors).length;
  if (errorCount > 0) return { ok: false, why: `fix ${errorCount} field${errorCount > 1 ? 's' : ''} first` };
  if (!plan) return { ok: false, why: 'checking the fork plan…' };
  if (plan.error) return { ok: false, why: plan.error.message };
  const rows = hazardRows(plan, draft);
  const blocked = rows.filter((r) => !r.unlockable);
  if (blocked.length > 0) {
    const names = blocked.map((r) => r.toolName).join(', ');
    return {
      ok: false,
      why: `${names} would run again and cannot be unlocked this way: choose ${blocked.length > 1 ? 'their' : 'its'} Replay policy in Tool policies (reuse_result replays the recording)`,
    };
  }
  const open = rows.filter((r) => !r.ticked);
  if (open.length > 0) {
    const ticks = open.map((r) => `"Run ${r.toolName} again"`).join(', ');
    return {
      ok: false,
      why: `tick ${ticks} below, or replay ${open.length > 1 ? 'their' : 'its'} result (Tool policies)`,
    };
  }
  return { ok: true };
}

/** Tools that would run their own code again: without an agent program the built-in runner stops there. */
export function toolsNeedingProgram(plan: PlanView | undefined, draft: ForkDraft): string[] {
  if (draft.program.trim() !== '') return [];
  return (plan?.tools ?? [])
    .filter((t) => t.policy === 're_execute' || t.policy === 'manual_confirm')
    .map((t) => t.toolName);
}
