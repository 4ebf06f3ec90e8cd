/**
 * The MCP server the extension registers for agent mode, inside the real extension host: the definition it provides
 * (the editor's own Node running the shipped dist/cli.js, `mcp --store <the extension's store>`) starts a server that
 * answers MCP's initialize and lists the debugger's tools, and the manifest contributes the provider it registers.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as vscode from 'vscode';
import { EXTENSION_ID, MCP_PROVIDER } from '../../../src/extension/ids';
import { mcpServerDefinition } from '../../../src/extension/mcpProvider';
import type { VTest } from './vtest';

/** Sends JSON-RPC lines to the server and resolves with the answer to request `id`. */
function exchange(command: string, args: string[], env: Record<string, string>, lines: object[], id: number) {
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`no answer to request ${id}: ${err}`));
    }, 60_000);
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      for (const line of out.split('\n')) {
        if (!line.trim()) continue;
        const message = JSON.parse(line) as { id?: number; result?: Record<string, unknown> };
        if (message.id === id) {
          clearTimeout(timer);
          child.kill();
          resolve(message.result ?? {});
        }
      }
    });
    for (const l of lines) child.stdin.write(`${JSON.stringify(l)}\n`);
  });
}

export const tests: VTest[] = [
  {
    name: 'the MCP server definition the extension provides starts ocdb mcp on its store',
    async run() {
      const ext = vscode.extensions.getExtension(EXTENSION_ID);
      assert.ok(ext);
      await ext.activate();
      const manifest = ext.packageJSON as { contributes?: { mcpServerDefinitionProviders?: { id: string }[] } };
      assert.deepEqual(
        manifest.contributes?.mcpServerDefinitionProviders?.map((p) => p.id),
        [MCP_PROVIDER.id],
      );
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder);
      const store = vscode.Uri.joinPath(folder.uri, '.ocdb', 'runs.db').fsPath;
      const def = mcpServerDefinition((p) => vscode.Uri.joinPath(ext.extensionUri, p).fsPath, store, '1');
      const env = Object.fromEntries(Object.entries(def.env).map(([k, v]) => [k, String(v)]));
      const result = await exchange(
        def.command,
        def.args,
        env,
        [
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'vtest', version: '1' } },
          },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        ],
        2,
      );
      const names = (result.tools as { name: string }[]).map((t) => t.name);
      assert.ok(names.includes('find_runs') && names.includes('fork_run'), names.join(', '));
    },
  },
];
