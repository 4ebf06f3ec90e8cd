/**
 * One run of a what-if batch: its fork created through ForkService (the one front door, so the single fork's
 * hazard gate refuses here exactly as there) and run by the built-in runner, then read back against its source:
 * the outcome (same / diverged / different / failed), the tool calls that differ after the fork point, the
 * assertions over the fork's end (and over the source's, for comparison), tokens, cost and time, and what the
 * gate answered for every tool call the fork made. Keeps nothing but the small result.
 */
import {
  divergenceSummary,
  isOcdbError,
  readRunError,
  type ToolCallRecord,
  type ReplayPolicy,
  type SideEffectLevel,
} from '../model';
import type { CheckpointSummary, RunStore } from '../store';
import { ForkService } from '../fork/forkService';
import { runFork, toRunError, type RunOutcome } from '../fork/runner';
import type { ChatModel } from '../fork/modelClient';
import { checkpointState, evaluateExpression, isTruthy, type EvalState } from '../replay/evaluate';
import { costOf } from './modelPrices';
import type { BatchGrader } from './modelGrader';
import {
  isModelAssertion,
  type AssertionResult,
  type GateEntry,
  type ModelAssertion,
  type ToolCallChange,
  type WhatIfRunResult,
  type WhatIfSpec,
} from './whatIfSpec';

export interface WhatIfRunOptions {
  chatModel?: ChatModel;
  signal?: AbortSignal;
  /** Answers the model-graded assertions (a batch with any has one). */
  grader?: BatchGrader;
}

/** A tool call of one side after the fork point, with the step it was made in. */
interface SideCall {
  record: ToolCallRecord;
  stepIndex: number;
}

const usageTokens = (s: CheckpointSummary) => (s.usage ? s.usage.inputTokens + s.usage.outputTokens : 0);

/** The calls a run made in `summaries` (their before/after_tool_call checkpoints), in the order begun. */
function callsIn(store: RunStore, runId: string, summaries: readonly CheckpointSummary[]): SideCall[] {
  const steps = new Map<string, number>();
  for (const s of summaries) if (s.toolCallId && !steps.has(s.toolCallId)) steps.set(s.toolCallId, s.stepIndex);
  if (steps.size === 0) return [];
  return store
    .listToolCalls(runId)
    .filter((r) => steps.has(r.toolCallId))
    .map((record) => ({ record, stepIndex: steps.get(record.toolCallId) ?? -1 }));
}

const outcomeKey = (r: ToolCallRecord) => JSON.stringify([r.result ?? null, r.error ?? null]);

/** The calls that differ, tool by tool: the n-th call of a tool against the n-th, the rest added or removed. */
export function toolCallChanges(source: readonly SideCall[], fork: readonly SideCall[]): ToolCallChange[] {
  const byName = (list: readonly SideCall[]) => {
    const m = new Map<string, SideCall[]>();
    for (const c of list) m.set(c.record.toolName, [...(m.get(c.record.toolName) ?? []), c]);
    return m;
  };
  const a = byName(source);
  const b = byName(fork);
  const changes: ToolCallChange[] = [];
  for (const toolName of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const left = a.get(toolName) ?? [];
    const right = b.get(toolName) ?? [];
    for (let i = 0; i < Math.max(left.length, right.length); i++) {
      const l = left[i];
      const r = right[i];
      if (!r) changes.push({ change: 'removed', toolName, stepIndex: (l as SideCall).stepIndex });
      else if (!l) changes.push({ change: 'added', toolName, stepIndex: r.stepIndex });
      else if (l.record.argsHash !== r.record.argsHash)
        changes.push({ change: 'args', toolName, stepIndex: r.stepIndex });
      else if (r.record.endedAt !== undefined && outcomeKey(l.record) !== outcomeKey(r.record)) {
        changes.push({ change: 'result', toolName, stepIndex: r.stepIndex });
      }
    }
  }
  return changes;
}

/** The state expressions see at a run's last checkpoint (its end), or undefined for an empty run. */
export function endStateOf(store: RunStore, runId: string): EvalState | undefined {
  const count = store.getRun(runId).checkpointCount;
  if (count === 0) return undefined;
  const cp = store.getCheckpointAt(runId, count - 1);
  const calls = new Map(store.listToolCalls(runId).map((r) => [r.toolCallId, r]));
  return checkpointState(cp, count - 1, (id) => calls.get(id));
}

/** Evaluates each expression assertion over the fork's end and the source's end; an error fails the assertion. */
export function evaluateAssertions(
  assertions: readonly { name: string; expression: string }[],
  fork: EvalState | undefined,
  source: EvalState | undefined,
): AssertionResult[] {
  const test = (expression: string, state: EvalState | undefined): { passed: boolean; error?: string } => {
    if (!state) return { passed: false, error: 'the run has no checkpoint' };
    try {
      return { passed: isTruthy(evaluateExpression(expression, state)) };
    } catch (e) {
      return { passed: false, error: e instanceof Error ? e.message : String(e) };
    }
  };
  return assertions.map(({ name, expression }) => {
    const mine = test(expression, fork);
    const theirs = test(expression, source);
    return {
      name,
      passed: mine.passed,
      ...(theirs.error === undefined ? { sourcePassed: theirs.passed } : {}),
      ...(mine.error !== undefined ? { error: mine.error } : {}),
    };
  });
}

