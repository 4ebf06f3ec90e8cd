/**
 * Typed errors of the core (model, store, recorder, replay, importers, server).
 * Core code throws these and never shows UI; the extension turns them into
 * notifications and the debug session into DAP error responses, each in one
 * place. Pure: no I/O.
 */

/** Stable error codes. Add new ones here, never reuse a code for another meaning. */
export const ERROR_CODES = [
  'InvalidInput',
  'RunNotFound',
  'RunAlreadyExists',
  'RunNotRunning',
  'CheckpointNotFound',
  'ToolCallNotFound',
  'ToolCallAlreadyExists',
  'ToolCallAlreadyFinished',
  'ArtifactNotFound',
  'StoreLocked',
  'StoreUnavailable',
  'StoreCorrupt',
  'ForkRejected',
  'ForkNotFound',
  'Diverged',
  'ForbiddenReplay',
  'CassetteMiss',
  'MockMissing',
  'ModelEndpointError',
  'AgentProgramRequired',
  'ConfirmationTimedOut',
  'ImportFailed',
  'Cancelled',
  'Internal',
  'LiveStopNotFound',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The one error type the core throws. `code` is stable; `message` says what, where and what to do. */
export class OcdbError extends Error {
  readonly code: ErrorCode;
  /** Machine-readable detail (field path, run id, hazards, ...). Never secrets. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = code;
    this.code = code;
    this.details = details;
  }
}

/** True when `e` is an OcdbError, optionally of the given code. */
export function isOcdbError(e: unknown, code?: ErrorCode): e is OcdbError {
  return e instanceof OcdbError && (code === undefined || e.code === code);
}

/** A readable message for any thrown value (for logs and CLI output). */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}
