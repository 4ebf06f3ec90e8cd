/**
 * DOM renderers of the fork editor page: the context form, the model and
 * prompt controls, the tool-policy table with side-effect badges, the mock
 * results, the hazard report and the Fork bar. Each takes data and callbacks
 * and returns elements; no state and no messaging here. Text only, never HTML.
 */
import { REPLAY_POLICIES, type ReplayPolicy, type SideEffectLevel } from '../model/toolCall';
import { FIELDS, type FieldDef } from './contextForm';
import { h, icon } from './dom';
import type { ForkDraft, HazardRow, ToolTableRow } from './forkDraft';
import type { EditorCheckpoint } from './protocol';

const BADGE: Record<SideEffectLevel, { icon: string; text: string }> = {
  none: { icon: 'circle-outline', text: 'none: no side effects' },
  read_only: { icon: 'eye', text: 'read_only: reads data, changes nothing' },
  expensive_read: { icon: 'dashboard', text: 'expensive_read: reads data at a cost' },
  write: { icon: 'edit', text: 'write: changes data the agent owns' },
  external_irreversible: { icon: 'flame', text: 'external_irreversible: reaches outside and cannot be undone' },
};

/**
 * Where the checkpoint is, in the numbering the transcript, the runs tree, the Call Stack and the status bar use:
 * `[1] step 0 · before_model_call` (the checkpoint's index, its step), then how many checkpoints the run has.
 */
export function positionText(c: EditorCheckpoint): string {
  const count = `${c.checkpointCount} checkpoint${c.checkpointCount === 1 ? '' : 's'}`;
  return `[${c.checkpointIndex}] step ${c.stepIndex} · ${c.boundary} · of ${count} · agent ${c.agentId}`;
}

/** Side-effect badge: codicon + level, with the meaning as tooltip. */
export function sideEffectBadge(level: SideEffectLevel): HTMLElement {
  const b = BADGE[level];
  return h('span', { class: `badge effect-${level}`, title: b.text }, icon(b.icon, b.text), ` ${level}`);
}

/**
 * A section that folds (`<details>`): the side bar is narrow and the form is long, so long sections start closed
 * with their summary saying what is inside; `open` when they hold what a user came for (a changed field).
 */
export function section(key: string, title: string, open: boolean, ...children: (Node | string | null)[]): HTMLElement {
  return h(
    'details',
    { class: 'section', 'data-section': key, open },
    h('summary', {}, h('span', { class: 'section-title' }, title)),
    h('div', { class: 'section-body' }, ...children),
  );
}

/** Sections of the context form that start open (short, and what forks usually change); others open when changed. */
const OPEN_SECTIONS: ReadonlySet<FieldDef['section']> = new Set(['user', 'conversation']);

export interface FieldHandlers {
  onInput(path: string, text: string): void;
  onRevert(path: string): void;
}

/** The context form's sections: what the agent saw at the checkpoint. */
export const SECTION_TITLES: Record<FieldDef['section'], string> = {
  user: 'User',
  conversation: 'Conversation',
  project: 'Project',
  task: 'Task',
  tools: 'Tools',
  model: 'Model in the context',
  extra: 'Other keys',
};

/** The page's own sections, how the fork runs: no title the same as a context section's (one "Model" read as two). */
export const FORK_SECTION_TITLES = {
  modelCalls: 'Model calls',
  modelMore: 'Prompt version, agent program',
  toolPolicies: 'Tool policies',
  hazards: 'Hazard report',
} as const;

/**
 * The context form: one row per field, each with its error line and a changed mark, in folding sections (the
 * short ones and those holding a changed field open).
 */
export function contextForm(draft: ForkDraft, handlers: FieldHandlers, changed: readonly string[] = []): HTMLElement {
  const root = h('div', { class: 'context-form' });
  let current: FieldDef['section'] | undefined;
  let group: HTMLElement = root;
  for (const f of FIELDS) {
    if (f.section !== current) {
      current = f.section;
      const key = f.section;
      const open = OPEN_SECTIONS.has(key) || FIELDS.some((g) => g.section === key && changed.includes(g.path));
      const folded = section(key, SECTION_TITLES[key], open);
      root.appendChild(folded);
      group = folded.querySelector('.section-body') as HTMLElement;
    }
    const multiline = f.kind === 'json';
    const input = document.createElement(multiline ? 'vscode-textarea' : 'vscode-textfield') as HTMLElement & {
      value: string;
    };
    input.setAttribute('data-field', f.path);
    input.setAttribute('aria-label', f.label);
    if (multiline) input.setAttribute('rows', '4');
    input.value = draft.values[f.path] ?? '';
    input.addEventListener('input', () => handlers.onInput(f.path, input.value));
    const revert = h(
      'vscode-button',
      { class: 'revert', secondary: true, title: `Revert ${f.label}`, onclick: () => handlers.onRevert(f.path) },
      'Revert',
    );
    group.appendChild(
      h(
        'div',
        { class: 'field', 'data-row': f.path },
        h(
          'label',
          { class: 'field-label' },
          h('span', { class: 'changed-mark', title: 'changed' }, '●'),
          ` ${f.label}`,
        ),
        input,
        revert,
        h('div', { class: 'field-error', role: 'alert', 'data-error': f.path }),
      ),
    );
  }
  return root;
}

