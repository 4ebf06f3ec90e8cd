/**
 * The demo's captured fork "what if the user had been an auditor?": demo-support-refund forked at step 5's
 * before_prompt_build with user.roleId = auditor, run with the captured model — it ends diverged at step 5
 * (the system prompt). What the Timeline's tests draw and open.
 */
import { ForkService } from '../../src/fork/forkService';
import { runFork } from '../../src/fork/runner';
import type { RunStore } from '../../src/store';

export const REFUND = 'demo-support-refund';

export async function forkAuditor(store: RunStore): Promise<{ runId: string; forkIndex: number }> {
  const from = store.listCheckpoints(REFUND).find((c) => c.stepIndex === 5 && c.boundary === 'before_prompt_build');
  if (!from) throw new Error('the demo refund run has no step 5');
  const created = new ForkService(store).create({
    sourceRunId: REFUND,
    sourceCheckpointId: from.checkpointId,
    contextPatch: { user: { roleId: 'auditor' } },
    toolPolicyMap: { '*': 'reuse_result' },
  });
  const outcome = await runFork(store, created.forkRequestId);
  if (outcome.status !== 'diverged') throw new Error(`the auditor fork ended ${outcome.status}, not diverged`);
  return { runId: created.runId, forkIndex: from.index };
}
