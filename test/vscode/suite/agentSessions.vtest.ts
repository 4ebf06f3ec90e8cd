/**
 * The "Coding agent sessions" section inside a real VS Code: a home folder
 * holding real public Claude Code, Codex and Gemini CLI sessions of the open
 * workspace (test/fixtures/importers/README.md; their cwd set to the
 * workspace) is listed above the runs, titled, with the subagent nested;
 * opening a session imports and replays it; lines appended to its file grow
 * the run in the store without a manual import; the setting turns it off.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS, SETTINGS, SETTINGS_SECTION } from '../../../src/extension/ids';
import { claudeProjectDirName, geminiProjectHash } from '../../../src/importers/sessions';
import type { RunsNode } from '../../../src/extension/runsTreeModel';
import { openRunStore } from '../../../src/store';
import { demoStorePath, extensionApi, stopAllSessions } from './extensionApi';
import { waitFor, type VTest } from './vtest';

const FIX = path.resolve(__dirname, '../../../../test/fixtures/importers');
const SPOTTER_CWD = '/home/USER/projects/spotter-worktrees/spotter-dov';
const SPOTTER_ID = '4d5611e5-241a-462a-8d15-5122611a9569';
const CODEX_FILE = 'rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl';
/** Lines of the Claude Code session written before it is opened; the rest are appended while it is followed. */
const FIRST_LINES = 20;

const label = (item: vscode.TreeItem): string =>
  typeof item.label === 'string' ? item.label : (item.label?.label ?? '');

let home = '';
let claudeFile = '';
let rest = '';

function workspace(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  return folder.uri.fsPath;
}

/** A copy of a fixture whose recorded folder is the workspace. */
function place(from: string, to: string, oldCwd: string, lines?: number): string {
  assert.ok(fs.existsSync(path.join(FIX, from)), `fixture ${from}`);
  const text = fs.readFileSync(path.join(FIX, from), 'utf8').replaceAll(oldCwd, workspace());
  fs.mkdirSync(path.dirname(to), { recursive: true });
  if (lines === undefined) fs.writeFileSync(to, text);
  else {
    const all = text.split('\n');
    fs.writeFileSync(to, `${all.slice(0, lines).join('\n')}\n`);
    rest = all.slice(lines).join('\n');
  }
  return to;
}

async function setHome(value: string | undefined): Promise<void> {
  await vscode.workspace
    .getConfiguration(SETTINGS_SECTION)
    .update(SETTINGS.sessionsHome, value, vscode.ConfigurationTarget.Global);
}

function section(roots: RunsNode[]): RunsNode | undefined {
  return roots.find((n) => n.kind === 'sessions');
}

export const tests: VTest[] = [
  {
    name: 'the Runs view lists the workspace’s Claude Code, Codex and Gemini sessions, titled, subagent nested',
    async run() {
      const { tree } = await extensionApi();
      home = fs.mkdtempSync(path.join(os.tmpdir(), 'att-sessions-home-'));
      const claudeDir = path.join(home, '.claude/projects', claudeProjectDirName(workspace()));
      claudeFile = place(
        `claude-code-real/${SPOTTER_ID}.jsonl`,
        path.join(claudeDir, `${SPOTTER_ID}.jsonl`),
        SPOTTER_CWD,
        FIRST_LINES,
      );
      place(
        'claude-code-real/spotter-subagent/agent-a2898e3.jsonl',
        path.join(claudeDir, SPOTTER_ID, 'subagents/agent-a2898e3.jsonl'),
        SPOTTER_CWD,
      );
      place(
        `codex/${CODEX_FILE}`,
        path.join(home, '.codex/sessions/2026/01/02', CODEX_FILE),
        '/workspace/synthetic-project',
      );
      place(
        'gemini/session-2025-10-05T07-11-eefc44a3.json',
        path.join(home, '.gemini/tmp', geminiProjectHash(workspace()), 'chats/session-2025-10-05T07-11-eefc44a3.json'),
        'unused',
      );
      await setHome(home);
      const node = await waitFor('the sessions section', () => section(tree.getChildren()));
      assert.equal(tree.getChildren()[0]?.kind, 'sessions', 'the section comes first');
      assert.equal(label(tree.getTreeItem(node)), 'Coding agent sessions');
      const sessions = tree.getChildren(node).map((n) => ({ node: n, item: tree.getTreeItem(n) }));
      assert.equal(sessions.length, 3, sessions.map((s) => label(s.item)).join(' | '));
      // sessions written just now are being written, as far as anyone can tell: "live" comes first
      const byAgent = (agent: string) =>
        sessions.find((s) =>
          String(s.item.description)
            .replace(/^live · /, '')
            .startsWith(agent),
        );
      const claude = byAgent('Claude Code');
      assert.ok(claude, 'a Claude Code session');
      assert.match(label(claude.item), /^Work on bead spotter-dov/);
      assert.doesNotMatch(label(claude.item), /^[0-9a-f-]{36}$/, 'never a bare UUID');
      assert.match(String(claude.item.description), /^live · Claude Code · .* · \d+(\.\d+)? KB/);
      assert.equal(label(byAgent('Codex')?.item ?? new vscode.TreeItem('')), 'List the synthetic files.');
      assert.match(label(byAgent('Gemini CLI')?.item ?? new vscode.TreeItem('')), /^請幫我檢查/);
      const subs = tree.getChildren(claude.node).map((n) => tree.getTreeItem(n));
      assert.equal(subs.length, 1, 'the subagent is nested under its session');
      assert.match(label(subs[0] as vscode.TreeItem), /^Very thorough exploration/);
      // a fixture written just now is still live: the tree says so first
      assert.match(String(subs[0]?.description), /^(live · )?subagent · /);
      assert.equal(tree.getParent(tree.getChildren(claude.node)[0] as RunsNode)?.id, claude.node.id);
    },
  },
  {
    name: 'opening a session imports and replays it; its file growing grows the run without a new import',
    timeoutMs: 120_000,
    async run() {
      const { tree } = await extensionApi();
      const runId = await vscode.commands.executeCommand<string>(COMMANDS.openSession.id, claudeFile);
      assert.equal(runId, `cc-${SPOTTER_ID}`);
      await waitFor('the replay of the session', () => vscode.debug.activeDebugSession?.name.includes(runId));
      await waitFor('the run in the tree', () => tree.getChildren().some((n) => n.kind === 'run' && n.runId === runId));
      const count = () => {
        const store = openRunStore(demoStorePath(), { create: false });
        try {
          return store.getRun(runId).checkpointCount;
        } finally {
          store.close();
        }
      };
      const before = count();
      const sessionNode = tree
        .getChildren(section(tree.getChildren()))
        .find((n) => n.kind === 'session' && n.file === claudeFile);
      assert.ok(sessionNode);
      assert.match(String(tree.getTreeItem(sessionNode).description), /followed/);
      fs.appendFileSync(claudeFile, rest);
      const after = await waitFor('the run to grow', () => count() > before && count(), 60_000);
      assert.ok(after > before, `${before} → ${after} checkpoints`);
      await stopAllSessions();
    },
  },
  {
    name: 'turning the setting off hides the section',
    async run() {
      const { tree } = await extensionApi();
      const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
      await config.update(SETTINGS.sessionsEnabled, false, vscode.ConfigurationTarget.Global);
      try {
        await waitFor('no sessions section', () => section(tree.getChildren()) === undefined);
      } finally {
        await config.update(SETTINGS.sessionsEnabled, undefined, vscode.ConfigurationTarget.Global);
        await setHome(undefined);
        fs.rmSync(home, { recursive: true, force: true });
      }
    },
  },
];
