/**
 * Entry of the RuntimeContext / fork editor page (bundled to dist/webview.js).
 * Holds the page state (the checkpoint shown, the draft, the last plan),
 * persists it with getState/setState, says "ready" before the host posts,
 * validates every message both ways with protocol.ts, asks the host for a
 * plan after each edit and sends the fork request. Rendering is in view.ts.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-icon/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-radio/index.js';
import '@vscode-elements/elements/dist/vscode-radio-group/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { z } from 'zod';
import { h, replaceChildren, icon } from './dom';
import {
  ForkDraftSchema,
  buildForkConfig,
  forkReadiness,
  hazardRows,
  newDraft,
  toolTable,
  toolsNeedingProgram,
  withStagedEdits,
  type ForkDraft,
} from './forkDraft';
import { formValues } from './contextForm';
import {
  DIVERGED_CHOICES,
  HostMessageSchema,
  PageMessageSchema,
  parseMessage,
  type BatchView,
  type EditorCheckpoint,
  type EditorDefaults,
  type DivergedAction,
  type ForkOutcome,
  type HostMessage,
  type PageMessage,
  type PlanView,
} from './protocol';
import * as view from './view';
import { NEW_BATCH_DRAFT, batchControls, batchHeader, type BatchDraft } from './batchControls';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();

const SavedStateSchema = z.object({
  key: z.string(),
  draft: ForkDraftSchema,
  batch: z.object({ at: z.string(), assertions: z.string() }).optional(),
});

interface State {
  checkpoint: EditorCheckpoint | null;
  defaults?: EditorDefaults;
  draft?: ForkDraft;
  plan?: PlanView;
  planRequest: number;
  status?: { kind: 'info' | 'error'; text: string };
  /** The last fork made here: how it stands, and its actions while diverged (kept across checkpoints). */
  outcome?: ForkOutcome;
  /** Batch mode (What-if Across Runs…): the cohort, and the batch's own fields. */
  batch?: BatchView;
  batchDraft: BatchDraft;
}

const saved = SavedStateSchema.safeParse(vscode.getState());
const state: State = {
  checkpoint: null,
  planRequest: 0,
  batchDraft: (saved.success ? saved.data.batch : undefined) ?? { ...NEW_BATCH_DRAFT },
};

const root = document.getElementById('root') as HTMLElement;
const parts = {
  header: h('div', { class: 'header' }),
  batch: h('div'),
  form: h('div'),
  model: h('div'),
  tools: h('div'),
  mocks: h('div'),
  hazards: h('div'),
  /** The plan's warnings, in the flow of the page just above the bar. */
  notes: h('div', { class: 'plan-notes' }),
  /** Pinned to the bottom of the view (contextEditor.css): the prediction, Fork, why, the status. */
  bar: h('div', { class: 'fork-bar' }),
};

const keyOf = (c: EditorCheckpoint) => `${c.runId}/${c.checkpointId}`;

function post(message: PageMessage): void {
  const checked = PageMessageSchema.safeParse(message);
  if (!checked.success) {
    state.status = { kind: 'error', text: `internal: refused to send an invalid ${message.type} message` };
    renderBar();
    return;
  }
  vscode.postMessage(checked.data);
}

function persist(): void {
  if (state.checkpoint && state.draft)
    vscode.setState({ key: keyOf(state.checkpoint), draft: state.draft, batch: state.batchDraft });
}

let planTimer: ReturnType<typeof setTimeout> | undefined;
/** Persists the draft, updates field marks, and asks the host for a fresh plan (debounced). */
function changed(): void {
  persist();
  const { checkpoint, draft } = state;
  if (!checkpoint || !draft) return;
  const result = buildForkConfig(checkpoint, draft);
  view.updateFieldMarks(parts.form, result.errors, result.changed);
  root.querySelectorAll<HTMLElement>('[data-error]').forEach((el) => {
    const key = el.getAttribute('data-error') ?? '';
    if (key === 'modelOverride' || key.startsWith('mock:')) el.textContent = result.errors[key] ?? '';
  });
  if (planTimer) clearTimeout(planTimer);
  if (result.config) {
    const config = result.config;
    planTimer = setTimeout(() => post({ type: 'plan', requestId: ++state.planRequest, config }), 120);
  }
  renderBar();
}

