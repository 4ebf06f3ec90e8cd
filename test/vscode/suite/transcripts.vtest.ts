/**
 * Transcript documents in a real VS Code: the agent-transcript language and
 * read-only file of a run, the tool-call hover (args, result, link to the
 * whole value) through the hover provider API, the whole value opening as
 * JSON, Compare with Parent opening the comparison in a diff editor, and the transcript the
 * debugger writes being the extension's own at the `transcriptDetail` setting.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { DebugProtocol } from '@vscode/debugprotocol';
import {
  COMMANDS,
  COMPARE_SCHEME,
  DEBUG_TYPE,
  LAUNCH_CONFIG_NAME,
  SETTINGS,
  SETTINGS_SECTION,
  TRANSCRIPT_LANGUAGE,
} from '../../../src/extension/ids';
import { EXCERPT_LENGTHS } from '../../../src/replay/transcript';
import { extensionApi, stopAllSessions } from './extensionApi';
import { waitFor, type VTest } from './vtest';

function hoverText(hovers: vscode.Hover[]): string {
  return hovers
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))
    .join('\n');
}

export const tests: VTest[] = [
  {
    name: 'Open Transcript shows the run as a read-only agent-transcript document',
    async run() {
      await extensionApi();
      await vscode.commands.executeCommand(COMMANDS.openTranscript.id, 'demo-support-refund');
      const editor = await waitFor('the transcript editor', () => {
        const e = vscode.window.activeTextEditor;
        return e?.document.fileName.endsWith('demo-support-refund.transcript') && e;
      });
      assert.equal(editor.document.languageId, TRANSCRIPT_LANGUAGE);
      assert.match(editor.document.lineAt(0).text, /^# run demo-support-refund · agent /);
      const readonly = vscode.workspace.getConfiguration('files').get<Record<string, boolean>>('readonlyInclude') ?? {};
      assert.equal(readonly['**/*.transcript'], true, 'transcripts are read-only by default');
    },
  },
  {
    name: 'hovering a tool call shows its args and result as JSON with a link to the whole value',
    async run() {
      const api = await extensionApi();
      const uri = api.ctx.transcripts.ensureFile('demo-support-refund');
      const doc = await vscode.workspace.openTextDocument(uri);
      const line = api.ctx.transcripts
        .transcript('demo-support-refund')
        .lines.find((l) => l.boundary === 'after_tool_call' && l.toolName === 'lookup_order');
      assert.ok(line);
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        doc.uri,
        new vscode.Position(line.line, 6),
      );
      const text = hoverText(hovers);
      assert.match(text, /lookup\\_order/);
      assert.match(text, /"orderId": "A-10442"/);
      assert.match(text, /\*\*Result\*\*/);
      const link = /\(command:agentTimeTravel\.showValue\?([^)]+)\)/.exec(text.split('**Result**')[1] ?? '');
      assert.ok(link, 'the result section links to the whole value');
      const [ref] = JSON.parse(decodeURIComponent(link[1] ?? '')) as unknown[];
      await vscode.commands.executeCommand(COMMANDS.showValue.id, ref);
      const valueDoc = await waitFor('the whole value document', () =>
        vscode.workspace.textDocuments.find((d) => d.uri.path.endsWith('/result.json')),
      );
      assert.equal(valueDoc.languageId, 'json');
      assert.equal((JSON.parse(valueDoc.getText()) as { orderId: string }).orderId, 'A-10442');
      const none = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        doc.uri,
        new vscode.Position(0, 3),
      );
      assert.equal(hoverText(none).includes('**Result**'), false, 'the header line has no tool hover');
    },
  },
  {
    name: 'hovering a tool call whose output has several lines shows them as lines',
    async run() {
      const api = await extensionApi();
      const uri = api.ctx.transcripts.ensureFile('demo-coding-fix');
      const doc = await vscode.workspace.openTextDocument(uri);
      const line = api.ctx.transcripts
        .transcript('demo-coding-fix')
        .lines.find((l) => l.boundary === 'after_tool_call' && l.toolName === 'run_tests');
      assert.ok(line);
      const text = hoverText(
        await vscode.commands.executeCommand<vscode.Hover[]>(
          'vscode.executeHoverProvider',
          doc.uri,
          new vscode.Position(line.line, 6),
        ),
      );
      assert.ok(
        text.includes('FAIL src/totals.test.ts > invoice totals > rounds VAT per line\n  expected 119.01 to be 119.00'),
        text,
      );
      assert.doesNotMatch(text, /rounds VAT per line\\n/, 'no escaped line breaks');
    },
  },
  {
    name: 'Compare with Parent opens the diff editor over the fork (with its inherited steps) and its parent, and the summary',
    async run() {
      await extensionApi();
      await vscode.commands.executeCommand(COMMANDS.compareWithParent.id, 'demo-support-refund-auditor');
      const tab = await waitFor('a diff tab', () =>
        vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff),
      );
      const input = tab.input as vscode.TabInputTextDiff;
      assert.equal(input.original.scheme, COMPARE_SCHEME);
      assert.match(input.original.path, /demo-support-refund\.transcript$/);
      assert.match(input.modified.path, /demo-support-refund-auditor\.transcript$/);
      const parent = (await vscode.workspace.openTextDocument(input.original)).getText();
      const fork = (await vscode.workspace.openTextDocument(input.modified)).getText();
      const prefix = (t: string) => t.split('\n').slice(2, t.split('\n').indexOf('── fork point ──'));
      assert.ok(prefix(fork).length > 20, 'the fork side starts with the steps it inherited');
      assert.deepEqual(prefix(fork), prefix(parent), 'the inherited steps are equal: only what changed differs');
      assert.match(fork, /context user\.roleId = "auditor"/);
      assert.match(fork, /You act as auditor/);
      const summary = await waitFor('the comparison summary', () =>
        vscode.workspace.textDocuments.find(
          (d) => d.uri.scheme === COMPARE_SCHEME && d.uri.path.startsWith('/summary/'),
        ),
      );
      assert.match(summary.getText(), /Fork point: demo-support-refund-auditor forks demo-support-refund/);
      assert.match(summary.getText(), /user\.roleId: "support_agent" → "auditor"/);
      assert.match(summary.getText(), /First divergence: step 5/);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  },
  {
    name: 'clicking a Tool Ledger entry shows its call on its line of the transcript',
    async run() {
      const { tree, ctx } = await extensionApi();
      const ledger = tree.getChildren(tree.runNode('demo-support-refund')).find((n) => n.kind === 'ledger');
      assert.ok(ledger);
      const call = tree
        .getChildren(ledger)
        .find((n) => n.kind === 'toolCall' && tree.getTreeItem(n).label === 'issue_refund');
      assert.ok(call);
      const command = tree.getTreeItem(call).command;
      assert.ok(command, 'a ledger entry has a click command');
      await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []));
      const line = ctx.transcripts
        .transcript('demo-support-refund')
        .lines.find((l) => l.boundary === 'before_tool_call' && l.toolName === 'issue_refund');
      const editor = await waitFor('the transcript at the issue_refund call', () =>
        vscode.window.visibleTextEditors.find(
          (e) =>
            e.document.fileName.endsWith('demo-support-refund.transcript') && e.selection.active.line === line?.line,
        ),
      );
      assert.match(editor.document.lineAt(editor.selection.active.line).text, /before_tool_call · issue_refund\(/);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  },
  {
    name: "with transcriptDetail 'full', F5 replays the transcript the extension wrote without rewriting it",
    timeoutMs: 60_000,
    async run() {
      const api = await extensionApi();
      await stopAllSessions();
      const settings = vscode.workspace.getConfiguration(SETTINGS_SECTION);
      await settings.update(SETTINGS.transcriptDetail, 'full', vscode.ConfigurationTarget.Workspace);
      try {
        await waitFor(
          'the setting',
          () => vscode.workspace.getConfiguration(SETTINGS_SECTION).get(SETTINGS.transcriptDetail) === 'full',
        );
        const uri = api.ctx.transcripts.ensureFile('demo-support-refund');
        const written = fs.readFileSync(uri.fsPath, 'utf8');
        const mtime = fs.statSync(uri.fsPath).mtimeMs;
        const user = /user: (.*)$/m.exec(written)?.[1] ?? '';
        assert.ok(user.length > EXCERPT_LENGTHS.normal, `full excerpts in the extension's transcript: ${user}`);
        // F5 with a configuration that names no detail: the provider fills in the setting
        const started = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], {
          type: DEBUG_TYPE,
          request: 'launch',
          name: LAUNCH_CONFIG_NAME,
          runId: 'demo-support-refund',
          stopOnEntry: true,
        });
        assert.ok(started);
        const session = await waitFor('the session', () => vscode.debug.activeDebugSession);
        assert.equal(session.configuration.transcriptDetail, 'full');
        const top = await waitFor('the first frame', async () => {
          const f = (await session.customRequest('stackTrace', {
            threadId: 1,
            startFrame: 0,
            levels: 1,
          })) as DebugProtocol.StackTraceResponse['body'];
          return f.stackFrames[0];
        });
        const framePath = top.source?.path ?? '';
        // the client may hand the path over as a URI (code-server: vscode-remote://…)
        const frameFile = /^[a-z][\w+.-]+:\/\//.test(framePath) ? vscode.Uri.parse(framePath).fsPath : framePath;
        assert.equal(frameFile, uri.fsPath, 'the frame points at the same file');
        assert.equal(fs.readFileSync(uri.fsPath, 'utf8'), written, 'the debugger wrote the same text');
        assert.equal(fs.statSync(uri.fsPath).mtimeMs, mtime, 'and did not rewrite the file');
      } finally {
        await stopAllSessions();
        await settings.update(SETTINGS.transcriptDetail, undefined, vscode.ConfigurationTarget.Workspace);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      }
    },
  },
];
