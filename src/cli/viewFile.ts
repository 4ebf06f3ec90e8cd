/**
 * The one self-contained HTML file of `ocdb view`: the Timeline (the same page bundle as the VS Code panel,
 * dist/timeline.js, inlined under a nonce), and as plain HTML — readable with no script and by a screen reader —
 * the runs with their status ("diverged at step 5 · system prompt"), each run's transcript with its tool ledger
 * per step, and its artifacts. Each checkpoint's line is the anchor `#cp=37` (a fork's `#cp=<run>:5`), the index
 * the UI shows as `[37]`. Secrets are redacted (model/redact.ts) in everything written; the file needs no network
 * (its CSP allows none) and stays bounded: excerpts, not values; text artifacts up to a budget.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { OcdbError, isTextContent, redactText, redactValue } from '../model';
import { timelineRunText, type Timeline, type TimelineRun } from '../model/timeline';
import { packTimeline } from '../model/timelineWire';
import { RunView } from '../replay/runView';
import { timelineOf } from '../replay/timeline';
import { excerpt } from '../replay/transcript';
import type { RunStore } from '../store';

/** How long a tool call's arguments and result excerpts are in the ledger and the hovers. */
const LEDGER_EXCERPT = 160;
/** Text artifacts are included whole up to this size each, and up to this much in all. */
const ARTIFACT_BYTES = 64 * 1024;
const ARTIFACTS_TOTAL = 1024 * 1024;

export interface ViewFileOptions {
  withForks: boolean;
  /** The page bundle's text (default: dist/timeline.js beside the CLI). */
  bundle?: string;
  /** When the file was written (its header says so). */
  now?: Date;
}

