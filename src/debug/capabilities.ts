/**
 * What the "Replay agent run" adapter tells the client it can do (the
 * initialize response), in one place so the session stays a translator and
 * the extension can read the same list. Pure.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { EXCEPTION_FILTERS } from '../replay/breakpoints';

export const CAPABILITIES: DebugProtocol.Capabilities = {
  supportsConfigurationDoneRequest: true,
  supportsStepBack: true,
  supportsFunctionBreakpoints: true,
  supportsConditionalBreakpoints: true,
  supportsHitConditionalBreakpoints: true,
  supportsLogPoints: true,
  supportsEvaluateForHovers: true,
  supportsSetVariable: true,
  supportsRestartFrame: true,
  supportsGotoTargetsRequest: true,
  supportsBreakpointLocationsRequest: true,
  supportsDataBreakpoints: true,
  supportsDelayedStackTraceLoading: true,
  supportsTerminateRequest: true,
  supportsExceptionInfoRequest: true,
  supportsClipboardContext: true,
  supportsValueFormattingOptions: false,
  exceptionBreakpointFilters: EXCEPTION_FILTERS.map((f) => ({ ...f, default: false })),
};
