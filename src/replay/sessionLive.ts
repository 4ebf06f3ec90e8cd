/**
 * Whether an imported session is still being written ("live"): its file grew within the last SESSION_LIVE_MS. A
 * coding agent appends to its session file at every message and tool result, so a file quiet for that long has
 * stopped growing (or waits on a long tool): the mark goes. One rule for the sessions tree and the transcript's
 * header. Reads the file's modification time only.
 */
import * as fs from 'node:fs';

/** How long after its last write a session file still counts as being written. */
export const SESSION_LIVE_MS = 60_000;

/** True when a file last written at `modifiedAt` is still being written at `now`. */
export function isLiveAt(modifiedAt: number, now: number): boolean {
  return now - modifiedAt < SESSION_LIVE_MS && modifiedAt <= now + SESSION_LIVE_MS;
}

/** The file an imported run was read from (`metadata.source.file`), if any. */
export function sourceFileOf(run: { metadata: Record<string, unknown> }): string | undefined {
  const source = run.metadata.source;
  if (typeof source !== 'object' || source === null || !('file' in source)) return undefined;
  return typeof source.file === 'string' ? source.file : undefined;
}

/** When an imported run's source file stops counting as written (undefined: not live now, or not imported). */
export function liveUntil(run: { metadata: Record<string, unknown> }, now = Date.now()): number | undefined {
  const file = sourceFileOf(run);
  if (file === undefined) return undefined;
  let modifiedAt: number;
  try {
    modifiedAt = fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
  return isLiveAt(modifiedAt, now) ? modifiedAt + SESSION_LIVE_MS : undefined;
}