/** Updates errors and changed marks in place (the inputs keep focus while typing). */
export function updateFieldMarks(root: HTMLElement, errors: Record<string, string>, changed: readonly string[]): void {
  for (const f of FIELDS) {
    const row = root.querySelector<HTMLElement>(`[data-row="${f.path}"]`);
    if (!row) continue;
    row.classList.toggle('changed', changed.includes(f.path));
    row.classList.toggle('invalid', errors[f.path] !== undefined);
    const err = row.querySelector<HTMLElement>('.field-error');
    if (err) err.textContent = errors[f.path] ?? '';
  }
}

export interface ModelHandlers {
  onMode(mode: ForkDraft['modelMode']): void;
  onProvider(text: string): void;
  onModel(text: string): void;
  onContinueReal(on: boolean): void;
  onProgram(text: string): void;
  onPromptVersion(text: string): void;
}

/** A text field bound to one draft value: shows `value`, reports every edit to `onInput`. */
function textField(field: string, placeholder: string, value: string, onInput: (text: string) => void): HTMLElement {
  const input = h('vscode-textfield', { 'data-field': field, placeholder }) as HTMLElement & { value: string };
  input.value = value;
  input.addEventListener('input', () => onInput(input.value));
  return input;
}

/** Model mode (captured / real / override with provider + model) and the prompt version. */
export function modelControls(checkpoint: EditorCheckpoint, draft: ForkDraft, handlers: ModelHandlers): HTMLElement {
  const group = h('vscode-radio-group', { class: 'model-mode' });
  const modes: [ForkDraft['modelMode'], string][] = [
    ['captured', 'Captured (replay recorded turns, no tokens)'],
    ['recorded', 'Recorded outputs (recorded turns under the edited context)'],
    ['real', 'Real (call the recorded model)'],
    ['override', 'Override (another provider/model)'],
  ];
  for (const [mode, label] of modes) {
    const radio = h('vscode-radio', { name: 'modelMode', value: mode, label, 'data-mode': mode }) as HTMLElement & {
      checked: boolean;
    };
    radio.checked = draft.modelMode === mode;
    radio.addEventListener('change', () => {
      if (radio.checked) handlers.onMode(mode);
    });
    group.appendChild(radio);
  }
  const provider = textField('modelOverride.provider', 'provider', draft.provider, handlers.onProvider);
  const model = textField('modelOverride.model', 'model', draft.model, handlers.onModel);
  const prompt = textField(
    'promptVersionOverride',
    checkpoint.promptVersion ?? checkpoint.runtimeContext.model.promptVersion,
    draft.promptVersion,
    handlers.onPromptVersion,
  );
  const continueReal = h('vscode-checkbox', {
    'data-field': 'onDivergence',
    label: 'If the prompt diverges from the recording, continue with the real model',
  }) as HTMLElement & { checked: boolean };
  continueReal.checked = draft.continueReal;
  continueReal.addEventListener('change', () => handlers.onContinueReal(continueReal.checked));
  const program = textField(
    'program',
    'e.g. node dist/agent.js (empty: the built-in runner)',
    draft.program,
    handlers.onProgram,
  );
  const recorded = checkpoint.model ? `${checkpoint.model.provider}/${checkpoint.model.model}` : 'unknown';
  const more = draft.promptVersion.trim() !== '' || draft.program.trim() !== '';
  return section(
    'model',
    FORK_SECTION_TITLES.modelCalls,
    true,
    h('div', { class: 'hint' }, `Recorded model: ${recorded}`),
    group,
    h(
      'div',
      { class: `continue-real ${draft.modelMode === 'captured' ? '' : 'hidden'}`, 'data-continue-real': '' },
      continueReal,
    ),
    h(
      'div',
      { class: `override ${draft.modelMode === 'override' ? '' : 'hidden'}`, 'data-override': '' },
      h('div', { class: 'field' }, h('label', { class: 'field-label' }, 'Provider'), provider),
      h('div', { class: 'field' }, h('label', { class: 'field-label' }, 'Model'), model),
      h('div', { class: 'field-error', 'data-error': 'modelOverride' }),
    ),
    section(
      'model-more',
      FORK_SECTION_TITLES.modelMore,
      more,
      h('div', { class: 'field' }, h('label', { class: 'field-label' }, 'Prompt version (empty: keep)'), prompt),
      h(
        'div',
        { class: 'field' },
        h('label', { class: 'field-label' }, "Agent program (runs the fork with the agent's own tools)"),
        program,
      ),
    ),
  );
}

