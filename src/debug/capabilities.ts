/**
 * What the "Replay agent run" adapter tells the client it can do (the
 * initialize response), in one place so the session stays a translator and
 * the extension can read the same list. Everything not listed here is
 * refused (requestArgs.ts NOT_SUPPORTED) rather than answered empty. Pure.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { EXCEPTION_FILTERS } from '../replay/breakpoints';
import { COMPLETION_TRIGGER_CHARACTERS } from './completions';

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
  supportsCompletionsRequest: true,
  completionTriggerCharacters: COMPLETION_TRIGGER_CHARACTERS,
  supportsSetExpression: true,
  supportsStepInTargetsRequest: true,
  supportsLoadedSourcesRequest: true,
  supportsCancelRequest: true,
  supportsExceptionFilterOptions: true,
  exceptionBreakpointFilters: EXCEPTION_FILTERS.map((f) => ({
    ...f,
    default: false,
    supportsCondition: true,
    conditionDescription: 'An expression over the checkpoint, e.g. toolName == "issue_refund"',
  })),
};
