/**
 * Entry of the Timeline page (bundled to dist/timeline.js), for both of its hosts:
 * - the VS Code panel: it says "ready", takes the timeline, what a live run added since (a delta, applied in place;
 *   one that does not fit asks for the whole timeline again) and the replay position from the host (every message
 *   parsed with model/timelineWire.ts), and asks the host to move the replay or for a call's details;
 * - `ocdb view`'s file: the timeline and the calls' details are JSON in the page; a bar's activation (and a
 *   `#cp=37` link) marks that checkpoint in the transcript below and scrolls to it.
 * Its stylesheet is in the bundle, added under the page's script nonce (the CSP allows nothing else).
 */
import * as z from 'zod/mini';
import type { Timeline } from '../model/timeline';
import { TimelineDeltaMismatch } from '../model/timelineDelta';
import {
  TimelineHostMessageSchema,
  TimelineWireSchema,
  unpackTimeline,
  unpackTimelineDelta,
  type TimelinePageMessage,
} from '../model/timelineWire';
import css from './timeline.css';
import { timelineArrived, timelinePart } from './timelinePerf';
import { TimelineView } from './timelineView';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

/** What the panel's page saved for the page built after it (the view's axis, folds and zoom), checked when read. */
const SavedStateSchema = z.object({
  axis: z.enum(['time', 'steps']),
  collapsed: z.array(z.string()),
  zoom: z.optional(z.object({ k: z.number().check(z.positive()), x: z.number() })),
});
declare function acquireVsCodeApi(): VsCodeApi;

function addStyle(): void {
  const script = document.currentScript as HTMLScriptElement | null;
  const style = document.createElement('style');
  const nonce = script?.nonce || document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce;
  if (nonce) style.nonce = nonce;
  style.textContent = css;
  document.head.append(style);
}

function fail(root: HTMLElement, what: string): void {
  root.textContent = `The timeline could not be shown: ${what}`;
}

function panel(root: HTMLElement): void {
  const vscode = acquireVsCodeApi();
  const post = (m: TimelinePageMessage) => vscode.postMessage(m);
  const pending = new Map<number, (text: string | undefined) => void>();
  let next = 1;
  document.body.classList.add('tl-panel');
  const view = new TimelineView(root, {
    activate: (runId, index) => post({ type: 'activate', runId, index }),
    details: (runId, toolCallId) =>
      new Promise((resolve) => {
        const requestId = next++;
        pending.set(requestId, resolve);
        post({ type: 'details', requestId, runId, toolCallId });
      }),
    stateChanged: (state) => vscode.setState(state),
  });
  // the panel lets its page go while hidden: what the user set on the one before comes back
  const saved = SavedStateSchema.safeParse(vscode.getState());
  if (saved.success) view.restore(saved.data);
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    const received = performance.now();
    const parsed = TimelineHostMessageSchema.safeParse(event.data);
    if (!parsed.success) {
      console.warn(`timeline: a message the page does not know: ${parsed.error.message}`);
      return;
    }
    const m = parsed.data;
    if (m.type === 'timeline') {
      timelineArrived(received);
      const timeline = unpackTimeline(m.timeline);
      timelinePart('parse', received);
      if (m.queryMs !== undefined) document.body.dataset.queryMs = m.queryMs.toFixed(1);
      if (m.opening) document.body.dataset.opening = JSON.stringify(m.opening);
      view.setData(timeline, () => (document.body.dataset.ready = 'true'));
    } else if (m.type === 'delta') {
      try {
        view.applyDelta(unpackTimelineDelta(m.delta));
      } catch (e) {
        if (!(e instanceof TimelineDeltaMismatch)) throw e;
        // what the page holds is not what the host continued: the whole timeline again
        console.warn(`timeline: ${e.message}`);
        post({ type: 'resync' });
        return;
      }
      if (m.queryMs !== undefined) document.body.dataset.queryMs = m.queryMs.toFixed(1);
      // the UI tests and devtools read how many deltas the page applied
      document.body.dataset.deltas = String(Number(document.body.dataset.deltas ?? 0) + 1);
    } else if (m.type === 'position') view.setPosition(m.position);
    else {
      pending.get(m.requestId)?.(m.text);
      pending.delete(m.requestId);
    }
  });
  post({ type: 'ready' });
  expose(view);
}

/** The page's view for devtools and the UI tests (`timeline.barPoint(run, 37)`: where a user would click). */
function expose(view: TimelineView): void {
  (window as unknown as { timeline?: TimelineView }).timeline = view;
}

/** `#cp=37` (the root run) or `#cp=<run>:37` (a fork). */
function hashPosition(timeline: Timeline): { runId: string; index: number } | undefined {
  const m = /^#cp=(?:(.+):)?(\d+)$/.exec(decodeURIComponent(location.hash));
  if (!m) return undefined;
  return { runId: m[1] ?? timeline.rootRunId, index: Number(m[2]) };
}

function anchorOf(timeline: Timeline, p: { runId: string; index: number }): string {
  return p.runId === timeline.rootRunId ? `cp=${p.index}` : `cp=${p.runId}:${p.index}`;
}

function file(root: HTMLElement, dataEl: HTMLElement): void {
  const parsed = TimelineWireSchema.safeParse(JSON.parse(dataEl.textContent ?? 'null'));
  if (!parsed.success) return fail(root, parsed.error.message);
  const timeline = unpackTimeline(parsed.data);
  const detailsEl = document.getElementById('timeline-details');
  const details = z
    .catch(z.record(z.string(), z.string()), {})
    .parse(detailsEl ? JSON.parse(detailsEl.textContent ?? '{}') : {});
  let current: HTMLElement | null = null;
  const land = (p: { runId: string; index: number } | undefined, scroll: boolean) => {
    view.setPosition(p);
    current?.classList.remove('current');
    current = p ? document.getElementById(anchorOf(timeline, p)) : null;
    current?.classList.add('current');
    if (current && scroll) current.scrollIntoView({ block: 'center' });
    document.body.dataset.position = p ? anchorOf(timeline, p) : '';
  };
  const view = new TimelineView(root, {
    activate: (runId, index) => {
      history.replaceState(null, '', `#${anchorOf(timeline, { runId, index })}`);
      land({ runId, index }, true);
    },
    details: (runId, toolCallId) => Promise.resolve(details[`${runId}:${toolCallId}`]),
  });
  expose(view);
  // landed once the text list is in: it sits above the transcript, so the anchor's place is final then
  view.setData(timeline, () => {
    land(hashPosition(timeline), true);
    window.addEventListener('hashchange', () => land(hashPosition(timeline), true));
    document.body.dataset.ready = 'true';
  });
}

function main(): void {
  const started = performance.now();
  addStyle();
  const root = document.getElementById('timeline');
  if (!root) return;
  try {
    const dataEl = document.getElementById('timeline-data');
    if (dataEl) file(root, dataEl);
    else panel(root);
  } catch (e) {
    fail(root, e instanceof Error ? e.message : String(e));
  }
  timelinePart('script', started);
}

main();
