/**
 * The what-if cohort view: a webview panel (dist/cohort.js, media/cohort.css) showing a batch's report — its
 * rows, the cohort's rates and the gate's certificate — under the same strict CSP as the Context & Fork
 * editor. The page asks for a run's comparison; the host opens it (Compare Runs' diff of the source and its
 * fork). Messages are parsed with the protocol's zod schemas on receipt. VS Code wiring only.
 */
import * as vscode from 'vscode';
import type { WhatIfReport } from '../cohort/whatIfBatch';
import { toolChangesText } from '../cohort/whatIfText';
import { CohortToHostSchema, type CohortResults, type CohortRow, type CohortToHost } from '../webview/cohortProtocol';
import type { ExtensionContextObject } from './context';
import { showError } from './notify';
import { diff } from './runCommands';
import { contentSecurityPolicy, newNonce } from './webviewHtml';

const PANEL_TYPE = 'agentTimeTravel.whatIf';

const pct = (n: number, of: number) => (of === 0 ? '0%' : `${Math.round((100 * n) / of)}%`);

/** A report's runs as the table shows them. */
export function cohortRows(report: WhatIfReport): CohortRow[] {
  return report.results.map((r) => ({
    sourceRunId: r.sourceRunId,
    ...(r.forkRunId ? { forkRunId: r.forkRunId } : {}),
    outcome: r.outcome,
    detail: r.detail,
    divergedAtStep: r.divergedAtStep ?? -1,
    toolChanges: toolChangesText(r.toolChanges),
    failed: r.assertions.filter((a) => !a.passed).map((a) => a.name),
    passed: r.assertions.filter((a) => a.passed).length,
    tokensDelta: r.tokens.fork - r.tokens.source,
    timeDeltaMs: r.timeMs.fork - r.timeMs.source,
    ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
  }));
}

/** The page's message: the rows, the rates (outcomes, each assertion against the recordings) and the certificate. */
export function cohortResults(report: WhatIfReport, title: string): CohortResults {
  const n = report.results.length;
  const o = report.rates.outcomes;
  return {
    type: 'results',
    title,
    rows: cohortRows(report),
    rates: [
      { label: 'runs', value: String(n) },
      { label: 'same', value: `${o.same} · ${pct(o.same, n)}` },
      { label: 'diverged', value: `${o.diverged} · ${pct(o.diverged, n)}` },
      { label: 'different', value: `${o.different} · ${pct(o.different, n)}` },
      { label: 'failed', value: `${o.failed} · ${pct(o.failed, n)}` },
      ...report.rates.assertions.map((a) => ({
        label: a.name,
        value: `${pct(a.passed, n)} pass (recorded ${pct(a.sourcePassed, n)})`,
      })),
    ],
    certificate: { clean: report.certificate.clean, statement: report.certificate.statement },
  };
}

function html(webview: vscode.Webview, dist: vscode.Uri, media: vscode.Uri): string {
  const nonce = newNonce();
  const uri = (base: vscode.Uri, ...path: string[]) =>
    webview.asWebviewUri(vscode.Uri.joinPath(base, ...path)).toString();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(webview.cspSource, nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${uri(dist, 'codicons', 'codicon.css')}" id="vscode-codicon-stylesheet">
<link rel="stylesheet" href="${uri(media, 'cohort.css')}">
<title>What-if</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${uri(dist, 'cohort.js')}"></script>
</body>
</html>`;
}

/** The open cohort views (one per batch shown); what the tests read. */
export class WhatIfPanels implements vscode.Disposable {
  private readonly received = new vscode.EventEmitter<CohortToHost>();
  /** Every message a cohort page sent (after parsing). */
  readonly onDidReceive = this.received.event;
  /** The results last sent to a page. */
  last: CohortResults | undefined;
  private readonly panels = new Set<vscode.WebviewPanel>();

  constructor(private readonly ctx: ExtensionContextObject) {}

  /** Opens a cohort view of `report`. */
  show(report: WhatIfReport, title: string): vscode.WebviewPanel {
    const extensionUri = this.ctx.vscodeContext.extensionUri;
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel(PANEL_TYPE, title, vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [dist, media],
    });
    const results = cohortResults(report, title);
    this.last = results;
    this.panels.add(panel);
    panel.onDidDispose(() => this.panels.delete(panel));
    panel.webview.onDidReceiveMessage((data: unknown) => {
      const parsed = CohortToHostSchema.safeParse(data);
      if (!parsed.success) {
        this.ctx.log.warn(`what-if page: ignored a message (${parsed.error.issues[0]?.message ?? 'invalid'})`);
        return;
      }
      this.received.fire(parsed.data);
      void this.handle(parsed.data, () => panel.webview.postMessage(results));
    });
    panel.webview.html = html(panel.webview, dist, media);
    return panel;
  }

  /** What a page's message asks for: its results once it is ready, a run's comparison with its fork. */
  async handle(message: CohortToHost, sendResults: () => Thenable<boolean>): Promise<void> {
    try {
      switch (message.type) {
        case 'ready':
          await sendResults();
          return;
        case 'openComparison':
          await diff(this.ctx, message.sourceRunId, message.forkRunId);
          return;
        default: {
          const unreachable: never = message;
          throw new Error(`unknown message ${JSON.stringify(unreachable)}`);
        }
      }
    } catch (e) {
      showError(this.ctx.log, 'What-if', e);
    }
  }

  /** What a click on the `index`-th row of the last results does (their order as sent): its comparison opens. */
  async openRow(index: number): Promise<void> {
    const row = this.last?.rows[index];
    if (!row?.forkRunId) throw new Error(`no fork in row ${index}`);
    await this.handle(
      { type: 'openComparison', sourceRunId: row.sourceRunId, forkRunId: row.forkRunId },
      async () => true,
    );
  }

  dispose(): void {
    for (const p of this.panels) p.dispose();
    this.received.dispose();
  }
}
