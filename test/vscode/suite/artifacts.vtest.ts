/**
 * Artifacts inside a real VS Code on the demo store: the refund run lists its case report under Artifacts;
 * clicking it opens the report as markdown (a read-only document: the UI flow types into it); Compare with Parent of the auditor fork opens a text diff
 * of the changed report beside the runs' diff, and its summary names it; a PNG artifact recorded by another
 * writer shows in the tree as binary and opens as a note saying how to save it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS, COMPARE_SCHEME } from '../../../src/extension/ids';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { demoStorePath, extensionApi } from './extensionApi';
import { waitFor, type VTest } from './vtest';

function label(item: vscode.TreeItem): string {
  return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

async function artifactItems(runId: string): Promise<vscode.TreeItem[]> {
  const { tree } = await extensionApi();
  const node = await waitFor(`the Artifacts node of ${runId}`, () =>
    tree.getChildren(tree.runNode(runId)).find((n) => n.kind === 'artifacts'),
  );
  return tree.getChildren(node).map((n) => tree.getTreeItem(n));
}

export const tests: VTest[] = [
  {
    name: 'the refund run lists its case report under Artifacts; a click opens it read-only as markdown',
    async run() {
      const { tree } = await extensionApi();
      const kinds = tree.getChildren(tree.runNode('demo-support-refund')).map((n) => n.kind);
      assert.ok(kinds.indexOf('artifacts') > kinds.indexOf('ledger'), `Artifacts after the Tool Ledger: ${kinds}`);
      assert.ok(kinds.indexOf('artifacts') < kinds.indexOf('step'), 'and before the steps');
      const none = tree.getChildren(tree.runNode('demo-support-escalation')).map((n) => n.kind);
      assert.ok(!none.includes('artifacts'), 'a run without artifacts has no Artifacts node');
      const [report] = await artifactItems('demo-support-refund');
      assert.ok(report);
      assert.equal(label(report), 'case-report.md');
      assert.match(String(report.description), /^text\/markdown · \d+ B$/);
      assert.equal((report.iconPath as vscode.ThemeIcon).id, 'file');
      assert.ok(report.command, 'a click opens it');
      await vscode.commands.executeCommand(report.command.command, ...(report.command.arguments ?? []));
      const editor = await waitFor('the case report in an editor', () =>
        vscode.window.visibleTextEditors.find(
          (e) => e.document.uri.scheme === COMPARE_SCHEME && e.document.uri.path.endsWith('/case-report.md'),
        ),
      );
      assert.equal(editor.document.languageId, 'markdown');
      assert.match(editor.document.getText(), /^# Case report CR-2026-1104 · ticket T-2026-11-0192\n/);
      assert.match(editor.document.getText(), /acting as support_agent/);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  },
  {
    name: 'Compare with Parent opens a text diff of the changed case report, and the summary names it',
    async run() {
      await extensionApi();
      await vscode.commands.executeCommand(COMMANDS.compareWithParent.id, 'demo-support-refund-auditor');
      const diffs = await waitFor('the runs diff and the artifact diff', () => {
        const tabs = vscode.window.tabGroups.all
          .flatMap((g) => g.tabs)
          .filter((t) => t.input instanceof vscode.TabInputTextDiff);
        return tabs.length >= 2 && tabs;
      });
      const artifactTab = diffs.find((t) =>
        (t.input as vscode.TabInputTextDiff).original.path.startsWith('/artifact/'),
      );
      assert.ok(artifactTab, `an artifact diff tab (tabs: ${diffs.map((t) => t.label).join(', ')})`);
      assert.equal(artifactTab.label, 'case-report.md: demo-support-refund ↔ demo-support-refund-auditor');
      const input = artifactTab.input as vscode.TabInputTextDiff;
      const parent = (await vscode.workspace.openTextDocument(input.original)).getText();
      const fork = (await vscode.workspace.openTextDocument(input.modified)).getText();
      assert.match(parent, /acting as support_agent[\s\S]*Refund RF-88213 issued/);
      assert.match(fork, /acting as auditor[\s\S]*No refund issued: the auditor role has no refunds:issue/);
      const active = vscode.window.tabGroups.activeTabGroup.activeTab;
      assert.match(
        (active?.input as vscode.TabInputTextDiff | undefined)?.modified.path ?? '',
        /demo-support-refund-auditor\.transcript$/,
        "the runs' diff stays in front",
      );
      const summary = await waitFor('the comparison summary', () =>
        vscode.workspace.textDocuments.find(
          (d) => d.uri.scheme === COMPARE_SCHEME && d.uri.path.startsWith('/summary/'),
        ),
      );
      assert.match(summary.getText(), /Artifacts that differ:\n+- case-report\.md: changed \(v1 \d+ B → v1 \d+ B\)/);
      const runs = diffs.find((t) => (t.input as vscode.TabInputTextDiff).modified.path.endsWith('.transcript'));
      assert.ok(runs);
      const side = (
        await vscode.workspace.openTextDocument((runs.input as vscode.TabInputTextDiff).modified)
      ).getText();
      assert.match(side, /── artifacts ──\nartifact case-report\.md · text\/markdown · \d+ B · [0-9a-f]{12}/);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  },
  {
    name: 'a PNG recorded by another writer shows as binary and opens as a note saying how to save it',
    async run() {
      const png = fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', 'media', 'screenshot.png'));
      const store = openRunStore(demoStorePath());
      try {
        const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
        const run = recorder.startRun({
          runId: 'vtest-artifact-png',
          agentId: 'charts',
          runtimeContext: store.getCheckpointAt('demo-support-refund', 0).runtimeContext,
        });
        run.artifact({ type: 'image/png', name: 'chart.png', content: png });
        run.end();
        recorder.close();
      } finally {
        store.close();
      }
      const items = await waitFor('the PNG in the tree', async () => {
        const { tree } = await extensionApi();
        return tree.summary('vtest-artifact-png') && (await artifactItems('vtest-artifact-png'));
      });
      const [chart] = items;
      assert.ok(chart);
      assert.match(String(chart.description), /^image\/png · \d+\.\d KB · binary$/);
      assert.equal((chart.iconPath as vscode.ThemeIcon).id, 'file-media');
      assert.ok(chart.command);
      await vscode.commands.executeCommand(chart.command.command, ...(chart.command.arguments ?? []));
      const editor = await waitFor('the note about the PNG', () =>
        vscode.window.visibleTextEditors.find((e) => e.document.uri.path.endsWith('/chart.png.txt')),
      );
      assert.match(
        editor.document.getText(),
        /^chart\.png of run vtest-artifact-png is binary content \(\d+\.\d KB, \d+ bytes/,
      );
      assert.match(editor.document.getText(), /ocdb artifact vtest-artifact-png chart\.png -o chart\.png/);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  },
];