interface Graded {
  result: AssertionResult;
  tokens: number;
  costUsd: number | undefined;
}

/**
 * Puts a model-graded assertion to the grader over the fork's end and the recording's. A grader that fails or
 * answers no verdict fails the fork's side with its reason (the recording's side is then unknown); the batch goes on.
 */
async function gradeAssertion(
  a: ModelAssertion,
  fork: EvalState | undefined,
  source: EvalState | undefined,
  options: WhatIfRunOptions,
): Promise<Graded> {
  const grader = options.grader;
  if (!grader) {
    return { result: { name: a.name, passed: false, error: 'no model endpoint to grade with' }, tokens: 0, costUsd: 0 };
  }
  const model = grader.modelOf(a.model);
  let tokens = 0;
  let cost: number | undefined = 0;
  const ask = async (state: EvalState | undefined) => {
    if (!state) return { error: 'the run has no checkpoint' };
    try {
      const v = await grader.grade(a.question, state, a.model, options.signal);
      tokens += v.tokens;
      const c = costOf(model, { input: v.inputTokens, output: v.outputTokens });
      cost = cost === undefined || c === undefined ? undefined : cost + c;
      return { passed: v.passed, reason: v.reason };
    } catch (e) {
      if (isOcdbError(e) && e.code === 'Cancelled') throw e;
      return { error: e instanceof Error ? e.message : String(e) };
    }
  };
  const mine = await ask(fork);
  const theirs = await ask(source);
  const result: AssertionResult = {
    name: a.name,
    passed: mine.passed === true,
    ...(theirs.passed !== undefined ? { sourcePassed: theirs.passed } : {}),
    ...(mine.error !== undefined ? { error: mine.error } : {}),
    ...(mine.reason ? { reason: mine.reason } : {}),
    ...(theirs.reason ? { sourceReason: theirs.reason } : {}),
    ...(theirs.error !== undefined ? { sourceError: theirs.error } : {}),
  };
  return { result, tokens, costUsd: cost };
}

/** Every assertion of the batch, in its order: expressions evaluated here, questions put to the grader. */
async function checkAssertions(
  assertions: WhatIfSpec['assertions'],
  fork: EvalState | undefined,
  source: EvalState | undefined,
  options: WhatIfRunOptions,
): Promise<{ results: AssertionResult[]; grading?: { tokens: number; costUsd?: number } }> {
  const results: AssertionResult[] = [];
  let grading: { tokens: number; costUsd?: number } | undefined;
  for (const a of assertions) {
    if (!isModelAssertion(a)) {
      results.push(...evaluateAssertions([a], fork, source));
      continue;
    }
    const graded = await gradeAssertion(a, fork, source, options);
    results.push(graded.result);
    const before = grading ?? { tokens: 0, costUsd: 0 };
    const costUsd =
      before.costUsd === undefined || graded.costUsd === undefined ? undefined : before.costUsd + graded.costUsd;
    grading = { tokens: before.tokens + graded.tokens, ...(costUsd !== undefined ? { costUsd } : {}) };
  }
  return { results, ...(grading ? { grading } : {}) };
}

const ANSWERED_BY: Readonly<Record<ReplayPolicy, GateEntry['answeredBy']>> = {
  reuse_result: 'recording',
  mock_result: 'mock',
  re_execute: 'executed',
  manual_confirm: 'executed',
  forbid_replay: 'refused',
};

/** What the gate answered for every call the fork made (its own calls: the ledger records the policy it ran under). */
function gateEntries(
  calls: readonly ToolCallRecord[],
  refused?: { toolName: string; level: SideEffectLevel; policy: ReplayPolicy },
): GateEntry[] {
  const by = new Map<string, GateEntry>();
  const add = (
    toolName: string,
    sideEffectLevel: SideEffectLevel,
    policy: ReplayPolicy,
    answeredBy: GateEntry['answeredBy'],
  ) => {
    const key = `${toolName}\u0000${sideEffectLevel}\u0000${policy}\u0000${answeredBy}`;
    const entry = by.get(key) ?? { toolName, sideEffectLevel, policy, answeredBy, count: 0 };
    entry.count++;
    by.set(key, entry);
  };
  for (const r of calls) add(r.toolName, r.sideEffectLevel, r.replayPolicy, ANSWERED_BY[r.replayPolicy]);
  if (refused) add(refused.toolName, refused.level, refused.policy, 'refused');
  return [...by.values()];
}

/** The tool the gate stopped a fork at (forbid_replay, an unacknowledged hazard, a tool only the agent can run). */
function refusedTool(failure: Record<string, unknown> | undefined, levels: ReadonlyMap<string, SideEffectLevel>) {
  const code = failure?.code;
  const toolName = failure?.toolName;
  if (typeof toolName !== 'string') return undefined;
  if (code !== 'forbidden_replay' && code !== 'fork_rejected' && code !== 'agent_program_required') return undefined;
  const policy = (typeof failure?.policy === 'string' ? failure.policy : 're_execute') as ReplayPolicy;
  return { toolName, level: levels.get(toolName) ?? 'none', policy };
}