function renderTools(): void {
  const { draft } = state;
  if (!draft) return;
  const rows = toolTable(state.plan, draft);
  replaceChildren(
    parts.tools,
    view.section(
      'tools-policy',
      view.FORK_SECTION_TITLES.toolPolicies,
      true,
      view.toolTable(rows, (tool, policy) => {
        draft.policies[tool] = policy;
        changed();
      }),
    ),
  );
  keepFolds(parts.tools);
  const mockKey = rows
    .filter((r) => r.showMock)
    .map((r) => `${r.toolName}:${r.mockMissing}`)
    .join(',');
  if (parts.mocks.getAttribute('data-key') !== mockKey) {
    parts.mocks.setAttribute('data-key', mockKey);
    replaceChildren(
      parts.mocks,
      view.mockEditors(rows, draft, (tool, text) => {
        draft.mocks[tool] = text;
        changed();
      }),
    );
  }
  replaceChildren(
    parts.hazards,
    view.section(
      'hazards',
      view.FORK_SECTION_TITLES.hazards,
      true,
      view.hazardReport(hazardRows(state.plan, draft), (tool, ticked) => {
        draft.acknowledged = ticked
          ? [...new Set([...draft.acknowledged, tool])]
          : draft.acknowledged.filter((t) => t !== tool);
        persist();
        renderBar();
      }),
    ),
  );
  keepFolds(parts.hazards);
}

/** Sections the user opened or closed keep that state across re-renders of this page (a new plan, a new show). */
const folds = new Map<string, boolean>();
function keepFolds(container: HTMLElement): void {
  container.querySelectorAll<HTMLDetailsElement>('details[data-section]').forEach((d) => {
    const key = d.getAttribute('data-section') ?? '';
    const kept = folds.get(key);
    if (kept !== undefined) d.open = kept;
    d.addEventListener('toggle', () => folds.set(key, d.open));
  });
}

function renderBar(): void {
  const { checkpoint, draft } = state;
  if (!checkpoint || !draft) {
    replaceChildren(parts.notes);
    replaceChildren(parts.bar);
    return;
  }
  const result = buildForkConfig(checkpoint, draft);
  const ready = forkReadiness(result, state.plan, draft);
  const button = state.batch
    ? h(
        'vscode-button',
        { id: 'whatif-run', disabled: !ready.ok, onclick: () => runBatch() },
        icon('run-all'),
        ` Run on ${state.batch.total} runs`,
      )
    : h('vscode-button', { id: 'fork', disabled: !ready.ok, onclick: () => fork() }, icon('repo-forked'), ' Fork');
  const needProgram = toolsNeedingProgram(state.plan, draft);
  const texts = [...(state.plan?.warnings ?? [])];
  if (needProgram.length > 0) {
    texts.push(
      `${needProgram.join(', ')} would run the agent's own code: set an agent program, or the fork stops when the agent calls ${needProgram.length > 1 ? 'one of them' : 'it'}`,
    );
  }
  const warnings = texts.map((w) => h('div', { class: 'warning' }, icon('warning'), ` ${w}`));
  replaceChildren(parts.notes, ...warnings);
  const predicted = state.plan?.predictedDivergence;
  const toNotes =
    warnings.length > 0
      ? h(
          'a',
          {
            class: 'to-notes',
            href: '#',
            onclick: (e: Event) => {
              e.preventDefault();
              parts.notes.scrollIntoView({ block: 'nearest' });
            },
          },
          icon('warning'),
          ` ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`,
        )
      : null;
  replaceChildren(
    parts.bar,
    predicted
      ? h('div', { class: 'prediction', 'data-prediction': '', title: predicted }, icon('git-compare'), ` ${predicted}`)
      : null,
    button,
    h(
      'span',
      { class: 'why' },
      ready.ok
        ? `${result.changed.length} context field${result.changed.length === 1 ? '' : 's'} changed`
        : (ready.why ?? ''),
    ),
    toNotes,
    state.status ? h('div', { class: `status ${state.status.kind}`, role: 'status' }, state.status.text) : null,
    state.outcome ? outcomePanel(state.outcome) : null,
  );
  // what scrolls into view (a field, a picker) stops above the pinned bar, not under it
  document.documentElement.style.scrollPaddingBottom = `${parts.bar.offsetHeight + 8}px`;
}

