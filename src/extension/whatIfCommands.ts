/**
 * What-if Across Runs…, Open What-if Results… and Compare Several Runs…: the VS Code side of the cohort
 * batch (cohort/whatIfBatch.ts) and the N-way comparison (replay/cohortComparison.ts). The cohort comes from
 * the runs tree (several selected runs, or every run of a run's agent) or the agent picker; the change is asked
 * with the fork editor's fields — context patch, the policy of `*`, model mode, an assertion, where to fork —,
 * the batch runs under a cancellable progress notification and its report opens in the cohort view. A caller
 * may pass the whole spec instead (`{ spec }`), as the tests and keybindings do. VS Code wiring only.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { readBatchFile } from '../cohort/batchFile';
import { parseForkPoint } from '../cohort/cohortSelection';
import { gateCertificate } from '../cohort/gateCertificate';
import { ratesOf, runWhatIf, type WhatIfReport } from '../cohort/whatIfBatch';
import type { WhatIfSpecInput } from '../cohort/whatIfSpec';
import { REPLAY_POLICIES, errorMessage, type ReplayPolicy } from '../model';
import { compileExpression } from '../replay/evaluate';
import { MAX_COHORT_COMPARISON, compareCohort, type CohortComparison } from '../replay/cohortComparison';
import { pickAgent } from './agentPicker';
import type { ExtensionContextObject } from './context';
import { registerCommand } from './notify';
import { runIdOfArg } from './runCommands';
import { pickRun } from './runPicker';
import type { WhatIfPanels } from './whatIfPanel';

/** Scheme of the read-only N-way comparison documents. */
export const COHORT_SCHEME = 'agent-time-travel-cohort';

/** The run ids of a tree command's arguments: the selection when several runs are selected, else the one. */
function selectedRuns(arg: unknown, selection: unknown): string[] {
  const many = Array.isArray(selection) ? selection.map(runIdOfArg).filter((id): id is string => !!id) : [];
  if (many.length > 1) return [...new Set(many)];
  const one = runIdOfArg(arg);
  return one ? [one] : [];
}

interface Picked<T> extends vscode.QuickPickItem {
  value: T;
}

async function pick<T>(title: string, items: Picked<T>[]): Promise<T | undefined> {
  return (await vscode.window.showQuickPick(items, { title, ignoreFocusOut: true }))?.value;
}

