/**
 * DebugRun JSON written incrementally: the run's fields, then one checkpoint
 * at a time read from the store, then the ledger and the rest (last the
 * contents of its artifacts, base64 unless text) — the same text
 * as `JSON.stringify(store.exportRun(runId), null, 2)`, with memory
 * independent of how long the run is (every checkpoint repeats the
 * conversation, so the whole export can be far larger than a JS string may
 * be). Used by `ocdb export` and the extension's Export Run. Store contract
 * only.
 */
import { randomUUID } from 'node:crypto';
import type { RunStore } from './runStore';
import { READ_AHEAD_BATCH } from './runReadAhead';

/**
 * The export of `runId` as a sequence of chunks, read from the store as they
 * are asked for; joined by newlines they are the pretty-printed DebugRun (no
 * trailing newline).
 */
export function* runExportChunks(store: RunStore, runId: string): Generator<string, void, undefined> {
  const { toolLedger, artifactRefs, metadata, artifactContents, ...first } = store.exportRunHead(runId);
  const count = store.getRun(runId).checkpointCount;
  // where the checkpoints go in the frame: a string no field of the run holds
  const MARK = `\u0000checkpoints-${randomUUID()}\u0000`;
  // the frame with a marker where the checkpoints go: the key order and indentation of JSON.stringify(run, null, 2)
  const frame = JSON.stringify(
    {
      ...first,
      checkpoints: MARK,
      toolLedger,
      artifactRefs,
      metadata,
      ...(artifactContents ? { artifactContents } : {}),
    },
    null,
    2,
  );
  const marker = JSON.stringify(MARK);
  const at = frame.indexOf(marker);
  const before = frame.slice(0, at);
  const after = frame.slice(at + marker.length);
  if (count === 0) {
    yield `${before}[]${after}`;
    return;
  }
  yield `${before}[`;
  for (let from = 0; from < count; from += READ_AHEAD_BATCH) {
    const to = Math.min(count, from + READ_AHEAD_BATCH);
    // a store over the network reads a batch's rows in a few queries, not a few per checkpoint (the next batch's
    // travel while this one is written out); each item is read and validated once for the run, not once in every
    // checkpoint that repeats it
    store.readAhead?.(runId, from, to - 1, Math.min(count, to + READ_AHEAD_BATCH) - 1);
    const batch = store.exportCheckpoints(runId, from, to);
    for (let i = from; i < to; i++) {
      const text = JSON.stringify(batch[i - from], null, 2).replace(/\n/g, '\n    ');
      yield `    ${text}${i < count - 1 ? ',' : ''}`;
    }
  }
  yield `  ]${after}`;
}

/** Writes the chunks of `runExportChunks` to `write`, one call each. */
export function writeRunExport(store: RunStore, runId: string, write: (chunk: string) => void): void {
  for (const chunk of runExportChunks(store, runId)) write(chunk);
}
