/**
 * Commands on runs and checkpoints: Replay Run, Fork from Checkpoint (and
 * from a Call Stack frame), Edit Context, Open Transcript, Compare with
 * Parent, Compare Runs, Pick Run, Show Whole Value. Each takes a runs-tree
 * node when invoked from a menu and asks with a quick pick otherwise.
 */
import * as vscode from 'vscode';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { runIdOfTranscript } from '../debug/transcriptFiles';
import { checkpointAtLine } from '../replay/transcript';
import type { ExtensionContextObject } from './context';
import type { DebugPositionTracker } from './debugPosition';
import { registerCommand } from './notify';
import { pickRun } from './runPicker';
import type { RunsNode } from './runsTreeModel';
import { showValue, valueRefOf } from './valueDocuments';

function isNode(arg: unknown): arg is RunsNode {
  return typeof arg === 'object' && arg !== null && 'kind' in arg && 'id' in arg;
}

/** The run an argument names (a tree node, a run id string), else undefined. */
export function runIdOfArg(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (isNode(arg) && 'runId' in arg) return arg.runId;
  return undefined;
}

function checkpointIdOfArg(arg: unknown): string | undefined {
  return isNode(arg) && arg.kind === 'checkpoint' ? arg.checkpointId : undefined;
}

/** A call-stack context-menu argument: `{ sessionId, threadId, frameId }`. */
async function checkpointOfFrame(
  ctx: ExtensionContextObject,
  tracker: DebugPositionTracker,
  arg: unknown,
): Promise<{ runId: string; checkpointId: string } | undefined> {
  const a = (typeof arg === 'object' && arg !== null ? arg : {}) as {
    sessionId?: unknown;
    threadId?: unknown;
    frameId?: unknown;
  };
  const session = vscode.debug.activeDebugSession;
  if (
    session &&
    typeof a.frameId === 'number' &&
    typeof a.threadId === 'number' &&
    (a.sessionId === undefined || a.sessionId === session.id)
  ) {
    const reply = (await session.customRequest('stackTrace', {
      threadId: a.threadId,
      startFrame: 0,
      levels: 1000,
    })) as DebugProtocol.StackTraceResponse['body'];
    const frame = reply.stackFrames.find((f) => f.id === a.frameId);
    const runId = frame?.source?.path ? runIdOfTranscript(frame.source.path) : undefined;
    if (frame && runId) {
      const line = checkpointAtLine(ctx.transcripts.transcript(runId), frame.line - 1);
      if (line) return { runId, checkpointId: line.checkpointId };
    }
  }
  const p = tracker.position;
  return p ? { runId: p.run.runId, checkpointId: p.checkpoint.checkpointId } : undefined;
}

async function diff(ctx: ExtensionContextObject, left: string, right: string): Promise<void> {
  await vscode.commands.executeCommand(
    'vscode.diff',
    ctx.transcripts.ensureFile(left),
    ctx.transcripts.ensureFile(right),
    `${left} ↔ ${right}`,
  );
}

export function registerRunCommands(ctx: ExtensionContextObject, tracker: DebugPositionTracker): vscode.Disposable[] {
  const { log, connection } = ctx;
  const runOrPick = async (arg: unknown, title: string) => runIdOfArg(arg) ?? (await pickRun(connection, { title }));

  /** Fork: a checkpoint goes to the editor; a run is forked from its last checkpoint. */
  const fork = async (arg: unknown) => {
    const runId = await runOrPick(arg, 'Fork which run?');
    if (!runId) return;
    let checkpointId = checkpointIdOfArg(arg);
    if (!checkpointId) {
      const checkpoints = connection.getOrCreate().listCheckpoints(runId);
      const picked = await vscode.window.showQuickPick(
        checkpoints
          .map((c) => ({
            label: `[${c.index}] ${c.boundary}`,
            description: `step ${c.stepIndex}${c.toolName ? ` · ${c.toolName}` : ''}`,
            id: c.checkpointId,
          }))
          .reverse(),
        { title: `Fork ${runId} from which checkpoint?` },
      );
      checkpointId = picked?.id;
    }
    if (checkpointId) await ctx.editCheckpoint(runId, checkpointId, true);
  };

  return [
    registerCommand(log, 'replayRun', async (arg) => {
      const runId = await runOrPick(arg, 'Replay which run?');
      if (runId) await ctx.startReplay(runId, checkpointIdOfArg(arg));
    }),
    registerCommand(log, 'forkFromCheckpoint', fork),
    registerCommand(log, 'editContext', fork),
    registerCommand(log, 'forkFromFrame', async (arg) => {
      const at = await checkpointOfFrame(ctx, tracker, arg);
      if (!at) throw new Error('No agent-replay frame is selected: pause a replay and pick a frame in the Call Stack.');
      await ctx.editCheckpoint(at.runId, at.checkpointId, true);
    }),
    registerCommand(log, 'openTranscript', async (arg) => {
      const runId = await runOrPick(arg, 'Open the transcript of which run?');
      if (runId) await ctx.transcripts.open(runId, checkpointIdOfArg(arg));
    }),
    registerCommand(log, 'compareWithParent', async (arg) => {
      const runId = await runOrPick(arg, 'Compare which fork with its parent?');
      if (!runId) return;
      const parent = connection.getOrCreate().getRun(runId).parentRunId;
      if (!parent) throw new Error(`Run ${runId} is not a fork: it has no parent to compare with.`);
      await diff(ctx, parent, runId);
    }),
    registerCommand(log, 'compareRuns', async (arg) => {
      const left = await runOrPick(arg, 'Compare: first run');
      if (!left) return;
      const right = await pickRun(connection, { title: `Compare ${left} with…`, exclude: left });
      if (right) await diff(ctx, left, right);
    }),
    registerCommand(log, 'pickRun', () => pickRun(connection, { title: 'Replay which run?' })),
    registerCommand(log, 'showValue', async (arg) => {
      const ref = valueRefOf(arg);
      if (!ref) throw new Error('Show Whole Value needs { runId, toolCallId, part }.');
      await showValue(ref);
    }),
  ];
}
