/**
 * The RuntimeContext / fork editor in a real VS Code: the webview page loads
 * under its CSP and says "ready", follows the checkpoint it is given, asks
 * the host for a plan, and the host's fork path creates a fork run in the
 * store (through ForkService) that appears under its parent in the tree.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { VIEWS } from '../../../src/extension/ids';
import type { PageMessage } from '../../../src/webview/protocol';
import { ForkService } from '../../../src/fork/forkService';
import { openRunStore } from '../../../src/store';
import { demoStorePath, extensionApi } from './extensionApi';
import { waitFor, type VTest } from './vtest';

export const tests: VTest[] = [
  {
    name: 'the editor page loads, says ready, and asks for a plan of the checkpoint it shows',
    async run() {
      const { editor, ctx, treeView } = await extensionApi();
      const seen: PageMessage[] = [];
      const sub = editor.onDidReceive((m) => seen.push(m));
      try {
        const store = ctx.connection.getOrCreate();
        const at = store.listCheckpoints('demo-support-refund').find((c) => c.stepIndex === 3);
        assert.ok(at);
        // the sidebar may still show Run and Debug from an earlier test: open Agent Runs first
        await vscode.commands.executeCommand('workbench.view.extension.agentRuns');
        await waitFor('the Agent Runs container', () => treeView.visible);
        await ctx.editCheckpoint('demo-support-refund', at.checkpointId, true);
        await vscode.commands.executeCommand(`${VIEWS.contextEditor}.focus`);
        await waitFor(
          'the page to plan the shown checkpoint',
          () => seen.find((m) => m.type === 'plan' && m.config.sourceCheckpointId === at.checkpointId),
          45_000, // a first webview load on a loaded machine can take 20 s
        ).catch((e: unknown) => {
          const got = seen.map((m) => (m.type === 'plan' ? `plan(${m.config.sourceCheckpointId})` : m.type)).join(', ');
          throw new Error(`${String(e)}; the page sent: ${got || 'nothing'}; wanted ${at.checkpointId}`);
        });
        assert.equal(editor.shown?.checkpointId, at.checkpointId);
      } finally {
        sub.dispose();
      }
    },
  },
  {
    name: "the host's fork path creates a fork run under its parent, refusing first while a hazard is unticked",
    async run() {
      const { editor, ctx, tree } = await extensionApi();
      const store = ctx.connection.getOrCreate();
      const at = store
        .listCheckpoints('demo-support-refund')
        .find((c) => c.stepIndex === 4 && c.boundary === 'before_prompt_build');
      assert.ok(at);
      const config = {
        sourceRunId: 'demo-support-refund',
        sourceCheckpointId: at.checkpointId,
        contextPatch: { user: { roleId: 'supervisor' } },
        toolPolicyMap: { send_email: 'reuse_result' as const, write_case_report: 're_execute' as const },
      };
      assert.equal(editor.fork(config, []), undefined, 'refused: write_case_report is not ticked');
      const runId = editor.fork(config, ['write_case_report']);
      assert.ok(runId, 'the fork was created');
      const reader = openRunStore(demoStorePath(), { create: false });
      try {
        const run = reader.getRun(runId);
        assert.equal(run.parentRunId, 'demo-support-refund');
        assert.equal(run.mode, 'fork');
        assert.equal(reader.getCheckpointAt(runId, 0).runtimeContext.user.roleId, 'supervisor');
      } finally {
        reader.close();
      }
      await waitFor('the fork under its parent in the tree', () =>
        tree.getChildren(tree.runNode('demo-support-refund')).some((n) => n.kind === 'run' && n.runId === runId),
      );
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  },
  {
    name: 'with an agent program the fork is handed to it (OCDB_FORK, OCDB_STORE) instead of the built-in runner; exiting unclaimed fails it',
    async run() {
      const { editor, ctx } = await extensionApi();
      const store = ctx.connection.getOrCreate();
      const at = store.listCheckpoints('demo-coding-fix').find((c) => c.stepIndex === 1);
      assert.ok(at);
      const seen = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'att-agent-')), 'env.json');
      const program = `node -e "require('fs').writeFileSync(process.argv[1], JSON.stringify({ fork: process.env.OCDB_FORK, store: process.env.OCDB_STORE }))" "${seen}"`;
      const config = { sourceRunId: 'demo-coding-fix', sourceCheckpointId: at.checkpointId };
      // the agent's own code runs: acknowledge what would run again with side effects
      const ack = new ForkService(store).plan(config).hazards.map((h) => h.toolName);
      const runId = editor.fork(config, ack, program);
      assert.ok(runId, 'the fork was created');
      const env = await waitFor(
        'the agent program to run',
        () => fs.existsSync(seen) && (JSON.parse(fs.readFileSync(seen, 'utf8')) as { fork: string; store: string }),
      );
      const forkRequestId = (store.getRun(runId).metadata.fork as { forkRequestId: string }).forkRequestId;
      assert.equal(env.fork, forkRequestId);
      assert.equal(env.store, demoStorePath());
      // the program ended without claiming the fork: the request fails with how it ended, instead of waiting
      const settled = await waitFor('the unclaimed request to settle', () => {
        const request = store.getForkRequest(forkRequestId);
        return request.status !== 'waiting_for_agent' && request;
      });
      assert.equal(settled.status, 'failed');
      assert.equal((settled.error as { code?: string } | undefined)?.code, 'agent_exited');
    },
  },
];
