/**
 * Creating a fork from the extension: the one ForkService (the same the
 * debugger's `fork` request uses), then the follow-up a user expects — the
 * store poll so the tree shows the run, the run revealed, and an offer to
 * replay it. Also turns a ForkPlan into the page's PlanView.
 */
import * as vscode from 'vscode';
import { errorMessage, isOcdbError, type ForkConfig } from '../model';
import { ForkService, type CreatedFork } from '../replay/forkService';
import { OpenAiChatModel, type ChatModel } from '../replay/modelClient';
import { runFork, type RunOutcome } from '../replay/runner';
import type { PlanView } from '../webview/protocol';
import { planView } from './planView';
import type { ExtensionContextObject } from './context';
import { COMMANDS } from './ids';
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

/** Runs a created fork with the runner (cancellable progress), then offers to replay or compare it. */
export async function executeFork(ctx: ExtensionContextObject, created: CreatedFork): Promise<RunOutcome | undefined> {
  const store = ctx.connection.getOrCreate();
  let outcome: RunOutcome;
  try {
    const chatModel = chatModelFor(created);
    outcome = await vscode.window.withProgress(
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
  } catch (e) {
    showError(ctx.log, `Running fork ${created.runId}`, e);
    return undefined;
  }
  ctx.connection.poll();
  ctx.log.info(`fork ${created.runId} ${outcome.status} after ${outcome.checkpointCount} checkpoints`);
  const text =
    outcome.status === 'completed'
      ? `Fork ${created.runId} completed (${outcome.checkpointCount} checkpoints).`
      : `Fork ${created.runId} ${outcome.status}${outcome.error !== undefined ? `: ${errorText(outcome.error)}` : ''}.`;
  const show = outcome.status === 'completed' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
  void show(text, 'Replay fork', 'Compare with Parent').then((choice) => {
    if (choice === 'Replay fork') return ctx.startReplay(created.runId);
    if (choice === 'Compare with Parent')
      return vscode.commands.executeCommand(COMMANDS.compareWithParent.id, created.runId);
    return undefined;
  });
  return outcome;
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
  options: { execute?: boolean } = {},
): CreatedFork {
  const created = new ForkService(ctx.connection.getOrCreate()).create(config, acknowledgedTools);
  ctx.log.info(`created fork ${created.runId} of ${created.plan.sourceRunId} at ${created.plan.sourceCheckpointId}`);
  ctx.connection.poll();
  void ctx.revealRun(created.runId);
  if (options.execute !== false) void executeFork(ctx, created);
  return created;
}
