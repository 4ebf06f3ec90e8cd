/**
 * What a fork does when its agent calls a tool: the one decision shared by the
 * built-in runner and the recorder SDK's agent-program mode. Effective policy
 * (named, '*', recorded) -> reuse / mock / forbid / execute / confirm, and the
 * safety rule checked again at call time: a tool whose execution is a hazard
 * (write / external_irreversible under re_execute or manual_confirm) runs only
 * when that hazard is acknowledged — and an external_irreversible tool only
 * when its own name is in toolPolicyMap and acknowledged ('*' never unlocks it).
 * Pure.
 */
import {
  hazardOf,
  openHazards,
  resolvePolicy,
  type ForkConfig,
  type Hazard,
  type PolicySource,
  type ReplayPolicy,
  type SideEffectLevel,
} from '../model';

export type ToolAction = 'reuse' | 'mock' | 'forbid' | 'execute' | 'confirm' | 'refuse';

export interface ToolDecision {
  action: ToolAction;
  policy: ReplayPolicy;
  source: PolicySource;
  /** Set for 'refuse': the hazard the fork was not allowed to run. */
  hazard?: Hazard;
}

/**
 * Decides what happens to one call of `toolName`. `recordedPolicy` is the
 * policy recorded with the tool (or the agent's declared one); `acknowledged`
 * are the tools the user acknowledged when creating the fork.
 */
export function decideTool(
  toolName: string,
  sideEffectLevel: SideEffectLevel,
  recordedPolicy: ReplayPolicy,
  config: Pick<ForkConfig, 'toolPolicyMap'>,
  acknowledged: readonly string[],
): ToolDecision {
  const resolved = resolvePolicy(toolName, recordedPolicy, config.toolPolicyMap);
  const base = { policy: resolved.policy, source: resolved.source };
  switch (resolved.policy) {
    case 'reuse_result':
      return { ...base, action: 'reuse' };
    case 'mock_result':
      return { ...base, action: 'mock' };
    case 'forbid_replay':
      return { ...base, action: 'forbid' };
    case 're_execute':
    case 'manual_confirm': {
      const hazard = hazardOf(toolName, sideEffectLevel, resolved);
      if (hazard && openHazards([hazard], acknowledged).length > 0) return { ...base, action: 'refuse', hazard };
      return { ...base, action: resolved.policy === 're_execute' ? 'execute' : 'confirm' };
    }
    default: {
      const unreachable: never = resolved.policy;
      throw new Error(`unknown replay policy ${String(unreachable)}`);
    }
  }
}
