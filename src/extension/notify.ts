/**
 * The one place where errors become notifications: a command wrapper that
 * logs the failure and shows its message (OcdbError messages already say
 * what, where and what to do), and the registration helper typed by ids.ts.
 */
import * as vscode from 'vscode';
import { errorMessage, isOcdbError, redactText } from '../model';
import { COMMANDS, type CommandKey } from './ids';
import { notificationText } from './markdownText';

/** Shows an error to the user and logs it (with the stack at debug level). */
export function showError(log: vscode.LogOutputChannel, what: string, e: unknown): void {
  // a driver's error may carry a connection string: no secret reaches the log or the notification
  const message = redactText(errorMessage(e));
  log.error(`${what}: ${message}`);
  if (e instanceof Error && e.stack) log.debug(redactText(e.stack));
  const code = isOcdbError(e) ? ` [${e.code}]` : '';
  void vscode.window.showErrorMessage(notificationText(`${what}: ${message}${code}`), 'Show Log').then((choice) => {
    if (choice === 'Show Log') log.show();
  });
}

/** Registers a command of ids.ts; failures are shown, never swallowed silently. */
export function registerCommand(
  log: vscode.LogOutputChannel,
  key: CommandKey,
  fn: (...args: unknown[]) => unknown,
): vscode.Disposable {
  const { id, title } = COMMANDS[key];
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await fn(...args);
    } catch (e) {
      showError(log, title, e);
      return undefined;
    }
  });
}
