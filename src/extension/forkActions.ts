/**
 * Creating a fork from the extension: the one ForkService (the same the
 * debugger's `fork` request uses), then the follow-up a user expects — the
 * store poll so the tree shows the run, the run revealed, and an offer to
 * replay it; a diverged fork offers the prompt difference and the two ways on
 * (the recorded outputs, a real model). Also turns a ForkPlan into the page's
 * PlanView.
 */
import * as vscode from 'vscode';
import {
  divergenceOfError,
  divergenceSummary,
  divergenceWhat,
  errorMessage,
  isOcdbError,
  type Divergence,
  type ForkConfig,
} from '../model';
import { ForkService, type CreatedFork } from '../fork/forkService';
import { OpenAiChatModel, type ChatModel } from '../fork/modelClient';
import { runFork, type RunOutcome } from '../fork/runner';
import { DIVERGED_CHOICES, type PlanView } from '../webview/protocol';
import { planView } from './planView';
import { runWithAgentProgram } from './agentProgramRunner';
import type { ExtensionContextObject } from './context';
import { promptUri } from './compareDocuments';
import { plural } from './format';
import { COMMANDS, DEBUG_TYPE } from './ids';
import { notificationText } from './markdownText';
import { registerCommand, showError } from './notify';
import { askReplaceDiverged, continueDiverged, divergedFork, isDivergedFork } from './divergedFork';
import { runIdOfArg } from './runCommands';
import { pickRun } from './runPicker';
import { endpointReady, forkEndpoint } from './modelEndpointCommand';

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

/**
 * The chat model of a real / override fork: the endpoint of the settings, its key from VS Code's SecretStorage
 * (Set Up Model Endpoint…) or else from the environment variable the settings name.
 */
async function chatModelFor(ctx: ExtensionContextObject, created: CreatedFork): Promise<ChatModel | undefined> {
  if (created.plan.modelMode === 'recorded') return undefined;
  if (created.plan.modelMode === 'captured' && created.plan.config.onDivergence !== 'continue_real') return undefined;
  return new OpenAiChatModel(await forkEndpoint(ctx));
}

interface ForkResult {
  status: string;
  checkpointCount: number;
  error?: unknown;
  /** Where the prompt first differed from the recording (a diverged fork; a recorded-outputs fork). */
  divergence?: Divergence;
}

/** Runs a created fork with the built-in runner (cancellable progress). */
async function runWithRunner(ctx: ExtensionContextObject, created: CreatedFork): Promise<RunOutcome> {
  const store = ctx.connection.getOrCreate();
  const chatModel = await chatModelFor(ctx, created);
  const started = Date.now();
  const outcome = await vscode.window.withProgress(
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
  // VS Code keeps a progress notification up for at least 800 ms: the outcome waits until it has closed, so the
  // two never stand on screen together
  const shownFor = Date.now() - started;
  if (shownFor < PROGRESS_MIN_MS) await new Promise((r) => setTimeout(r, PROGRESS_MIN_MS - shownFor));
  return outcome;
}

/** How long VS Code shows a progress notification at least (its ProgressService), plus a frame to close it. */
const PROGRESS_MIN_MS = 850;

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
      const divergence = divergenceOfError(run.error);
      result = {
        status,
        checkpointCount: run.checkpointCount,
        ...(run.error !== undefined ? { error: run.error } : {}),
        ...(divergence ? { divergence } : {}),
      };
    } else {
      result = await runWithRunner(ctx, created);
    }
  } catch (e) {
    showError(ctx.log, `Running fork ${created.runId}`, e);
    return undefined;
  }
  ctx.connection.poll();
  ctx.log.info(`fork ${created.runId} ${result.status} after ${plural(result.checkpointCount, 'checkpoint')}`);
  if (result.status === 'diverged') {
    void offerAfterDivergence(ctx, created, result.divergence);
    return result;
  }
  const differs = result.divergence
    ? ` It departs from the recording at step ${result.divergence.stepIndex} (${divergenceWhat(result.divergence)}).`
    : '';
  const text =
    result.status === 'completed'
      ? `Fork ${created.runId} completed (${plural(result.checkpointCount, 'checkpoint')}).${differs}`
      : `Fork ${created.runId} ${result.status}${result.error !== undefined ? `: ${errorText(result.error)}` : ''}.`;
  const show = result.status === 'completed' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
  void show(notificationText(text), 'Replay fork', 'Compare with Parent').then((choice) => {
    if (choice === 'Replay fork') return replayFork(ctx, created.runId);
    if (choice === 'Compare with Parent')
      return vscode.commands.executeCommand(COMMANDS.compareWithParent.id, created.runId);
    return undefined;
  });
  return result;
}

/**
 * "Replay fork": a replay of the fork that has the focus — its transcript, its frame selected in the Call Stack,
 * the status bar. VS Code hands the focus to a session that stops only when no other session holds it, so the
 * replay that is paused now (usually the parent's) ends first; Replay Run brings it back.
 */
