/**
 * The life of a fork request after ForkService created it: who may run it
 * (the one atomic claim, shared by the built-in runner and agent-program
 * mode), and the one status save (pending -> running | waiting_for_agent ->
 * completed | diverged | failed, with the error when it did not complete). Depends on the store
 * contract and model/ only.
 */
import { OcdbError } from '../model';
import type { ForkRequestRecord, ForkRequestStatus, RunStore } from '../store';

/** Statuses from which a fork request may still be run. */
const RUNNABLE: ReadonlySet<ForkRequestStatus> = new Set(['pending', 'waiting_for_agent']);

function alreadyRun(request: ForkRequestRecord): OcdbError {
  return new OcdbError(
    'InvalidInput',
    `Fork request ${request.forkRequestId} has already run (${request.status}); create a new fork to run it again.`,
    { forkRequestId: request.forkRequestId, status: request.status },
  );
}

/** The fork run of a request (Internal when the request has none: ForkService always makes one). */
export function forkRunOf(request: ForkRequestRecord): string {
  if (!request.forkRunId) {
    throw new OcdbError('Internal', `Fork request ${request.forkRequestId} has no run.`, {
      forkRequestId: request.forkRequestId,
    });
  }
  return request.forkRunId;
}

/** The request, when it can still be run (InvalidInput naming its status otherwise). */
export function runnableRequest(store: RunStore, forkRequestId: string): ForkRequestRecord {
  const request = store.getForkRequest(forkRequestId);
  if (!RUNNABLE.has(request.status)) throw alreadyRun(request);
  forkRunOf(request);
  return request;
}

/** Moves a fork request to `status`, with the error when it failed (without one otherwise). */
export function saveForkStatus(
  store: RunStore,
  forkRequestId: string,
  status: ForkRequestStatus,
  at: number,
  error?: unknown,
): ForkRequestRecord {
  const record = store.getForkRequest(forkRequestId);
  const next: ForkRequestRecord = { ...record, status, updatedAt: at };
  if (error !== undefined) next.error = error;
  else delete next.error;
  store.saveForkRequest(next);
  return next;
}

/**
 * How a fork the engine stopped with `failure` ends: `diverged` when it reached a prompt the recording has no
 * answer for (code `diverged`), else `failed` (forbidden_replay, cassette_miss, an unacknowledged hazard, a
 * user's abort, ...); `completed` without one.
 */
export function settledStatus(failure: Record<string, unknown> | undefined): 'completed' | 'diverged' | 'failed' {
  if (!failure) return 'completed';
  return failure.code === 'diverged' ? 'diverged' : 'failed';
}

/**
 * The end of a fork request, the same for the built-in runner and agent-program mode: diverged / failed with
 * the failure when the fork engine stopped the fork (settledStatus), else completed — however the run itself
 * ended (its status says that).
 */
export function settleForkRequest(
  store: RunStore,
  forkRequestId: string,
  at: number,
  failure: Record<string, unknown> | undefined,
): ForkRequestRecord {
  return saveForkStatus(store, forkRequestId, settledStatus(failure), at, failure);
}

/**
 * Claims a fork request for this process, atomically: two runners, or a runner and an agent program started with
 * the same OCDB_FORK, never run one fork twice. Sets the fork run's owner (crash detection) and the status
 * `running`; answers the claimed request.
 */
export function claimForkRequest(
  store: RunStore,
  forkRequestId: string,
  at: number,
  pid: number = process.pid,
): ForkRequestRecord {
  return store.transaction(() => {
    const request = runnableRequest(store, forkRequestId);
    store.setRunOwner(forkRunOf(request), { pid, at });
    return saveForkStatus(store, forkRequestId, 'running', at);
  });
}
