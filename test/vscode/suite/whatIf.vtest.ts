/**
 * What-if across runs in a real VS Code: a generated support-desk cohort in the workspace's store, What-if
 * Across Runs… with the auditor patch over every run of the agent, the cohort view's page loads under its CSP
 * and says ready, its rows are the batch's (diverged runs, the runs that still issue a refund failing the
 * assertion), a row opens that run's comparison with its fork, and Compare Several Runs… opens the N-way
 * comparison of three runs with their differing steps.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/extension/ids';
import { writeSupportCohort } from '../../../src/demo/supportCohort';
import type { CohortToHost } from '../../../src/webview/cohortProtocol';
import { extensionApi } from './extensionApi';
import { waitFor, type VTest } from './vtest';

const AUDITOR = { user: { roleId: 'auditor', permissions: ['orders:read', 'cases:write'] } };

function tabLabels(): string[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label));
}

export const tests: VTest[] = [
  {
    name: 'What-if Across Runs… shows the batch in the cohort view, and a row opens its comparison',
    timeoutMs: 240_000,
    async run() {
      const { ctx, whatIf } = await extensionApi();
      const store = ctx.connection.getOrCreate();
      writeSupportCohort(store, 24);
      const seen: CohortToHost[] = [];
      const sub = whatIf.onDidReceive((m) => seen.push(m));
      try {
        const summary = (await vscode.commands.executeCommand(COMMANDS.whatIfAcrossRuns.id, {
          spec: {
            cohort: { agentId: 'support-desk' },
            fork: { contextPatch: AUDITOR, toolPolicyMap: { '*': 'reuse_result' } },
            assertions: [{ name: 'no_refund', expression: "!tool('issue_refund')" }],
          },
        })) as { total: number; outcomes: Record<string, number> } | undefined;
        assert.ok(summary, 'the command returns the batch summary');
        assert.equal(summary.total, 24 + 2);
        await waitFor('the cohort page to say ready', () => seen.some((m) => m.type === 'ready'), 60_000);
        const rows = whatIf.last?.rows ?? [];
        assert.equal(rows.length, summary.total);
        assert.equal(rows.filter((r) => r.outcome === 'diverged').length, summary.outcomes.diverged);
        const refund = rows.findIndex((r) => r.sourceRunId === 'demo-support-refund');
        assert.equal(rows[refund]?.outcome, 'diverged');
        assert.equal(rows[refund]?.divergedAtStep, 0);
        assert.match(rows[refund]?.toolChanges ?? '', /issue_refund −1/);
        assert.ok(
          rows.some((r) => r.failed.includes('no_refund')),
          'a run recorded without a prompt template still refunds',
        );
        assert.ok(
          whatIf.last?.certificate.clean &&
            /no write or external_irreversible tool ran/.test(whatIf.last.certificate.statement),
        );
        assert.ok(
          tabLabels().some((l) => l.startsWith('What-if · support-desk')),
          tabLabels().join(', '),
        );

        await whatIf.openRow(refund);
        const fork = rows[refund]?.forkRunId as string;
        await waitFor('the comparison of the run with its fork', () =>
          tabLabels().some((l) => l.includes('demo-support-refund') && l.includes(fork)),
        );
      } finally {
        sub.dispose();
      }
    },
  },
  {
    name: 'Compare Several Runs… opens the N-way comparison of three runs with their differing steps',
    async run() {
      await extensionApi();
      const uri = (await vscode.commands.executeCommand(COMMANDS.compareRunsNWay.id, 'demo-support-refund', [
        'demo-support-refund',
        'demo-support-refund-auditor',
        'demo-support-escalation',
      ])) as string | undefined;
      assert.ok(uri);
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      assert.ok(doc, 'the comparison document is open');
      const text = doc.getText();
      assert.match(text, /^# demo-support-refund beside 2 runs/);
      assert.match(text, /1\. \*\*demo-support-refund-auditor\*\* \(completed, fork\) — first differs at step 5/);
      assert.match(text, /\| 5 \| .*toolCalls: issue_refund → write_case_report.* \| missing: only in the left run \|/);
    },
  },
];
