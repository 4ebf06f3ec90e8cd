/**
 * The team store's connection in the tree's description and the status bar: the URL without password and, when
 * not connected, its state (connecting…, offline with the seconds until the next retry, wrong password). Shown,
 * never notified: the status bar's item offers Set Store Password… when the password was refused. While offline
 * both tick once a second (two strings set, nothing read), so the countdown to the next retry stays true.
 */
import * as vscode from 'vscode';
import { COMMANDS } from './ids';
import type { StoreConnection } from './storeConnection';

/** The tree's description: the store a URL setting names, with its connection state when it is not connected. */
export function storeDescription(connection: StoreConnection): string | undefined {
  if (!connection.isUrl) return undefined;
  const state = connection.team?.stateText ?? 'connecting…';
  return state ? `${connection.label} · ${state}` : connection.label;
}

/** The status bar item as shown, for tests: its text (empty when hidden) and its click command. */
export interface TeamStatusItem extends vscode.Disposable {
  readonly text: string;
  readonly command: string | undefined;
}

/**
 * A status bar item that follows the team store's connection; hidden for a store file. `describe` sets the tree's
 * description again: called with the item's own updates, so the two say the same.
 */
export function teamStatusItem(connection: StoreConnection, describe: () => void = () => undefined): TeamStatusItem {
  const item = vscode.window.createStatusBarItem('agentTimeTravel.teamStore', vscode.StatusBarAlignment.Left, 0);
  item.name = 'Agent Time Travel: team store';
  let ticker: NodeJS.Timeout | undefined;
  let shown = false;
  const update = () => {
    const team = connection.team;
    const kind = connection.isUrl && team ? team.state.kind : undefined;
    if (kind === 'offline' && !ticker) {
      ticker = setInterval(update, 1000);
      ticker.unref();
    } else if (kind !== 'offline' && ticker) {
      clearInterval(ticker);
      ticker = undefined;
    }
    if (kind === 'offline') describe();
    if (!team || kind === undefined) {
      item.hide();
      shown = false;
      return;
    }
    const icon = kind === 'connected' ? '$(cloud)' : kind === 'connecting' ? '$(sync~spin)' : '$(cloud-offline)';
    item.text = `${icon} ${kind === 'connected' ? 'team store' : `team store ${team.stateText}`}`;
    const reason =
      team.state.kind === 'offline' || team.state.kind === 'wrong-password' ? ` (${team.state.message})` : '';
    item.tooltip = `Agent Time Travel team store ${connection.label}: ${kind === 'connected' ? 'connected' : team.stateText}${reason}. Runs you open are copied to this machine; the debugger works on the copy.`;
    item.command = kind === 'wrong-password' ? COMMANDS.setStorePassword.id : undefined;
    item.show();
    shown = true;
  };
  update();
  const listeners = [connection.onDidChangeTeam(update), connection.onDidChange(update)];
  return {
    get text() {
      return shown ? item.text : '';
    },
    get command() {
      return typeof item.command === 'string' ? item.command : undefined;
    },
    dispose() {
      if (ticker) clearInterval(ticker);
      for (const l of listeners) l.dispose();
      item.dispose();
    },
  };
}
