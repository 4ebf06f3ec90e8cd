/**
 * The typed message protocol between the what-if cohort page (cohortMain.ts) and its host
 * (src/extension/whatIfPanel.ts): the rows of a batch's report as the table shows them, the cohort's rates and
 * the certificate, and the page's requests (open a run's comparison). zod on receipt on both sides; browser-safe
 * (zod only), because the page bundle includes this file.
 */
import { z } from 'zod';

export const COHORT_OUTCOMES = ['same', 'diverged', 'different', 'failed'] as const;

export const CohortRowSchema = z.object({
  sourceRunId: z.string(),
  forkRunId: z.string().optional(),
  outcome: z.enum(COHORT_OUTCOMES),
  detail: z.string(),
  /** The step the fork diverged at (sorts before the others), or -1. */
  divergedAtStep: z.number().int(),
  /** "issue_refund −1, search_kb other args". */
  toolChanges: z.string(),
  /** Names of the assertions the fork failed. */
  failed: z.array(z.string()),
  passed: z.number().int(),
  tokensDelta: z.number(),
  timeDeltaMs: z.number(),
  costUsd: z.number().optional(),
});
export type CohortRow = z.infer<typeof CohortRowSchema>;

export const CohortRateSchema = z.object({ label: z.string(), value: z.string() });

export const CohortResultsSchema = z.object({
  type: z.literal('results'),
  title: z.string(),
  rows: z.array(CohortRowSchema),
  rates: z.array(CohortRateSchema),
  certificate: z.object({ clean: z.boolean(), statement: z.string() }),
});
export type CohortResults = z.infer<typeof CohortResultsSchema>;

export const HostToCohortSchema = CohortResultsSchema;
export type HostToCohort = z.infer<typeof HostToCohortSchema>;

export const CohortToHostSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('openComparison'), sourceRunId: z.string(), forkRunId: z.string() }),
]);
export type CohortToHost = z.infer<typeof CohortToHostSchema>;