/** Asks for the cohort, the change and the checks; undefined when the user cancelled. */
async function askSpec(
  ctx: ExtensionContextObject,
  arg: unknown,
  selection: unknown,
): Promise<WhatIfSpecInput | undefined> {
  const store = ctx.connection.getOrCreate();
  const runs = selectedRuns(arg, selection);
  let cohort: WhatIfSpecInput['cohort'];
  if (runs.length > 1) cohort = { runIds: runs };
  else if (runs.length === 1) {
    const agentId = store.getRun(runs[0] as string).agentId;
    const total = store.listRuns({ agentId, parentRunId: null, limit: 1 }).total;
    const which = await pick<WhatIfSpecInput['cohort']>('What-if: which runs?', [
      { label: `Every run of ${agentId}`, description: `${total} recorded runs`, value: { agentId } },
      { label: `Only ${runs[0]}`, value: { runIds: runs } },
    ]);
    if (!which) return undefined;
    cohort = which;
  } else {
    const agentId = await pickAgent(ctx.connection, 'What-if across the runs of which agent?');
    if (!agentId) return undefined;
    cohort = { agentId };
  }

  const patchChoice = await pick<'file' | 'typed' | 'none'>('What-if: the change to the runtime context', [
    {
      label: 'Patch from a JSON file…',
      description: 'deep-merged into each run’s context; null removes a key',
      value: 'file',
    },
    { label: 'Type a patch…', description: '{ "user": { "roleId": "auditor" } }', value: 'typed' },
    { label: 'No context change', description: 'only the policies, model or prompt', value: 'none' },
  ]);
  if (!patchChoice) return undefined;
  let contextPatch: Record<string, unknown> | undefined;
  if (patchChoice === 'file') {
    const [file] =
      (await vscode.window.showOpenDialog({
        canSelectMany: false,
        filters: { JSON: ['json'] },
        title: 'Context patch',
      })) ?? [];
    if (!file) return undefined;
    contextPatch = JSON.parse(Buffer.from(await vscode.workspace.fs.readFile(file)).toString('utf8')) as Record<
      string,
      unknown
    >;
  } else if (patchChoice === 'typed') {
    const text = await vscode.window.showInputBox({
      title: 'What-if: context patch (JSON)',
      value: '{ "user": { "roleId": "auditor", "permissions": ["orders:read", "cases:write"] } }',
      ignoreFocusOut: true,
      validateInput: (v) => {
        try {
          const parsed: unknown = JSON.parse(v);
          return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? undefined : 'a JSON object';
        } catch (e) {
          return errorMessage(e);
        }
      },
    });
    if (text === undefined) return undefined;
    contextPatch = JSON.parse(text) as Record<string, unknown>;
  }

  const wildcard = await pick<ReplayPolicy>(
    "What-if: the policy of every tool ('*'; a write or irreversible tool never re-executes through it)",
    REPLAY_POLICIES.map((p) => ({
      label: p,
      ...(p === 'reuse_result'
        ? { description: 'answer every call from the recording (recommended)', picked: true }
        : {}),
      value: p,
    })).sort((a, b) => (a.value === 'reuse_result' ? -1 : b.value === 'reuse_result' ? 1 : 0)),
  );
  if (!wildcard) return undefined;
  const mode = await pick<'captured' | 'recorded'>('What-if: model turns', [
    {
      label: 'captured',
      description: 'the recorded turns until the prompt differs (no model is called)',
      value: 'captured',
    },
    {
      label: 'recorded',
      description: 'the recorded turns under the new context, whatever the prompt',
      value: 'recorded',
    },
  ]);
  if (!mode) return undefined;
  const at = await vscode.window.showInputBox({
    title: 'What-if: fork each run at',
    value: 'first',
    prompt: "first, an index (12), step:5, boundary:before_tool_call, or an expression (toolName == 'issue_refund')",
    ignoreFocusOut: true,
  });
  if (at === undefined) return undefined;
  const assertion = await vscode.window.showInputBox({
    title: 'What-if: assertion over each fork’s end (optional)',
    value: "no_refund=!tool('issue_refund')",
    prompt: '[name=]expression in the debugger’s expression language; empty for none',
    ignoreFocusOut: true,
    validateInput: (v) => {
      if (v.trim() === '') return undefined;
      try {
        compileExpression(parseAssertionText(v).expression);
        return undefined;
      } catch (e) {
        return errorMessage(e);
      }
    },
  });
  if (assertion === undefined) return undefined;
  return {
    cohort,
    at: parseForkPoint(at.trim() || 'first'),
    fork: {
      ...(contextPatch ? { contextPatch } : {}),
      toolPolicyMap: { '*': wildcard },
      modelOverride: { mode },
    },
    assertions: assertion.trim() === '' ? [] : [parseAssertionText(assertion)],
  };
}

/** `[name=]expression` (the CLI's rule: a word before a single `=`). */
function parseAssertionText(text: string): { name: string; expression: string } {
  const m = /^([A-Za-z_][\w.-]*)\s*=(?!=)\s*(.+)$/s.exec(text);
  return m
    ? { name: m[1] as string, expression: (m[2] as string).trim() }
    : { name: text.trim(), expression: text.trim() };
}

/** The N-way comparison as Markdown: the runs, then a table of the steps where any run differs. */
export function cohortComparisonMarkdown(c: CohortComparison): string {
  const cell = (t: string) => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const out = [
    `# ${cell(c.baseline.runId)} beside ${c.members.length} runs`,
    '',
    ...c.members.map(
      (m, i) =>
        `${i + 1}. **${cell(m.summary.runId)}** (${m.summary.statusText}, ${m.relation}) — ${
          m.firstDivergence
            ? `first differs at step ${m.firstDivergence.stepIndex} (${m.firstDivergence.kind}: ${cell(m.firstDivergence.detail)})`
            : 'the same step by step'
        }; ${m.differingSteps} steps differ`,
    ),
    '',
  ];
  const differing = c.steps.filter((s) => !s.same);
  if (differing.length === 0) return [...out, 'Every step is the same in every run.', ''].join('\n');
  out.push(
    `| step | ${c.members.map((_, i) => `[${i + 1}]`).join(' | ')} |`,
    `|---|${c.members.map(() => '---').join('|')}|`,
  );
  for (const s of differing) {
    out.push(
      `| ${s.stepIndex} | ${s.cells
        .map((x) => (x.same ? 'same' : cell(x.differences.map((d) => `${d.kind}: ${d.detail}`).join('; '))))
        .join(' | ')} |`,
    );
  }
  if (c.tools.length > 0) {
    out.push('', '| tool | baseline | ' + c.members.map((_, i) => `[${i + 1}]`).join(' | ') + ' |');
    out.push(`|---|---|${c.members.map(() => '---').join('|')}|`);
    for (const t of c.tools)
      out.push(`| ${cell(t.toolName)} | ${t.baselineCalls} | ${t.calls.map((x) => x.calls).join(' | ')} |`);
  }
  return [...out, ''].join('\n');
}

