/**
 * What-if Across Runs…, Open What-if Results… and Compare Several Runs…: the VS Code side of the cohort
 * batch (cohort/whatIfBatch.ts) and the N-way comparison (replay/cohortComparison.ts). The cohort comes from
 * the runs tree (several selected runs, or every run of a run's agent) or the agent picker; the change is made
 * in the Context & Fork editor in batch mode (context, model, prompt, tool policies, mocks, plus where each run
 * forks and the assertions), edited against the cohort's first run; its Run starts the batch under a
 * cancellable progress notification (asking first when it would spend model tokens) and the report opens in
 * the cohort view. A caller may pass the whole spec instead (`{ spec }`), as the tests and keybindings do.
 * VS Code wiring only.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { readBatchFile } from '../cohort/batchFile';
import { parseAssertionLines } from '../cohort/assertionText';
import { forkPointOf, parseForkPoint, selectCohort } from '../cohort/cohortSelection';
import { gateCertificate } from '../cohort/gateCertificate';
import { ratesOf, runWhatIf, type CostEstimate, type WhatIfReport } from '../cohort/whatIfBatch';
import type { CohortSelection, WhatIfSpecInput } from '../cohort/whatIfSpec';
import { OpenAiChatModel } from '../fork/modelClient';
import { OcdbError } from '../model';
import { MAX_COHORT_COMPARISON, compareCohort, type CohortComparison } from '../replay/cohortComparison';
import { pickAgent } from './agentPicker';
import type { ExtensionContextObject } from './context';
import type { BatchRequest, ContextEditorHost } from './contextEditorHost';
import { forkEndpoint } from './modelEndpointCommand';
import { registerCommand } from './notify';
import { runIdOfArg } from './runCommands';
import { pickRun } from './runPicker';
import { readSettings } from './settings';
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

/** Asks for the cohort: several selected runs, every run of a run's agent (or only that run), or an agent. */
async function askCohort(
  ctx: ExtensionContextObject,
  arg: unknown,
  selection: unknown,
): Promise<{ cohort: CohortSelection; label: string } | undefined> {
  const store = ctx.connection.getOrCreate();
  const runs = selectedRuns(arg, selection);
  if (runs.length > 1) return { cohort: { runIds: runs }, label: `${runs.length} selected runs` };
  if (runs.length === 1) {
    const agentId = store.getRun(runs[0] as string).agentId;
    const total = store.listRuns({ agentId, parentRunId: null, limit: 1 }).total;
    return pick<{ cohort: CohortSelection; label: string }>('What-if: which runs?', [
      {
        label: `Every run of ${agentId}`,
        description: `${total} recorded runs`,
        value: { cohort: { agentId }, label: `Every recorded run of ${agentId}` },
      },
      { label: `Only ${runs[0]}`, value: { cohort: { runIds: runs }, label: `Only ${runs[0]}` } },
    ]);
  }
  const agentId = await pickAgent(ctx.connection, 'What-if across the runs of which agent?');
  return agentId ? { cohort: { agentId }, label: `Every recorded run of ${agentId}` } : undefined;
}

