/**
 * A what-if batch: one fork configuration over a cohort of runs. Before anything runs it selects the cohort,
 * finds each run's fork point and plans each fork with the single fork's planner, and refuses the whole batch
 * when the plans leave a hazard open (a `write` / `external_irreversible` tool that would run again unnamed or
 * unacknowledged; `*` never unlocks one), listing every tool and the runs it would run in — so a refused batch
 * has run nothing. A batch calling a real model prices itself first and asks above the caller's threshold.
 * Then the forks run `concurrency` at a time (each a few awaits of the runner, the store shared), every result
 * appended to the batch file as it lands, so an interrupted batch resumes; progress goes to `onProgress`. No UI.
 */
import { OcdbError, openHazards, parseWith, type Hazard } from '../model';
import type { RunStore } from '../store';
import { ForkService } from '../fork/forkService';
import type { ChatModel } from '../fork/modelClient';
import { compileExpression } from '../replay/evaluate';
import { join } from 'node:path';
import { batchKey, openBatchFile, type BatchProgress } from './batchFile';
import { checkForkPoint, forkPointOf, selectCohort } from './cohortSelection';
import { gateCertificate, type GateCertificate } from './gateCertificate';
import { costOf } from './modelPrices';
import { BatchGrader, estimateTokens, type Grader } from './modelGrader';
import { endStateOf, failedResult, whatIfRun } from './whatIfRun';
import {
  WHAT_IF_OUTCOMES,
  WhatIfSpecSchema,
  isModelAssertion,
  type WhatIfOutcome,
  type WhatIfRunResult,
  type WhatIfSpec,
  type WhatIfSpecInput,
} from './whatIfSpec';

export interface CostEstimate {
  /** Tokens the recording spent after the fork points (what a real model is asked to spend again) and grading's. */
  tokens: number;
  /** Of `tokens`, what the model-graded assertions are expected to take (each run's end and its recording's). */
  gradingTokens?: number;
  /** USD at the model's price, for the tokens whose model has a known price. */
  usd: number;
  /** Models with no known price, and their tokens. */
  unpriced: { model: string; tokens: number }[];
}

export interface WhatIfProgress {
  done: number;
  total: number;
  /** Results read back from the batch file rather than run now. */
  resumed: number;
  last?: WhatIfRunResult;
}

export interface WhatIfOptions {
  chatModel?: ChatModel;
  /** The endpoint and model that answer the model-graded assertions (needed when the spec has any). */
  grader?: Grader;
  /** Forks in flight at once (default 2). */
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (p: WhatIfProgress) => void;
  /** The batch file that keeps progress (resumed when it holds the same batch). */
  batchFile?: string;
  /** Or the folder where it is kept, named by the batch's key. */
  batchDir?: string;
  fresh?: boolean;
  /** Real / override model or model-graded assertions: asked when the estimate passes `maxCostUsd` (or has unpriced tokens); false stops. */
  confirmCost?: (estimate: CostEstimate) => Promise<boolean>;
  maxCostUsd?: number;
}

/** Per outcome, how many runs; per assertion, how many forks and source runs pass it. */
export interface WhatIfRates {
  outcomes: Record<WhatIfOutcome, number>;
  assertions: {
    name: string;
    /** The expression, or for a model-graded assertion the question. */
    expression?: string;
    question?: string;
    passed: number;
    failed: number;
    sourcePassed: number;
  }[];
}

export interface WhatIfReport {
  spec: WhatIfSpec;
  total: number;
  resumed: number;
  results: WhatIfRunResult[];
  rates: WhatIfRates;
  certificate: GateCertificate;
  estimate?: CostEstimate;
  /** Where the batch's progress is kept. */
  batchFile?: string;
}

/** A hazard the batch would leave open, with the runs it would run in. */
export interface CohortHazard extends Hazard {
  runIds: string[];
}

/** The plans of the cohort: each run's fork point (or why it has none) and the hazards left open. */
interface Preflight {
  points: Map<string, string>;
  unplanned: Map<string, unknown>;
  hazards: CohortHazard[];
  estimate: CostEstimate;
}

