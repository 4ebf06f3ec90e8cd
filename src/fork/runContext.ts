/**
 * The state a fork/replay execution of the built-in runner shares between the
 * captured walk and the real-model loop: the RunWriter of the fork run, the
 * tool gate, the config, and the one tool step both use (decide through the
 * gate, answer from cassette or mock, never run a tool's code: executing
 * policies need the agent program). No UI, no network.
 */
import { canonicalJson, type ForkConfig, type RunEndStatus, type RuntimeContextSnapshot } from '../model';
import type { RunStore } from '../store';
import type { RunWriter } from '../writer';
import type { CassetteAnswer } from './cassette';
import type { Divergence } from './divergence';
import { agentProgramRequired, cancelledRun } from './forkErrors';
import type { ForkPlan } from './forkPlan';
import type { ChatModel } from './modelClient';
import type { RecordedTurn } from './modelTurns';
import type { ToolFacts, ToolGate } from './toolGate';

export interface RunContext {
  store: RunStore;
  plan: ForkPlan;
  config: ForkConfig;
  writer: RunWriter;
  gate: ToolGate;
  /** Source run metadata (prompt templates). */
  metadata: Record<string, unknown>;
  chatModel?: ChatModel;
  signal?: AbortSignal;
  maxModelTurns: number;
  /** Recorded model turns from the fork point on: a real model's answers are compared with them (first difference reported). */
  recordedTurns?: readonly RecordedTurn[];
  /** Set by the real loop at the first answer that differs from the recording. */
  responseDivergence?: Divergence;
}

/** How a walk or loop ended. */
export interface StepsOutcome {
  status: RunEndStatus;
  error?: unknown;
  divergence?: Divergence;
}

/** The runtime context the fork run is at now. */
export function contextNow(ctx: RunContext): RuntimeContextSnapshot {
  return ctx.writer.state?.runtimeContext ?? ctx.plan.runtimeContext;
}

/**
 * Decides one tool call and returns its answer without running anything: reuse -> cassette, mock ->
 * toolMockResults; forbid -> ForbiddenReplay; an unacknowledged hazard -> ForkRejected; execute / confirm ->
 * AgentProgramRequired (the built-in runner never runs a tool's code).
 */
export function answerTool(
  ctx: RunContext,
  toolName: string,
  args: unknown,
  facts: ToolFacts,
): { answer: CassetteAnswer; policy: ToolFacts['recordedPolicy'] } {
  const outcome = ctx.gate.decide(toolName, args, facts, contextNow(ctx));
  if (outcome.kind !== 'answer') throw agentProgramRequired(toolName, outcome.policy);
  return { answer: outcome.answer, policy: outcome.policy };
}

/** True when two message contents are the same JSON. */
export function sameContent(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** Throws Cancelled when the caller aborted. */
export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelledRun();
}
