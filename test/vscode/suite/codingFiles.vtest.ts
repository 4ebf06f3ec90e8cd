/**
 * A coding agent's files in a real VS Code: a Claude Code session of the open workspace (the constructed
 * leap-year session of test/fixtures/importers, its folder set to the workspace) is listed as "live" while its file
 * was just written; opened and replayed at the checkpoint after its first Edit, the Variables' Files scope lists
 * src/date.ts with its lines and steps; Open Changes (the Variables view's menu command) opens the diff of that
 * Edit, whose right side is the file as the Edit made it, in a tab of its own (the replay's transcript stays open);
 * the transcript hover on the Edit line shows its diff.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { COMMANDS, FILE_SCHEME, SETTINGS, SETTINGS_SECTION } from '../../../src/extension/ids';
import { claudeProjectDirName } from '../../../src/importers/sessions';
import { openRunStore } from '../../../src/store';
import { deleteRunTree, demoStorePath, extensionApi, stopAllSessions } from './extensionApi';
import { waitFor, type VTest } from './vtest';

const FIX = path.resolve(__dirname, '../../../../test/fixtures/importers');
const SESSION_ID = '7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11';
const RUN = `cc-${SESSION_ID}`;
const OLD_CWD = '/home/dev/projects/calendar-kit';

function workspace(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  return folder.uri.fsPath;
}

export const tests: VTest[] = [
  {
    name: 'a coding session: live in the tree, the Files scope at a checkpoint after an Edit, Open Changes shows its diff',
    timeoutMs: 120_000,
    async run() {
      const { tree, ctx } = await extensionApi();
      await stopAllSessions();
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'att-files-home-'));
      const dir = path.join(home, '.claude/projects', claudeProjectDirName(workspace()));
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${SESSION_ID}.jsonl`);
      const text = fs.readFileSync(path.join(FIX, 'claude-code', `${SESSION_ID}.jsonl`), 'utf8');
      fs.writeFileSync(file, text.replaceAll(OLD_CWD, workspace()));
      await vscode.workspace
        .getConfiguration(SETTINGS_SECTION)
        .update(SETTINGS.sessionsHome, home, vscode.ConfigurationTarget.Global);
      try {
        // just written: the tree says it is live
        const node = await waitFor('the session in the tree', () => {
          const section = tree.getChildren().find((n) => n.kind === 'sessions');
          return section && tree.getChildren(section).find((n) => n.kind === 'session' && n.file === file);
        });
        assert.match(String(tree.getTreeItem(node).description), /^live · Claude Code · /);

        const runId = await vscode.commands.executeCommand<string>(COMMANDS.openSession.id, file);
        assert.equal(runId, RUN);
        await waitFor('the replay', () => vscode.debug.activeDebugSession?.name.includes(RUN));
        await stopAllSessions();

        const store = openRunStore(demoStorePath(), { create: false });
        const edit = store.listCheckpoints(RUN).find((c) => c.toolName === 'Edit' && c.boundary === 'after_tool_call');
        store.close();
        assert.ok(edit);
        await ctx.startReplay(RUN, edit.checkpointId);
        const session = await waitFor('the replay at the Edit', () => vscode.debug.activeDebugSession);
        // VS Code asks for frames too (each answer hands out new frame ids): read frames and scopes together
        const scopes = await waitFor('the scopes of the frame at the Edit', async () => {
          try {
            const f = (await session.customRequest('stackTrace', { threadId: 1, startFrame: 0, levels: 1 })) as
              DebugProtocol.StackTraceResponse['body'] | undefined;
            const frame = f?.stackFrames[0];
            if (!frame || !/after_tool_call · Edit/.test(frame.name)) return undefined;
            const answer = (await session.customRequest('scopes', { frameId: frame.id })) as {
              scopes: DebugProtocol.Scope[];
            };
            return answer.scopes;
          } catch {
            return undefined;
          }
        });
        assert.deepEqual(scopes.map((s) => s.name).slice(0, 3), ['Checkpoint', 'Files', 'Messages']);
        const files = scopes[1] as DebugProtocol.Scope;
        const { variables } = (await session.customRequest('variables', {
          variablesReference: files.variablesReference,
        })) as { variables: DebugProtocol.Variable[] };
        const date = variables.find((v) => v.name === 'src/date.ts');
        assert.ok(date, variables.map((v) => v.name).join(', '));
        assert.match(date.value, /^M \+2 −1 · step 4/);

        // the replay shows its transcript (a preview tab): Open Changes must leave it open
        const transcriptName = path.basename(ctx.transcripts.ensureFile(RUN).fsPath);
        const transcriptTab = () =>
          vscode.window.tabGroups.all
            .flatMap((g) => g.tabs)
            .find((t) => t.input instanceof vscode.TabInputText && path.basename(t.input.uri.path) === transcriptName);
        const shown = await waitFor('the transcript tab of the replay', transcriptTab);
        assert.equal(shown.isPreview, true, 'the debugger shows the transcript in the preview tab');

        // Open Changes, as the Variables view's menu calls it
        await vscode.commands.executeCommand(COMMANDS.openFileChanges.id, {
          sessionId: session.id,
          container: files,
          variable: date,
        });
        const diff = await waitFor('the diff editor', () => {
          const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
          return input instanceof vscode.TabInputTextDiff && input;
        });
        assert.equal(diff.original.scheme, FILE_SCHEME);
        const before = await vscode.workspace.openTextDocument(diff.original);
        const after = await vscode.workspace.openTextDocument(diff.modified);
        assert.doesNotMatch(before.getText(), /isLeapYear/);
        assert.match(after.getText(), /isLeapYear/);
        assert.match(
          vscode.window.tabGroups.activeTabGroup.activeTab?.label ?? '',
          /date\.ts \(step 4 Edit: before ↔ after\)/,
        );
        assert.ok(transcriptTab(), 'the transcript is still among the tabs after Open Changes');
        assert.equal(
          vscode.window.tabGroups.activeTabGroup.activeTab?.isPreview,
          false,
          'the diff is a tab of its own',
        );

        // the hover on the Edit's line of the transcript shows the diff
        const transcript = ctx.transcripts.ensureFile(RUN);
        const line = ctx.transcripts.transcript(RUN).lines.find((l) => l.checkpointId === edit.checkpointId)?.line;
        assert.ok(line !== undefined);
        const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
          'vscode.executeHoverProvider',
          transcript,
          new vscode.Position(line, 2),
        );
        const md = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
        // the file name is markdown-escaped text (`date\.ts` renders as date.ts)
        assert.match(md, /\*\*src\/date\\?\.ts\*\* \+2 −1/);
        assert.match(md, /```diff\n@@ -\d+,\d+ \+\d+,\d+ @@/);
      } finally {
        await stopAllSessions();
        await vscode.workspace
          .getConfiguration(SETTINGS_SECTION)
          .update(SETTINGS.sessionsHome, undefined, vscode.ConfigurationTarget.Global);
        const store = openRunStore(demoStorePath(), { create: false });
        try {
          deleteRunTree(store, RUN);
        } finally {
          store.close();
        }
      }
    },
  },
];
