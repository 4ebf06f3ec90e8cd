/**
 * The team store's connection in the tree's description and the status bar: the URL without password and, when
 * not connected, its state (connecting…, offline with the next retry, wrong password). Shown, never notified.
 */
import * as vscode from 'vscode';
import type { StoreConnection } from './storeConnection';

/** The tree's description: the store a URL setting names, with its connection state when it is not connected. */
export function storeDescription(connection: StoreConnection): string | undefined {
  if (!connection.isUrl) return undefined;
  const state = connection.team?.stateText ?? 'connecting…';
  return state ? `${connection.label} · ${state}` : connection.label;
}

/** A status bar item that follows the team store's connection; hidden for a store file. */
export function teamStatusItem(connection: StoreConnection): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('agentTimeTravel.teamStore', vscode.StatusBarAlignment.Left, 0);
  item.name = 'Agent Time Travel: team store';
  const update = () => {
    const team = connection.team;
    if (!connection.isUrl || !team) {
      item.hide();
      return;
    }
    const kind = team.state.kind;
    const icon = kind === 'connected' ? '$(cloud)' : kind === 'connecting' ? '$(sync~spin)' : '$(cloud-offline)';
    item.text = `${icon} ${kind === 'connected' ? 'team store' : `team store ${team.stateText}`}`;
    item.tooltip = `Agent Time Travel team store ${connection.label}: ${kind === 'connected' ? 'connected' : team.stateText}. Runs you open are copied to this machine; the debugger works on the copy.`;
    item.show();
  };
  update();
  const listeners = [connection.onDidChangeTeam(update), connection.onDidChange(update)];
  return {
    dispose() {
      for (const l of listeners) l.dispose();
      item.dispose();
    },
  };
}
