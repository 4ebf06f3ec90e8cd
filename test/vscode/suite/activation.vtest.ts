/**
 * Smoke tests inside the real extension host: the extension is present, activates in the demo workspace, and every
 * command of ids.ts is both contributed in package.json and registered at run time.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS, DEBUG_TYPE, EXTENSION_ID, VIEWS } from '../../../src/extension/ids';
import type { VTest } from './vtest';

interface Manifest {
  contributes?: {
    commands?: { command: string }[];
    debuggers?: { type: string }[];
    views?: Record<string, { id: string }[]>;
  };
}

function extension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed in this VS Code`);
  return ext;
}

export const tests: VTest[] = [
  {
    name: 'the extension activates in the demo workspace',
    async run() {
      const ext = extension();
      await ext.activate();
      assert.equal(ext.isActive, true);
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder, 'a workspace folder is open');
    },
  },
  {
    name: 'every command of ids.ts is contributed and registered',
    async run() {
      const manifest = extension().packageJSON as Manifest;
      const contributed = new Set((manifest.contributes?.commands ?? []).map((c) => c.command));
      const expected = Object.values(COMMANDS).map((c) => c.id);
      assert.deepEqual(
        expected.filter((id) => !contributed.has(id)),
        [],
        'commands missing from package.json contributes.commands',
      );
      const registered = new Set(await vscode.commands.getCommands(true));
      assert.deepEqual(
        expected.filter((id) => !registered.has(id)),
        [],
        'commands contributed but not registered by activate()',
      );
    },
  },
  {
    name: 'the Agent Runs views and the agent-replay debugger are contributed',
    async run() {
      const manifest = extension().packageJSON as Manifest;
      const views = Object.values(manifest.contributes?.views ?? {})
        .flat()
        .map((v) => v.id);
      for (const id of Object.values(VIEWS)) assert.ok(views.includes(id), `view ${id} is contributed`);
      const debuggers = (manifest.contributes?.debuggers ?? []).map((d) => d.type);
      assert.ok(debuggers.includes(DEBUG_TYPE), `debugger ${DEBUG_TYPE} is contributed`);
      // Focusing the view proves its container and view are known to the workbench.
      await vscode.commands.executeCommand(`${VIEWS.runs}.focus`);
    },
  },
];
