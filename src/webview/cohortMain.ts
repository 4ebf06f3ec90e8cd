/**
 * The what-if cohort page: the runs of a batch as a sortable, filterable table (outcome, where it diverged, the
 * tool calls that differ, the assertions, the deltas), the cohort's rates and the gate's certificate above it.
 * The table draws only the rows in view (a fixed row height and a spacer), so a thousand rows scroll and sort as
 * fast as ten. A click (or Enter) on a row asks the host to open that run's comparison with its fork. Sort and
 * filter survive the page being hidden (getState / setState). Each filter or sort, laid out, is measured as
 * `cohort:update` on the page's performance timeline (the last one kept), where the UI tests read it.
 */
import { CohortToHostSchema, HostToCohortSchema, type CohortResults, type CohortRow } from './cohortProtocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();

type SortKey = 'run' | 'outcome' | 'step' | 'tools' | 'assertions' | 'tokens' | 'time';
interface ViewState {
  sort: SortKey;
  descending: boolean;
  text: string;
  outcome: string;
  failedOnly: boolean;
}

const ROW_HEIGHT = 24;
const OVERSCAN = 10;
const COLUMNS: { key: SortKey; label: string; cls: string }[] = [
  { key: 'run', label: 'Run', cls: 'c-run' },
  { key: 'outcome', label: 'Outcome', cls: 'c-outcome' },
  { key: 'step', label: 'Step', cls: 'c-step' },
  { key: 'tools', label: 'Tool calls', cls: 'c-tools' },
  { key: 'assertions', label: 'Assertions', cls: 'c-assert' },
  { key: 'tokens', label: 'Δ tokens', cls: 'c-num' },
  { key: 'time', label: 'Δ time', cls: 'c-num' },
];

const saved = vscode.getState() as Partial<ViewState> | undefined;
const state: ViewState = {
  sort: saved?.sort ?? 'outcome',
  descending: saved?.descending ?? false,
  text: saved?.text ?? '',
  outcome: saved?.outcome ?? '',
  failedOnly: saved?.failedOnly ?? false,
};
let results: CohortResults | undefined;
let shown: CohortRow[] = [];

