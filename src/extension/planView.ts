/**
 * A ForkPlan (ForkService.plan) as the fork editor page shows it: the tool
 * rows, hazards, warnings and changed paths of protocol.ts. Pure: no vscode.
 */
import type { ForkPlan } from '../fork/forkService';
import type { PlanView } from '../webview/protocol';

/** The page's view of a plan. */
export function planView(plan: ForkPlan): PlanView {
  return {
    tools: plan.tools.map((t) => ({
      toolName: t.toolName,
      sideEffectLevel: t.sideEffectLevel,
      recordedPolicy: t.recordedPolicy,
      policy: t.policy,
      source: t.source,
      recordedCalls: t.recordedCalls,
      callsAfterForkPoint: t.callsAfterForkPoint,
      ...(t.mockMissing ? { mockMissing: true } : {}),
    })),
    hazards: plan.hazards.map((h) => ({ ...h })),
    warnings: plan.warnings,
    changedPaths: plan.changedPaths,
  };
}
