/**
 * The result of a fork made from Context & Fork, as its result panel shows it: running, how it ended, and — for as
 * long as it is diverged — where, with the actions that go on from it (the same commands as its tree item's menu).
 */
import { divergenceOfError, divergenceSummary } from '../model';
import type { DivergedAction, ForkOutcome } from '../webview/protocol';
import type { ExtensionContextObject } from './context';
import { plural } from './format';
import { COMMANDS } from './ids';
import { endpointReady } from './modelEndpointCommand';

/** The fork `runId`'s outcome now; null when it is no longer in the store. */
export async function forkOutcomeOf(ctx: ExtensionContextObject, runId: string): Promise<ForkOutcome | null> {
  const store = ctx.connection.tryGet();
  if (!store || !store.hasRun(runId)) return null;
  const run = store.getRun(runId);
  const checkpoints = plural(run.checkpointCount, 'checkpoint');
  const status = run.crashed ? 'crashed' : run.status;
  if (status !== 'diverged') {
    const text =
      status === 'running'
        ? `Fork ${runId} is running (${checkpoints} so far).`
        : `Fork ${runId} ${status} (${checkpoints}).`;
    return { runId, status, text };
  }
  const divergence = divergenceOfError(run.error);
  const where = divergence ? divergenceSummary(divergence) : 'diverged from the recording';
  return {
    runId,
    status,
    text: `Fork ${runId} ${where}: the recording has no answer for the prompt there.`,
    diverged: { promptDifference: divergence !== undefined, endpointReady: await endpointReady(ctx) },
  };
}

/** The command each action of the result panel runs on the fork (it answers the fork that goes on, if any). */
export const DIVERGED_ACTION_COMMANDS: Record<DivergedAction, { id: string }> = {
  showPrompt: COMMANDS.showPromptDifference,
  recorded: COMMANDS.continueRecorded,
  real: COMMANDS.continueReal,
};
