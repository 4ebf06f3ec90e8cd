/**
 * The Timeline page's own figures, on the browser's performance timeline where devtools, the bench and the UI tests
 * read them (`performance.getEntriesByName`): each draw (`timeline:frame`), and for each timeline that arrives the
 * time from its message to its first draw (`timeline:data-to-draw`: parse, lay out, the text list, the draw); the
 * page's first one also from its navigation (`timeline:first-draw`: the bundle, the host's query, the message).
 * Bounded: old frames are cleared, each data measure keeps its last entry only.
 */
const FRAME = 'timeline:frame';
const DATA = 'timeline:data';
const DATA_TO_DRAW = 'timeline:data-to-draw';
const FIRST_DRAW = 'timeline:first-draw';
/** Frames kept before the oldest are cleared (a test reads a few dozen). */
const KEEP_FRAMES = 2000;

let frames = 0;
let pending = false;
let first = true;

/** A timeline message arrived at `at` (performance.now() when the page got it). */
export function timelineArrived(at: number): void {
  performance.clearMarks(DATA);
  performance.mark(DATA, { startTime: at });
  pending = true;
}

/**
 * One part of the work between a timeline's message and its first draw, measured as `timeline:<part>` (parse, lay
 * out, the text list), or the page's script's first run (`timeline:script`: its start is when the page's own work
 * began, from the page's navigation): the bench, the UI test and devtools read where the time goes.
 */
export function timelinePart(part: 'script' | 'parse' | 'layout' | 'list', start: number): void {
  const name = `timeline:${part}`;
  performance.clearMeasures(name);
  performance.measure(name, { start, end: performance.now() });
}

/** A draw that started at `start` ended now. */
export function frameDrawn(start: number): void {
  const end = performance.now();
  if (++frames > KEEP_FRAMES) {
    performance.clearMeasures(FRAME);
    frames = 1;
  }
  performance.measure(FRAME, { start, end });
  if (!pending) return;
  pending = false;
  performance.clearMeasures(DATA_TO_DRAW);
  performance.measure(DATA_TO_DRAW, { start: DATA, end });
  if (first) {
    first = false;
    performance.measure(FIRST_DRAW, { start: 0, end });
  }
}
