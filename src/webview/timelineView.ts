/**
 * The Timeline page's behaviour, shared by the VS Code panel and `ocdb view`'s file: a toolbar (fit, zoom, the
 * wall-clock / step axis switch), the minimap, the canvas with d3-zoom's pan and zoom on the x axis, hover
 * summaries, a click or Enter on a bar to move the replay there, arrows between bars and lanes, collapsible
 * lineage, and the accessible text list that mirrors the canvas. Where a click goes and where a hover's details
 * come from are the host's (`TimelineHost`).
 */
import { scaleLinear, type ScaleLinear } from 'd3-scale';
import { select } from 'd3-selection';
import { zoom as d3zoom, zoomIdentity, type ZoomBehavior, type ZoomTransform } from 'd3-zoom';
import { timelineCallText, type Timeline } from '../model/timeline';
import { TimelineDeltaMismatch, applyTimelineDelta, onlyGrows, type TimelineDelta } from '../model/timelineDelta';
import { h, replaceChildren } from './dom';
import { RULER, draw, laneTop, readPalette, type DrawState } from './timelineDraw';
import { keyMove, type BarRef } from './timelineKeys';
import { LANE_HEIGHT, barOfCheckpoint, cpX, layOut, type Axis, type Bar, type Layout } from './timelineLayout';
import { growLayout } from './timelineGrow';
import { renderTextList, updateTextList } from './timelineList';
import { drawMinimap, followPointer } from './timelineMinimap';
import { frameDrawn, timelinePart } from './timelinePerf';
import { barCentre, barUnder, foldAt } from './timelinePointer';
import { onThemeChange, sizeCanvas } from './timelineScene';
import { warmText } from './timelineText';
import { showTip } from './timelineTip';
import { timelineToolbar, type Toolbar } from './timelineToolbar';

/**
 * What a user set on the view, kept while its panel is hidden (the page is then let go and built again): the axis,
 * the folded runs, the zoom and pan (a scale and an offset; none when fitted).
 */
export interface TimelineViewState {
  axis: Axis;
  collapsed: string[];
  zoom?: { k: number; x: number };
}

export interface TimelineHost {
  /** The user chose checkpoint `index` of `runId` (a click or Enter on a bar). */
  activate(runId: string, index: number): void;
  /** More about a tool call for its hover (arguments and result excerpts), when the host has it. */
  details?(runId: string, toolCallId: string): Promise<string | undefined>;
  /** The user changed the axis, the folds or the zoom (the panel saves them). */
  stateChanged?(state: TimelineViewState): void;
}

const MINIMAP = 22;

