/**
 * What a what-if batch is asked to do and what it answers, as zod schemas: the cohort of runs (by agent,
 * status, time range, metadata, an explicit list), where each is forked (its first checkpoint, an index, a step,
 * a boundary, or the first checkpoint an expression matches), the one fork configuration every run gets (a
 * ForkConfig without its source), the acknowledged tools and the assertions; and the result of one run. The
 * CLI, the extension and the batch file all parse through these. Pure.
 */
import { z } from 'zod';
import {
  CheckpointBoundarySchema,
  ForkConfigSchema,
  ReplayPolicySchema,
  RunStatusSchema,
  SideEffectLevelSchema,
} from '../model';

export const CohortSelectionSchema = z.object({
  agentId: z.string().min(1).optional(),
  status: RunStatusSchema.optional(),
  /** Runs started at or after this time (ms since epoch). */
  since: z.number().optional(),
  /** Runs started before this time (ms since epoch). */
  until: z.number().optional(),
  /** Runs whose metadata holds each of these keys with this value (compared as text). */
  metadata: z.record(z.string(), z.string()).optional(),
  /** Exactly these runs (the other filters still apply). */
  runIds: z.array(z.string().min(1)).optional(),
  /** Forks and replays too (by default a cohort is the recorded runs only). */
  includeForks: z.boolean().optional(),
  /** At most this many runs (the newest first). */
  limit: z.number().int().positive().optional(),
});
export type CohortSelection = z.infer<typeof CohortSelectionSchema>;

export const ForkPointSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('first') }),
  z.object({ kind: z.literal('index'), index: z.number().int().min(0) }),
  z.object({
    kind: z.literal('step'),
    stepIndex: z.number().int().min(0),
    boundary: CheckpointBoundarySchema.optional(),
  }),
  z.object({ kind: z.literal('boundary'), boundary: CheckpointBoundarySchema }),
  z.object({ kind: z.literal('expression'), expression: z.string().min(1) }),
]);
export type ForkPoint = z.infer<typeof ForkPointSchema>;

/** An expression over the fork's end state and ledger, in the debugger's expression language. */
export const ExpressionAssertionSchema = z.strictObject({ name: z.string().min(1), expression: z.string().min(1) });
/** A yes/no question about the run's end put to the configured model endpoint (`model`: which model answers). */
export const ModelAssertionSchema = z.strictObject({
  name: z.string().min(1),
  question: z.string().min(1),
  model: z.string().min(1).optional(),
});
export const AssertionSchema = z.union([ExpressionAssertionSchema, ModelAssertionSchema]);
export type Assertion = z.infer<typeof AssertionSchema>;
export type ModelAssertion = z.infer<typeof ModelAssertionSchema>;
export const isModelAssertion = (a: Assertion): a is ModelAssertion => 'question' in a;

/** The one fork configuration of a batch: a fork config without the run and checkpoint it starts from. */
export const ForkTemplateSchema = ForkConfigSchema.omit({ sourceRunId: true, sourceCheckpointId: true });
export type ForkTemplate = z.infer<typeof ForkTemplateSchema>;

export const WhatIfSpecSchema = z.object({
  cohort: CohortSelectionSchema,
  at: ForkPointSchema.default({ kind: 'first' }),
  fork: ForkTemplateSchema,
  acknowledgedTools: z.array(z.string().min(1)).default([]),
  assertions: z.array(AssertionSchema).default([]),
});
export type WhatIfSpec = z.infer<typeof WhatIfSpecSchema>;
export type WhatIfSpecInput = z.input<typeof WhatIfSpecSchema>;

/**
 * How a fork came out against its source: the same as recorded, diverged (the prompt reached something the
 * recording has no answer for: an answer, not a failure), a different outcome (other status or other tool
 * calls), or failed (the fork could not be made or stopped on an error of its own).
 */
export const WHAT_IF_OUTCOMES = ['same', 'diverged', 'different', 'failed'] as const;
export const WhatIfOutcomeSchema = z.enum(WHAT_IF_OUTCOMES);
export type WhatIfOutcome = z.infer<typeof WhatIfOutcomeSchema>;

export const ToolCallChangeSchema = z.object({
  change: z.enum(['added', 'removed', 'args', 'result']),
  toolName: z.string(),
  stepIndex: z.number().int().optional(),
});
export type ToolCallChange = z.infer<typeof ToolCallChangeSchema>;

export const AssertionResultSchema = z.object({
  name: z.string(),
  passed: z.boolean(),
  /** The same expression over the source run's end: did the recording pass it? */
  sourcePassed: z.boolean().optional(),
  /** The expression could not be evaluated, or the grader gave no verdict (counted as failed). */
  error: z.string().optional(),
  /** A model-graded assertion: the grader's reason for the fork's verdict, and for the recording's. */
  reason: z.string().optional(),
  sourceReason: z.string().optional(),
  /** Why the recording could not be graded (its verdict is then unknown). */
  sourceError: z.string().optional(),
});
export type AssertionResult = z.infer<typeof AssertionResultSchema>;

/** How the gate answered one tool in one fork, and how many times. */
export const GateEntrySchema = z.object({
  toolName: z.string(),
  sideEffectLevel: SideEffectLevelSchema,
  policy: ReplayPolicySchema,
  /** recording / mock: answered without running; executed: the tool's code ran; refused: the gate stopped the fork there. */
  answeredBy: z.enum(['recording', 'mock', 'executed', 'refused']),
  count: z.number().int(),
});
export type GateEntry = z.infer<typeof GateEntrySchema>;

export const WhatIfRunResultSchema = z.object({
  sourceRunId: z.string(),
  sourceStatus: z.string(),
  forkRunId: z.string().optional(),
  forkRequestId: z.string().optional(),
  forkCheckpointIndex: z.number().int().optional(),
  forkStatus: z.string().optional(),
  outcome: WhatIfOutcomeSchema,
  /** One line: "diverged at step 0 · system prompt", "issue_refund removed", the failure's message. */
  detail: z.string(),
  divergedAtStep: z.number().int().optional(),
  failureCode: z.string().optional(),
  toolChanges: z.array(ToolCallChangeSchema),
  assertions: z.array(AssertionResultSchema),
  /** Tokens of the model turns after the fork point: the recording's, the fork's, and what the fork spent (not captured). */
  tokens: z.object({ source: z.number(), fork: z.number(), spent: z.number() }),
  /** What the fork's spent tokens cost at the model's price (undefined: price not known). */
  costUsd: z.number().optional(),
  /** What the model-graded assertions of this run spent (the fork's end and the recording's). */
  grading: z.object({ tokens: z.number(), costUsd: z.number().optional() }).optional(),
  /** Time after the fork point: the recording's, and the fork's own. */
  timeMs: z.object({ source: z.number(), fork: z.number() }),
  gate: z.array(GateEntrySchema),
});
export type WhatIfRunResult = z.infer<typeof WhatIfRunResultSchema>;
