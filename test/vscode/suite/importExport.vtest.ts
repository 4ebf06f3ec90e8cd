/**
 * Import Run with a DebugRun JSON file (what `ocdb export` and Export Run
 * write): the run lands in the store and in the tree; importing the same id
 * again would ask before replacing (not exercised: it is a modal).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/extension/ids';
import { openRunStore } from '../../../src/store';
import { demoStorePath, extensionApi } from './extensionApi';
import { waitFor, type VTest } from './vtest';

export const tests: VTest[] = [
  {
    name: 'Import Run loads a DebugRun JSON file into the store and the tree shows it',
    async run() {
      const { tree } = await extensionApi();
      const reader = openRunStore(demoStorePath(), { create: false });
      let exported: ReturnType<typeof reader.exportRun>;
      try {
        exported = reader.exportRun('demo-coding-fix');
      } finally {
        reader.close();
      }
      const copy = JSON.parse(JSON.stringify(exported).replaceAll('demo-coding-fix', 'vtest-imported-run')) as unknown;
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'att-import-')), 'run.json');
      fs.writeFileSync(file, JSON.stringify(copy, null, 2));
      const runIds = await vscode.commands.executeCommand<string[]>(COMMANDS.importRun.id, file);
      assert.deepEqual(runIds, ['vtest-imported-run']);
      await waitFor('the imported run in the tree', () =>
        tree.getChildren().some((n) => n.kind === 'run' && n.runId === 'vtest-imported-run'),
      );
      const check = openRunStore(demoStorePath(), { create: false });
      try {
        assert.equal(check.getRun('vtest-imported-run').checkpointCount, exported.checkpoints.length);
      } finally {
        check.close();
      }
    },
  },
];
