/**
 * The Timeline as it travels to its pages (the VS Code panel's message, `ocdb view`'s embedded JSON): each run's
 * calls as parallel columns — numbers and codes, their names once each — instead of an object per call. A
 * 20,000-checkpoint run holds some 12,000 calls: as objects their keys alone were most of the message, and the
 * page checked each object field by field before it could draw. Here the page's check is of the envelope, each
 * column's type and every column's length (a loop per column, not a schema per call); `unpackTimeline` then builds
 * the calls the page draws. A live run's deltas (timelineDelta.ts) travel the same way. And the panel's messages both
 * ways. Pure, browser-safe.
 */
import * as z from 'zod/mini';
import {
  TIMELINE_SIDE_EFFECTS,
  TimelineRunSchema,
  type Timeline,
  type TimelineCall,
  type TimelineRun,
} from './timeline';
import type { TimelineDelta, TimelineLaneDelta } from './timelineDelta';

const CALL_STATES = ['running', 'success', 'error', 'cancelled'] as const;
/** `flags` bits. */
const CAPTURED = 1;
const EDITED = 2;

type Column<T> = T[];

function isColumnOf(test: (v: unknown) => boolean): (v: unknown) => boolean {
  return (v) => {
    if (!Array.isArray(v)) return false;
    for (const item of v) if (!test(item)) return false;
    return true;
  };
}
const isNumber = (v: unknown) => typeof v === 'number';
const isInt = (v: unknown) => Number.isInteger(v);
const orNull = (test: (v: unknown) => boolean) => (v: unknown) => v === null || test(v);

/** A column checked by one loop (zod's per-item schema costs more than the page's whole layout at this size). */
function column<T>(what: string, test: (v: unknown) => boolean) {
  return z.custom<Column<T>>(isColumnOf(test), { error: `expected a column of ${what}` });
}

const WireCallsSchema = z
  .object({
    /** Distinct call names (tool names, "model call"), indexed by `name`. */
    names: column<string>('strings', (v) => typeof v === 'string'),
    /** 0 a model call, 1 a tool call. */
    kind: column<number>('integers', isInt),
    name: column<number>('integers', isInt),
    cp: column<number>('integers', isInt),
    /** null: the call has not ended. */
    endCp: column<number | null>('integers or null', orNull(isInt)),
    step: column<number>('integers', isInt),
    start: column<number>('numbers', isNumber),
    end: column<number | null>('numbers or null', orNull(isNumber)),
    toolCallId: column<string | null>(
      'strings or null',
      orNull((v) => typeof v === 'string'),
    ),
    /** Index in TIMELINE_SIDE_EFFECTS, -1 none. */
    sideEffect: column<number>('integers', isInt),
    /** Index in CALL_STATES, -1 none. */
    state: column<number>('integers', isInt),
    tokensIn: column<number | null>('numbers or null', orNull(isNumber)),
    tokensOut: column<number | null>('numbers or null', orNull(isNumber)),
    /** Bits: 1 captured, 2 edited live. */
    flags: column<number>('integers', isInt),
    /** A live debugger's hold before the call (ms), null none; absent when no call of the run was held. */
    held: z.optional(column<number | null>('numbers or null', orNull(isNumber))),
  })
  .check(
    z.refine(
      (c) =>
        Object.entries(c).every(
          ([key, col]) => key === 'names' || col === undefined || (col as unknown[]).length === c.kind.length,
        ),
      { error: 'the call columns differ in length' },
    ),
    z.refine((c) => c.name.every((i) => i >= 0 && i < c.names.length), { error: 'a call names no known name' }),
  );
export type WireCalls = z.infer<typeof WireCallsSchema>;

const WireRunSchema = z.extend(z.omit(TimelineRunSchema, { calls: true, cpAt: true, cpStep: true, cpBoundary: true }), {
  cpAt: column<number>('numbers', isNumber),
  cpStep: column<number>('numbers', isNumber),
  cpBoundary: column<number>('numbers', isNumber),
  calls: WireCallsSchema,
});