/** Adds `tokens` of `model` to the estimate: priced where the model's price is known, else listed. */
function addTokens(estimate: CostEstimate, model: string, input: number, output: number): void {
  estimate.tokens += input + output;
  const usd = costOf(model, { input, output });
  if (usd !== undefined) estimate.usd += usd;
  else if (input + output > 0) {
    const row = estimate.unpriced.find((u) => u.model === model);
    if (row) row.tokens += input + output;
    else estimate.unpriced.push({ model, tokens: input + output });
  }
}

/** What grading each run is expected to take: every question over the recording's end, twice (fork and source). */
function addGrading(
  estimate: CostEstimate,
  store: RunStore,
  spec: WhatIfSpec,
  runId: string,
  grader: BatchGrader | undefined,
): void {
  const questions = spec.assertions.filter(isModelAssertion);
  if (questions.length === 0 || !grader) return;
  const end = endStateOf(store, runId);
  if (!end) return;
  for (const q of questions) {
    const t = estimateTokens(q.question, end);
    addTokens(estimate, grader.modelOf(q.model), 2 * t.input, 2 * t.output);
    estimate.gradingTokens = (estimate.gradingTokens ?? 0) + 2 * (t.input + t.output);
  }
}

function preflight(
  store: RunStore,
  spec: WhatIfSpec,
  runIds: readonly string[],
  grader: BatchGrader | undefined,
): Preflight {
  const service = new ForkService(store);
  const points = new Map<string, string>();
  const unplanned = new Map<string, unknown>();
  const hazards = new Map<string, CohortHazard>();
  const estimate: CostEstimate = { tokens: 0, usd: 0, unpriced: [] };
  const real = spec.fork.modelOverride?.mode === 'real' || spec.fork.modelOverride?.mode === 'override';
  for (const runId of runIds) {
    try {
      const at = forkPointOf(store, runId, spec.at);
      const plan = service.plan({ ...spec.fork, sourceRunId: runId, sourceCheckpointId: at.checkpointId });
      points.set(runId, at.checkpointId);
      for (const h of openHazards(plan.hazards, spec.acknowledgedTools)) {
        const key = `${h.toolName}\u0000${h.policy}\u0000${h.source}\u0000${h.unlockable}`;
        const known = hazards.get(key) ?? { ...h, runIds: [] };
        known.runIds.push(runId);
        hazards.set(key, known);
      }
      if (real) {
        const after = store.listCheckpoints(runId, { offset: at.index + 1 });
        const input = after.reduce((n, s) => n + (s.usage?.inputTokens ?? 0), 0);
        const output = after.reduce((n, s) => n + (s.usage?.outputTokens ?? 0), 0);
        addTokens(estimate, plan.model?.model ?? 'unknown', input, output);
      }
      addGrading(estimate, store, spec, runId, grader);
    } catch (e) {
      if (!(e instanceof OcdbError) || e.code === 'InvalidInput') throw e; // a bad config fails the batch once
      unplanned.set(runId, e);
    }
  }
  return { points, unplanned, hazards: [...hazards.values()], estimate };
}

/** The refusal of a batch whose plans leave hazards open: every tool, why, and the runs it would run in. */
export function refusal(hazards: readonly CohortHazard[]): OcdbError {
  const lines = hazards.map(
    (h) =>
      `  ${h.toolName} (${h.sideEffectLevel}, ${h.policy} from ${h.source === 'wildcard' ? "'*'" : h.source}) in ${h.runIds.length} run${h.runIds.length === 1 ? '' : 's'}: ${h.runIds.slice(0, 5).join(', ')}${h.runIds.length > 5 ? `, … (${h.runIds.length - 5} more)` : ''} — ${h.reason}`,
  );
  return new OcdbError(
    'ForkRejected',
    `What-if refused before running anything: ${hazards.length} tool${hazards.length === 1 ? '' : 's'} would run again with side effects:\n${lines.join('\n')}`,
    { hazards },
  );
}

