/**
 * Streams a file as lines (split on LF, a trailing CR dropped) with 1-based
 * line numbers and byte progress; a 500 MB transcript is never held whole.
 * Lines that are not valid UTF-8 are decoded with U+FFFD replacements and
 * flagged so the caller can warn. Depends on node:fs only.
 */
import { createReadStream } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { OcdbError } from '../model';

export interface FileLine {
  /** 1-based line number. */
  lineNo: number;
  text: string;
  /** True when the raw bytes were not valid UTF-8 (invalid sequences became U+FFFD). */
  invalidUtf8: boolean;
  /** True for the last line of the file (nothing, or only an empty line, follows). */
  last: boolean;
  /** Bytes of the file consumed up to and including this line. */
  bytesRead: number;
}

export interface ReadLinesOptions {
  signal?: AbortSignal;
  highWaterMark?: number;
}

function decode(buf: Buffer): { text: string; invalidUtf8: boolean } {
  let end = buf.length;
  if (end > 0 && buf[end - 1] === 0x0d) end--;
  const slice = end === buf.length ? buf : buf.subarray(0, end);
  const invalidUtf8 = !isUtf8(slice);
  return { text: slice.toString('utf8'), invalidUtf8 };
}

export function throwIfAborted(signal: AbortSignal | undefined, file: string): void {
  if (signal?.aborted) throw new OcdbError('Cancelled', `Import of ${file} was cancelled.`, { file });
}

/** Yields the lines of `file` in order. Blank lines are yielded too (callers skip them). */
export async function* readLines(file: string, options: ReadLinesOptions = {}): AsyncGenerator<FileLine> {
  const stream = createReadStream(file, { highWaterMark: options.highWaterMark ?? 1 << 20 });
  let pending: Buffer[] = [];
  let pendingLen = 0;
  let lineNo = 0;
  let consumed = 0;
  // A line is held back one step so that we know whether it is the last one.
  let held: Omit<FileLine, 'last'> | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      throwIfAborted(options.signal, file);
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl < 0) break;
        const piece = chunk.subarray(start, nl);
        const buf = pendingLen > 0 ? Buffer.concat([...pending, piece], pendingLen + piece.length) : piece;
        pending = [];
        pendingLen = 0;
        consumed += nl - start + 1;
        lineNo++;
        if (held) yield { ...held, last: false };
        held = { lineNo, ...decode(buf), bytesRead: consumed };
        start = nl + 1;
      }
      if (start < chunk.length) {
        const rest = chunk.subarray(start);
        pending.push(rest);
        pendingLen += rest.length;
        consumed += rest.length;
      }
    }
    if (pendingLen > 0) {
      lineNo++;
      if (held) yield { ...held, last: false };
      held = { lineNo, ...decode(Buffer.concat(pending, pendingLen)), bytesRead: consumed };
    }
    if (held) yield { ...held, last: true };
  } finally {
    stream.destroy();
  }
}
