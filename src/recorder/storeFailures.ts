/**
 * The recorder's store-failure policy, shared by starting a run (recorder.ts) and every write of it (runRecorder.ts):
 * a write that meets another process's lock is tried again (the write transaction changes nothing until it commits,
 * so repeating it is safe); a caller's mistake is reported as it is; any other failure becomes the OcdbError the
 * recorder reports under `onStoreError`.
 */
import { OcdbError, errorMessage } from '../model';

/** Further attempts of a locked write by default: with the 5 s busy timeout, about 20 s in all. */
export const DEFAULT_STORE_LOCK_RETRIES = 3;

/** A synchronous pause (writes are synchronous transactions; the agent's call waits either way). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Errors that are the caller's mistake, not the store's: reported, and recording goes on. */
const CALLER_ERRORS: ReadonlySet<string> = new Set([
  'InvalidInput',
  'ToolCallAlreadyFinished',
  'ToolCallNotFound',
  'RunNotRunning',
  'ToolCallAlreadyExists',
]);

/**
 * Runs a store write, trying it again `retries` more times while it meets another process's lock (StoreLocked): the
 * write transaction changes nothing until it commits, so the same write is safe to repeat.
 */
export function retryLocked<T>(fn: () => T, retries: number): T {
  for (let attempt = 0; ; attempt++) {
    try {
      return fn();
    } catch (e) {
      if (!(e instanceof OcdbError && e.code === 'StoreLocked') || attempt >= retries) throw e;
      pause(100 * (attempt + 1));
    }
  }
}

/** A failure the caller caused (reported as it is, whatever `onStoreError` says). */
export const isCallerError = (e: unknown): boolean => e instanceof OcdbError && CALLER_ERRORS.has(e.code);

/** A store failure as the OcdbError the recorder reports (an unknown error wrapped as StoreUnavailable). */
export function storeFailure(e: unknown, what: string, details: Record<string, unknown> = {}): OcdbError {
  return e instanceof OcdbError
    ? e
    : new OcdbError('StoreUnavailable', `${what}: ${errorMessage(e)}`, details, { cause: e });
}
