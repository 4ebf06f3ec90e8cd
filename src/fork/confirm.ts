/**
 * manual_confirm in agent-program mode: records a pending confirmation in the
 * store and waits (polling, without blocking the event loop) until the user
 * answers — allow once, use recorded, mock, abort — from VS Code, the CLI or
 * HTTP, or the timeout passes (the confirmation is then marked expired).
 * Depends on the store contract and model/ only.
 */
import { OcdbError, type SideEffectLevel } from '../model';
import type { ConfirmationRecord, RunStore } from '../store';

export interface ConfirmationRequest {
  confirmationId: string;
  forkRequestId: string;
  runId: string;
  toolCallId?: string;
  toolName: string;
  args: unknown;
  sideEffectLevel: SideEffectLevel;
}

export interface WaitOptions {
  now: () => number;
  timeoutMs: number;
  pollMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Records the question and resolves with the answered record; ConfirmationTimedOut when nobody answers in time. */
export async function askConfirmation(
  store: RunStore,
  question: ConfirmationRequest,
  options: WaitOptions,
): Promise<ConfirmationRecord> {
  const createdAt = options.now();
  const expiresAt = createdAt + options.timeoutMs;
  store.createConfirmation({ ...question, createdAt, expiresAt });
  for (;;) {
    const record = store.getConfirmation(question.confirmationId);
    if (record.status === 'answered') return record;
    if (options.now() >= expiresAt) {
      const final = store.expireConfirmation(question.confirmationId, options.now());
      if (final.status === 'answered') return final; // answered at the last moment
      throw new OcdbError(
        'ConfirmationTimedOut',
        `Nobody confirmed ${question.toolName} within ${Math.round(options.timeoutMs / 1000)} s; the tool was not run. Answer pending confirmations in VS Code (or POST /confirmations/${question.confirmationId}), or raise OCDB_CONFIRM_TIMEOUT_MS.`,
        { confirmationId: question.confirmationId, toolName: question.toolName },
      );
    }
    await sleep(options.pollMs);
  }
}