export function ratesOf(spec: WhatIfSpec, results: readonly WhatIfRunResult[]): WhatIfRates {
  const outcomes = Object.fromEntries(WHAT_IF_OUTCOMES.map((o) => [o, 0])) as Record<WhatIfOutcome, number>;
  for (const r of results) outcomes[r.outcome]++;
  const assertions = spec.assertions.map((assertion) => {
    const name = assertion.name;
    const of = results.flatMap((r) => r.assertions.filter((a) => a.name === name));
    return {
      name,
      ...(isModelAssertion(assertion) ? { question: assertion.question } : { expression: assertion.expression }),
      passed: of.filter((a) => a.passed).length,
      failed: of.filter((a) => !a.passed).length,
      sourcePassed: of.filter((a) => a.sourcePassed === true).length,
    };
  });
  return { outcomes, assertions };
}

/** Runs the batch `input` over the store; throws ForkRejected (nothing ran) or InvalidInput before it starts. */
export async function runWhatIf(
  store: RunStore,
  input: WhatIfSpecInput,
  options: WhatIfOptions = {},
): Promise<WhatIfReport> {
  const spec = parseWith(WhatIfSpecSchema, input, 'what-if');
  checkForkPoint(spec.at);
  for (const a of spec.assertions) if (!isModelAssertion(a)) compileExpression(a.expression);
  const grading = spec.assertions.some(isModelAssertion);
  if (grading && !options.grader) {
    throw new OcdbError(
      'InvalidInput',
      'A model-graded assertion needs a model endpoint and a model: pass --base-url and --model-name (or set OCDB_MODEL_BASE_URL and OCDB_MODEL).',
      { path: 'assertions' },
    );
  }
  const grader = grading && options.grader ? new BatchGrader(options.grader) : undefined;
  const runIds = selectCohort(store, spec.cohort);
  if (runIds.length === 0) {
    throw new OcdbError(
      'InvalidInput',
      'No run matches the cohort (check --agent, --status, --since, --meta, --run).',
      {
        path: 'cohort',
      },
    );
  }
  const plans = preflight(store, spec, runIds, grader);
  if (plans.hazards.length > 0) throw refusal(plans.hazards);
  const real = spec.fork.modelOverride?.mode === 'real' || spec.fork.modelOverride?.mode === 'override';
  const spends = real || grader !== undefined;
  if (spends && options.confirmCost) {
    const over = plans.estimate.usd > (options.maxCostUsd ?? 0) || plans.estimate.unpriced.length > 0;
    if (over && !(await options.confirmCost(plans.estimate))) {
      throw new OcdbError(
        'Cancelled',
        `What-if not started: it would spend about ${plans.estimate.tokens} tokens (≈ $${plans.estimate.usd.toFixed(2)}).`,
        {
          estimate: plans.estimate,
        },
      );
    }
  }

  const file =
    options.batchFile ?? (options.batchDir ? join(options.batchDir, `${batchKey(spec, runIds)}.jsonl`) : undefined);
  const progress: BatchProgress = file
    ? openBatchFile(file, spec, runIds, options.fresh ? { fresh: true } : {})
    : { done: new Map(), append: () => undefined };
  const results = new Map<string, WhatIfRunResult>(progress.done);
  const resumed = results.size;
  const todo = runIds.filter((id) => !results.has(id));
  const total = runIds.length;
  options.onProgress?.({ done: results.size, total, resumed });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < todo.length) {
      if (options.signal?.aborted) return;
      const runId = todo[next++] as string;
      const point = plans.points.get(runId);
      const result = point
        ? await whatIfRun(store, spec, runId, point, {
            ...(options.chatModel ? { chatModel: options.chatModel } : {}),
            ...(options.signal ? { signal: options.signal } : {}),
            ...(grader ? { grader } : {}),
          }).catch((e: unknown) => failedResult(store, runId, e))
        : failedResult(store, runId, plans.unplanned.get(runId));
      if (options.signal?.aborted && result.failureCode === 'cancelled') return; // not done: resumed next time
      results.set(runId, result);
      progress.append(result);
      options.onProgress?.({ done: results.size, total, resumed, last: result });
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 2, 64));
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, todo.length)) }, () => worker()));
  const ordered = runIds.map((id) => results.get(id)).filter((r): r is WhatIfRunResult => r !== undefined);
  return {
    spec,
    total,
    resumed,
    results: ordered,
    rates: ratesOf(spec, ordered),
    certificate: gateCertificate(spec, ordered),
    ...(spends ? { estimate: plans.estimate } : {}),
    ...(file ? { batchFile: file } : {}),
  };
}
