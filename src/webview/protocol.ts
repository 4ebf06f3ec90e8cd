/**
 * The typed message protocol between the RuntimeContext editor page and its
 * host (src/extension/contextEditorHost.ts): zod unions for both directions,
 * parsed on receipt on both sides. Imports only browser-safe model schemas
 * (zod, no node:*), because the page bundle includes this file.
 */
import { z } from 'zod';
import { CheckpointBoundarySchema } from '../model/checkpoint';
import { RuntimeContextSnapshotSchema } from '../model/context';
import { ForkConfigSchema, ModelModeSchema } from '../model/fork';
import { HazardSchema, ToolPlanEntrySchema } from '../model/policy';

/** The checkpoint the editor shows. */
export const EditorCheckpointSchema = z.object({
  runId: z.string(),
  checkpointId: z.string(),
  checkpointIndex: z.number().int(),
  checkpointCount: z.number().int(),
  boundary: CheckpointBoundarySchema,
  stepIndex: z.number().int(),
  agentId: z.string(),
  runtimeContext: RuntimeContextSnapshotSchema,
  /** The checkpoint's model / prompt version (what "captured" replays). */
  model: z.object({ provider: z.string(), model: z.string() }).optional(),
  promptVersion: z.string().optional(),
});
export type EditorCheckpoint = z.infer<typeof EditorCheckpointSchema>;

export const EditorDefaultsSchema = z.object({
  modelMode: ModelModeSchema,
  overrideProvider: z.string(),
  overrideModel: z.string(),
  /** The agent program of the active replay's launch configuration ('' when none). */
  program: z.string().default(''),
});
export type EditorDefaults = z.infer<typeof EditorDefaultsSchema>;

/** A hazard of the plan, as the model describes it. */
export const HazardViewSchema = HazardSchema;
export type HazardView = z.infer<typeof HazardViewSchema>;

/** A row of the tool-policy table: the plan's entry without its hazard (the hazard report lists those). */
export const ToolRowSchema = ToolPlanEntrySchema.omit({ hazard: true });
export type ToolRow = z.infer<typeof ToolRowSchema>;

/** The host's answer to a plan request: ForkService.plan() made displayable, or the error it raised. */
export const PlanViewSchema = z.object({
  tools: z.array(ToolRowSchema),
  hazards: z.array(HazardViewSchema),
  warnings: z.array(z.string()),
  changedPaths: z.array(z.string()),
  /** "this edit changes the system prompt at step 5; a captured fork stops there" (ForkPlan.predictedDivergence). */
  predictedDivergence: z.string().optional(),
  error: z.object({ message: z.string(), path: z.string().optional() }).optional(),
});
export type PlanView = z.infer<typeof PlanViewSchema>;

/** What a diverged fork offers next (the same actions as its tree item's context menu). */
export const DivergedActionSchema = z.enum(['showPrompt', 'recorded', 'real']);
export type DivergedAction = z.infer<typeof DivergedActionSchema>;

/** The diverged fork's actions as buttons (its notification's, the result panel's): short, so a toast shows them whole. */
export const DIVERGED_CHOICES = {
  showPrompt: 'Prompt difference',
  recorded: 'Use recorded outputs',
  real: 'Use a real model',
  setUp: 'Set up a model…',
} as const;

/**
 * The result of the last fork made from the page, followed while it runs and for as long as it is diverged: its
 * state in words, and when diverged the actions that go on from it (`real` is labelled "Set up a model…" while no
 * model endpoint is configured).
 */
export const ForkOutcomeSchema = z.object({
  runId: z.string(),
  status: z.string(),
  text: z.string(),
  diverged: z
    .object({
      promptDifference: z.boolean(),
      endpointReady: z.boolean(),
    })
    .optional(),
});
export type ForkOutcome = z.infer<typeof ForkOutcomeSchema>;

/**
 * The editor in batch mode (What-if Across Runs…): the checkpoint shown is the first run's fork point, a sample
 * to edit against; every run of the cohort gets the same change, forked where `at` says.
 */
export const BatchViewSchema = z.object({
  /** Which runs, in words: "every run of support-desk", "3 selected runs". */
  label: z.string(),
  total: z.number().int().min(1),
});
export type BatchView = z.infer<typeof BatchViewSchema>;

export const HostMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('show'),
    checkpoint: EditorCheckpointSchema.nullable(),
    defaults: EditorDefaultsSchema,
    /**
     * The edits a paused replay staged at this checkpoint (setVariable in the Runtime Context scope), as a
     * contextPatch: the page starts its draft with them applied, marked as changed.
     */
    stagedContextPatch: ForkConfigSchema.shape.contextPatch,
    /** Present in batch mode: the page's Fork runs a what-if over the cohort instead. */
    batch: BatchViewSchema.optional(),
  }),
  /** How a what-if batch started from the page ended (its results are in the cohort view). */
  z.object({ type: z.literal('batchDone'), text: z.string() }),
  z.object({ type: z.literal('plan'), requestId: z.number().int(), plan: PlanViewSchema }),
  z.object({ type: z.literal('forked'), runId: z.string(), sourceRunId: z.string() }),
  z.object({ type: z.literal('forkFailed'), message: z.string(), hazards: z.array(HazardViewSchema).optional() }),
  /** The followed fork's result; null: none to show (it is gone). */
  z.object({ type: z.literal('forkOutcome'), outcome: ForkOutcomeSchema.nullable() }),
]);
export type HostMessage = z.infer<typeof HostMessageSchema>;

export const PageMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('plan'), requestId: z.number().int(), config: ForkConfigSchema }),
  z.object({
    type: z.literal('fork'),
    config: ForkConfigSchema,
    acknowledgedTools: z.array(z.string()),
    /** Shell command of the agent program that executes the fork with its own tools; absent: the built-in runner. */
    program: z.string().optional(),
  }),
  /** Batch mode's Run: the change as a fork config of the sample checkpoint, where each run forks, the assertions. */
  z.object({
    type: z.literal('whatIf'),
    config: ForkConfigSchema,
    acknowledgedTools: z.array(z.string()),
    /** first, an index, step:5[:boundary], boundary:…, or an expression. */
    at: z.string(),
    /** One assertion a line: `[name=]expression`, or `model: [name=]question` for a model-graded one. */
    assertions: z.string(),
  }),
  /** A diverged fork's action pressed in the result panel. */
  z.object({ type: z.literal('divergedAction'), runId: z.string(), action: DivergedActionSchema }),
]);
export type PageMessage = z.infer<typeof PageMessageSchema>;

/** Parses a message from the other side; returns an error text naming the path instead of throwing. */
export function parseMessage<T>(
  schema: z.ZodType<T>,
  data: unknown,
): { ok: true; value: T } | { ok: false; error: string } {
  const r = schema.safeParse(data);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : 'message';
  return { ok: false, error: `${where}: ${issue?.message ?? 'invalid message'}` };
}