/** A failed result for a run the batch could not fork (no such fork point, a refused hazard, ...). */
export function failedResult(store: RunStore, runId: string, e: unknown): WhatIfRunResult {
  const error = toRunError(e);
  return {
    sourceRunId: runId,
    sourceStatus: store.hasRun(runId) ? store.getRun(runId).status : 'unknown',
    outcome: 'failed',
    detail: String(error.message ?? 'failed'),
    failureCode: String(error.code ?? 'internal'),
    toolChanges: [],
    assertions: [],
    tokens: { source: 0, fork: 0, spent: 0 },
    timeMs: { source: 0, fork: 0 },
    gate: [],
  };
}

/** Forks `runId` at `sourceCheckpointId` with the batch's configuration, runs it, and compares. */
export async function whatIfRun(
  store: RunStore,
  spec: WhatIfSpec,
  runId: string,
  sourceCheckpointId: string,
  options: WhatIfRunOptions = {},
): Promise<WhatIfRunResult> {
  const service = new ForkService(store);
  let created;
  try {
    created = service.create({ ...spec.fork, sourceRunId: runId, sourceCheckpointId }, spec.acknowledgedTools);
  } catch (e) {
    if (!isOcdbError(e)) throw e;
    return failedResult(store, runId, e);
  }
  const outcome: RunOutcome = await runFork(store, created.forkRequestId, {
    ...(options.chatModel ? { chatModel: options.chatModel } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const source = store.getRun(runId);
  const fork = store.getRun(created.runId);
  const forkIndex = created.plan.sourceCheckpointIndex;
  const sourceAfter = store.listCheckpoints(runId, { offset: forkIndex + 1 });
  const forkOwn = store.listCheckpoints(created.runId, { offset: 1 });
  const forkCalls = store.listToolCalls(created.runId);
  const toolChanges = toolCallChanges(callsIn(store, runId, sourceAfter), callsIn(store, created.runId, forkOwn));
  const checked = await checkAssertions(
    spec.assertions,
    endStateOf(store, created.runId),
    endStateOf(store, runId),
    options,
  );
  const assertions = checked.results;
  const spentTurns = forkOwn.filter((s) => s.usage && !s.usage.captured);
  const spentBy = {
    input: spentTurns.reduce((n, s) => n + (s.usage?.inputTokens ?? 0), 0),
    output: spentTurns.reduce((n, s) => n + (s.usage?.outputTokens ?? 0), 0),
  };
  const spent = spentBy.input + spentBy.output;
  const at = store.getCheckpointSummary(sourceCheckpointId);
  const levels = new Map(created.plan.tools.map((t) => [t.toolName, t.sideEffectLevel]));
  const failure = outcome.failure;
  const failureError = readRunError(failure);
  const base = {
    sourceRunId: runId,
    sourceStatus: source.status,
    forkRunId: created.runId,
    forkRequestId: created.forkRequestId,
    forkCheckpointIndex: forkIndex,
    forkStatus: fork.status,
    toolChanges,
    assertions,
    tokens: {
      source: sourceAfter.reduce((n, s) => n + usageTokens(s), 0),
      fork: forkOwn.reduce((n, s) => n + usageTokens(s), 0),
      spent,
    },
    timeMs: {
      source: Math.max(0, (sourceAfter.at(-1)?.createdAt ?? at.createdAt) - at.createdAt),
      fork: Math.max(0, (fork.endedAt ?? fork.lastCheckpointAt ?? fork.startedAt) - fork.startedAt),
    },
    gate: gateEntries(forkCalls, refusedTool(failure, levels)),
    ...(checked.grading ? { grading: checked.grading } : {}),
  };
  const cost = spent > 0 ? costOf(created.plan.model?.model, spentBy) : 0;
  const priced = cost !== undefined ? { costUsd: cost } : {};
  if (outcome.divergence) {
    return {
      ...base,
      ...priced,
      outcome: 'diverged',
      detail: divergenceSummary(outcome.divergence),
      divergedAtStep: outcome.divergence.stepIndex,
    };
  }
  if (failure) {
    return {
      ...base,
      ...priced,
      outcome: 'failed',
      detail: failureError?.message ?? 'the fork failed',
      failureCode: failureError?.code ?? 'internal',
    };
  }
  if (fork.status !== source.status || toolChanges.length > 0) {
    const parts = [
      ...(fork.status !== source.status ? [`${source.status} → ${fork.status}`] : []),
      ...toolChanges
        .slice(0, 3)
        .map((c) => `${c.toolName} ${c.change === 'args' || c.change === 'result' ? `other ${c.change}` : c.change}`),
    ];
    return { ...base, ...priced, outcome: 'different', detail: parts.join(', ') };
  }
  return { ...base, ...priced, outcome: 'same', detail: 'same as recorded' };
}
