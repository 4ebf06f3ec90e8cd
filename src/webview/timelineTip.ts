/**
 * The Timeline's hover: a bar's summary (its run, tool, duration, tokens) beside the pointer, and its arguments and
 * result excerpts when the host has them (asked for on hover, added if the pointer is still on that bar).
 */
import { timelineCallText, type TimelineCall } from '../model/timeline';
import { h, replaceChildren } from './dom';

export interface TipAt {
  /** The scrolling box the tip is placed in. */
  scroller: HTMLElement;
  /** The view's width (px): the tip stays inside it. */
  width: number;
  /** The pointer. */
  event: MouseEvent;
}

/** Shows `call` of `runId` in `tip`; `more` (the details, when asked for) is added while `stillHovered()`. */
export function showTip(
  tip: HTMLElement,
  runId: string,
  call: TimelineCall,
  at: TipAt,
  more: Promise<string | undefined> | undefined,
  stillHovered: () => boolean,
): void {
  replaceChildren(tip, h('div', { class: 'tl-tip-title' }, runId), h('div', {}, timelineCallText(call)));
  const rect = at.scroller.getBoundingClientRect();
  tip.hidden = false;
  tip.style.left = `${Math.min(at.event.clientX - rect.left + 12, Math.max(0, at.width - 260))}px`;
  tip.style.top = `${at.event.clientY - rect.top + at.scroller.scrollTop + 14}px`;
  void more?.then((text) => {
    if (text && stillHovered() && !tip.hidden) tip.append(h('div', { class: 'tl-tip-more' }, text));
  });
}
