/**
 * The HTTP API's one error shape, `{ "error": { "code", "message", "path"? } }`,
 * and the mapping from OcdbError codes to statuses — in one place. Pure.
 */
import { errorMessage, isOcdbError, type ErrorCode } from '../model';

export interface ErrorBody {
  error: { code: string; message: string; path?: string; [extra: string]: unknown };
  [extra: string]: unknown;
}

/** An error the HTTP layer itself raises (auth, host, size, routing). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

const STATUS: Partial<Record<ErrorCode, number>> = {
  InvalidInput: 400,
  RunNotFound: 404,
  CheckpointNotFound: 404,
  ToolCallNotFound: 404,
  ForkNotFound: 404,
  RunAlreadyExists: 409,
  RunNotRunning: 409,
  ToolCallAlreadyExists: 409,
  ToolCallAlreadyFinished: 409,
  ForkRejected: 409,
  StoreLocked: 503,
  StoreUnavailable: 503,
};

/** Status and body for anything thrown while handling a request. */
export function errorResponse(e: unknown): { status: number; body: ErrorBody } {
  if (e instanceof HttpError) {
    return {
      status: e.status,
      body: { error: { code: e.code, message: e.message, ...(e.path !== undefined ? { path: e.path } : {}) } },
    };
  }
  if (isOcdbError(e)) {
    const status = STATUS[e.code] ?? 500;
    const path = typeof e.details.path === 'string' ? e.details.path : undefined;
    const body: ErrorBody = { error: { code: e.code, message: e.message, ...(path !== undefined ? { path } : {}) } };
    if (e.code === 'InvalidInput' && Array.isArray(e.details.issues)) body.error.issues = e.details.issues;
    if (e.code === 'ForkRejected') {
      body.error.hazards = e.details.hazards;
      body.hazards = e.details.hazards;
    }
    return { status, body };
  }
  return { status: 500, body: { error: { code: 'Internal', message: errorMessage(e) } } };
}
