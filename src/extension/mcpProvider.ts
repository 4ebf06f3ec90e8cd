/**
 * The MCP server for agent mode: registers `ocdb mcp` (the bundle this extension ships, run by the editor's own
 * Node) with VS Code's MCP server definition API, pointed at the store this extension shows — so Copilot's agent
 * mode finds, reads, compares and forks these runs without any setup. A change of store (the Store Path setting)
 * tells VS Code the definition changed. A PostgreSQL store's password reaches the server in PGPASSWORD when it is
 * started, never in its arguments (which VS Code shows).
 */
import * as vscode from 'vscode';
import { isStoreUrl } from '../store/storePath';
import type { ExtensionContextObject } from './context';
import { MCP_PROVIDER } from './ids';

/** What starts the server: the editor's Node running dist/cli.js as Node, `mcp --store <the store>`. */
export function mcpServerDefinition(
  extensionPath: (relative: string) => string,
  store: string,
  version: string,
): vscode.McpStdioServerDefinition {
  return new vscode.McpStdioServerDefinition(
    MCP_PROVIDER.label,
    process.execPath,
    [extensionPath('dist/cli.js'), 'mcp', '--store', store],
    // the extension host's executable is the editor's: this makes it run the script as plain Node
    { ELECTRON_RUN_AS_NODE: '1' },
    version,
  );
}

export function registerMcpProvider(ctx: ExtensionContextObject): vscode.Disposable[] {
  const { vscodeContext: context, connection } = ctx;
  const changed = new vscode.EventEmitter<void>();
  const version = String((context.extension.packageJSON as { version?: string }).version ?? '0.0.0');
  let shown = connection.path;
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => [
      mcpServerDefinition((p) => context.asAbsolutePath(p), connection.path, version),
    ],
    resolveMcpServerDefinition: (server) => {
      if (isStoreUrl(connection.path)) {
        const withPassword = connection.storeLocation(connection.path);
        try {
          const password = decodeURIComponent(new URL(withPassword).password);
          if (password) server.env = { ...server.env, PGPASSWORD: password };
        } catch {
          // not a URL the store could open either: the server says so when it starts
        }
      }
      return server;
    },
  };
  // an editor built without the language model API (some VS Code forks) runs everything else as before
  const lm = vscode.lm as Partial<typeof vscode.lm> | undefined;
  if (typeof lm?.registerMcpServerDefinitionProvider !== 'function') {
    ctx.log.info('this editor has no MCP server definition API: ocdb mcp is not registered for agent mode');
    return [changed];
  }
  return [
    changed,
    lm.registerMcpServerDefinitionProvider(MCP_PROVIDER.id, provider),
    connection.onDidChange((e) => {
      if (e.kind !== 'reset' || connection.path === shown) return;
      shown = connection.path;
      changed.fire();
    }),
  ];
}
