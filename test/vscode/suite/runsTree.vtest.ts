/**
 * The Runs tree inside a real VS Code on the demo store: newest first, the
 * fork nested under its parent, the crashed run shown crashed, a run's Tool
 * Ledger and steps, getParent for reveal, and a run recorded by another
 * writer appearing without a manual refresh, a live debugger's hold at a model call on its checkpoint.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SETTINGS, SETTINGS_SECTION } from '../../../src/extension/ids';
import { importPath } from '../../../src/importers';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { RunWriter } from '../../../src/writer/runWriter';
import { testContext } from '../../helpers/context';
import type { RunsNode } from '../../../src/extension/runsTreeModel';
import { deleteRunTree, demoStorePath, extensionApi } from './extensionApi';
import { waitFor, type VTest } from './vtest';

const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/importers');

function label(item: vscode.TreeItem): string {
  return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

export const tests: VTest[] = [
  {
    name: 'the root lists the demo runs newest first, without the fork, and the store is not empty',
    async run() {
      const { tree } = await extensionApi();
      const roots = await waitFor('runs in the tree', () => {
        const r = tree.getChildren();
        return r.length > 0 && r;
      });
      const ids = roots.map((n) => label(tree.getTreeItem(n)));
      for (const id of ['demo-support-refund', 'demo-research-crashed', 'demo-coding-cancelled']) {
        assert.ok(ids.includes(id), `${id} is a root item (got ${ids.join(', ')})`);
      }
      assert.ok(!ids.includes('demo-support-refund-auditor'), 'the fork is not at the root');
      assert.ok(ids.indexOf('demo-coding-cancelled') < ids.indexOf('demo-support-refund'), 'newest first');
    },
  },
  {
    name: 'the crashed run is shown crashed with a flame; the failed run with an error icon',
    async run() {
      const { tree } = await extensionApi();
      const crashed = tree.getTreeItem(tree.runNode('demo-research-crashed'));
      assert.match(String(crashed.description), /^CRASHED/);
      assert.equal((crashed.iconPath as vscode.ThemeIcon).id, 'flame');
      const failed = tree.getTreeItem(tree.runNode('demo-support-escalation'));
      assert.equal((failed.iconPath as vscode.ThemeIcon).id, 'error');
      assert.equal(crashed.id, 'run:demo-research-crashed', 'items have stable ids');
    },
  },
  {
    name: 'the refund run expands into its fork, its Tool Ledger with badges, and its steps with checkpoints',
    async run() {
      const { tree } = await extensionApi();
      const children = tree.getChildren(tree.runNode('demo-support-refund'));
      const kinds = children.map((c) => c.kind);
      assert.equal(kinds[0], 'run', 'forks come first');
      assert.ok(kinds.indexOf('ledger') > kinds.lastIndexOf('run'), 'then the Tool Ledger');
      const auditor = children.find((c) => c.kind === 'run' && c.runId === 'demo-support-refund-auditor');
      assert.ok(auditor, 'the auditor fork is nested under its parent');
      assert.equal(tree.getTreeItem(auditor).contextValue, 'agentRun.fork');
      const ledger = children.find((c) => c.kind === 'ledger');
      assert.ok(ledger);
      const calls = tree.getChildren(ledger).map((c) => tree.getTreeItem(c));
      const refund = calls.find((c) => label(c) === 'issue_refund');
      assert.ok(refund, 'issue_refund is in the ledger');
      assert.equal((refund.iconPath as vscode.ThemeIcon).id, 'flame');
      assert.match((refund.tooltip as vscode.MarkdownString).value, /external_irreversible/);
      assert.ok(
        calls.some((c) => String(c.description).startsWith('✗ ')),
        'the tool error is visible',
      );
      const steps = children.filter((c) => c.kind === 'step');
      assert.ok(steps.length >= 9, `${steps.length} steps`);
      const checkpoints = tree.getChildren(steps[0]);
      assert.match(label(tree.getTreeItem(checkpoints[0] as RunsNode)), /^\[0\] before_prompt_build$/);
      // getParent walks back to the root: what reveal() needs
      const cp = checkpoints[0] as RunsNode;
      assert.equal(tree.getParent(cp)?.id, steps[0]?.id);
      assert.equal(tree.getParent(steps[0] as RunsNode)?.id, 'run:demo-support-refund');
      assert.equal(tree.getParent(auditor)?.id, 'run:demo-support-refund');
    },
  },
  {
    name: 'a run recorded by another writer appears in the tree without a refresh, and reveal selects it',
    async run() {
      const { tree, treeView, ctx } = await extensionApi();
      await vscode.commands.executeCommand('agentTimeTravel.runs.focus');
      await waitFor('the Runs view visible', () => treeView.visible);
      // what the view is told: the root (a new run) or the run's own item (it changed in place)
      const told: string[] = [];
      const sub = tree.onDidChangeTreeData((node) => told.push(node?.id ?? 'root'));
      const recorder = openRecorder({ store: demoStorePath(), heartbeatMs: 0 });
      const run = recorder.startRun({
        agentId: 'live-writer',
        runId: 'vtest-live-run',
        runtimeContext: {
          user: { userId: 'u1', roleId: 'agent', permissions: [] },
          conversation: { sessionId: 's1' },
          project: { projectId: 'p1' },
          task: { taskId: 't1', workflowId: 'w1', stepStates: {} },
          tools: { availableTools: ['search'] },
          model: { provider: 'openai', model: 'gpt-4o-mini', promptVersion: 'v1' },
        },
        messages: [{ role: 'user', content: 'find the weather' }],
      });
      run.checkpoint('before_prompt_build');
      try {
        await waitFor('the view to be told about the new run', () =>
          told.some((t) => t === 'root' || t === 'run:vtest-live-run'),
        );
        const node = await waitFor('the new run at the top of the tree', () => {
          const first = tree.getChildren()[0];
          return first && first.kind === 'run' && first.runId === 'vtest-live-run' && first;
        });
        assert.match(String(tree.getTreeItem(node).description), /^RUNNING/);
        await vscode.commands.executeCommand('agentTimeTravel.runs.focus');
        await ctx.revealRun('vtest-live-run');
        await waitFor('the new run selected', () => treeView.selection[0]?.id === 'run:vtest-live-run');
        told.length = 0;
        run.end();
        await waitFor('the view to be told the run ended', () =>
          told.some((t) => t === 'root' || t === 'run:vtest-live-run'),
        );
        await waitFor(
          'the finished run',
          () => !String(tree.getTreeItem(tree.runNode('vtest-live-run')).description).startsWith('RUNNING'),
        );
      } finally {
        sub.dispose();
        recorder.close();
      }
    },
  },
];

/** A minimal finished run (paging only needs many rows). */
function tinyRun(store: ReturnType<typeof openRunStore>, runId: string, at: number): void {
  store.createRun({ runId, sessionId: 'paging', agentId: 'paging-agent', startedAt: at });
  store.finishRun(runId, { status: 'completed', endedAt: at + 1 });
}