export class TimelineView {
  private timeline: Timeline | undefined;
  private layout: Layout | undefined;
  private axis: Axis = 'time';
  private readonly collapsed = new Set<string>();
  private position: { runId: string; index: number } | undefined;
  private focus: { lane: number; bar: number } | undefined;
  private hover: { lane: number; bar: number } | undefined;
  private transform: ZoomTransform = zoomIdentity;
  private readonly zoom: ZoomBehavior<HTMLCanvasElement, unknown>;
  private readonly canvas: HTMLCanvasElement;
  private readonly minimap: HTMLCanvasElement;
  private readonly tip: HTMLElement;
  private readonly live: HTMLElement;
  private readonly list: HTMLElement;
  private readonly toolbar: Toolbar;
  private readonly scroller: HTMLElement;
  private width = 300;
  private frame = 0;
  private fitted = true;
  /** A timeline drawn whose text list is still to be built (and who to tell when it is). */
  private unlisted: { timeline: Timeline; listed?: () => void } | undefined;
  /** Runs a delta changed whose items of the text list are still to be built again. */
  private relisted: Set<string> | undefined;
  /** How long the last draw took (ms): the bench and the test read it. */
  lastDrawMs = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly host: TimelineHost,
  ) {
    this.canvas = h('canvas', {
      class: 'tl-canvas',
      tabindex: '0',
      role: 'img',
      'aria-label': 'Timeline: arrows move between calls, Enter moves the replay there; the list below reads the same',
    });
    this.minimap = h('canvas', { class: 'tl-minimap', 'aria-hidden': 'true' });
    this.tip = h('div', { class: 'tl-tip', role: 'tooltip', hidden: true });
    this.live = h('div', { class: 'tl-sr', 'aria-live': 'polite' });
    this.list = h('div', { class: 'tl-list' });
    this.toolbar = timelineToolbar({
      fit: () => this.fit(),
      zoomBy: (k) => this.zoomBy(k),
      toggleAxis: () => this.setAxis(this.axis === 'time' ? 'steps' : 'time'),
    });
    this.scroller = h('div', { class: 'tl-scroll' }, this.canvas, this.tip);
    replaceChildren(root, this.toolbar.element, this.minimap, this.scroller, this.live, this.list);
    this.zoom = d3zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([1, 1e6])
      .filter((event: Event) => {
        // a plain wheel scrolls the lanes when they overflow; Ctrl/⌘ + wheel (and a pinch) zooms
        if (event.type === 'wheel')
          return (event as WheelEvent).ctrlKey || (event as WheelEvent).metaKey || !this.overflows();
        return !(event as MouseEvent).button && event.type !== 'dblclick';
      })
      .on('zoom', (event: { transform: ZoomTransform; sourceEvent?: Event }) => {
        this.transform = event.transform;
        if (event.sourceEvent) this.fitted = false;
        this.schedule();
      })
      .on('end', () => this.saveState());
    select(this.canvas).call(this.zoom);
    this.canvas.addEventListener('mousemove', (e) => this.onHover(e));
    this.canvas.addEventListener('mouseleave', () => this.setHover(undefined));
    this.canvas.addEventListener('click', (e) => this.onClick(e));
    this.canvas.addEventListener('keydown', (e) => this.onKey(e));
    followPointer(this.minimap, (px) => this.centreOn(px));
    new ResizeObserver(() => this.resize()).observe(root);
    onThemeChange(() => this.schedule());
    this.resize();
    // the canvas's fonts (and the fallbacks of its marks) load while the page waits for its timeline
    setTimeout(warmText, 0);
  }

  /**
   * Shows `timeline` (a first load or a live run that grew), keeping the zoom unless the view was fitted. The
   * canvas is drawn first; the text list (hundreds of elements) is built after that frame, then `listed` is called.
   */
  setData(timeline: Timeline, listed?: () => void): void {
    this.timeline = timeline;
    const t = performance.now();
    this.relayout();
    timelinePart('layout', t);
    this.unlisted = { timeline, ...(listed ? { listed } : {}) };
  }

  /**
   * A live run's delta: its lanes grow in place (the layout too, when only lanes shown grew), the zoom shows the
   * span it showed, the replay position and the focused bar stay, and only the changed runs' items of the text list
   * are built again. A lane new, gone or sent whole lays the timeline out again, keeping the same. Throws
   * TimelineDeltaMismatch when the delta does not continue what the page holds.
   */
  applyDelta(delta: TimelineDelta): void {
    const timeline = this.timeline;
    if (!timeline) throw new TimelineDeltaMismatch('the page holds no timeline yet');
    const grows = onlyGrows(timeline, delta);
    const shown = this.fitted ? undefined : (this.scale().domain() as [number, number]);
    const focused = this.barOf(this.focus);
    const focus = focused && { runId: focused.runId, cp: focused.bar.call.cp };
    applyTimelineDelta(timeline, delta);
    const grown = grows && this.layout !== undefined && growLayout(this.layout, delta.lanes);
    if (!grown) this.layout = layOut(timeline, this.axis, this.collapsed);
    this.hover = undefined;
    this.focus = focus && this.barAtCheckpoint(focus.runId, focus.cp);
    this.resize();
    if (shown) this.show(shown);
    if (grows) {
      this.relisted ??= new Set();
      for (const d of delta.lanes) this.relisted.add(d.header.runId);
    } else this.unlisted = { timeline };
  }

  /** The lane and bar of the call starting at checkpoint `cp` of `runId`, when drawn. */
  private barAtCheckpoint(runId: string, cp: number): { lane: number; bar: number } | undefined {
    const li = this.layout?.lanes.findIndex((l) => l.run.runId === runId) ?? -1;
    const bars = this.layout?.lanes[li]?.bars ?? [];
    for (let i = bars.length - 1; i >= 0; i--) if (bars[i]?.call.cp === cp) return { lane: li, bar: i };
    return undefined;
  }

  /** Zooms so the view shows the domain span `[d0, d1]` (what it showed before its lanes grew). */
  private show([d0, d1]: [number, number]): void {
    const base = this.base();
    const [r0, r1] = base.range() as [number, number];
    const b0 = base(d0);
    const b1 = base(d1);
    if (!(b1 > b0)) return;
    const k = (r1 - r0) / (b1 - b0);
    select(this.canvas).call(this.zoom.transform, zoomIdentity.translate(r0 - k * b0, 0).scale(k));
  }

  /** Builds the minimap and the text list of the timeline last drawn, after the frame that drew it. */
  private listLater(): void {
    const pending = this.unlisted;
    if (!pending) return this.relistLater();
    this.unlisted = undefined;
    setTimeout(() => {
      if (this.timeline !== pending.timeline) return;
      this.renderMinimap();
      const t = performance.now();
      renderTextList(this.list, pending.timeline, (runId, index) => this.host.activate(runId, index));
      timelinePart('list', t);
      pending.listed?.();
    }, 0);
  }

  /** Builds again the items of the text list of the runs a delta changed, after the frame that drew them. */
  private relistLater(): void {
    const runs = this.relisted;
    const timeline = this.timeline;
    if (!runs || !timeline) return;
    this.relisted = undefined;
    setTimeout(() => {
      if (this.timeline !== timeline) return;
      const activate = (runId: string, index: number) => this.host.activate(runId, index);
      if (!updateTextList(this.list, timeline, runs, activate)) renderTextList(this.list, timeline, activate);
    }, 0);
  }

  /** What the user set, to restore in a page built again. */
  state(): TimelineViewState {
    const { k, x } = this.transform;
    return {
      axis: this.axis,
      collapsed: [...this.collapsed],
      ...(this.fitted ? {} : { zoom: { k, x } }),
    };
  }

  /** Restores what a page before this one saved (before its data arrives: the first draw is already in it). */
  restore(state: TimelineViewState): void {
    this.axis = state.axis;
    this.toolbar.showAxis(state.axis);
    for (const runId of state.collapsed) this.collapsed.add(runId);
    if (state.zoom) {
      this.fitted = false;
      select(this.canvas).call(this.zoom.transform, zoomIdentity.translate(state.zoom.x, 0).scale(state.zoom.k));
    }
  }

  private saveState(): void {
    this.host.stateChanged?.(this.state());
  }

  /** Draws the replay position (a run and a checkpoint), panning to it when it is out of view. */
  setPosition(position: { runId: string; index: number } | undefined): void {
    this.position = position;
    if (position && this.layout) {
      const li = this.layout.lanes.findIndex((l) => l.run.runId === position.runId);
      const lane = this.layout.lanes[li];
      if (lane) {
        const bar = barOfCheckpoint(lane, position.index);
        if (bar !== undefined) this.focus = { lane: li, bar };
        this.reveal(cpX(lane, this.layout.axis, position.index), li);
      }
    }
    this.canvas.dataset.position = position ? `${position.runId}:${position.index}` : '';
    this.schedule();
  }

  setAxis(axis: Axis): void {
    this.axis = axis;
    this.toolbar.showAxis(axis);
    this.relayout();
    this.fit();
    this.saveState();
  }

  fit(): void {
    this.fitted = true;
    select(this.canvas).call(this.zoom.transform, zoomIdentity);
  }

  private zoomBy(k: number): void {
    this.fitted = false;
    select(this.canvas).call(this.zoom.scaleBy, k);
  }

  private relayout(): void {
    if (!this.timeline) return;
    const focusRun = this.focus && this.layout?.lanes[this.focus.lane]?.run.runId;
    this.layout = layOut(this.timeline, this.axis, this.collapsed);
    const li = focusRun ? this.layout.lanes.findIndex((l) => l.run.runId === focusRun) : -1;
    if (this.focus && li < 0) this.focus = undefined;
    else if (this.focus)
      this.focus = { lane: li, bar: Math.min(this.focus.bar, (this.layout.lanes[li]?.bars.length ?? 1) - 1) };
    this.hover = undefined;
    if (this.fitted) this.transform = zoomIdentity;
    this.resize();
  }

  private base(): ScaleLinear<number, number> {
    const domain = this.layout?.domain ?? [0, 1];
    return scaleLinear()
      .domain(domain)
      .range([8, Math.max(20, this.width - 8)]);
  }

  private scale(): ScaleLinear<number, number> {
    return this.transform.rescaleX(this.base());
  }

  private overflows(): boolean {
    return this.scroller.scrollHeight > this.scroller.clientHeight + 1;
  }

  private resize(): void {
    this.width = Math.max(120, this.root.clientWidth);
    const lanes = this.layout?.lanes.length ?? 1;
    const height = RULER + lanes * LANE_HEIGHT;
    const dpr = window.devicePixelRatio || 1;
    sizeCanvas(this.canvas, this.width, height, dpr);
    sizeCanvas(this.minimap, this.width, MINIMAP, dpr);
    this.zoom
      .extent([
        [0, 0],
        [this.width, height],
      ])
      .translateExtent([
        [0, 0],
        [this.width, height],
      ]);
    this.schedule();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  /** Draws now (the bench and tests call it to time a frame). */
  render(): void {
    const started = performance.now();
    const state = this.drawState();
    if (!state) return;
    const { palette } = state;
    const dpr = window.devicePixelRatio || 1;
    const ctx = this.canvas.getContext('2d');
    if (ctx) {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      const drawn = draw(ctx, state, this.canvas.height / dpr);
      this.canvas.dataset.rulerEnd = drawn.rulerEnd.toFixed(1);
      const c = drawn.cursor;
      this.canvas.dataset.cursorLabel = c
        ? `${c.label.x0.toFixed(1)} ${c.label.x1.toFixed(1)} ${c.nameEnd.toFixed(1)}`
        : '';
    }
    // a new timeline's first frame is the lanes alone: the minimap (every bar once more) follows it
    if (!this.unlisted) this.renderMinimap(state);
    frameDrawn(started);
    this.listLater();
    this.lastDrawMs = performance.now() - started;
    this.canvas.dataset.drawMs = this.lastDrawMs.toFixed(2);
    this.canvas.dataset.background = palette.background;
    this.canvas.dataset.bars = Object.values(palette.bars).join(' ');
  }

  private drawState(): DrawState | undefined {
    if (!this.layout) return undefined;
    return {
      layout: this.layout,
      x: this.scale(),
      width: this.width,
      palette: readPalette(this.root),
      origin: this.timeline?.runs[0]?.startedAt ?? 0,
      ...(this.position ? { position: this.position } : {}),
      ...(this.focus ? { focus: this.focus } : {}),
      ...(this.hover ? { hover: this.hover } : {}),
    };
  }

  private renderMinimap(state: DrawState | undefined = this.drawState()): void {
    const mini = this.minimap.getContext('2d');
    if (!mini || !state) return;
    const dpr = window.devicePixelRatio || 1;
    mini.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawMinimap(mini, state, this.base(), state.x.domain() as [number, number], MINIMAP);
  }

  /**
   * Where the bar holding checkpoint `cp` of `runId` is drawn (page pixels, its centre), when it is in view: what
   * the UI tests click, as a user clicks the bar they see.
   */
  barPoint(runId: string, cp: number): { x: number; y: number } | undefined {
    const at = this.layout && barCentre(this.layout, this.scale(), this.width, runId, cp);
    const rect = this.canvas.getBoundingClientRect();
    return at && { x: rect.left + at.x, y: rect.top + at.y };
  }

  /** The lane and bar under a mouse event, if any. */
  private hit(e: MouseEvent): BarRef | undefined {
    const rect = this.canvas.getBoundingClientRect();
    return this.layout && barUnder(this.layout, this.scale(), e.clientX - rect.left, e.clientY - rect.top);
  }

  private barOf(at: { lane: number; bar: number } | undefined): { bar: Bar; runId: string } | undefined {
    const lane = at && this.layout?.lanes[at.lane];
    const bar = lane?.bars[at?.bar ?? -1];
    return lane && bar ? { bar, runId: lane.run.runId } : undefined;
  }

  private onHover(e: MouseEvent): void {
    const at = this.hit(e);
    this.setHover(at, e);
  }

  private setHover(at: { lane: number; bar: number } | undefined, e?: MouseEvent): void {
    this.hover = at;
    this.schedule();
    const found = this.barOf(at);
    if (!found || !e) {
      this.tip.hidden = true;
      return;
    }
    const id = found.bar.call.toolCallId;
    const more = id ? this.host.details?.(found.runId, id) : undefined;
    showTip(
      this.tip,
      found.runId,
      found.bar.call,
      { scroller: this.scroller, width: this.width, event: e },
      more,
      () => this.hover === at,
    );
  }

  private onClick(e: MouseEvent): void {
    if (e.defaultPrevented) return;
    const rect = this.canvas.getBoundingClientRect();
    // a click on a run's fold mark folds or unfolds its forks and sub-agents
    const fold = this.layout && foldAt(this.layout, e.clientX - rect.left, e.clientY - rect.top);
    if (fold) return this.toggle(fold);
    const at = this.hit(e);
    const found = this.barOf(at);
    if (!at || !found) return;
    this.focus = at;
    this.activate();
  }

  toggle(runId: string): void {
    if (this.collapsed.has(runId)) this.collapsed.delete(runId);
    else this.collapsed.add(runId);
    this.relayout();
    this.saveState();
  }

  private activate(): void {
    const found = this.barOf(this.focus);
    if (!found) return;
    this.host.activate(found.runId, found.bar.call.cp);
    this.schedule();
  }

  private onKey(e: KeyboardEvent): void {
    const layout = this.layout;
    if (!layout || layout.lanes.length === 0) return;
    const move = keyMove(layout, this.focus, e.key);
    if (!move) return;
    if (move === 'zoomIn' || move === 'zoomOut') return this.zoomBy(move === 'zoomIn' ? 2 : 0.5);
    if (move === 'fit') return this.fit();
    e.preventDefault();
    if (move === 'activate') {
      if (this.focus) this.activate();
      return;
    }
    if (move === 'stay') return;
    this.focus = move;
    const found = this.barOf(move);
    if (found) {
      this.live.textContent = `${found.runId} ${timelineCallText(found.bar.call)}`;
      this.reveal(found.bar.x0, move.lane);
    }
    this.schedule();
  }

  /** Pans so domain x `x` is in view and scrolls lane `li` into view. */
  private reveal(x: number, li: number): void {
    const scale = this.scale();
    const px = scale(x);
    if (px < 8 || px > this.width - 8) {
      this.fitted = false;
      select(this.canvas).call(this.zoom.translateTo, this.base()(x), 0, [this.width / 2, 0]);
    }
    const top = laneTop(li);
    if (top < this.scroller.scrollTop || top + LANE_HEIGHT > this.scroller.scrollTop + this.scroller.clientHeight)
      this.scroller.scrollTop = Math.max(0, top - RULER);
  }

  /** Centres the view on the minimap's point `px` (the minimap's x is the base scale's). */
  private centreOn(px: number): void {
    this.fitted = false;
    select(this.canvas).call(this.zoom.translateTo, px, 0, [this.width / 2, 0]);
  }
}
