/**
 * The tool gate of a fork: what happens when the fork's agent — the built-in
 * runner's replay of the recording or the agent's own program — calls a tool.
 * One implementation for both: the tool's facts (side-effect level and
 * recorded policy, from the fork plan and what the agent declares), the
 * decision (toolDecision.ts), and the answer: reuse from the cassette, mock,
 * forbid, refuse an unacknowledged hazard, or tell the caller to execute /
 * confirm (only the agent program can). Never runs a tool. No UI.
 */
import {
  SIDE_EFFECT_LEVELS,
  type ForkConfig,
  type ReplayPolicy,
  type RuntimeContextSnapshot,
  type SideEffectLevel,
} from '../model';
import { replayPolicyOf } from '../writer';
import { mockFor, type CassetteAnswer, type ToolCassette } from './cassette';
import { forbiddenReplay, unacknowledgedHazard } from './forkErrors';
import type { ToolPlanEntry } from './forkPlan';
import { decideTool } from './toolDecision';

/** What the gate knows of a tool. */
export interface ToolFacts {
  /** The most severe level recorded or declared. */
  level: SideEffectLevel;
  /** The policy it was recorded with (or declares). */
  recordedPolicy: ReplayPolicy;
}

/** What a call does: answered without running, or to be executed / confirmed by the agent program. */
export type GateOutcome =
  | { kind: 'answer'; answer: CassetteAnswer; policy: ReplayPolicy }
  | { kind: 'execute'; policy: ReplayPolicy }
  | { kind: 'confirm'; policy: ReplayPolicy };

const SEVERITY = new Map<SideEffectLevel, number>(SIDE_EFFECT_LEVELS.map((l, i) => [l, i]));

export interface ToolGateInput {
  config: ForkConfig;
  acknowledged: readonly string[];
  cassette: ToolCassette;
  /** The plan's tools: level and recorded policy of every tool the lineage used. */
  tools: readonly ToolPlanEntry[];
}

export class ToolGate {
  constructor(private readonly input: ToolGateInput) {}

  /**
   * The facts of `toolName`: the recording's (most severe call across the lineage), raised to what the caller
   * declares (an agent may declare a level the recording never saw); a tool never recorded nor declared is
   * treated as side-effect free under reuse_result (the cassette then misses).
   */
  facts(toolName: string, declared?: { sideEffectLevel: SideEffectLevel; replayPolicy?: ReplayPolicy }): ToolFacts {
    const entry = this.input.tools.find((t) => t.toolName === toolName);
    if (!declared) {
      return entry
        ? { level: entry.sideEffectLevel, recordedPolicy: entry.recordedPolicy }
        : { level: 'none', recordedPolicy: 'reuse_result' };
    }
    const recorded = entry?.sideEffectLevel;
    const level =
      recorded !== undefined && (SEVERITY.get(recorded) ?? 0) > (SEVERITY.get(declared.sideEffectLevel) ?? 0)
        ? recorded
        : declared.sideEffectLevel;
    return { level, recordedPolicy: entry?.recordedPolicy ?? replayPolicyOf(declared) };
  }

  /** Decides one call; throws ForbiddenReplay, ForkRejected (unacknowledged hazard), CassetteMiss or MockMissing. */
  decide(toolName: string, args: unknown, facts: ToolFacts, context: RuntimeContextSnapshot): GateOutcome {
    const decision = decideTool(
      toolName,
      facts.level,
      facts.recordedPolicy,
      this.input.config,
      this.input.acknowledged,
    );
    switch (decision.action) {
      case 'reuse':
        return { kind: 'answer', answer: this.reuse(toolName, args), policy: decision.policy };
      case 'mock':
        return { kind: 'answer', answer: this.mock(toolName, context), policy: decision.policy };
      case 'forbid':
        throw forbiddenReplay(toolName, decision.policy, decision.source);
      case 'refuse':
        throw unacknowledgedHazard(toolName, facts.level, decision.hazard);
      case 'execute':
        return { kind: 'execute', policy: decision.policy };
      case 'confirm':
        return { kind: 'confirm', policy: decision.policy };
      default: {
        const unreachable: never = decision.action;
        throw new Error(`unknown tool action ${String(unreachable)}`);
      }
    }
  }

  /** The recorded answer of this call (CassetteMiss when the recording never saw these arguments). */
  reuse(toolName: string, args: unknown): CassetteAnswer {
    return this.input.cassette.reuse(toolName, args);
  }

  /** The mock of `toolName` (MockMissing when there is none). */
  mock(toolName: string, context: RuntimeContextSnapshot): CassetteAnswer {
    return mockFor(toolName, this.input.config, context);
  }
}