export const TimelineWireSchema = z.object({ rootRunId: z.string(), runs: z.array(WireRunSchema) });
export type TimelineWire = z.infer<typeof TimelineWireSchema>;

function callColumns(calls: readonly TimelineCall[]): WireCalls {
  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const c: WireCalls = {
    names,
    kind: [],
    name: [],
    cp: [],
    endCp: [],
    step: [],
    start: [],
    end: [],
    toolCallId: [],
    sideEffect: [],
    state: [],
    tokensIn: [],
    tokensOut: [],
    flags: [],
  };
  const held: (number | null)[] = [];
  for (const call of calls) {
    let ni = nameIndex.get(call.name);
    if (ni === undefined) {
      ni = names.push(call.name) - 1;
      nameIndex.set(call.name, ni);
    }
    c.kind.push(call.kind === 'model' ? 0 : 1);
    c.name.push(ni);
    c.cp.push(call.cp);
    c.endCp.push(call.endCp ?? null);
    c.step.push(call.step);
    c.start.push(call.start);
    c.end.push(call.end ?? null);
    c.toolCallId.push(call.toolCallId ?? null);
    c.sideEffect.push(call.sideEffect ? TIMELINE_SIDE_EFFECTS.indexOf(call.sideEffect) : -1);
    c.state.push(call.state ? CALL_STATES.indexOf(call.state) : -1);
    c.tokensIn.push(call.tokensIn ?? null);
    c.tokensOut.push(call.tokensOut ?? null);
    c.flags.push((call.captured ? CAPTURED : 0) | (call.edited ? EDITED : 0));
    held.push(call.held ?? null);
  }
  if (held.some((h) => h !== null)) c.held = held;
  return c;
}

/** The Timeline in its travelling form (the host's side). */
export function packTimeline(timeline: Timeline): TimelineWire {
  return {
    rootRunId: timeline.rootRunId,
    runs: timeline.runs.map((run) => ({ ...run, calls: callColumns(run.calls) })),
  };
}

function callsOf(c: WireCalls): TimelineCall[] {
  const calls: TimelineCall[] = new Array<TimelineCall>(c.kind.length);
  for (let i = 0; i < c.kind.length; i++) {
    const call: TimelineCall = {
      kind: c.kind[i] === 0 ? 'model' : 'tool',
      cp: c.cp[i] as number,
      step: c.step[i] as number,
      start: c.start[i] as number,
      name: c.names[c.name[i] as number] as string,
    };
    const endCp = c.endCp[i];
    if (endCp !== null && endCp !== undefined) call.endCp = endCp;
    const end = c.end[i];
    if (end !== null && end !== undefined) call.end = end;
    const id = c.toolCallId[i];
    if (id !== null && id !== undefined) call.toolCallId = id;
    const sideEffect = TIMELINE_SIDE_EFFECTS[c.sideEffect[i] as number];
    if (sideEffect) call.sideEffect = sideEffect;
    const state = CALL_STATES[c.state[i] as number];
    if (state) call.state = state;
    const tokensIn = c.tokensIn[i];
    if (tokensIn !== null && tokensIn !== undefined) call.tokensIn = tokensIn;
    const tokensOut = c.tokensOut[i];
    if (tokensOut !== null && tokensOut !== undefined) call.tokensOut = tokensOut;
    const flags = c.flags[i] as number;
    if (flags & CAPTURED) call.captured = true;
    if (flags & EDITED) call.edited = true;
    const held = c.held?.[i];
    if (held !== null && held !== undefined) call.held = held;
    calls[i] = call;
  }
  return calls;
}

/** The Timeline the pages draw, from its checked travelling form. */
export function unpackTimeline(wire: TimelineWire): Timeline {
  return {
    rootRunId: wire.rootRunId,
    runs: wire.runs.map((run): TimelineRun => ({ ...run, calls: callsOf(run.calls) })),
  };
}

