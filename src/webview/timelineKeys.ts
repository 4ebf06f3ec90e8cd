/**
 * The Timeline canvas's keys: arrows move the focus between bars (left and right in a lane, up and down to the bar
 * of the next lane at the same x), Home and End to a lane's ends, Enter or Space activates the focused bar, + and −
 * zoom, 0 fits. Pure: what a key does, not doing it.
 */
import { barAt, type Layout } from './timelineLayout';

/** A bar of a lane (indexes into the layout). */
export interface BarRef {
  lane: number;
  bar: number;
}

/**
 * What `key` does with the focus at `focus` (none yet: the first lane's first bar): a bar to move to, an action,
 * `stay` for a move that has nowhere to go, or undefined for a key the canvas leaves alone.
 */
export function keyMove(
  layout: Layout,
  focus: BarRef | undefined,
  key: string,
): BarRef | 'activate' | 'zoomIn' | 'zoomOut' | 'fit' | 'stay' | undefined {
  const at = focus ?? { lane: 0, bar: 0 };
  const lane = layout.lanes[at.lane];
  let next: BarRef | undefined;
  switch (key) {
    case 'ArrowRight':
      next = { lane: at.lane, bar: Math.min((lane?.bars.length ?? 1) - 1, focus ? at.bar + 1 : 0) };
      break;
    case 'ArrowLeft':
      next = { lane: at.lane, bar: Math.max(0, at.bar - 1) };
      break;
    case 'Home':
      next = { lane: at.lane, bar: 0 };
      break;
    case 'End':
      next = { lane: at.lane, bar: (lane?.bars.length ?? 1) - 1 };
      break;
    case 'ArrowUp':
    case 'ArrowDown': {
      const li = at.lane + (key === 'ArrowUp' ? -1 : 1);
      const target = layout.lanes[li];
      if (!target || target.bars.length === 0) break;
      const x = lane?.bars[at.bar]?.x0 ?? layout.domain[0];
      next = { lane: li, bar: barAt(target, x, Infinity) ?? 0 };
      break;
    }
    case 'Enter':
    case ' ':
      return 'activate';
    case '+':
    case '=':
      return 'zoomIn';
    case '-':
      return 'zoomOut';
    case '0':
      return 'fit';
    default:
      return undefined;
  }
  return next && layout.lanes[next.lane]?.bars[next.bar] ? next : 'stay';
}