/** The fork's result: its state in words; while it is diverged, the actions that go on from it. */
function outcomePanel(outcome: ForkOutcome): HTMLElement {
  const action = (what: DivergedAction, label: string, secondary = true) =>
    h(
      'vscode-button',
      {
        'data-diverged-action': what,
        secondary,
        onclick: () => post({ type: 'divergedAction', runId: outcome.runId, action: what }),
      },
      label,
    );
  const d = outcome.diverged;
  return h(
    'div',
    { class: `status outcome ${outcome.status}`, 'data-outcome': outcome.status },
    h('div', {}, d ? icon('warning') : null, d ? ` ${outcome.text}` : outcome.text),
    d
      ? h(
          'div',
          { class: 'outcome-actions' },
          d.promptDifference ? action('showPrompt', DIVERGED_CHOICES.showPrompt) : null,
          action('recorded', DIVERGED_CHOICES.recorded, false),
          action('real', d.endpointReady ? DIVERGED_CHOICES.real : DIVERGED_CHOICES.setUp),
        )
      : null,
  );
}

function fork(): void {
  const { checkpoint, draft } = state;
  if (!checkpoint || !draft) return;
  const result = buildForkConfig(checkpoint, draft);
  if (!result.config || !forkReadiness(result, state.plan, draft).ok) return;
  state.status = { kind: 'info', text: 'Creating the fork…' };
  state.outcome = undefined;
  renderBar();
  post({
    type: 'fork',
    config: result.config,
    acknowledgedTools: draft.acknowledged,
    ...(draft.program.trim() ? { program: draft.program.trim() } : {}),
  });
}

/** Batch mode's Run: the change on the sample checkpoint, where each run forks and the assertions, to the host. */
function runBatch(): void {
  const { checkpoint, draft, batch } = state;
  if (!checkpoint || !draft || !batch) return;
  const result = buildForkConfig(checkpoint, draft);
  if (!result.config || !forkReadiness(result, state.plan, draft).ok) return;
  state.status = { kind: 'info', text: `Running the what-if over ${batch.total} runs…` };
  state.outcome = undefined;
  renderBar();
  post({
    type: 'whatIf',
    config: result.config,
    acknowledgedTools: draft.acknowledged,
    at: state.batchDraft.at,
    assertions: state.batchDraft.assertions,
  });
}

