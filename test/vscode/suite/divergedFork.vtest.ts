/**
 * A diverged fork stays answerable in a real VS Code: the demo's auditor edit, run with the recorded model, ends
 * diverged; its tree item carries the diverged actions (Show Prompt Difference, Continue with the Recorded Outputs,
 * Continue with a Real Model) after its notification is gone; Continue with the Recorded Outputs replaces that fork
 * with one that completes, instead of leaving a new sibling each time.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS, ITEM_CONTEXT } from '../../../src/extension/ids';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { extensionApi } from './extensionApi';
import { waitFor, type VTest } from './vtest';

const PARENT = 'demo-support-refund';

export const tests: VTest[] = [
  {
    name: 'a diverged fork keeps its actions on its tree item, and continuing it replaces it',
    timeoutMs: 120_000,
    async run() {
      const { ctx, tree } = await extensionApi();
      const store = ctx.connection.getOrCreate();
      const at = store.listCheckpoints(PARENT).find((c) => c.stepIndex === 5 && c.boundary === 'before_prompt_build');
      assert.ok(at);
      const created = new ForkService(store).create({
        sourceRunId: PARENT,
        sourceCheckpointId: at.checkpointId,
        contextPatch: { user: { roleId: 'auditor' } },
        toolPolicyMap: { '*': 'reuse_result' },
      });
      const outcome = await runFork(store, created.forkRequestId);
      assert.equal(outcome.status, 'diverged');
      ctx.connection.poll();
      const forksOf = () =>
        store
          .listRuns({ parentRunId: PARENT })
          .runs.map((r) => r.runId)
          .sort();
      const before = forksOf();

      // the actions sit on the fork's own item for as long as it is diverged
      const item = await waitFor('the diverged fork in the tree', () =>
        tree.getChildren(tree.runNode(PARENT)).find((n) => n.kind === 'run' && n.runId === created.runId),
      );
      assert.equal(tree.getTreeItem(item).contextValue, ITEM_CONTEXT.divergedForkRun);

      await vscode.commands.executeCommand(COMMANDS.showPromptDifference.id, created.runId);
      await waitFor('the prompt difference', () =>
        vscode.window.tabGroups.all.flatMap((g) => g.tabs).some((t) => /^Prompt at step 5: recorded ↔/.test(t.label)),
      );

      // the modal that names the fork is answered here as the user would ('Replace'); the UI flow clicks it
      const next = await vscode.commands.executeCommand<string>(COMMANDS.continueRecorded.id, created.runId, 'replace');
      assert.ok(next, 'Continue with the Recorded Outputs answers the fork it made');
      await waitFor('the continued fork to complete', () => store.getRun(next).status === 'completed', 60_000);
      assert.equal(store.hasRun(created.runId), false, 'the diverged fork is replaced, not kept beside its successor');
      assert.deepEqual(
        forksOf(),
        [...before.filter((r) => r !== created.runId), next].sort(),
        'one fork for the one edit, not a new sibling each time',
      );
      await waitFor('the continued fork in the tree', () =>
        tree.getChildren(tree.runNode(PARENT)).some((n) => n.kind === 'run' && n.runId === next),
      );
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  },
];
