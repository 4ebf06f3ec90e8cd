/**
 * The rows of a Claude Agent SDK session as stored by open-agent-kernel (seed 002 §4.4: `oak_session_entries`,
 * whose `entry` field holds the whole SessionStoreEntry, i.e. the SDK message itself) fed to the Claude Code
 * transcript parser: a JSONL transcript as before, or a JSON array / JSONL export of such rows. A row's `entry`
 * (an object, or its JSON text) is unwrapped; a numeric `timestamp` (or the row's `createdAt`) becomes the ISO
 * string the transcript format has — the seed's lesson that stored timestamps are numbers. Reads the file only.
 */
import { readJsonRecords } from '../jsonRecords';
import type { JsonLinesOptions } from '../jsonLines';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A stored row as a transcript entry (anything else is returned as it is, for the parser to judge). */
export function sessionEntryOf(value: unknown): unknown {
  if (!isRecord(value)) return value;
  let entry: unknown = value;
  if (!('type' in value) && 'entry' in value) {
    entry = value.entry;
    if (typeof entry === 'string') {
      try {
        entry = JSON.parse(entry);
      } catch {
        return value; // the parser names the row
      }
    }
  }
  if (!isRecord(entry)) return entry;
  const at =
    typeof entry.timestamp === 'number' ? entry.timestamp : entry.timestamp === undefined ? value.createdAt : undefined;
  if (typeof at === 'number' && Number.isFinite(at)) return { ...entry, timestamp: new Date(at).toISOString() };
  return entry;
}

/** Each entry of a transcript file with its line number (a JSON array: its position, from 1) and location. */
export async function* readSessionRows(
  file: string,
  options: JsonLinesOptions,
): AsyncGenerator<{ lineNo: number; value: unknown; where: string; start?: number; length?: number }> {
  let n = 0;
  for await (const rec of readJsonRecords(file, { ...options, spread: true })) {
    n++;
    const m = /^line (\d+)$/.exec(rec.where);
    const lineNo = m ? Number(m[1]) : n;
    const at = rec.start !== undefined && rec.length !== undefined ? { start: rec.start, length: rec.length } : {};
    yield { lineNo, value: sessionEntryOf(rec.value), where: `${file}: ${rec.where || `row ${n}`}`, ...at };
  }
}