/** A policy picker; `''` is "not set", labelled with what applies then ('*' or the recorded policy). */
function policyPicker(row: ToolTableRow, onPolicy: (tool: string, policy: ReplayPolicy | '') => void): HTMLElement {
  const select = h('vscode-single-select', {
    'data-policy': row.toolName,
    'aria-label': `Policy of ${row.toolName}`,
  }) as HTMLElement & { value: string };
  const unset =
    row.toolName === '*'
      ? '(not set)'
      : row.fallbackSource === 'wildcard'
        ? `(from *: ${row.fallback ?? ''})`
        : `(recorded: ${row.fallback ?? ''})`;
  // `selected` on the option (not select.value): the value must hold before the element is upgraded
  select.appendChild(h('vscode-option', { value: '', selected: row.chosen === '' }, unset));
  for (const p of REPLAY_POLICIES) select.appendChild(h('vscode-option', { value: p, selected: row.chosen === p }, p));
  select.addEventListener('change', () => onPolicy(row.toolName, select.value as ReplayPolicy | ''));
  return select;
}

/**
 * The tool-policy list: '*' and every tool of the ledger, each name with its side-effect badge beside its policy
 * picker (two columns; stacked, name above picker, when the side bar is narrow — see contextEditor.css).
 */
export function toolTable(
  rows: readonly ToolTableRow[],
  onPolicy: (tool: string, policy: ReplayPolicy | '') => void,
): HTMLElement {
  const list = h('div', { class: 'tools', role: 'table', 'aria-label': 'Tool policies' });
  list.appendChild(
    h(
      'div',
      { class: 'tool-row tool-head', role: 'row' },
      h('span', { role: 'columnheader' }, 'Tool'),
      h('span', { role: 'columnheader' }, 'Replay policy'),
    ),
  );
  for (const row of rows) {
    const name = row.toolName === '*' ? '* (every other tool)' : row.toolName;
    list.appendChild(
      h(
        'div',
        { class: `tool-row${row.hazardous ? ' hazardous' : ''}`, role: 'row', 'data-tool': row.toolName },
        h(
          'div',
          { class: 'tool-cell', role: 'cell' },
          h(
            'span',
            { class: 'tool-name' },
            name,
            row.hazardous ? icon('warning', 'would run again with side effects') : null,
          ),
          row.sideEffectLevel ? sideEffectBadge(row.sideEffectLevel) : null,
        ),
        h(
          'div',
          { class: 'policy-cell', role: 'cell' },
          policyPicker(row, onPolicy),
          row.effective && row.chosen !== '' && row.effective !== row.chosen
            ? h('div', { class: 'hint' }, `applies: ${row.effective}`)
            : null,
        ),
      ),
    );
  }
  return list;
}

/** Mock result editors for the tools answered by mock_result. */
export function mockEditors(
  rows: readonly ToolTableRow[],
  draft: ForkDraft,
  onMock: (tool: string, text: string) => void,
): HTMLElement {
  const mocked = rows.filter((r) => r.showMock);
  const root = h('div', { class: 'mocks' });
  if (mocked.length === 0) return root;
  root.appendChild(h('div', { class: 'subtitle' }, 'Mock results (JSON)'));
  for (const row of mocked) {
    const area = h('vscode-textarea', {
      'data-mock': row.toolName,
      rows: '3',
      'aria-label': `Mock result of ${row.toolName}`,
    }) as HTMLElement & {
      value: string;
    };
    area.value = draft.mocks[row.toolName] ?? '';
    area.addEventListener('input', () => onMock(row.toolName, area.value));
    root.appendChild(
      h(
        'div',
        { class: 'field' },
        h(
          'label',
          { class: 'field-label' },
          row.toolName,
          row.mockMissing ? ' — required: the fork fails if it is called without one' : '',
        ),
        area,
        h('div', { class: 'field-error', 'data-error': `mock:${row.toolName}` }),
      ),
    );
  }
  return root;
}

/** The hazard report: each hazardous tool with a tick (disabled when it cannot be unlocked by a tick). */
export function hazardReport(rows: readonly HazardRow[], onTick: (tool: string, ticked: boolean) => void): HTMLElement {
  if (rows.length === 0) {
    return h(
      'div',
      { class: 'hazards none' },
      icon('pass', 'no hazards'),
      ' No tool would run again with side effects.',
    );
  }
  const list = h(
    'div',
    { class: 'hazards' },
    h('div', { class: 'subtitle' }, icon('warning'), ' These tools would run again with side effects:'),
  );
  for (const row of rows) {
    const box = h('vscode-checkbox', {
      'data-ack': row.toolName,
      label: `Run ${row.toolName} again`,
    }) as HTMLElement & {
      checked: boolean;
      disabled: boolean;
    };
    box.checked = row.ticked;
    box.disabled = !row.unlockable;
    box.addEventListener('change', () => onTick(row.toolName, box.checked));
    list.appendChild(
      h(
        'div',
        { class: 'hazard', 'data-hazard': row.toolName },
        box,
        ' ',
        sideEffectBadge(row.sideEffectLevel),
        h('div', { class: 'hint' }, row.reason),
      ),
    );
  }
  return list;
}
