/**
 * Commands on runs and checkpoints: Replay Run, Fork from Checkpoint (and
 * from a Call Stack frame), Edit Context, Open Transcript, Compare with
 * Parent, Compare Runs, Pick Run, Show Whole Value. Each takes a runs-tree
 * node when invoked from a menu and asks with a quick pick otherwise.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { runIdOfTranscript } from '../debug/transcriptFiles';
import { checkpointAtLine } from '../replay/transcript';
import { isTextContent } from '../model';
import { compareRunFiles } from '../replay/fileComparison';
import type { FileAt } from '../replay/fileHistory';
import { compareArtifacts } from '../replay/runComparison';
import type { RunStore } from '../store';
import { artifactUri, comparisonUri, summaryUri } from './compareDocuments';
import type { ExtensionContextObject } from './context';
import type { DebugPositionTracker } from './debugPosition';
import { fileUri } from './fileDocuments';
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

/** The checkpoint a node stands for in a transcript: itself, or a ledger call's before_tool_call. */
function transcriptCheckpointOf(ctx: ExtensionContextObject, arg: unknown): string | undefined {
  if (isNode(arg) && arg.kind === 'toolCall') {
    return ctx.connection
      .tryGet()
      ?.listCheckpoints(arg.runId)
      .find((c) => c.toolCallId === arg.toolCallId && c.boundary === 'before_tool_call')?.checkpointId;
  }
  return checkpointIdOfArg(arg);
}

/** The checkpoint at a frame's transcript location (1-based line), if the source is a run transcript. */
function checkpointAt(ctx: ExtensionContextObject, sourcePath: string | undefined, line: number | undefined) {
  const file = sourcePath?.startsWith('file:') ? vscode.Uri.parse(sourcePath).fsPath : sourcePath;
  const runId = file ? runIdOfTranscript(file) : undefined;
  if (!runId || line === undefined || !ctx.connection.tryGet()?.hasRun(runId)) return undefined;
  const at = checkpointAtLine(ctx.transcripts.transcript(runId), line - 1);
  return at ? { runId, checkpointId: at.checkpointId } : undefined;
}

/** The `{ frameLocation }` argument newer VS Code versions pass to a Call Stack context-menu command. */
const FrameLocationArgSchema = z.object({
  frameLocation: z.object({
    range: z.object({ startLineNumber: z.number().int() }),
    source: z.object({ path: z.string().optional() }),
  }),
});

/**
 * The checkpoint of a Call Stack context-menu argument. VS Code 1.100 passes a stack frame's source URI only
 * (the run's transcript), so the frame is the focused one when it belongs to that run, else the newest frame of
 * that run in the stack. An object `{ frameLocation: { range, source } }` (newer clients, tests) names the line.
 */
async function checkpointOfFrame(
  ctx: ExtensionContextObject,
  tracker: DebugPositionTracker,
  arg: unknown,
): Promise<{ runId: string; checkpointId: string } | undefined> {
  const located = FrameLocationArgSchema.safeParse(arg);
  if (located.success) {
    const { source, range } = located.data.frameLocation;
    const at = checkpointAt(ctx, source.path, range.startLineNumber);
    if (at) return at;
  }
  await tracker.update();
  const p = tracker.position;
  const runId = typeof arg === 'string' ? runIdOfTranscript(vscode.Uri.parse(arg).fsPath) : p?.run.runId;
  if (p && p.run.runId === runId) return { runId, checkpointId: p.checkpoint.checkpointId };
  const session = vscode.debug.activeDebugSession;
  if (!session || !runId) return undefined;
  const reply = (await session.customRequest('stackTrace', {
    threadId: vscode.debug.activeStackItem?.threadId ?? 1,
    startFrame: 0,
    levels: 1000,
  })) as DebugProtocol.StackTraceResponse['body'];
  for (const frame of reply.stackFrames) {
    const at = checkpointAt(ctx, frame.source?.path, frame.line);
    if (at?.runId === runId) return at;
  }
  return undefined;
}

/** At most this many changed artifacts open in diff editors of their own with a comparison. */
const MAX_ARTIFACT_DIFFS = 5;

