/**
 * A diverged fork's next steps, kept on the fork for as long as it is diverged — its tree item's context menu, the
 * palette, and the outcome notification all call these: the prompt difference, and going on with the recorded
 * outputs or a real model. Going on replaces the diverged fork with the same edit run the new way (its forks, if it
 * has any, keep it), so pressing it again does not leave a new sibling each time.
 */
import * as vscode from 'vscode';
import { divergenceOfError, OcdbError, type Divergence, type ForkConfig } from '../model';
import type { CreatedFork } from '../fork/forkService';
import { FORK_METADATA_KEY } from '../fork/forkService';
import type { RunStore } from '../store';
import type { ExtensionContextObject } from './context';

/** What going on from a diverged fork needs: its request's config and ticks, and where it diverged. */
export interface DivergedFork {
  runId: string;
  config: ForkConfig;
  acknowledged: string[];
  divergence?: Divergence;
}

/** The diverged fork `runId`; InvalidInput when the run is not a fork, or no longer diverged. */
export function divergedFork(store: RunStore, runId: string): DivergedFork {
  const run = store.getRun(runId);
  const meta = run.metadata[FORK_METADATA_KEY] as { forkRequestId?: unknown } | undefined;
  if (run.status !== 'diverged' || typeof meta?.forkRequestId !== 'string') {
    throw new OcdbError(
      'InvalidInput',
      `${runId} is not a diverged fork (it is ${run.status}${meta ? '' : ', not a fork'}): these actions go on from a fork that stopped where the recording has no answer.`,
      { path: 'runId' },
    );
  }
  const request = store.getForkRequest(meta.forkRequestId);
  const divergence = divergenceOfError(run.error);
  return {
    runId,
    config: request.config,
    acknowledged: request.acknowledgedTools,
    ...(divergence ? { divergence } : {}),
  };
}

/** The diverged forks of the store, for the palette's pick. */
export const isDivergedFork = (r: { status: string; mode: string; parentRunId?: string }) =>
  r.status === 'diverged' && (r.mode === 'fork' || r.parentRunId !== undefined);

/**
 * Whether going on from a diverged fork asks, in a modal naming the fork, before it deletes the fork it replaces.
 * false: it is replaced without asking.
 */
export const CONFIRM_REPLACING_DIVERGED = true;

/** What the user answered: replace the diverged fork, keep it beside the new one, or do nothing. */
export type ReplaceAnswer = 'replace' | 'keep' | undefined;

/** The modal that names the diverged fork before it is deleted. */
export async function askReplaceDiverged(runId: string, how: 'recorded' | 'real'): Promise<ReplaceAnswer> {
  const choice = await vscode.window.showWarningMessage(
    `Replace the diverged fork ${runId}?`,
    {
      modal: true,
      detail: `Its edit runs again as a new fork ${how === 'recorded' ? 'with the recorded outputs' : 'with a real model from the divergence on'}, and ${runId} is deleted. Keep it to have both.`,
    },
    'Replace',
    'Keep Both',
  );
  return choice === 'Replace' ? 'replace' : choice === 'Keep Both' ? 'keep' : undefined;
}

/**
 * Runs the diverged fork's edit again the new way — `recorded`: the recorded outputs under the edited context;
 * `real`: a real model from the divergence on — and removes the diverged fork it replaces (kept when forks of its
 * own hang under it, or when the user keeps it). `create` is forkActions' createFork (reveals and runs the new
 * fork); `ask` the confirmation (askReplaceDiverged). Undefined: the user cancelled.
 */
export async function continueDiverged(
  ctx: ExtensionContextObject,
  fork: DivergedFork,
  how: 'recorded' | 'real',
  create: (config: ForkConfig, acknowledged: readonly string[]) => CreatedFork,
  ask: (runId: string, how: 'recorded' | 'real') => Promise<ReplaceAnswer> = askReplaceDiverged,
): Promise<CreatedFork | undefined> {
  const store = ctx.connection.getOrCreate();
  const replaceable = store.listRuns({ parentRunId: fork.runId }).total === 0;
  const answer = replaceable && CONFIRM_REPLACING_DIVERGED ? await ask(fork.runId, how) : 'replace';
  if (answer === undefined) return undefined;
  const { onDivergence: _onDivergence, ...config } = fork.config;
  const created =
    how === 'recorded'
      ? create({ ...config, modelOverride: { mode: 'recorded' } }, fork.acknowledged)
      : create({ ...fork.config, onDivergence: 'continue_real' }, fork.acknowledged);
  if (replaceable && answer === 'replace' && store.hasRun(fork.runId)) {
    store.deleteRun(fork.runId);
    ctx.log.info(`fork ${created.runId} replaces the diverged fork ${fork.runId}`);
  }
  ctx.connection.poll();
  return created;
}
