/**
 * Shared by the extension's vtests: the activated extension's API (the parts
 * activate() returns — the tests must use these instances, not their own
 * copies of the modules) and the demo store path of the test workspace.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentTimeTravelApi } from '../../../src/extension/extension';
import { subagentRunIds } from '../../../src/extension/runsTreeModel';
import type { SqlRunStore } from '../../../src/store';
import { EXTENSION_ID } from '../../../src/extension/ids';

export async function extensionApi(): Promise<AgentTimeTravelApi> {
  const ext = vscode.extensions.getExtension<AgentTimeTravelApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is installed`);
  const api = await ext.activate();
  assert.ok(api?.tree, 'activate() returns the extension API');
  return api;
}

/** `<workspace>/.ocdb/runs.db`: where the harness wrote the demo store. */
export function demoStorePath(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  return path.join(folder.uri.fsPath, '.ocdb', 'runs.db');
}

/** Ends every debug session and waits until none is left. */
export async function stopAllSessions(): Promise<void> {
  if (!vscode.debug.activeDebugSession) return;
  await vscode.debug.stopDebugging();
  const deadline = Date.now() + 5000;
  while (vscode.debug.activeDebugSession && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/** Deletes a run and every run under it (forks, sub-agents): a test leaves the demo store as it found it. */
export function deleteRunTree(store: SqlRunStore, runId: string): void {
  if (!store.hasRun(runId)) return;
  for (const child of store.listRuns({ parentRunId: runId }).runs) deleteRunTree(store, child.runId);
  for (const sub of subagentRunIds(store.getRun(runId))) deleteRunTree(store, sub);
  store.deleteRun(runId);
}