function send(message: unknown): void {
  const checked = CohortToHostSchema.safeParse(message);
  if (checked.success) vscode.postMessage(checked.data);
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** What a reader acts on first: failed forks, then failed assertions, then other outcomes, then the same. */
const rank = (r: CohortRow): number =>
  r.outcome === 'failed'
    ? 0
    : r.failed.length > 0
      ? 1
      : r.outcome === 'different'
        ? 2
        : r.outcome === 'diverged'
          ? 3
          : 4;

function compare(a: CohortRow, b: CohortRow): number {
  switch (state.sort) {
    case 'run':
      return a.sourceRunId.localeCompare(b.sourceRunId);
    case 'outcome':
      return rank(a) - rank(b) || a.sourceRunId.localeCompare(b.sourceRunId);
    case 'step':
      return a.divergedAtStep - b.divergedAtStep;
    case 'tools':
      return a.toolChanges.localeCompare(b.toolChanges);
    case 'assertions':
      return b.failed.length - a.failed.length;
    case 'tokens':
      return a.tokensDelta - b.tokensDelta;
    case 'time':
      return a.timeDeltaMs - b.timeDeltaMs;
    default: {
      const unreachable: never = state.sort;
      return String(unreachable).length;
    }
  }
}

const UPDATE = 'cohort:update';

/** Filters and sorts again and redraws (`whole`: the header too, for a new sort mark), measured to its layout. */
function update(whole: boolean): void {
  const start = performance.now();
  refilter();
  if (whole) render();
  else drawRows();
  void document.body.offsetHeight; // the layout of the new rows belongs to the figure
  performance.clearMeasures(UPDATE);
  performance.measure(UPDATE, { start, end: performance.now() });
}

function refilter(): void {
  const text = state.text.trim().toLowerCase();
  shown = (results?.rows ?? []).filter(
    (r) =>
      (state.outcome === '' || r.outcome === state.outcome) &&
      (!state.failedOnly || r.failed.length > 0 || r.outcome === 'failed') &&
      (text === '' ||
        `${r.sourceRunId} ${r.detail} ${r.toolChanges} ${r.failed.join(' ')}`.toLowerCase().includes(text)),
  );
  shown.sort(compare);
  if (state.descending) shown.reverse();
  vscode.setState(state);
}

const signed = (n: number, unit = '') => `${n > 0 ? '+' : n < 0 ? '−' : '±'}${Math.abs(Math.round(n))}${unit}`;

function rowElement(r: CohortRow, index: number): HTMLElement {
  const row = el('div', `row o-${r.outcome}`);
  row.setAttribute('role', 'row');
  row.dataset.index = String(index);
  row.tabIndex = 0;
  row.style.top = `${index * ROW_HEIGHT}px`;
  row.title = `${r.sourceRunId}: ${r.detail}${r.forkRunId ? `\nfork ${r.forkRunId} — click to compare` : ''}`;
  const cells: [string, string][] = [
    ['c-run', r.sourceRunId],
    ['c-outcome', r.outcome === 'diverged' ? 'diverged' : r.outcome],
    ['c-step', r.divergedAtStep >= 0 ? String(r.divergedAtStep) : ''],
    ['c-tools', r.toolChanges],
    [
      r.failed.length > 0 ? 'c-assert bad' : 'c-assert',
      r.failed.length > 0 ? `✗ ${r.failed.join(', ')}` : r.passed > 0 ? `✓ ${r.passed}` : '',
    ],
    ['c-num', signed(r.tokensDelta)],
    ['c-num', signed(r.timeDeltaMs, ' ms')],
  ];
  for (const [cls, text] of cells) {
    const cell = el('span', `cell ${cls}`, text);
    cell.setAttribute('role', 'cell');
    row.append(cell);
  }
  return row;
}

let body: HTMLElement | undefined;
let spacer: HTMLElement | undefined;
let countLine: HTMLElement | undefined;

/** Draws the rows in view (and a few either side). */
function drawRows(): void {
  if (!body || !spacer) return;
  spacer.style.height = `${shown.length * ROW_HEIGHT}px`;
  const first = Math.max(0, Math.floor(body.scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(shown.length, Math.ceil((body.scrollTop + body.clientHeight) / ROW_HEIGHT) + OVERSCAN);
  const rows: HTMLElement[] = [];
  for (let i = first; i < last; i++) rows.push(rowElement(shown[i] as CohortRow, i));
  spacer.replaceChildren(...rows);
  if (countLine) countLine.textContent = `${shown.length} of ${results?.rows.length ?? 0} runs`;
}

function open(index: number): void {
  const r = shown[index];
  if (r?.forkRunId) send({ type: 'openComparison', sourceRunId: r.sourceRunId, forkRunId: r.forkRunId });
}

function render(): void {
  const root = document.getElementById('root') as HTMLElement;
  if (!results) {
    root.replaceChildren(el('p', 'empty', 'Waiting for the what-if results…'));
    return;
  }
  const header = el('div', 'header');
  header.append(el('div', 'title', results.title));
  const rates = el('div', 'rates');
  for (const r of results.rates) {
    const chip = el('span', 'chip');
    chip.append(el('span', 'chip-label', r.label), el('span', 'chip-value', r.value));
    rates.append(chip);
  }
  const cert = el('div', results.certificate.clean ? 'certificate clean' : 'certificate broken');
  cert.append(
    el('span', `codicon ${results.certificate.clean ? 'codicon-shield' : 'codicon-warning'}`),
    el('span', '', results.certificate.statement),
  );
  header.append(rates, cert);

  const controls = el('div', 'controls');
  const filter = el('input', 'filter');
  filter.type = 'search';
  filter.placeholder = 'Filter runs, details, tools';
  filter.value = state.text;
  filter.setAttribute('aria-label', 'Filter');
  filter.addEventListener('input', () => {
    state.text = filter.value;
    update(false);
  });
  const outcome = el('select', 'outcome');
  outcome.setAttribute('aria-label', 'Outcome');
  for (const [value, label] of [
    ['', 'All outcomes'],
    ['same', 'Same as recorded'],
    ['diverged', 'Diverged'],
    ['different', 'Different outcome'],
    ['failed', 'Failed'],
  ] as const) {
    const o = el('option', undefined, label);
    o.value = value;
    outcome.append(o);
  }
  outcome.value = state.outcome;
  outcome.addEventListener('change', () => {
    state.outcome = outcome.value;
    update(false);
  });
  const failedLabel = el('label', 'failed-only');
  const failedOnly = el('input');
  failedOnly.type = 'checkbox';
  failedOnly.checked = state.failedOnly;
  failedOnly.addEventListener('change', () => {
    state.failedOnly = failedOnly.checked;
    update(false);
  });
  failedLabel.append(failedOnly, document.createTextNode(' Failures only'));
  countLine = el('span', 'count');
  controls.append(filter, outcome, failedLabel, countLine);

  const table = el('div', 'table');
  table.setAttribute('role', 'table');
  const head = el('div', 'row head');
  head.setAttribute('role', 'row');
  for (const c of COLUMNS) {
    const h = el('button', `cell ${c.cls}`, c.label + (state.sort === c.key ? (state.descending ? ' ▾' : ' ▴') : ''));
    h.setAttribute('role', 'columnheader');
    h.setAttribute('aria-sort', state.sort === c.key ? (state.descending ? 'descending' : 'ascending') : 'none');
    h.addEventListener('click', () => {
      state.descending = state.sort === c.key ? !state.descending : false;
      state.sort = c.key;
      update(true);
    });
    head.append(h);
  }
  body = el('div', 'body');
  spacer = el('div', 'spacer');
  body.append(spacer);
  body.addEventListener('scroll', () => drawRows(), { passive: true });
  body.addEventListener('click', (e) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>('.row');
    if (row?.dataset.index) open(Number(row.dataset.index));
  });
  body.addEventListener('keydown', (e) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>('.row');
    if (row?.dataset.index && e.key === 'Enter') open(Number(row.dataset.index));
  });
  table.append(head, body);
  root.replaceChildren(header, controls, table);
  drawRows();
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = HostToCohortSchema.safeParse(event.data);
  if (!parsed.success) return;
  results = parsed.data;
  refilter();
  render();
});
window.addEventListener('resize', () => drawRows());
render();
send({ type: 'ready' });
