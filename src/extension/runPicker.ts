/**
 * A quick pick of the store's runs (newest first, with status and agent),
 * used by Pick Run (the `${command:agentTimeTravel.pickRun}` launch variable)
 * and by every command invoked without a tree item.
 */
import * as vscode from 'vscode';
import type { RunSummary } from '../store';
import { formatTime, plural } from './format';
import { runStatusText } from './runsTreeModel';
import type { StoreConnection } from './storeConnection';

const PICK_LIMIT = 500;

interface RunPick extends vscode.QuickPickItem {
  runId: string;
}

function pickOf(run: RunSummary): RunPick {
  return {
    runId: run.runId,
    label: run.runId,
    description: `${runStatusText(run)} · ${run.mode} · ${run.agentId}`,
    detail: `${formatTime(run.startedAt)} · ${plural(run.stepCount, 'step')} · ${plural(run.checkpointCount, 'checkpoint')}${run.parentRunId ? ` · fork of ${run.parentRunId}` : ''}`,
  };
}

/** Asks for a run; undefined when the store is empty or the user cancelled. */
export async function pickRun(
  connection: StoreConnection,
  options: { title?: string; exclude?: string; filter?: (run: RunSummary) => boolean } = {},
): Promise<string | undefined> {
  const store = connection.tryGet();
  const runs = (store?.listRuns({ limit: PICK_LIMIT }).runs ?? []).filter(
    (r) => r.runId !== options.exclude && (options.filter?.(r) ?? true),
  );
  if (runs.length === 0) {
    void vscode.window.showInformationMessage(`No runs in ${connection.label}. Run the demo or record a run first.`);
    return undefined;
  }
  const choice = await vscode.window.showQuickPick(runs.map(pickOf), {
    title: options.title ?? 'Pick an agent run',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return choice?.runId;
}
