/**
 * The HTTP API's one error shape, `{ "error": { "code", "message", "path"? } }`,
 * and the mapping from OcdbError codes to statuses — in one place. Pure.
 */
import { errorMessage, isOcdbError, redactText, type ErrorCode } from '../model';

export interface ErrorBody {
  error: { code: string; message: string; path?: string; [extra: string]: unknown };
  [extra: string]: unknown;
}

/** The codes the HTTP layer itself raises (auth, host, size, routing), each with its one status. */
export const HTTP_ERROR_STATUS = {
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  MisdirectedRequest: 421,
} as const;
export type HttpErrorCode = keyof typeof HTTP_ERROR_STATUS;

/** An error the HTTP layer itself raises; its status follows from its code. Bad input is an OcdbError InvalidInput. */
export class HttpError extends Error {
  readonly status: number;

  constructor(
    readonly code: HttpErrorCode,
    message: string,
  ) {
    super(message);
    this.status = HTTP_ERROR_STATUS[code];
  }
}

const STATUS: Partial<Record<ErrorCode, number>> = {
  InvalidInput: 400,
  RunNotFound: 404,
  CheckpointNotFound: 404,
  ToolCallNotFound: 404,
  ForkNotFound: 404,
  LiveStopNotFound: 404,
  ArtifactNotFound: 404,
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
  if (e instanceof HttpError) return { status: e.status, body: { error: { code: e.code, message: e.message } } };
  if (isOcdbError(e)) {
    const status = STATUS[e.code] ?? 500;
    const path = typeof e.details.path === 'string' ? e.details.path : undefined;
    const message = redactText(e.message);
    const body: ErrorBody = { error: { code: e.code, message, ...(path !== undefined ? { path } : {}) } };
    if (e.code === 'InvalidInput' && Array.isArray(e.details.issues)) body.error.issues = e.details.issues;
    if (e.code === 'ForkRejected') {
      body.error.hazards = e.details.hazards;
      body.hazards = e.details.hazards;
    }
    return { status, body };
  }
  return {
    status: 500,
    body: { error: { code: 'Internal' satisfies ErrorCode, message: redactText(errorMessage(e)) } },
  };
}
