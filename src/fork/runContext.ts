/**
 * The state a fork/replay execution shares between the captured walk and the
 * real-model loop: the writer, the cassette, the config, and the one tool step
 * both use (decide by policy, answer from cassette or mock, record before/after
 * checkpoints). The built-in runner never runs a tool's code: executing
 * policies need the agent program. No UI, no network.
 */
import {
  OcdbError,
  canonicalJson,
  type ForkConfig,
  type Message,
  type ReplayPolicy,
  type RunStatus,
  type SideEffectLevel,
} from '../model';
import type { RunStore } from '../store';
import { mockFor, type CassetteAnswer, type ToolCassette } from './cassette';
import type { ForkPlan } from './forkPlan';
import type { ForkWriter } from './forkWriter';
import type { ChatModel } from './modelClient';
import type { Divergence } from './promptRender';
import type { RecordedTurn } from './agentProgramHooks';
import { decideTool } from './toolDecision';

export interface RunContext {
  store: RunStore;
  plan: ForkPlan;
  config: ForkConfig;
  acknowledged: readonly string[];
  writer: ForkWriter;
  cassette: ToolCassette;
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
  status: Exclude<RunStatus, 'running'>;
  error?: unknown;
  divergence?: Divergence;
}

/** Level and recorded policy of a tool: from the plan, else from a ledger record, else unknown-safe defaults. */
export function toolFacts(
  ctx: RunContext,
  toolName: string,
  fallback?: { sideEffectLevel: SideEffectLevel; replayPolicy: ReplayPolicy },
): { level: SideEffectLevel; recordedPolicy: ReplayPolicy } {
  const entry = ctx.plan.tools.find((t) => t.toolName === toolName);
  if (entry) return { level: entry.sideEffectLevel, recordedPolicy: entry.recordedPolicy };
  if (fallback) return { level: fallback.sideEffectLevel, recordedPolicy: fallback.replayPolicy };
  // Never recorded: the runner can only answer it from a mock or the cassette (which will miss).
  return { level: 'none', recordedPolicy: 'reuse_result' };
}

/**
 * Decides one tool call and returns its answer without running anything:
 * reuse -> cassette, mock -> toolMockResults; forbid -> ForbiddenReplay;
 * execute/confirm -> AgentProgramRequired; an unacknowledged hazard -> ForkRejected.
 */
export function answerTool(
  ctx: RunContext,
  toolName: string,
  args: unknown,
  facts: { level: SideEffectLevel; recordedPolicy: ReplayPolicy },
): { answer: CassetteAnswer; policy: ReplayPolicy } {
  const decision = decideTool(toolName, facts.level, facts.recordedPolicy, ctx.config, ctx.acknowledged);
  switch (decision.action) {
    case 'reuse':
      return { answer: ctx.cassette.reuse(toolName, args), policy: decision.policy };
    case 'mock':
      return { answer: mockFor(toolName, ctx.config, ctx.writer.state.runtimeContext), policy: decision.policy };
    case 'forbid':
      throw new OcdbError(
        'ForbiddenReplay',
        `${toolName} has the policy forbid_replay (${decision.source}): the fork stopped before calling it. Map it to reuse_result or mock_result to go past it.`,
        { toolName, policy: decision.policy, source: decision.source },
      );
    case 'execute':
    case 'confirm':
      throw new OcdbError(
        'AgentProgramRequired',
        `${toolName} has the policy ${decision.policy}: only the agent's own code can run it. Run the fork with the agent program (OCDB_FORK=<forkRequestId> OCDB_STORE=<store> <your agent>) or map ${toolName} to reuse_result / mock_result.`,
        { toolName, policy: decision.policy },
      );
    case 'refuse':
      throw new OcdbError(
        'ForkRejected',
        `${toolName} would run again with ${facts.level} effects and is not acknowledged: ${decision.hazard?.reason ?? ''}`,
        { hazards: decision.hazard ? [decision.hazard] : [], toolName },
      );
    default: {
      const unreachable: never = decision.action;
      throw new Error(`unknown tool action ${String(unreachable)}`);
    }
  }
}

/** The tool message the recorder SDK appends for an outcome (same shape, so replays compare equal). */
export function toolMessage(toolCallId: string, toolName: string, answer: CassetteAnswer): Message {
  return {
    role: 'tool',
    toolCallId,
    toolName,
    content: answer.outcome === 'success' ? answer.value : { error: answer.value },
  };
}

/** True when two message contents are the same JSON. */
export function sameContent(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** Throws Cancelled when the caller aborted. */
export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new OcdbError('Cancelled', 'the fork run was cancelled');
}
