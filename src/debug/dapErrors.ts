/**
 * The one place where errors become DAP error responses: an OcdbError keeps
 * its stable code (as a numbered DAP error id) and its message, which already
 * says what, where and what to do; anything else is an Internal error. The
 * session calls `toDapError` in its single request wrapper; which requests
 * answer silently is SILENT_COMMANDS. Pure.
 */
import { OcdbError, errorMessage, type ErrorCode } from '../model';

/**
 * DAP error ids by error code. Clients may key on these numbers, so an id never changes and is never reused; a new
 * code in ERROR_CODES fails typecheck here until it gets the next free id (the order of ERROR_CODES does not matter).
 */
export const DAP_ERROR_IDS: Readonly<Record<ErrorCode, number>> = {
  InvalidInput: 1000,
  RunNotFound: 1001,
  RunAlreadyExists: 1002,
  RunNotRunning: 1003,
  CheckpointNotFound: 1004,
  ToolCallNotFound: 1005,
  ToolCallAlreadyExists: 1006,
  ToolCallAlreadyFinished: 1007,
  StoreLocked: 1008,
  StoreUnavailable: 1009,
  StoreCorrupt: 1010,
  ForkRejected: 1011,
  ForkNotFound: 1012,
  Diverged: 1013,
  ForbiddenReplay: 1014,
  CassetteMiss: 1015,
  MockMissing: 1016,
  ModelEndpointError: 1017,
  AgentProgramRequired: 1018,
  ConfirmationTimedOut: 1019,
  ImportFailed: 1020,
  Cancelled: 1021,
  Internal: 1022,
  LiveStopNotFound: 1023,
  ArtifactNotFound: 1024,
};

/** The DAP error id of an error code (see DAP_ERROR_IDS). */
export function dapErrorId(code: ErrorCode): number {
  return DAP_ERROR_IDS[code];
}

export interface DapError {
  id: number;
  /** The message shown to the user. */
  format: string;
  showUser: boolean;
  code: ErrorCode;
}

/**
 * Requests the client sends on its own, not because the user asked for something that failed: a hover over any
 * word of a transcript, each Watch after every step, the Debug Console as the user types (completions), the
 * Variables and Call Stack views filling in. Their errors are silent (`showUser: false`, as vscode-js-debug's
 * silent errors): the client shows the message in place (the Watch row, the console line) without a notification.
 * `evaluate` is silent in every context (hover, watch, repl, clipboard, variables): the Debug Console prints the
 * failed answer itself, so a notification would say it twice.
 */
export const SILENT_COMMANDS: ReadonlySet<string> = new Set([
  'evaluate',
  'completions',
  'variables',
  'scopes',
  'stackTrace',
  'threads',
  'source',
  'loadedSources',
  'breakpointLocations',
  'dataBreakpointInfo',
  'exceptionInfo',
  'gotoTargets',
  'stepInTargets',
  'cancel',
  // the extension's own question on every checkpoint selected, not something the user asked the session
  'stagedContextPatch',
]);

/** Maps any thrown value to the DAP error of a failed request `command`. */
export function toDapError(e: unknown, command: string): DapError {
  const err =
    e instanceof OcdbError ? e : new OcdbError('Internal', `${command} failed: ${errorMessage(e)}`, {}, { cause: e });
  // sendErrorResponse keeps `{name}` text whose variable is missing, so the message goes out verbatim (variables: {}).
  const format = err.message;
  // What the user asked for (a step, a launch, an edit, a breakpoint) is shown; the UI's own lookups are silent.
  const showUser = !SILENT_COMMANDS.has(command);
  return { id: dapErrorId(err.code), format, showUser, code: err.code };
}
