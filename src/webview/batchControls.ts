/**
 * The fork editor's batch fields (What-if Across Runs…): which runs, where each is forked, and the assertions
 * checked at each fork's end (an expression a line, or `model: question` for one the configured model grades).
 * The rest of the page — context, model, prompt, tool policies, mocks, hazards — is the single fork's, edited
 * against the sample checkpoint. Takes data and callbacks, returns elements; text only, never HTML.
 */
import { h, icon } from './dom';
import { section } from './view';
import type { BatchView } from './protocol';

/** What the batch fields hold (kept by the page across renders and reloads). */
export interface BatchDraft {
  at: string;
  assertions: string;
}

export const NEW_BATCH_DRAFT: BatchDraft = { at: 'first', assertions: "no_refund=!tool('issue_refund')" };

/** The header of batch mode: the cohort, and that the checkpoint below is a sample. */
export function batchHeader(batch: BatchView, sampleRunId: string): HTMLElement[] {
  return [
    h('div', { class: 'title', 'data-batch': '' }, icon('run-all'), ` What-if across ${batch.total} runs`),
    h('div', { class: 'hint' }, batch.label),
    h(
      'div',
      { class: 'hint' },
      `Edit against ${sampleRunId} (a sample); every run gets the same change, forked where “Fork each run at” says.`,
    ),
  ];
}

/** The batch's own fields: the fork point and the assertions. */
export function batchControls(draft: BatchDraft, onChange: (draft: BatchDraft) => void): HTMLElement {
  const at = h('vscode-textfield', { 'data-batch-field': 'at', placeholder: 'first' }) as HTMLElement & {
    value: string;
  };
  at.value = draft.at;
  at.addEventListener('input', () => onChange({ ...draft, at: (draft.at = at.value) }));
  const assertions = h('vscode-textarea', {
    'data-batch-field': 'assertions',
    rows: '3',
    'aria-label': 'Assertions, one a line',
  }) as HTMLElement & { value: string };
  assertions.value = draft.assertions;
  assertions.addEventListener('input', () => onChange({ ...draft, assertions: (draft.assertions = assertions.value) }));
  return section(
    'batch',
    'Batch',
    true,
    h(
      'div',
      { class: 'field' },
      h('label', { class: 'field-label' }, 'Fork each run at'),
      at,
      h('div', { class: 'hint' }, 'first, an index (12), step:5, boundary:before_tool_call, or an expression'),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { class: 'field-label' }, 'Assertions at each fork’s end (one a line)'),
      assertions,
      h(
        'div',
        { class: 'hint' },
        '[name=]expression, or model: [name=]question for a check the configured model grades (priced first)',
      ),
    ),
  );
}