/** The batch of the editor's Run: its change without the sample's run and checkpoint, its fork point and checks. */
export function specOfRequest(cohort: CohortSelection, request: BatchRequest, graderModel?: string): WhatIfSpecInput {
  const { sourceRunId: _run, sourceCheckpointId: _checkpoint, ...fork } = request.config;
  return {
    cohort,
    at: parseForkPoint(request.at.trim() || 'first'),
    fork,
    acknowledgedTools: [...request.acknowledgedTools],
    assertions: parseAssertionLines(request.assertions, graderModel),
  };
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

export function registerWhatIfCommands(
  ctx: ExtensionContextObject,
  panels: WhatIfPanels,
  editor: ContextEditorHost,
): vscode.Disposable[] {
  const { log, connection } = ctx;

  const batchDir = () => {
    const path = connection.getOrCreate().path;
    return isAbsolute(path) && existsSync(path) ? join(dirname(path), 'what-if') : undefined;
  };

  /** The endpoint's chat model and grader a batch needs (real / override model, model-graded assertions). */
  const modelFor = async (spec: WhatIfSpecInput) => {
    const mode = spec.fork.modelOverride?.mode;
    const wantsChat = mode === 'real' || mode === 'override' || spec.fork.onDivergence === 'continue_real';
    const wantsGrader = (spec.assertions ?? []).some((a) => 'question' in a);
    if (!wantsChat && !wantsGrader) return {};
    const endpoint = await forkEndpoint(ctx);
    if (!endpoint.baseUrl) {
      throw new OcdbError(
        'InvalidInput',
        'This what-if asks a model: set one up first (Agent Time Travel: Set Up Model Endpoint…).',
      );
    }
    const chatModel = new OpenAiChatModel(endpoint);
    const model = readSettings().modelName.trim();
    if (wantsGrader && !model) {
      throw new OcdbError(
        'InvalidInput',
        'A model-graded assertion needs a model: set one in Set Up Model Endpoint… (agentTimeTravel.modelEndpoint.model).',
      );
    }
    return { chatModel, ...(wantsGrader ? { grader: { chatModel, model } } : {}) };
  };

  /** Asks before a batch spends model tokens: what it would spend, priced where the model's price is known. */
  const confirmCost = async (estimate: CostEstimate): Promise<boolean> => {
    const unpriced = estimate.unpriced.map((u) => `${u.tokens} tokens of ${u.model} (price not known)`).join(', ');
    const grading = estimate.gradingTokens ? ` (${estimate.gradingTokens} of them grading)` : '';
    const answer = await vscode.window.showWarningMessage(
      `This what-if asks the model for about ${estimate.tokens} tokens${grading} ≈ $${estimate.usd.toFixed(2)}${unpriced ? `; ${unpriced}` : ''}.`,
      { modal: true },
      'Run',
    );
    return answer === 'Run';
  };

  /** Runs `spec` under a cancellable progress notification and opens its report in the cohort view. */
  const runAndShow = async (spec: WhatIfSpecInput): Promise<WhatIfReport> => {
    const store = connection.getOrCreate();
    const dir = batchDir();
    const models = await modelFor(spec);
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'What-if across runs', cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort());
        let last = 0;
        try {
          return await runWhatIf(store, spec, {
            ...models,
            signal: abort.signal,
            ...(dir ? { batchDir: dir } : {}),
            confirmCost,
            maxCostUsd: readSettings().whatIfAskAboveUsd,
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
    return report;
  };

  /**
   * From the tree or the palette: the cohort, then the Context & Fork editor in batch mode on the first run's fork
   * point, whose Run starts the batch. With `{ spec }` (tests, keybindings): the batch at once.
   */
  const whatIf = async (arg: unknown, selection: unknown) => {
    const given =
      typeof arg === 'object' && arg !== null && 'spec' in arg ? (arg as { spec: WhatIfSpecInput }).spec : undefined;
    if (given) {
      const report = await runAndShow(given);
      return { total: report.total, outcomes: report.rates.outcomes };
    }
    const asked = await askCohort(ctx, arg, selection);
    if (!asked) return undefined;
    const store = connection.getOrCreate();
    const runIds = selectCohort(store, asked.cohort);
    const sample = runIds[0];
    if (!sample) {
      void vscode.window.showWarningMessage(`What-if: no recorded run matches (${asked.label}).`);
      return undefined;
    }
    const at = forkPointOf(store, sample, { kind: 'first' });
    editor.showBatch(sample, at.checkpointId, { label: asked.label, total: runIds.length }, async (request) => {
      const spec = specOfRequest(asked.cohort, request, readSettings().modelName.trim() || undefined);
      const report = await runAndShow(spec);
      const o = report.rates.outcomes;
      const failedChecks = report.results.filter((r) => r.assertions.some((a) => !a.passed)).length;
      return `${report.total} runs: same ${o.same} · diverged ${o.diverged} · different ${o.different} · failed ${o.failed}${failedChecks > 0 ? ` · ${failedChecks} failed an assertion` : ''}. The results are in the cohort view.`;
    });
    await editor.focus();
    return { batch: runIds.length, sampleRunId: sample, checkpointId: at.checkpointId };
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
