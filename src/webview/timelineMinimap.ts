/**
 * The Timeline's minimap: every lane's bars over the whole domain, compressed, and the window the main view shows.
 * The bars are drawn once per layout (and each time it grew), width and theme into an image the frames copy, so
 * panning a long run does not draw it twice.
 */
import type { ScaleLinear } from 'd3-scale';
import { linearOf, type DrawState } from './timelineScene';
import type { Layout } from './timelineLayout';

/** The minimap's bars as last drawn for a layout (they change with the layout, the width and the theme only). */
const minimapBars = new WeakMap<Layout, { key: string; image: HTMLCanvasElement }>();

function minimapImage(
  s: Pick<DrawState, 'layout' | 'palette' | 'width'>,
  full: ScaleLinear<number, number>,
  height: number,
  dpr: number,
): HTMLCanvasElement {
  const key = `${s.width}|${height}|${dpr}|${s.layout.grown ?? 0}|${s.palette.error}|${Object.values(s.palette.bars).join()}`;
  const cached = minimapBars.get(s.layout);
  if (cached?.key === key) return cached.image;
  const image = document.createElement('canvas');
  image.width = Math.round(s.width * dpr);
  image.height = Math.round(height * dpr);
  const ctx = image.getContext('2d');
  if (ctx) {
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const lanes = s.layout.lanes;
    const rowH = Math.max(1, Math.min(4, (height - 2) / Math.max(1, lanes.length)));
    const { a, b: shift } = linearOf(full);
    lanes.forEach((lane, li) => {
      let lastPx = -1;
      for (const b of lane.bars) {
        const px = Math.floor(b.x0 * a + shift);
        if (px === lastPx) continue;
        lastPx = px;
        ctx.fillStyle = b.call.state === 'error' ? s.palette.error : s.palette.bars[b.color];
        ctx.fillRect(px, 1 + li * rowH, Math.max(1, b.x1 * a + shift - px), rowH);
      }
    });
  }
  minimapBars.set(s.layout, { key, image });
  return image;
}

/**
 * The minimap: every lane's bars over the whole domain, compressed (drawn once per layout, width and theme), and
 * the window the main view shows.
 */
export function drawMinimap(
  ctx: CanvasRenderingContext2D,
  s: Pick<DrawState, 'layout' | 'palette' | 'width'>,
  full: ScaleLinear<number, number>,
  view: [number, number],
  height: number,
): void {
  ctx.clearRect(0, 0, s.width, height);
  ctx.drawImage(minimapImage(s, full, height, ctx.getTransform().a || 1), 0, 0, s.width, height);
  const a = full(view[0]);
  const b = full(view[1]);
  ctx.strokeStyle = s.palette.focus;
  ctx.lineWidth = 1;
  ctx.strokeRect(Math.max(0.5, a) + 0.5, 0.5, Math.max(3, Math.min(s.width - 1, b) - Math.max(0.5, a)), height - 1);
}

/** A press on the minimap, and a drag after it, move the view there: `to` gets the pointer's x on the minimap. */
export function followPointer(minimap: HTMLCanvasElement, to: (px: number) => void): void {
  minimap.addEventListener('pointerdown', (e) => {
    const move = (ev: PointerEvent) => to(ev.clientX - minimap.getBoundingClientRect().left);
    move(e);
    minimap.setPointerCapture(e.pointerId);
    minimap.onpointermove = move;
    minimap.onpointerup = () => {
      minimap.onpointermove = null;
      minimap.onpointerup = null;
    };
  });
}