tests.push({
  name: 'past 200 runs the root ends with "Load more…", and Load More shows the next page',
  async run() {
    const { tree } = await extensionApi();
    const writer = openRunStore(demoStorePath(), { create: false });
    const ids = Array.from({ length: 210 }, (_, i) => `vtest-page-${String(i).padStart(3, '0')}`);
    try {
      writer.transaction(() => ids.forEach((id, i) => tinyRun(writer, id, Date.parse('2020-01-01') + i)));
      const roots = await waitFor('a Load more item', () => {
        const r = tree.getChildren();
        return r[r.length - 1]?.kind === 'loadMore' && r;
      });
      assert.equal(roots.length, 201, '200 runs and the Load more item');
      const more = tree.getTreeItem(roots[200] as RunsNode);
      assert.equal(label(more), 'Load more…');
      assert.match(String(more.description), /^200 of \d+ runs shown$/);
      assert.equal(more.command?.command, 'agentTimeTravel.loadMore');
      await vscode.commands.executeCommand('agentTimeTravel.loadMore');
      const all = tree.getChildren();
      assert.ok(
        all.every((n) => n.kind === 'run'),
        'every run shown, no Load more item',
      );
      assert.ok(all.length > 210);
    } finally {
      writer.transaction(() => ids.forEach((id) => writer.deleteRun(id)));
      writer.close();
    }
  },
});

