/**
 * The commands of live debugging: Debug Next Run of Agent… (pick or type an agent id, then an attach
 * session waits for its next run), Attach (a running run of the tree, or one picked), and Pick Agent (the
 * `${command:agentTimeTravel.pickAgent}` variable of an "Attach to agent run" launch configuration). They only
 * start sessions; the adapter's attach (src/debug/) does the rest through the store.
 */
import * as vscode from 'vscode';
import type { ExtensionContextObject } from './context';
import { attachConfiguration } from './debugConfigProvider';
import { pickAgent } from './agentPicker';
import { isRecording } from './liveModel';
import { registerCommand } from './notify';
import { runIdOfArg } from './runCommands';
import { pickRun } from './runPicker';

export function registerLiveCommands(ctx: ExtensionContextObject): vscode.Disposable[] {
  const { log, connection } = ctx;
  const start = (config: vscode.DebugConfiguration) =>
    vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], config);

  return [
    registerCommand(log, 'debugNextRun', async (arg) => {
      const agentId =
        typeof arg === 'string' && arg !== '' ? arg : await pickAgent(connection, 'Debug the next run of which agent?');
      if (!agentId) return false;
      log.info(`attaching to the next run of agent ${agentId} (store ${connection.path})`);
      return start(attachConfiguration({ agentId }, connection.path));
    }),
    registerCommand(log, 'attachRun', async (arg) => {
      const runId =
        runIdOfArg(arg) ??
        (await pickRun(connection, { title: 'Attach to which running run?', filter: (r) => isRecording(r) }));
      if (!runId) return false;
      const run = connection.getOrCreate().getRun(runId); // RunNotFound names it
      if (!isRecording(run)) {
        throw new Error(
          `Run ${runId} is not being recorded now (${run.crashed ? 'crashed' : run.status}): replay it instead, or use Debug Next Run of Agent… for the next run of ${run.agentId}.`,
        );
      }
      log.info(`attaching to running run ${runId}`);
      return start(attachConfiguration({ runId }, connection.path));
    }),
    registerCommand(log, 'pickAgent', () => pickAgent(connection, 'Attach to the next run of which agent?')),
  ];
}
