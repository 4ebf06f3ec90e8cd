/**
 * A quick pick of agent ids for "Debug Next Run of Agent…" and the `${command:agentTimeTravel.pickAgent}` launch
 * variable: the agents of the store's runs, newest first (liveModel.ts `agentChoices`), and whatever the user types
 * (an agent that has not run yet). VS Code wiring only.
 */
import * as vscode from 'vscode';
import { agentChoiceDescription, agentChoices } from './liveModel';
import type { StoreConnection } from './storeConnection';

/** Runs read to collect the agents (newest first): enough for any recent agent; an older one can be typed. */
const RUNS_READ = 1000;

interface AgentPick extends vscode.QuickPickItem {
  agentId: string;
}

/** Asks for an agent id; undefined when the user cancelled. */
export async function pickAgent(connection: StoreConnection, title: string): Promise<string | undefined> {
  const runs = connection.tryGet()?.listRuns({ limit: RUNS_READ }).runs ?? [];
  const known: AgentPick[] = agentChoices(runs).map((c) => ({
    agentId: c.agentId,
    label: c.agentId,
    description: agentChoiceDescription(c),
  }));
  const pick = vscode.window.createQuickPick<AgentPick>();
  pick.title = title;
  pick.placeholder =
    known.length > 0
      ? 'Pick the agent whose next run to debug, or type its id'
      : 'Type the agent id (runs have none yet)';
  pick.matchOnDescription = true;
  pick.items = known;
  const typedItem = (value: string): AgentPick => ({
    agentId: value,
    label: value,
    description: 'no run of it in the store yet: wait for its first run',
    alwaysShow: true,
  });
  return new Promise<string | undefined>((resolve) => {
    let done = false;
    const finish = (value: string | undefined) => {
      if (done) return;
      done = true;
      resolve(value);
      pick.dispose();
    };
    pick.onDidChangeValue((value) => {
      const typed = value.trim();
      pick.items = typed === '' || known.some((k) => k.agentId === typed) ? known : [typedItem(typed), ...known];
    });
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0]?.agentId ?? pick.value.trim();
      if (chosen !== '') finish(chosen);
    });
    pick.onDidHide(() => finish(undefined));
    pick.show();
  });
}
