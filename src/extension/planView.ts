/**
 * A ForkPlan (ForkService.plan) as the fork editor page shows it: the tool
 * rows, hazards, warnings and changed paths of protocol.ts. Pure: no vscode.
 */
import type { ForkPlan } from '../fork/forkService';
import type { PlanView } from '../webview/protocol';

/** The page's view of a plan. */
export function planView(plan: ForkPlan): PlanView {
  return {
    tools: plan.tools.map(({ hazard: _hazard, ...row }) => row),
    hazards: plan.hazards.map((h) => ({ ...h })),
    warnings: plan.warnings,
    changedPaths: plan.changedPaths,
    ...(plan.predictedDivergence ? { predictedDivergence: plan.predictedDivergence.message } : {}),
  };
}