/** A lane's header as a delta carries it (TimelineRunHeader). */
const WireHeaderSchema = z.omit(TimelineRunSchema, {
  calls: true,
  cpAt: true,
  cpStep: true,
  cpBoundary: true,
  liveEdits: true,
});

const WireLaneDeltaSchema = z.object({
  header: WireHeaderSchema,
  from: z.int().check(z.nonnegative()),
  cpAt: column<number>('numbers', isNumber),
  cpStep: column<number>('numbers', isNumber),
  cpBoundary: column<number>('numbers', isNumber),
  removed: column<number>('integers', isInt),
  calls: WireCallsSchema,
  liveEdits: column<number>('integers', isInt),
});

/** A TimelineDelta as it travels: lanes sent whole and calls in the columns above. */
export const TimelineDeltaWireSchema = z.object({
  rootRunId: z.string(),
  order: z.array(z.string()),
  runs: z.array(WireRunSchema),
  lanes: z.array(WireLaneDeltaSchema),
});
export type TimelineDeltaWire = z.infer<typeof TimelineDeltaWireSchema>;

/** A delta in its travelling form (the host's side). */
export function packTimelineDelta(delta: TimelineDelta): TimelineDeltaWire {
  return {
    rootRunId: delta.rootRunId,
    order: delta.order,
    runs: delta.runs.map((run) => ({ ...run, calls: callColumns(run.calls) })),
    lanes: delta.lanes.map((lane) => ({ ...lane, calls: callColumns(lane.calls) })),
  };
}

/** The delta the page applies, from its checked travelling form. */
export function unpackTimelineDelta(wire: TimelineDeltaWire): TimelineDelta {
  return {
    rootRunId: wire.rootRunId,
    order: wire.order,
    runs: wire.runs.map((run): TimelineRun => ({ ...run, calls: callsOf(run.calls) })),
    lanes: wire.lanes.map((lane): TimelineLaneDelta => ({ ...lane, calls: callsOf(lane.calls) })),
  };
}

const PositionSchema = z.object({ runId: z.string(), index: z.int() });

/**
 * The host's part of opening a panel, for the figures of the open: when the command started and when the panel
 * had been asked for (epoch ms, the page's clock is the same machine's), how long the summary query and its packing
 * took, and when the timeline was posted (epoch ms).
 */
const TimelineOpeningSchema = z.object({
  commandAt: z.number(),
  panelAt: z.number(),
  queryMs: z.number(),
  packMs: z.number(),
  postedAt: z.number(),
});
export type TimelineOpening = z.infer<typeof TimelineOpeningSchema>;

/** What the VS Code host posts to the Timeline panel. */
export const TimelineHostMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('timeline'),
    timeline: TimelineWireSchema,
    /** How long the host's summary query took (ms): the page shows it to tests and devtools. */
    queryMs: z.optional(z.number()),
    /** Where the host's part of opening the panel went: the page shows it to tests and devtools. */
    opening: z.optional(TimelineOpeningSchema),
  }),
  /** What changed since the timeline (or delta) before: a run being recorded grew, a fork appeared, a run ended. */
  z.object({ type: z.literal('delta'), delta: TimelineDeltaWireSchema, queryMs: z.optional(z.number()) }),
  z.object({ type: z.literal('position'), position: z.optional(PositionSchema) }),
  z.object({ type: z.literal('details'), requestId: z.int(), text: z.optional(z.string()) }),
]);
export type TimelineHostMessage = z.infer<typeof TimelineHostMessageSchema>;

/** What the Timeline panel posts to its host. */
export const TimelinePageMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** A delta did not fit what the page holds: it asks for the whole timeline. */
  z.object({ type: z.literal('resync') }),
  z.object({ type: z.literal('activate'), runId: z.string(), index: z.int().check(z.nonnegative()) }),
  z.object({ type: z.literal('details'), requestId: z.int(), runId: z.string(), toolCallId: z.string() }),
]);
export type TimelinePageMessage = z.infer<typeof TimelinePageMessageSchema>;
