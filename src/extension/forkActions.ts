/**
 * Creating a fork from the extension: the one ForkService (the same the
 * debugger's `fork` request uses), then the follow-up a user expects — the
 * store poll so the tree shows the run, the run revealed, and an offer to
 * replay it. Also turns a ForkPlan into the page's PlanView.
 */
import * as vscode from 'vscode';
import { isOcdbError, type ForkConfig } from '../model';
import { ForkService, type CreatedFork } from '../replay/forkService';
import type { PlanView } from '../webview/protocol';
import { planView } from './planView';
import type { ExtensionContextObject } from './context';

/** Plans a fork; an error (bad patch, unknown checkpoint) becomes the plan's `error` with its field path. */
export function planFor(ctx: ExtensionContextObject, config: ForkConfig): PlanView {
  try {
    return planView(new ForkService(ctx.connection.getOrCreate()).plan(config));
  } catch (e) {
    const path = isOcdbError(e) && typeof e.details.path === 'string' ? e.details.path : undefined;
    return {
      tools: [],
      hazards: [],
      warnings: [],
      changedPaths: [],
      error: { message: e instanceof Error ? e.message : String(e), ...(path ? { path } : {}) },
    };
  }
}

/**
 * Creates the fork (throws ForkRejected / InvalidInput like ForkService),
 * refreshes and reveals it, and offers "Replay fork" without waiting for the answer.
 */
export function createFork(
  ctx: ExtensionContextObject,
  config: ForkConfig,
  acknowledgedTools: readonly string[],
): CreatedFork {
  const created = new ForkService(ctx.connection.getOrCreate()).create(config, acknowledgedTools);
  ctx.log.info(`created fork ${created.runId} of ${created.plan.sourceRunId} at ${created.plan.sourceCheckpointId}`);
  ctx.connection.poll();
  void ctx.revealRun(created.runId);
  void vscode.window
    .showInformationMessage(
      `Created fork ${created.runId} of ${created.plan.sourceRunId}.`,
      'Replay fork',
      'Open Transcript',
    )
    .then((choice) => {
      if (choice === 'Replay fork') return ctx.startReplay(created.runId);
      if (choice === 'Open Transcript') return ctx.transcripts.open(created.runId).then(() => undefined);
      return undefined;
    });
  return created;
}