function renderAll(): void {
  const { checkpoint, draft } = state;
  if (!checkpoint || !draft) {
    replaceChildren(
      root,
      h(
        'div',
        { class: 'empty' },
        'Pick a checkpoint in Runs (or pause a replay) to edit its context and fork from it.',
      ),
    );
    return;
  }
  replaceChildren(
    parts.header,
    ...(state.batch ? batchHeader(state.batch, checkpoint.runId) : []),
    state.batch ? null : h('div', { class: 'title' }, icon('debug-breakpoint-log'), ` ${checkpoint.runId}`),
    h('div', { class: 'hint', 'data-position': '' }, view.positionText(checkpoint)),
    draft.staged
      ? h('div', { class: 'hint staged' }, icon('debug'), ' Starts with the edits staged in the Variables view')
      : null,
  );
  replaceChildren(
    parts.form,
    view.contextForm(
      draft,
      {
        onInput: (path, text) => {
          draft.values[path] = text;
          changed();
        },
        onRevert: (path) => {
          draft.values[path] = formValues(checkpoint.runtimeContext)[path] ?? '';
          const input = parts.form.querySelector<HTMLElement & { value: string }>(`[data-field="${path}"]`);
          if (input) input.value = draft.values[path] ?? '';
          changed();
        },
      },
      buildForkConfig(checkpoint, draft).changed,
    ),
  );
  keepFolds(parts.form);
  replaceChildren(
    parts.batch,
    state.batch
      ? batchControls(state.batchDraft, (next) => {
          state.batchDraft = next;
          persist();
        })
      : null,
  );
  replaceChildren(
    parts.model,
    view.modelControls(checkpoint, draft, {
      onMode: (mode) => {
        draft.modelMode = mode;
        parts.model.querySelector('[data-override]')?.classList.toggle('hidden', mode !== 'override');
        parts.model.querySelector('[data-continue-real]')?.classList.toggle('hidden', mode !== 'captured');
        changed();
      },
      onProvider: (text) => {
        draft.provider = text;
        changed();
      },
      onModel: (text) => {
        draft.model = text;
        changed();
      },
      onContinueReal: (on) => {
        draft.continueReal = on;
        changed();
      },
      onProgram: (text) => {
        draft.program = text;
        persist();
        renderBar();
      },
      onPromptVersion: (text) => {
        draft.promptVersion = text;
        changed();
      },
    }),
  );
  keepFolds(parts.model);
  parts.mocks.removeAttribute('data-key');
  replaceChildren(
    root,
    parts.header,
    parts.batch,
    parts.form,
    parts.model,
    parts.tools,
    parts.mocks,
    parts.hazards,
    parts.notes,
    parts.bar,
  );
  renderTools();
  changed();
}

function onHostMessage(message: HostMessage): void {
  switch (message.type) {
    case 'show': {
      state.defaults = message.defaults;
      const same = state.checkpoint && message.checkpoint && keyOf(state.checkpoint) === keyOf(message.checkpoint);
      const checkpoint = message.checkpoint;
      const staged = message.stagedContextPatch;
      if (JSON.stringify(state.batch) !== JSON.stringify(message.batch)) state.status = undefined;
      state.batch = message.batch;
      state.checkpoint = checkpoint;
      if (!checkpoint) state.draft = undefined;
      else if (!same) {
        const restored =
          saved.success && saved.data.key === keyOf(checkpoint) && !state.draft ? saved.data.draft : undefined;
        state.draft = restored
          ? withStagedEdits(checkpoint, restored, staged)
          : newDraft(checkpoint, message.defaults, staged);
        state.plan = undefined;
        state.status = undefined;
      } else if (state.draft) {
        // the same checkpoint again: edits staged in the debugger since then join the draft (the page's own win)
        state.draft = withStagedEdits(checkpoint, state.draft, staged);
      }
      renderAll();
      return;
    }
    case 'plan':
      if (message.requestId !== state.planRequest) return; // an older answer
      state.plan = message.plan;
      renderTools();
      renderBar();
      return;
    case 'forked':
      state.status = { kind: 'info', text: `Created fork ${message.runId} of ${message.sourceRunId}.` };
      renderBar();
      return;
    case 'forkFailed':
      state.status = { kind: 'error', text: message.message };
      state.outcome = undefined;
      renderBar();
      return;
    case 'batchDone':
      state.status = { kind: 'info', text: message.text };
      renderBar();
      return;
    case 'forkOutcome':
      if (message.outcome) state.outcome = message.outcome;
      else delete state.outcome;
      renderBar();
      return;
    default: {
      const unreachable: never = message;
      return unreachable;
    }
  }
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseMessage(HostMessageSchema, event.data);
  if (!parsed.ok) {
    state.status = { kind: 'error', text: `Ignored a malformed message from the extension (${parsed.error}).` };
    renderBar();
    return;
  }
  onHostMessage(parsed.value);
});

renderAll();
post({ type: 'ready' });
