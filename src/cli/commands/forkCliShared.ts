/**
 * What `ocdb fork` and `ocdb replay` share: the model endpoint options
 * (--base-url / --api-key-env / --model-name, or OCDB_MODEL_* variables), the
 * plan and outcome printing, and the exit code of a run outcome.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OcdbError, divergenceSummary, errorMessage, readRunError, type ModelMode } from '../../model';
import type { ForkPlan } from '../../fork/forkService';
import { OpenAiChatModel, type ChatModel } from '../../fork/modelClient';
import { describeDivergence } from '../../fork/divergence';
import type { RunOutcome } from '../../fork/runner';
import { EXIT, type CliIo } from '../cliCommand';
import { shorten, table } from '../format';

/** Reads a JSON file given on the command line; InvalidInput naming the flag and file otherwise. */
export function readJsonFile(file: string, flag: string, cwd: string): unknown {
  try {
    return JSON.parse(readFileSync(resolve(cwd, file), 'utf8'));
  } catch (e) {
    throw new OcdbError('InvalidInput', `${flag} ${file}: not readable JSON (${errorMessage(e)})`, {
      path: flag,
      file,
    });
  }
}

export const MODEL_OPTIONS = {
  'base-url': { type: 'string' },
  'api-key-env': { type: 'string' },
  'model-name': { type: 'string' },
} as const;

export const MODEL_HELP = [
  '  --base-url <url>            OpenAI-compatible endpoint for real / override models (default $OCDB_MODEL_BASE_URL)',
  '  --api-key-env <VAR>         environment variable holding the API key (default $OCDB_MODEL_API_KEY_ENV, else none)',
  '  --model-name <model>        model when the run names none (default $OCDB_MODEL)',
].join('\n');

/** The chat model for real / override runs, or undefined when no endpoint is configured. */
export function chatModelFrom(
  values: { 'base-url'?: string; 'api-key-env'?: string; 'model-name'?: string },
  io: CliIo,
): ChatModel | undefined {
  const baseUrl = values['base-url'] ?? io.env.OCDB_MODEL_BASE_URL;
  if (!baseUrl) return undefined;
  const apiKeyEnv = values['api-key-env'] ?? io.env.OCDB_MODEL_API_KEY_ENV;
  const model = values['model-name'] ?? io.env.OCDB_MODEL;
  return new OpenAiChatModel({ baseUrl, ...(apiKeyEnv ? { apiKeyEnv } : {}), ...(model ? { model } : {}) }, io.env);
}

/** Checks up front that a real-model run has an endpoint. */
export function requireEndpoint(mode: ModelMode, chat: ChatModel | undefined): void {
  if ((mode === 'real' || mode === 'override') && !chat) {
    throw new OcdbError(
      'InvalidInput',
      `A ${mode} model needs an endpoint: pass --base-url (and --api-key-env) or set OCDB_MODEL_BASE_URL.`,
      { path: 'base-url' },
    );
  }
}

export function printPlan(io: CliIo, plan: ForkPlan, acknowledged: readonly string[]): void {
  io.out(
    `Fork of ${plan.sourceRunId} at checkpoint [${plan.sourceCheckpointIndex}] (${plan.sourceCheckpointId}), model ${plan.modelMode}${plan.model ? ` ${plan.model.provider}/${plan.model.model}` : ''}${plan.promptVersion ? `, prompt ${plan.promptVersion}` : ''}`,
  );
  if (plan.changedPaths.length > 0) io.out(`Context changes: ${plan.changedPaths.join(', ')}`);
  io.out(
    table(
      ['TOOL', 'SIDE EFFECT', 'RECORDED', 'POLICY', 'FROM', 'CALLS AFTER', 'HAZARD'],
      plan.tools.map((t) => [
        t.toolName,
        t.sideEffectLevel,
        t.recordedPolicy,
        t.policy,
        t.source,
        String(t.callsAfterForkPoint),
        t.hazard
          ? t.hazard.unlockable
            ? acknowledged.includes(t.toolName)
              ? 'acknowledged'
              : 'needs --ack'
            : 'BLOCKED (name it)'
          : t.mockMissing
            ? 'mock missing'
            : '',
      ]),
    ),
  );
  if (plan.predictedDivergence) io.out(`Prediction: ${plan.predictedDivergence.message}.`);
  for (const w of plan.warnings) io.out(`warning: ${w}`);
}

/** Prints how a run ended and returns the exit code: 0 done (or waiting), 5 diverged, 1 stopped by another failure. */
export function reportOutcome(io: CliIo, outcome: RunOutcome, what: string): number {
  if (outcome.divergence) io.out(`Divergence: ${describeDivergence(outcome.divergence)}`);
  if (outcome.status === 'waiting_for_agent') {
    io.out(`${what} ${outcome.runId} is waiting for the agent program (OCDB_FORK=${outcome.forkRequestId}).`);
    return EXIT.ok;
  }
  const status =
    outcome.status === 'diverged' && outcome.divergence ? divergenceSummary(outcome.divergence) : outcome.status;
  io.out(`${what} ${outcome.runId}: ${status}, ${outcome.checkpointCount} checkpoints`);
  const failure = readRunError(outcome.failure);
  if (outcome.status === 'diverged' || failure?.code === 'diverged') {
    io.out(
      `Next: compare the prompts (ocdb show ${outcome.runId}), go on with the recorded outputs (--model recorded) or with a real model (--on-divergence continue_real --base-url ...).`,
    );
    return EXIT.diverged;
  }
  if (failure) {
    io.err(`${what} stopped (${failure.code ?? 'error'}): ${shorten(failure.message ?? '', 400)}`);
    return EXIT.failed;
  }
  const error = readRunError(outcome.error);
  if (error) io.out(`The recording ended the same way: ${shorten(error.message ?? JSON.stringify(error), 200)}`);
  if (!outcome.divergence) io.out('No divergence from the recording.');
  return EXIT.ok;
}
