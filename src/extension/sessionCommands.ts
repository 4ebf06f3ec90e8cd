/**
 * Open Coding Agent Session: imports a session found on disk (the file of a
 * subagent imports its session, which reads it along) and starts its replay.
 * Opening it again imports only what the session wrote since (the runs
 * continue); from then on the file is followed as it grows (agentSessions.ts).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionContextObject } from './context';
import type { AgentSessions } from './agentSessions';
import { registerCommand } from './notify';

function fileOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (typeof arg === 'object' && arg !== null && 'file' in arg && typeof arg.file === 'string') return arg.file;
  return undefined;
}

/** The run an import made of `file`: the one whose source is that file, else the import's first. */
function runOf(ctx: ExtensionContextObject, file: string, runIds: string[]): string | undefined {
  const store = ctx.connection.tryGet();
  for (const runId of runIds) {
    const source = store?.hasRun(runId) ? store.getRun(runId).metadata.source : undefined;
    if (typeof source === 'object' && source !== null && 'file' in source && source.file === file) return runId;
  }
  return runIds[0];
}

export function registerSessionCommands(ctx: ExtensionContextObject, sessions: AgentSessions): vscode.Disposable[] {
  return [
    registerCommand(ctx.log, 'openSession', async (arg) => {
      const file = fileOf(arg);
      if (!file) throw new Error('Open Coding Agent Session needs the session file: pick one in the Runs view.');
      const owner = sessions.ownerOf(file)?.file ?? file;
      const summary = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Importing ${sessions.find(file)?.title ?? path.basename(file)}`,
        },
        async (progress) => {
          let reported = 0;
          return sessions.open(owner, (fraction) => {
            progress.report({ increment: 100 * (fraction - reported) });
            reported = fraction;
          });
        },
      );
      const failed = summary.files.find((f) => f.outcome === 'failed');
      if (summary.runIds.length === 0)
        throw new Error(
          `Nothing imported from ${path.basename(owner)}: ${failed?.reason ?? summary.files[0]?.reason ?? 'no conversation'}`,
        );
      const runId = runOf(ctx, file, summary.runIds);
      if (!runId) return undefined;
      await ctx.revealRun(runId);
      await ctx.startReplay(runId);
      return runId;
    }),
  ];
}
