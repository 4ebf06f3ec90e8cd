/**
 * The Timeline as text, for screen readers and keyboard users: a list of the runs shown (each with its status:
 * "diverged at step 5 · system prompt"), and under each its calls as buttons that move the replay there. It mirrors
 * the canvas; a long run lists its first calls, its failed ones and its last ones (the arrows on the canvas reach
 * every call).
 */
import {
  timelineCallText,
  timelineRunText,
  type Timeline,
  type TimelineCall,
  type TimelineRun,
} from '../model/timeline';
import { h, replaceChildren } from './dom';

/** How many calls of a run the list holds before it keeps only the notable ones. */
export const LIST_CALLS = 300;

function notable(calls: readonly TimelineCall[]): TimelineCall[] {
  if (calls.length <= LIST_CALLS) return [...calls];
  const keep = new Set<TimelineCall>([...calls.slice(0, LIST_CALLS / 2), ...calls.slice(-LIST_CALLS / 4)]);
  for (const c of calls) if (c.state === 'error' || c.state === 'cancelled' || c.edited) keep.add(c);
  return calls.filter((c) => keep.has(c));
}

/** One run's item: its description and its (notable) calls as buttons. */
function runItem(run: TimelineRun, activate: (runId: string, index: number) => void): HTMLElement {
  const calls = notable(run.calls);
  const more = run.calls.length - calls.length;
  return h(
    'li',
    { class: 'tl-run', 'data-run': run.runId },
    h('span', { class: 'tl-run-text' }, timelineRunText(run)),
    h(
      'ul',
      { 'aria-label': `calls of ${run.runId}` },
      ...calls.map((c) =>
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              class: 'tl-call',
              'data-cp': String(c.cp),
              onclick: () => activate(run.runId, c.cp),
            },
            timelineCallText(c),
          ),
        ),
      ),
      more > 0 ? h('li', {}, `${more} more calls: the timeline's arrow keys reach each one`) : null,
    ),
  );
}

export function renderTextList(
  into: HTMLElement,
  timeline: Timeline,
  activate: (runId: string, index: number) => void,
): void {
  const runs = timeline.runs.map((run) => runItem(run, activate));
  replaceChildren(into, h('h2', { class: 'tl-sr' }, 'Timeline as text'), h('ul', { class: 'tl-runs' }, ...runs));
}

/**
 * The items of the runs `runIds` built again (a live run that grew), the others left as they are; false when the
 * list does not hold them all (the caller renders it whole).
 */
export function updateTextList(
  into: HTMLElement,
  timeline: Timeline,
  runIds: ReadonlySet<string>,
  activate: (runId: string, index: number) => void,
): boolean {
  const items = new Map<string, Element>();
  into.querySelectorAll('li.tl-run').forEach((li) => items.set(li.getAttribute('data-run') ?? '', li));
  if (items.size !== timeline.runs.length || !timeline.runs.every((r) => items.has(r.runId))) return false;
  for (const run of timeline.runs) if (runIds.has(run.runId)) items.get(run.runId)?.replaceWith(runItem(run, activate));
  return true;
}
