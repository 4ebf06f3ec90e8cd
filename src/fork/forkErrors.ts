/**
 * The errors of fork execution, made in one place so the built-in runner and
 * agent-program mode refuse the same things with the same words, and the one
 * mapping of a thrown error to what a fork run and its request store
 * (`{ code: 'forbidden_replay', message, ...details }`). Pure.
 */
import {
  OcdbError,
  errorMessage,
  isOcdbError,
  redactText,
  redactValue,
  type Hazard,
  type PolicySource,
  type ReplayPolicy,
  type SideEffectLevel,
} from '../model';
import { describeDivergence, type Divergence } from './divergence';

/** `ForbiddenReplay` -> `forbidden_replay`: the code stored in a run's error. */
export function runErrorCode(code: string): string {
  return code.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** A thrown value as the error object stored on the fork run and its request, secrets redacted (model/redact.ts). */
export function toRunError(e: unknown): Record<string, unknown> {
  if (isOcdbError(e)) return redactValue({ code: runErrorCode(e.code), message: e.message, ...e.details });
  return { code: 'internal', message: redactText(errorMessage(e)) };
}

/** A tool under forbid_replay was called: the fork stops before it. */
export function forbiddenReplay(toolName: string, policy: ReplayPolicy, source: PolicySource): OcdbError {
  return new OcdbError(
    'ForbiddenReplay',
    `${toolName} has the policy forbid_replay (${source}): the fork stopped before calling it. Map it to reuse_result or mock_result to go past it.`,
    { toolName, policy, source },
  );
}

/** A tool would run again with side effects nobody acknowledged (checked again at call time). */
export function unacknowledgedHazard(toolName: string, level: SideEffectLevel, hazard: Hazard | undefined): OcdbError {
  return new OcdbError(
    'ForkRejected',
    `${toolName} would run again with ${level} effects and is not acknowledged: ${hazard?.reason ?? ''}`,
    { hazards: hazard ? [hazard] : [], toolName },
  );
}

/** The built-in runner met a tool only the agent's own code can run. */
export function agentProgramRequired(toolName: string, policy: ReplayPolicy): OcdbError {
  return new OcdbError(
    'AgentProgramRequired',
    `${toolName} has the policy ${policy}: only the agent's own code can run it. Run the fork with the agent program (OCDB_FORK=<forkRequestId> OCDB_STORE=<store> <your agent>) or map ${toolName} to reuse_result / mock_result.`,
    { toolName, policy },
  );
}

/** A captured fork reached a prompt the recording has no answer for. */
export function diverged(divergence: Divergence): OcdbError {
  return new OcdbError('Diverged', `The fork diverged from the recording at ${describeDivergence(divergence)}.`, {
    divergence,
  });
}

/** The agent asked for more model turns than the recording has after the fork point. */
export function noRecordedTurn(
  turn: number,
  recorded: number,
  at: { stepIndex: number; messageIndex: number },
): OcdbError {
  return new OcdbError(
    'Diverged',
    `The agent made model call ${turn} but the recording has only ${recorded} after the fork point.`,
    { divergence: { stepIndex: at.stepIndex, messageIndex: at.messageIndex, field: 'messageCount' } },
  );
}

/** The user answered a manual_confirm question with Abort. */
export function abortedByUser(toolName: string): OcdbError {
  return new OcdbError('Cancelled', `The user aborted the fork at ${toolName}.`, { toolName });
}

/** The caller cancelled the fork run (AbortSignal). */
export function cancelledRun(): OcdbError {
  return new OcdbError('Cancelled', 'the fork run was cancelled');
}
