/**
 * Creating a fork from the extension: the one ForkService (the same the
 * debugger's `fork` request uses), then the follow-up a user expects — the
 * store poll so the tree shows the run, the run revealed, and an offer to
 * replay it. Also turns a ForkPlan into the page's PlanView.
 */
import * as vscode from 'vscode';
import { errorMessage, isOcdbError, type ForkConfig } from '../model';
import { ForkService, type CreatedFork } from '../fork/forkService';
import { OpenAiChatModel, type ChatModel } from '../fork/modelClient';
import { runFork, type RunOutcome } from '../fork/runner';
import type { PlanView } from '../webview/protocol';
import { planView } from './planView';
import { runWithAgentProgram } from './agentProgramRunner';
import type { ExtensionContextObject } from './context';
import { COMMANDS } from './ids';
import { notificationText } from './markdownText';
import { showError } from './notify';
import { readSettings } from './settings';

/** Plans a fork; an error (bad patch, unknown checkpoint) becomes the plan's `error` with its field path. */
export function planFor(ctx: ExtensionContextObject, config: ForkConfig): PlanView {
  try {
    return planView(new ForkService(ctx.connection.getOrCreate()).plan(config));
  } catch (e) {
    const path = isOcdbError(e) && typeof e.details.path === 'string' ? e.details.path : undefined;
    return {
      tools: [],
      hazards: [],
      warnings: [],
      changedPaths: [],
      error: { message: e instanceof Error ? e.message : String(e), ...(path ? { path } : {}) },
    };
  }
}

/** The chat model of a real / override fork, from the settings (the key stays in its environment variable). */
function chatModelFor(created: CreatedFork): ChatModel | undefined {
  if (created.plan.modelMode === 'captured' && created.plan.config.onDivergence !== 'continue_real') return undefined;
  const settings = readSettings();
  return new OpenAiChatModel({
    baseUrl: settings.modelBaseUrl,
    model: settings.modelName,
    ...(settings.apiKeyEnvVar ? { apiKeyEnv: settings.apiKeyEnvVar } : {}),
  });
}

interface ForkResult {
  status: string;
  checkpointCount: number;
  error?: unknown;
}

/** Runs a created fork with the built-in runner (cancellable progress). */
async function runWithRunner(ctx: ExtensionContextObject, created: CreatedFork): Promise<RunOutcome> {
  const store = ctx.connection.getOrCreate();
  const chatModel = chatModelFor(created);
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Running fork ${created.runId}`, cancellable: true },
    (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      return runFork(store, created.forkRequestId, {
        signal: abort.signal,
        ...(chatModel ? { chatModel } : {}),
        onCheckpoint: (c) => {
          progress.report({ message: `[${c.index}] ${c.boundary}` });
          ctx.connection.poll();
        },
      });
    },
  );
}

/**
 * Runs a created fork — with the agent's own program when `program` is given (its tools run for real), else with
 * the built-in runner — then offers to replay or compare it.
 */
export async function executeFork(
  ctx: ExtensionContextObject,
  created: CreatedFork,
  program?: string,
): Promise<ForkResult | undefined> {
  let result: ForkResult;
  try {
    if (program) {
      const code = await runWithAgentProgram(ctx, created, program);
      const run = ctx.connection.getOrCreate().getRun(created.runId);
      const status = run.crashed
        ? 'crashed'
        : run.status === 'running'
          ? `still running (agent exited ${code})`
          : run.status;
      result = {
        status,
        checkpointCount: run.checkpointCount,
        ...(run.error !== undefined ? { error: run.error } : {}),
      };
    } else {
      result = await runWithRunner(ctx, created);
    }
  } catch (e) {
    showError(ctx.log, `Running fork ${created.runId}`, e);
    return undefined;
  }
  ctx.connection.poll();
  ctx.log.info(`fork ${created.runId} ${result.status} after ${result.checkpointCount} checkpoints`);
  const text =
    result.status === 'completed'
      ? `Fork ${created.runId} completed (${result.checkpointCount} checkpoints).`
      : `Fork ${created.runId} ${result.status}${result.error !== undefined ? `: ${errorText(result.error)}` : ''}.`;
  const show = result.status === 'completed' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
  void show(notificationText(text), 'Replay fork', 'Compare with Parent').then((choice) => {
    if (choice === 'Replay fork') return ctx.startReplay(created.runId);
    if (choice === 'Compare with Parent')
      return vscode.commands.executeCommand(COMMANDS.compareWithParent.id, created.runId);
    return undefined;
  });
  return result;
}

function errorText(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') {
    return error.message;
  }
  return errorMessage(error);
}

/**
 * Creates the fork (throws ForkRejected / InvalidInput like ForkService),
 * reveals it in the tree, and runs it in the background with the runner;
 * the outcome notification offers "Replay fork".
 */
export function createFork(
  ctx: ExtensionContextObject,
  config: ForkConfig,
  acknowledgedTools: readonly string[],
  options: { execute?: boolean; program?: string } = {},
): CreatedFork {
  const created = new ForkService(ctx.connection.getOrCreate()).create(config, acknowledgedTools);
  ctx.log.info(`created fork ${created.runId} of ${created.plan.sourceRunId} at ${created.plan.sourceCheckpointId}`);
  ctx.connection.poll();
  void ctx.revealRun(created.runId);
  if (options.execute !== false) void executeFork(ctx, created, options.program?.trim() || undefined);
  return created;
}
