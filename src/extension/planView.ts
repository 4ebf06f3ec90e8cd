/**
 * A ForkPlan (ForkService.plan) as the fork editor page shows it: the tool
 * rows, hazards, warnings and changed paths of protocol.ts, said in the page's
 * own words — its controls (Tool policies, a hazard's "Run … again" tick, Mock
 * results) rather than the ForkConfig fields the CLI and the API name. Pure:
 * no vscode.
 */
import type { ForkPlan } from '../fork/forkService';
import type { Hazard } from '../model';
import type { PlanView } from '../webview/protocol';

/** Where a policy came from, as the page's Tool policies table shows it. */
function sourceWords(h: Hazard): string {
  switch (h.source) {
    case 'named':
      return 'its own row in Tool policies';
    case 'wildcard':
      return 'the * row of Tool policies';
    case 'recorded':
      return 'the recording';
    default: {
      const never: never = h.source;
      return String(never);
    }
  }
}

/** What a hazard means and which control settles it. */
export function hazardInPageWords(h: Hazard): string {
  const replay = `set its Replay policy to reuse_result in Tool policies to replay what it returned`;
  if (h.unlockable) {
    return `${h.toolName} (${h.sideEffectLevel}) would run again under ${h.policy}, from ${sourceWords(h)}: tick "Run ${h.toolName} again" to let it, or ${replay}.`;
  }
  return `${h.toolName} acts outside this machine (external_irreversible) and would run again under ${h.policy}, from ${sourceWords(h)}: ${replay}; to run it again, choose re_execute on its own row and tick "Run ${h.toolName} again".`;
}

/** The page's view of a plan. */
export function planView(plan: ForkPlan): PlanView {
  const unmocked = plan.tools.filter((t) => t.mockMissing).map((t) => t.toolName);
  // the plan's own warning for a missing mock names toolMockResults: the page says it with its Mock results field
  const isUnmocked = (w: string) => unmocked.some((t) => w.startsWith(`${t} is set to mock_result`));
  return {
    tools: plan.tools.map(({ hazard: _hazard, ...row }) => row),
    hazards: plan.hazards.map((h) => ({ ...h, reason: hazardInPageWords(h) })),
    warnings: [
      ...unmocked.map(
        (t) =>
          `${t} is set to mock_result without a mock result: write one under Mock results (JSON), or choose another Replay policy for it in Tool policies (the fork fails if it is called).`,
      ),
      ...plan.warnings.filter((w) => !isUnmocked(w)),
    ],
    changedPaths: plan.changedPaths,
    ...(plan.predictedDivergence ? { predictedDivergence: plan.predictedDivergence.message } : {}),
  };
}