/** dist/timeline.js: beside the bundled CLI (dist/cli.js), or the checkout's dist/ when run from source. */
export function timelineBundle(): string {
  for (const p of [join(__dirname, 'timeline.js'), join(__dirname, '..', '..', 'dist', 'timeline.js')]) {
    if (existsSync(p)) return readFileSync(p, 'utf8');
  }
  throw new OcdbError('InvalidInput', 'ocdb view: the page bundle dist/timeline.js is missing: run `npm run build`.', {
    path: 'dist/timeline.js',
  });
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** JSON inside a <script> element: nothing in it can close the element or open a comment. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function anchor(rootRunId: string, runId: string, index: number): string {
  return runId === rootRunId ? `cp=${index}` : `cp=${runId}:${index}`;
}

interface RunSection {
  html: string;
  details: Record<string, string>;
  artifactBytes: number;
}

function runSection(store: RunStore, timeline: Timeline, run: TimelineRun, budget: number): RunSection {
  const view = new RunView(store, run.runId);
  const transcript = view.transcript();
  const text = transcript.text.split('\n');
  const byLine = new Map(transcript.lines.map((l) => [l.line, l]));
  const details: Record<string, string> = {};
  const items: string[] = [];
  text.forEach((raw, n) => {
    const line = redactText(raw);
    const at = byLine.get(n);
    if (!at) {
      if (line.trim()) items.push(`<li class="muted">${esc(line)}</li>`);
      return;
    }
    let ledger = '';
    if (at.toolCallId && at.boundary === 'after_tool_call') {
      const call = view.toolCall(at.toolCallId);
      if (call) {
        const parts = [
          `${call.toolName} · ${call.sideEffectLevel} · policy ${call.replayPolicy}`,
          `args ${excerpt(redactValue(call.args), LEDGER_EXCERPT)}`,
        ];
        if (call.result !== undefined) parts.push(`result ${excerpt(redactValue(call.result), LEDGER_EXCERPT)}`);
        if (call.error !== undefined) parts.push(`error ${excerpt(redactValue(call.error), LEDGER_EXCERPT)}`);
        details[`${run.runId}:${call.toolCallId}`] = parts.slice(1).join('\n');
        ledger = `<div class="ledger">${parts.map(esc).join('<br>')}</div>`;
      }
    }
    const id = anchor(timeline.rootRunId, run.runId, at.checkpointIndex);
    items.push(`<li id="${esc(id)}" tabindex="-1">${esc(line)}${ledger}</li>`);
  });
  let artifactBytes = 0;
  const artifacts = store.listArtifacts(run.runId).map((a) => {
    const head = `${a.artifactId} v${a.version} · ${a.type}`;
    let body = '';
    try {
      const bytes = store.getArtifactContent(a.contentHash);
      if (isTextContent(bytes) && bytes.length <= ARTIFACT_BYTES && artifactBytes + bytes.length <= budget) {
        artifactBytes += bytes.length;
        body = `<pre class="artifact">${esc(redactText(bytes.toString('utf8')))}</pre>`;
      } else body = `<div class="muted">${bytes.length} bytes, not included (binary or over the file's budget)</div>`;
    } catch {
      body = '<div class="muted">content not in this store</div>';
    }
    return `<li>${esc(head)}${body}</li>`;
  });
  const diverged = run.status === 'diverged' ? ' class="diverged"' : '';
  const html = `<section aria-label="${esc(`Run ${run.runId}`)}">
<h2 id="${esc(`run=${run.runId}`)}">${esc(run.runId)} <span${diverged}>${esc(run.statusText)}</span></h2>
<h3 class="muted">Transcript and tool ledger</h3>
<ol class="transcript">
${items.join('\n')}
</ol>
${artifacts.length > 0 ? `<h3 class="muted">Artifacts</h3><ul>${artifacts.join('\n')}</ul>` : ''}
</section>`;
  return { html, details, artifactBytes };
}

/** The file's HTML for `runId` (with its forks when asked): the Timeline, the runs, transcripts and artifacts. */
export function viewFileHtml(store: RunStore, runId: string, options: ViewFileOptions): string {
  const timeline = timelineOf(store, runId, { withForks: options.withForks });
  const bundle = (options.bundle ?? timelineBundle()).replace(/<\/(script)/gi, '<\\/$1');
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const details: Record<string, string> = {};
  const sections: string[] = [];
  let budget = ARTIFACTS_TOTAL;
  for (const run of timeline.runs) {
    const s = runSection(store, timeline, run, budget);
    budget -= s.artifactBytes;
    Object.assign(details, s.details);
    sections.push(s.html);
  }
  const root = timeline.runs[0];
  const forks = timeline.runs.filter((r) => r.kind === 'fork').length;
  const subs = timeline.runs.filter((r) => r.kind === 'subagent').length;
  const holds = [
    `run ${runId}`,
    forks > 0 ? `${forks} fork${forks === 1 ? '' : 's'}` : options.withForks ? 'no forks' : 'forks left out',
    subs > 0 ? `${subs} sub-agent run${subs === 1 ? '' : 's'}` : '',
    'the timeline, each run’s transcript and tool ledger (excerpts), its text artifacts',
    'secrets redacted',
  ].filter(Boolean);
  const when = (options.now ?? new Date()).toISOString();
  const title = `Agent run ${runId}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta name="generator" content="ocdb view">
<title>${esc(title)}</title>
</head>
<body class="ocdb-file">
<header>
<h1>${esc(title)}</h1>
<p class="holds">Holds: ${esc(holds.join(' · '))}. Written by ocdb view at ${esc(when)}; opens with no server and no network.</p>
</header>
<main id="timeline" aria-label="Timeline"></main>
<section aria-label="Runs">
<h2>Runs</h2>
<ul class="runs">
${timeline.runs.map((r) => `<li><a href="#${esc(anchor(timeline.rootRunId, r.runId, 0))}">${esc(timelineRunText(r))}</a></li>`).join('\n')}
</ul>
</section>
${sections.join('\n')}
<script type="application/json" id="timeline-data">${scriptJson(packTimeline(timeline))}</script>
<script type="application/json" id="timeline-details">${scriptJson(details)}</script>
<script nonce="${esc(nonce)}">${bundle}</script>
${root ? '' : '<p>No run.</p>'}
</body>
</html>
`;
}
