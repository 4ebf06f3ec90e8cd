/**
 * Runs a fork with the agent's own program (so re_execute / manual_confirm
 * tools run the agent's real code): hands the fork request to the program
 * through the replay layer's startAgentProgram (OCDB_FORK, OCDB_STORE), shows
 * its output in an output channel, and answers its manual_confirm questions
 * with a modal dialog while it runs. VS Code wiring only.
 */
import * as vscode from 'vscode';
import { startAgentProgram } from '../fork/agentProgram';
import type { CreatedFork } from '../fork/forkService';
import type { ConfirmationAnswer, ConfirmationRecord, RunStore } from '../store';
import type { ExtensionContextObject } from './context';
import { shorten, toJson } from './format';
import { notificationText } from './markdownText';

const CONFIRM_POLL_MS = 500;

let output: vscode.OutputChannel | undefined;
function programOutput(): vscode.OutputChannel {
  output ??= vscode.window.createOutputChannel('Agent Time Travel: agent program');
  return output;
}

const ANSWERS: { label: string; answer: ConfirmationAnswer }[] = [
  { label: 'Run it again', answer: 'allow_once' },
  { label: 'Use the recorded result', answer: 'use_recorded' },
  { label: 'Abort the fork', answer: 'abort' },
];

/** Asks the user about one manual_confirm tool call and records the answer (abort when dismissed). */
async function confirm(store: RunStore, c: ConfirmationRecord): Promise<void> {
  const choice = await vscode.window.showWarningMessage(
    notificationText(`The forked agent wants to run ${c.toolName} again (${c.sideEffectLevel}).`),
    { modal: true, detail: notificationText(`Arguments: ${shorten(toJson(c.args, 0), 400)}`) },
    ...ANSWERS.map((a) => a.label),
  );
  const answer = ANSWERS.find((a) => a.label === choice)?.answer ?? 'abort';
  try {
    store.answerConfirmation(c.confirmationId, answer, Date.now());
  } catch {
    // expired meanwhile: the agent gave up waiting
  }
}

/** Starts `command` on the created fork and resolves with its exit code once it ended. */
export async function runWithAgentProgram(
  ctx: ExtensionContextObject,
  created: CreatedFork,
  command: string,
): Promise<number> {
  const store = ctx.connection.getOrCreate();
  const out = programOutput();
  out.appendLine(`$ ${command}   (OCDB_FORK=${created.forkRequestId})`);
  out.show(true);
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
  const started = await startAgentProgram(store, created.forkRequestId, { command, cwd, stdio: 'pipe' });
  started.child.stdout?.on('data', (d: Buffer) => out.append(d.toString()));
  started.child.stderr?.on('data', (d: Buffer) => out.append(d.toString()));
  const asked = new Set<string>();
  const timer = setInterval(() => {
    ctx.connection.poll();
    for (const c of store.listConfirmations({ forkRequestId: created.forkRequestId, status: 'pending' })) {
      if (asked.has(c.confirmationId)) continue;
      asked.add(c.confirmationId);
      void confirm(store, c);
    }
  }, CONFIRM_POLL_MS);
  try {
    const code = await started.exited;
    out.appendLine(`[agent program exited with code ${code}]`);
    return code;
  } finally {
    clearInterval(timer);
    ctx.connection.poll();
  }
}
