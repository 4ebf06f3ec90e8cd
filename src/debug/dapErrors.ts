/**
 * The one place where errors become DAP error responses: an OcdbError keeps
 * its stable code (as a numbered DAP error id) and its message, which already
 * says what, where and what to do; anything else is an Internal error. The
 * session calls `toDapError` in its single request wrapper. Pure.
 */
import { ERROR_CODES, OcdbError, errorMessage, type ErrorCode } from '../model';

/** DAP error ids: 1000 + the position of the code in ERROR_CODES (stable as codes are only appended). */
export function dapErrorId(code: ErrorCode): number {
  return 1000 + ERROR_CODES.indexOf(code);
}

export interface DapError {
  id: number;
  /** The message shown to the user. */
  format: string;
  showUser: boolean;
  code: ErrorCode;
}

/** Maps any thrown value to the DAP error of a failed request `command`. */
export function toDapError(e: unknown, command: string): DapError {
  const err =
    e instanceof OcdbError ? e : new OcdbError('Internal', `${command} failed: ${errorMessage(e)}`, {}, { cause: e });
  // sendErrorResponse keeps `{name}` text whose variable is missing, so the message goes out verbatim (variables: {}).
  const format = err.message;
  // Lookups the UI does on its own (hover, variables) are silent; what the user asked for is shown.
  const showUser = err.code !== 'Internal' || command !== 'evaluate';
  return { id: dapErrorId(err.code), format, showUser, code: err.code };
}
