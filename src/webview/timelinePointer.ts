/**
 * Where the Timeline's pointer is, in its layout: the bar under a point of the canvas (a few pixels of slack, so a
 * bar under a pixel wide can be hovered), whether a point is on a lane's fold mark, and the point a bar is drawn at
 * (what the UI tests click). Pure geometry over the layout and the x scale; the page gives canvas coordinates.
 */
import type { ScaleLinear } from 'd3-scale';
import type { BarRef } from './timelineKeys';
import { LANE, LANE_HEIGHT, barAt, barOfCheckpoint, type Layout } from './timelineLayout';
import { RULER, laneTop } from './timelineScene';

/** The lane and bar at canvas point (`px`, `py`), if any. */
export function barUnder(layout: Layout, x: ScaleLinear<number, number>, px: number, py: number): BarRef | undefined {
  const li = Math.floor((py - RULER) / LANE_HEIGHT);
  const lane = layout.lanes[li];
  if (!lane) return undefined;
  const inLane = py - laneTop(li);
  if (inLane < LANE.label - 2 || inLane > LANE.label + LANE.track + LANE.tokens) return undefined;
  const bar = barAt(lane, x.invert(px), Math.abs(x.invert(px + 3) - x.invert(px)));
  return bar === undefined ? undefined : { lane: li, bar };
}

/** The run whose fold mark (left of its name, on its label line) is at canvas point (`px`, `py`), if any. */
export function foldAt(layout: Layout, px: number, py: number): string | undefined {
  const li = Math.floor((py - RULER) / LANE_HEIGHT);
  const lane = layout.lanes[li];
  if (!lane?.hasChildren || py - laneTop(li) >= LANE.label - 2 || px >= 4 + lane.depth * 12 + 12) return undefined;
  return lane.run.runId;
}

/** The canvas point at the middle of the bar holding checkpoint `cp` of `runId`, as far as it is in view. */
export function barCentre(
  layout: Layout,
  x: ScaleLinear<number, number>,
  width: number,
  runId: string,
  cp: number,
): { x: number; y: number } | undefined {
  const li = layout.lanes.findIndex((l) => l.run.runId === runId);
  const lane = layout.lanes[li];
  const bi = lane ? barOfCheckpoint(lane, cp) : undefined;
  const bar = bi === undefined ? undefined : lane?.bars[bi];
  if (!bar) return undefined;
  const px = (Math.max(x(bar.x0), 0) + Math.min(x(bar.x1), width)) / 2;
  return { x: px, y: laneTop(li) + LANE.label + (bar.call.kind === 'tool' ? LANE.track * 0.65 : LANE.track * 0.35) };
}
