/**
 * Replay-policy resolution for forks and the hazard rule: a named tool in
 * toolPolicyMap beats '*', which beats the policy recorded with the call; a
 * tool that would re-execute with `write` or `external_irreversible` effects
 * is a hazard needing acknowledgement by name, and an `external_irreversible`
 * tool can only be unlocked by its own name in toolPolicyMap, never by '*'.
 * Pure.
 */
import { z } from 'zod';
import { POLICY_WILDCARD } from './names';
import {
  HAZARDOUS_LEVELS,
  ReplayPolicySchema,
  SideEffectLevelSchema,
  type ReplayPolicy,
  type SideEffectLevel,
} from './toolCall';

/** Policies under which the tool's real code runs again. */
export const EXECUTING_POLICIES: ReadonlySet<ReplayPolicy> = new Set(['re_execute', 'manual_confirm']);

/** Where a tool's effective policy came from: its own name in toolPolicyMap, the '*' entry, or the recording. */
export const POLICY_SOURCES = ['named', 'wildcard', 'recorded'] as const;
export const PolicySourceSchema = z.enum(POLICY_SOURCES);
export type PolicySource = z.infer<typeof PolicySourceSchema>;

export interface ResolvedPolicy {
  policy: ReplayPolicy;
  source: PolicySource;
}

/** The effective policy of `toolName`: named entry, then '*', then the recorded policy. */
export function resolvePolicy(
  toolName: string,
  recorded: ReplayPolicy,
  policyMap: Readonly<Record<string, ReplayPolicy>> | undefined,
): ResolvedPolicy {
  // the '*' key is the wildcard, never the name of a tool (even of one recorded as `*` before names were checked)
  if (policyMap && toolName !== POLICY_WILDCARD && Object.hasOwn(policyMap, toolName)) {
    return { policy: policyMap[toolName] as ReplayPolicy, source: 'named' };
  }
  if (policyMap && Object.hasOwn(policyMap, POLICY_WILDCARD)) {
    return { policy: policyMap[POLICY_WILDCARD] as ReplayPolicy, source: 'wildcard' };
  }
  return { policy: recorded, source: 'recorded' };
}

export const HazardSchema = z.object({
  toolName: z.string(),
  sideEffectLevel: SideEffectLevelSchema,
  policy: ReplayPolicySchema,
  source: PolicySourceSchema,
  /**
   * False when acknowledging is not enough: an external_irreversible tool whose
   * executing policy did not come from its own name in toolPolicyMap.
   */
  unlockable: z.boolean(),
  /** What the user must do, in words. */
  reason: z.string(),
});
export type Hazard = z.infer<typeof HazardSchema>;

/** The hazard of running `toolName` under `resolved`, or undefined when it is safe. */
export function hazardOf(
  toolName: string,
  sideEffectLevel: SideEffectLevel,
  resolved: ResolvedPolicy,
): Hazard | undefined {
  if (!EXECUTING_POLICIES.has(resolved.policy) || !HAZARDOUS_LEVELS.has(sideEffectLevel)) return undefined;
  const unlockable = sideEffectLevel !== 'external_irreversible' || resolved.source === 'named';
  const reason = unlockable
    ? `${toolName} (${sideEffectLevel}) would run again under ${resolved.policy}: acknowledge it by name to proceed`
    : `${toolName} is external_irreversible and its ${resolved.policy} policy comes from ${resolved.source === 'wildcard' ? "'*'" : 'the recording'}: name it in toolPolicyMap and acknowledge it to re-execute it`;
  return { toolName, sideEffectLevel, policy: resolved.policy, source: resolved.source, unlockable, reason };
}

/** The hazards that `acknowledged` leaves open (empty: the fork may proceed). */
export function openHazards(hazards: readonly Hazard[], acknowledged: readonly string[]): Hazard[] {
  // acknowledging '*' acknowledges nothing: hazards are acknowledged by a tool's own name
  const ack = new Set(acknowledged.filter((name) => name !== POLICY_WILDCARD));
  return hazards.filter((h) => !(h.unlockable && ack.has(h.toolName)));
}

/** One tool the source run of a fork used, and what the fork would do with it (a row of the fork plan). */
export const ToolPlanEntrySchema = z.object({
  toolName: z.string(),
  /** The most severe side-effect level recorded for the tool. */
  sideEffectLevel: SideEffectLevelSchema,
  /** The policy recorded with that call. */
  recordedPolicy: ReplayPolicySchema,
  /** Effective policy: named entry, then '*', then recorded. */
  policy: ReplayPolicySchema,
  source: PolicySourceSchema,
  /** Calls recorded in the source run after the fork checkpoint (what the fork will meet again if the agent repeats itself). */
  callsAfterForkPoint: z.number().int(),
  /** Calls recorded across the lineage. */
  recordedCalls: z.number().int(),
  /** Set when the effective policy would re-execute a write / external_irreversible tool. */
  hazard: HazardSchema.optional(),
  /** mock_result without an entry in toolMockResults: the fork would fail when the tool is called. */
  mockMissing: z.boolean().optional(),
});
export type ToolPlanEntry = z.infer<typeof ToolPlanEntrySchema>;