export async function replayFork(ctx: ExtensionContextObject, runId: string): Promise<boolean> {
  const active = vscode.debug.activeDebugSession;
  if (active?.type === DEBUG_TYPE) {
    ctx.log.info(`ending the replay of ${String(active.configuration.runId)} to replay the fork ${runId}`);
    await vscode.debug.stopDebugging(active);
  }
  return ctx.startReplay(runId);
}

/** The buttons of a diverged fork's notification (the result panel's too). */
export { DIVERGED_CHOICES };

/**
 * A diverged fork's outcome: where it diverged, and what a user wants next — the prompt difference, the same
 * edit again with the recorded outputs, or with a real model from the divergence on (when no endpoint is
 * configured: the endpoint settings). The same actions stay on the fork (its context menu, the palette).
 */
async function offerAfterDivergence(
  ctx: ExtensionContextObject,
  created: CreatedFork,
  divergence: Divergence | undefined,
): Promise<void> {
  const where = divergence ? divergenceSummary(divergence) : 'diverged from the recording';
  const configured = await endpointReady(ctx);
  const choice = await vscode.window.showInformationMessage(
    notificationText(
      `Fork ${created.runId} ${where}: the recording has no answer for the prompt there. Its context menu in Runs keeps these actions.`,
    ),
    ...(divergence ? [DIVERGED_CHOICES.showPrompt] : []),
    DIVERGED_CHOICES.recorded,
    configured ? DIVERGED_CHOICES.real : DIVERGED_CHOICES.setUp,
  );
  const command =
    choice === DIVERGED_CHOICES.showPrompt
      ? COMMANDS.showPromptDifference
      : choice === DIVERGED_CHOICES.recorded
        ? COMMANDS.continueRecorded
        : choice === DIVERGED_CHOICES.real || choice === DIVERGED_CHOICES.setUp
          ? COMMANDS.continueReal
          : undefined;
  if (command) await vscode.commands.executeCommand(command.id, created.runId);
}

/**
 * The confirmation before a diverged fork is replaced: the modal, unless the caller asked the user already and
 * passes the answer as the command's second argument ('replace' or 'keep').
 */
const askOr = (answered: unknown): typeof askReplaceDiverged =>
  answered === 'replace' || answered === 'keep' ? () => Promise.resolve(answered) : askReplaceDiverged;

/** The diverged fork's actions as commands: on its tree item, in the palette (a pick of the diverged forks). */
export function registerDivergedCommands(ctx: ExtensionContextObject): vscode.Disposable[] {
  const { log, connection } = ctx;
  const forkOf = async (arg: unknown, title: string) => {
    const runId = runIdOfArg(arg) ?? (await pickRun(connection, { title, filter: isDivergedFork }));
    return runId ? divergedFork(connection.getOrCreate(), runId) : undefined;
  };
  const create = (config: ForkConfig, acknowledged: readonly string[]) => createFork(ctx, config, acknowledged);
  return [
    registerCommand(log, 'showPromptDifference', async (arg) => {
      const fork = await forkOf(arg, 'Show the prompt difference of which diverged fork?');
      if (!fork) return;
      if (!fork.divergence) throw new Error(`${fork.runId} does not record where it diverged.`);
      await showPromptDifference(ctx, fork.runId, fork.divergence);
    }),
    registerCommand(log, 'continueRecorded', async (arg, answered) => {
      const fork = await forkOf(arg, 'Continue which diverged fork with the recorded outputs?');
      return fork ? (await continueDiverged(ctx, fork, 'recorded', create, askOr(answered)))?.runId : undefined;
    }),
    registerCommand(log, 'continueReal', async (arg, answered) => {
      const fork = await forkOf(arg, 'Continue which diverged fork with a real model?');
      if (!fork) return undefined;
      // no endpoint yet: the settings first; the fork goes on once one is saved
      if (
        !(await endpointReady(ctx)) &&
        !(await vscode.commands.executeCommand<boolean>(COMMANDS.setUpModelEndpoint.id))
      )
        return undefined;
      return (await continueDiverged(ctx, fork, 'real', create, askOr(answered)))?.runId;
    }),
  ];
}

/** The diff editor: the prompt the recording has at the divergence vs the prompt the fork rendered there. */
export async function showPromptDifference(
  ctx: ExtensionContextObject,
  forkRunId: string,
  divergence: Divergence,
): Promise<void> {
  const store = ctx.connection.getOrCreate();
  const own =
    divergence.forkCheckpointId ??
    store
      .listCheckpoints(forkRunId)
      .filter((c) => c.boundary === 'before_model_call')
      .at(-1)?.checkpointId;
  if (!own) throw new Error(`Fork ${forkRunId} has no prompt checkpoint to compare.`);
  await vscode.commands.executeCommand(
    'vscode.diff',
    promptUri(divergence.sourceCheckpointId, `recorded prompt (step ${divergence.stepIndex})`),
    promptUri(own, `${forkRunId} prompt`),
    `Prompt at step ${divergence.stepIndex}: recorded ↔ ${forkRunId} (${divergenceWhat(divergence)})`,
  );
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
