/**
 * The commands on a coding agent's files at a checkpoint: Open File at Checkpoint (a read-only document), Open
 * Changes (the diff of the last call that changed it up to there), Compare with Workspace File, and Restore Files
 * from Checkpoint… (fileRestoreCommand.ts). They act on a file of the Files scope (right-click in the Variables
 * view: the debugger says which file, checkpoint and run with `fileOfVariable`), a checkpoint of the runs tree, or
 * the replay's current checkpoint. Each opens a tab of its own (not a preview): the replay's transcript, which the
 * debugger shows in the preview tab, stays open beside it. VS Code wiring only.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { fileOfVariableRequest, sendRequest } from '../debug/protocol';
import { fileAt, lastChange } from '../replay/fileVersions';
import type { ExtensionContextObject } from './context';
import type { DebugPositionTracker } from './debugPosition';
import { fileUri, type FileHistories } from './fileDocuments';
import { restoreFilesCommand } from './fileRestoreCommand';
import { registerCommand } from './notify';

/** A file at a checkpoint, as a command acts on it. */
interface FileTarget {
  runId: string;
  checkpointIndex: number;
  path: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The file of a Variables-view right-click (`{ sessionId, variable }`), asked of its debug session. */
async function fileOfMenuArg(arg: unknown): Promise<FileTarget | undefined> {
  if (!isRecord(arg) || !isRecord(arg.variable) || typeof arg.variable.variablesReference !== 'number')
    return undefined;
  const session =
    vscode.debug.activeDebugSession?.id === arg.sessionId || arg.sessionId === undefined
      ? vscode.debug.activeDebugSession
      : undefined;
  if (!session) throw new Error('The replay this file belongs to has ended: start it again and pick the file.');
  const body = await sendRequest(session, fileOfVariableRequest, {
    variablesReference: arg.variable.variablesReference,
  });
  return { runId: body.runId, checkpointIndex: body.checkpointIndex, path: body.path };
}

/** The checkpoint a command acts on: a tree checkpoint (`{ runId, checkpointId }`), else the replay's. */
export function checkpointOfArg(
  ctx: ExtensionContextObject,
  tracker: DebugPositionTracker,
  arg: unknown,
): { runId: string; checkpointIndex: number } | undefined {
  const store = ctx.connection.getOrCreate();
  if (isRecord(arg) && typeof arg.runId === 'string' && typeof arg.checkpointId === 'string') {
    const found = store.listCheckpoints(arg.runId).find((c) => c.checkpointId === arg.checkpointId);
    if (found) return { runId: arg.runId, checkpointIndex: found.index };
  }
  const p = tracker.position;
  return p ? { runId: p.run.runId, checkpointIndex: p.checkpoint.index } : undefined;
}

export function registerFileCommands(
  ctx: ExtensionContextObject,
  tracker: DebugPositionTracker,
  histories: FileHistories,
): vscode.Disposable[] {
  const needFile = async (arg: unknown): Promise<FileTarget> => {
    const target = await fileOfMenuArg(arg);
    if (!target) throw new Error('Pick a file in the Files scope of the Variables view (right-click it).');
    return target;
  };
  const fileOf = (t: FileTarget) => {
    const file = fileAt(histories.get(t.runId).history, t.checkpointIndex, t.path);
    if (!file) throw new Error(`${t.path} had not been changed by the run at [${t.checkpointIndex}].`);
    return file;
  };
  return [
    registerCommand(ctx.log, 'openFileAtCheckpoint', async (arg) => {
      const t = await needFile(arg);
      const file = fileOf(t);
      const doc = await vscode.workspace.openTextDocument(
        fileUri({ ...t, side: 'at', path: file.path }, file.displayPath),
      );
      await vscode.window.showTextDocument(doc, { preview: false });
    }),
    registerCommand(ctx.log, 'openFileChanges', async (arg) => {
      const t = await needFile(arg);
      const change = lastChange(histories.get(t.runId).history, t.checkpointIndex, t.path);
      if (!change) throw new Error(`${t.path} had not been changed by the run at [${t.checkpointIndex}].`);
      const { file, at } = change;
      await vscode.commands.executeCommand(
        'vscode.diff',
        fileUri({ ...t, side: 'before', path: file.path }, file.displayPath),
        fileUri({ ...t, side: 'at', path: file.path }, file.displayPath),
        `${path.basename(file.displayPath)} (step ${at.stepIndex} ${at.toolName}: before ↔ after)`,
        { preview: false },
      );
    }),
    registerCommand(ctx.log, 'compareFileWithWorkspace', async (arg) => {
      const t = await needFile(arg);
      const file = fileOf(t);
      // the session's folder is this workspace's (that is how it was found): its relative path names the file here
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const local = !path.isAbsolute(file.displayPath) && folder ? path.join(folder, file.displayPath) : file.path;
      if (!fs.existsSync(local)) throw new Error(`${local} is not in the workspace (the run may have created it).`);
      await vscode.commands.executeCommand(
        'vscode.diff',
        fileUri({ ...t, side: 'at', path: file.path }, file.displayPath),
        vscode.Uri.file(local),
        `${path.basename(file.displayPath)} ([${t.checkpointIndex}] ↔ workspace)`,
        { preview: false },
      );
    }),
    registerCommand(ctx.log, 'restoreFiles', async (arg) => {
      const t = (await fileOfMenuArg(arg).catch(() => undefined)) ?? checkpointOfArg(ctx, tracker, arg);
      if (!t) throw new Error('Pick a checkpoint: in the runs tree, or stop a replay at one.');
      return restoreFilesCommand(ctx, histories, t.runId, t.checkpointIndex);
    }),
  ];
}