/** Serves the N-way documents: `agent-time-travel-cohort:/compare.md?<baseline>&<other>…`. */
class CohortDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly ctx: ExtensionContextObject) {}
  provideTextDocumentContent(uri: vscode.Uri): string {
    const ids = uri.query.split('&').map(decodeURIComponent).filter(Boolean);
    const [baseline, ...others] = ids;
    if (!baseline) return 'No runs to compare.';
    return cohortComparisonMarkdown(compareCohort(this.ctx.connection.getOrCreate(), baseline, others));
  }
}

export function registerWhatIfCommands(ctx: ExtensionContextObject, panels: WhatIfPanels): vscode.Disposable[] {
  const { log, connection } = ctx;

  const batchDir = () => {
    const path = connection.getOrCreate().path;
    return isAbsolute(path) && existsSync(path) ? join(dirname(path), 'what-if') : undefined;
  };

  const whatIf = async (
    arg: unknown,
    selection: unknown,
  ): Promise<{ total: number; outcomes: Record<string, number> } | undefined> => {
    const given =
      typeof arg === 'object' && arg !== null && 'spec' in arg ? (arg as { spec: WhatIfSpecInput }).spec : undefined;
    const spec = given ?? (await askSpec(ctx, arg, selection));
    if (!spec) return undefined;
    const store = connection.getOrCreate();
    const dir = batchDir();
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'What-if across runs', cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort());
        let last = 0;
        try {
          return await runWhatIf(store, spec, {
            signal: abort.signal,
            ...(dir ? { batchDir: dir } : {}),
            onProgress: (p) => {
              const increment = (100 * (p.done - last)) / Math.max(1, p.total);
              last = p.done;
              progress.report({ message: `${p.done}/${p.total} runs`, increment });
            },
          });
        } finally {
          sub.dispose();
        }
      },
    );
    const who = spec.cohort.agentId ?? `${report.total} runs`;
    panels.show(report, `What-if · ${who} · ${report.results.length} runs`);
    log.info(`what-if over ${report.total} runs: ${report.certificate.statement}`);
    return { total: report.total, outcomes: report.rates.outcomes };
  };

  const openResults = async (arg: unknown) => {
    const file =
      typeof arg === 'string'
        ? arg
        : (
            await vscode.window.showOpenDialog({
              canSelectMany: false,
              filters: { 'What-if batch': ['jsonl'] },
              title: 'Open What-if Results',
              ...(batchDir() ? { defaultUri: vscode.Uri.file(batchDir() as string) } : {}),
            })
          )?.[0]?.fsPath;
    if (!file) return undefined;
    const { spec, runIds, results } = readBatchFile(file);
    const report: WhatIfReport = {
      spec,
      total: runIds.length,
      resumed: results.length,
      results,
      rates: ratesOf(spec, results),
      certificate: gateCertificate(spec, results),
      batchFile: file,
    };
    panels.show(report, `What-if · ${results.length} of ${runIds.length} runs`);
    return { total: runIds.length, results: results.length };
  };

  const compareSeveral = async (arg: unknown, selection: unknown) => {
    let ids = selectedRuns(arg, selection);
    if (ids.length < 2) {
      const baseline = ids[0] ?? (await pickRun(connection, { title: 'Compare several runs: the baseline' }));
      if (!baseline) return undefined;
      const store = connection.getOrCreate();
      const agentId = store.getRun(baseline).agentId;
      const candidates = store.listRuns({ agentId, limit: 200 }).runs.filter((r) => r.runId !== baseline);
      const others = await vscode.window.showQuickPick(
        candidates.map((r) => ({ label: r.runId, description: `${r.status} · ${r.mode}` })),
        {
          title: `Compare ${baseline} with… (up to ${MAX_COHORT_COMPARISON})`,
          canPickMany: true,
          ignoreFocusOut: true,
        },
      );
      if (!others || others.length === 0) return undefined;
      ids = [baseline, ...others.map((o) => o.label)];
    }
    const [baseline, ...others] = ids as [string, ...string[]];
    // RunNotFound / too many runs before a document opens
    compareCohort(connection.getOrCreate(), baseline, others);
    const uri = vscode.Uri.from({
      scheme: COHORT_SCHEME,
      path: `/${baseline} +${others.length}.md`,
      query: ids.map(encodeURIComponent).join('&'),
    });
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    await vscode.window.showTextDocument(doc, { preview: false });
    return uri.toString();
  };

  return [
    vscode.workspace.registerTextDocumentContentProvider(COHORT_SCHEME, new CohortDocuments(ctx)),
    registerCommand(log, 'whatIfAcrossRuns', whatIf),
    registerCommand(log, 'openWhatIfResults', openResults),
    registerCommand(log, 'compareRunsNWay', compareSeveral),
  ];
}
