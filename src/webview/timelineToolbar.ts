/**
 * The Timeline's toolbar: fit, zoom in and out, the wall-clock / step axis switch (its label says the axis it
 * switches to), and the colour legend of the bars.
 */
import { h } from './dom';
import type { Axis } from './timelineLayout';

export interface ToolbarActions {
  fit(): void;
  zoomBy(k: number): void;
  toggleAxis(): void;
}

export interface Toolbar {
  element: HTMLElement;
  /** Says the axis the switch now switches to. */
  showAxis(axis: Axis): void;
}

export function timelineToolbar(actions: ToolbarActions): Toolbar {
  const button = (text: string, title: string, on: () => void) =>
    h('button', { class: 'tl-button', type: 'button', title, 'aria-label': title, onclick: on }, text);
  const axisButton = button('Steps', 'Switch to the step axis', () => actions.toggleAxis());
  const element = h(
    'div',
    { class: 'tl-toolbar', role: 'toolbar', 'aria-label': 'Timeline' },
    button('Fit', 'Fit the whole run', () => actions.fit()),
    button('+', 'Zoom in', () => actions.zoomBy(2)),
    button('−', 'Zoom out', () => actions.zoomBy(0.5)),
    axisButton,
    h('span', { class: 'tl-legend', 'aria-hidden': 'true' }, ...legend()),
  );
  return {
    element,
    showAxis(axis) {
      axisButton.textContent = axis === 'time' ? 'Steps' : 'Time';
      axisButton.title = axis === 'time' ? 'Switch to the step axis' : 'Switch to the wall-clock axis';
      axisButton.setAttribute('aria-label', axisButton.title);
    },
  };
}

function legend(): HTMLElement[] {
  const item = (cls: string, text: string) => h('span', { class: `tl-key ${cls}` }, text);
  return [
    item('k-model', 'model'),
    item('k-read', 'read'),
    item('k-expensive', 'expensive'),
    item('k-write', 'write'),
    item('k-irreversible', 'irreversible'),
    item('k-error', '✕ error'),
  ];
}