/**
 * The comparison of two runs (replay/runComparison.ts, the one `ocdb diff` prints): the diff editor with both
 * runs step by step — a fork with the steps it inherited, so only what changed differs —, a text diff of each
 * changed artifact, and the summary beside (which lists the artifacts that differ).
 */
export async function diff(ctx: ExtensionContextObject, left: string, right: string): Promise<void> {
  const { log } = ctx;
  const store = ctx.connection.getOrCreate();
  store.getRun(left); // RunNotFound before any editor opens
  store.getRun(right);
  await vscode.commands.executeCommand(
    'vscode.diff',
    comparisonUri(left, right, 'left'),
    comparisonUri(left, right, 'right'),
    `${left} ↔ ${right}`,
  );
  const changed = compareArtifacts(store, left, right).filter((a) => a.change === 'changed');
  for (const a of changed.slice(0, MAX_ARTIFACT_DIFFS)) {
    if (!a.left || !a.right) continue;
    const binary = (hash: string) => {
      try {
        return !isTextContent(store.getArtifactContent(hash));
      } catch {
        return false; // not in this store: the document says so
      }
    };
    const side = (runId: string, contentHash: string) =>
      artifactUri({ runId, name: a.name, contentHash, binary: binary(contentHash) });
    await vscode.commands.executeCommand(
      'vscode.diff',
      side(left, a.left.contentHash),
      side(right, a.right.contentHash),
      `${a.name}: ${left} ↔ ${right}`,
      { preview: false },
    );
  }
  const files = await openFileDiffs(store, left, right);
  if (changed.length > 0 || files > 0) {
    // the runs' diff stays the editor in front (it is open already: this only shows it)
    await vscode.commands.executeCommand(
      'vscode.diff',
      comparisonUri(left, right, 'left'),
      comparisonUri(left, right, 'right'),
      `${left} ↔ ${right}`,
    );
  }
  if (changed.length > MAX_ARTIFACT_DIFFS) {
    log.info(`${changed.length - MAX_ARTIFACT_DIFFS} more changed artifacts are listed in the summary, not opened`);
  }
  const summary = await vscode.workspace.openTextDocument(summaryUri(left, right));
  await vscode.languages.setTextDocumentLanguage(summary, 'markdown');
  await vscode.window.showTextDocument(summary, {
    viewColumn: vscode.ViewColumn.Beside,
    preview: true,
    preserveFocus: true,
  });
}

/**
 * Opens the diff of each file the two runs left differently (replay/fileComparison.ts, at most MAX_ARTIFACT_DIFFS):
 * each side the file at its run's last checkpoint, or, where a run did not change it, as it was before the other
 * run's first change. Answers how many it opened.
 */
async function openFileDiffs(store: RunStore, left: string, right: string): Promise<number> {
  const last = (runId: string) => store.getRun(runId).checkpointCount - 1;
  let opened = 0;
  for (const d of compareRunFiles(store, left, right)) {
    if (opened === MAX_ARTIFACT_DIFFS) break;
    const side = (runId: string, mine: FileAt | undefined, other: FileAt | undefined, otherRun: string) => {
      if (mine) return fileUri({ runId, checkpointIndex: last(runId), side: 'at', path: d.path }, d.displayPath);
      const first = other?.changes[0];
      return first && first.checkpointIndex >= 0
        ? fileUri(
            { runId: otherRun, checkpointIndex: first.checkpointIndex, side: 'before', path: d.path },
            d.displayPath,
          )
        : undefined;
    };
    const a = side(left, d.left, d.right, right);
    const b = side(right, d.right, d.left, left);
    if (!a || !b) continue;
    await vscode.commands.executeCommand('vscode.diff', a, b, `${path.basename(d.displayPath)}: ${left} ↔ ${right}`, {
      preview: false,
    });
    opened++;
  }
  return opened;
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
    registerCommand(log, 'openTranscript', async (arg, fromClick) => {
      const runId = await runOrPick(arg, 'Open the transcript of which run?');
      if (runId)
        await ctx.transcripts.open(runId, transcriptCheckpointOf(ctx, arg), { preserveFocus: fromClick === true });
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
