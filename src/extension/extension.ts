/** VS Code entry point. Wiring only; everything it shows comes from the core layers. */
import type * as vscode from 'vscode';

export function activate(_context: vscode.ExtensionContext): void {
  // Commands, views and the debugger are registered by the extension modules.
}

export function deactivate(): void {}