tests.push({
  name: 'a store file that cannot be opened: the view says so and names the file, instead of inviting Run Demo',
  async run() {
    const { tree, treeView, ctx } = await extensionApi();
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-unusable-'));
    const bad = path.join(dir, 'runs.db');
    fs.writeFileSync(
      bad,
      'this is not a SQLite database, only text that happens to sit where the store goes\n'.repeat(20),
    );
    try {
      await config.update(SETTINGS.storePath, bad, vscode.ConfigurationTarget.Workspace);
      await waitFor('the connection on the bad file', () => ctx.connection.path === bad);
      const message = await waitFor('the tree view message', () => treeView.message);
      assert.ok(message.includes(bad), `names the file: ${message}`);
      assert.match(message, /cannot be opened \(.+\)\. Move or repair that file/);
      assert.equal(tree.problem, message);
      assert.deepEqual(tree.getChildren(), [], 'no runs listed');
    } finally {
      await config.update(SETTINGS.storePath, undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await waitFor(
      'the message gone with the demo store back',
      () => treeView.message === undefined && tree.getChildren().length > 0,
    );
  },
});

tests.push({
  name: "an imported Claude Code session reads by its title, and its sub-agent's run sits under it, not beside it",
  async run() {
    const { tree } = await extensionApi();
    const session = 'cc-7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11';
    const sub = `${session}-agent-a7e1c2d`;
    const writer = openRunStore(demoStorePath(), { create: false });
    try {
      // another test may have imported this session from another copy of its file
      deleteRunTree(writer, session);
      await importPath(writer, path.join(FIXTURES, 'claude-code', '7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11.jsonl'), {});
      const roots = await waitFor('the session in the tree', () => {
        const r = tree.getChildren();
        return r.some((n) => n.kind === 'run' && n.runId === session) && r;
      });
      assert.equal(label(tree.getTreeItem(tree.runNode(session))), 'Fix leap-year bug in parseDate');
      assert.ok(!roots.some((n) => n.kind === 'run' && n.runId === sub), 'the sub-agent run is not at the root');
      const children = tree.getChildren(tree.runNode(session));
      const subNode = children.find((n) => n.kind === 'run' && n.runId === sub);
      assert.ok(subNode, `the sub-agent run is under its session: ${children.map((n) => n.id).join(', ')}`);
      assert.doesNotMatch(label(tree.getTreeItem(subNode)), /^cc-/, 'titled by its task, not its id');
      assert.equal(tree.getParent(subNode)?.id, tree.runNode(session).id, 'reveal finds it under its session');
    } finally {
      for (const id of writer
        .listRuns({ limit: 50 })
        .runs.map((r) => r.runId)
        .filter((id) => id.startsWith(session))
        .sort((a, b) => b.length - a.length)) {
        if (writer.hasRun(id)) writer.deleteRun(id);
      }
      writer.close();
    }
  },
});

tests.push({
  name: "a model call a live debugger held: its checkpoint's item says how long, its hover where",
  async run() {
    const { tree } = await extensionApi();
    const runId = 'vtest-model-held';
    const store = openRunStore(demoStorePath(), { create: false });
    try {
      deleteRunTree(store, runId);
      const writer = RunWriter.create(
        store,
        { runId, agentId: 'model-held-bot', state: { runtimeContext: testContext() } },
        { heartbeatMs: 0 },
      );
      // the stop before the model call held the agent 1.6 s (what the live gate notes on a debugger's answer)
      const asked = writer.checkpoint('before_model_call');
      writer.heldAtStop(asked.checkpointId, 1_600);
      writer.checkpoint('after_model_call', { finishReason: 'stop' });
      writer.end({ status: 'completed' });
      const item = await waitFor('the after_model_call item of the held run', () => {
        if (!tree.getChildren().some((n) => n.kind === 'run' && n.runId === runId)) return undefined;
        const step = tree.getChildren(tree.runNode(runId)).find((n) => n.kind === 'step');
        const node =
          step && tree.getChildren(step).find((n) => label(tree.getTreeItem(n)).endsWith('after_model_call'));
        return node && tree.getTreeItem(node);
      });
      assert.match(String(item.description), / · held 1\.6 s$/);
      assert.match((item.tooltip as vscode.MarkdownString).value, /Held 1\.6 s by the debugger before the call/);
    } finally {
      deleteRunTree(store, runId);
      store.close();
    }
  },
});
