/**
 * Streams a file as lines (split on LF, a trailing CR dropped) with 1-based
 * line numbers and byte progress; a 500 MB transcript is never held whole.
 * Lines that are not valid UTF-8 are decoded with U+FFFD replacements and
 * flagged so the caller can warn. Depends on node:fs only.
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { OcdbError } from '../model';

export interface FileLine {
  /** 1-based line number. */
  lineNo: number;
  text: string;
  /** True when the raw bytes were not valid UTF-8 (invalid sequences became U+FFFD). */
  invalidUtf8: boolean;
  /**
   * The bytes `text` was decoded from (a trailing CR dropped): its UTF-8 exactly unless `invalidUtf8`, so a
   * caller hashing the text may hash these instead, without encoding it again.
   */
  bytes: Buffer;
  /** True for the last line of the file (nothing, or only an empty line, follows). */
  last: boolean;
  /** Bytes of the file consumed up to and including this line. */
  bytesRead: number;
  /** Where the line's bytes start in the file, and how many there are (without the LF): to read it again. */
  start: number;
  length: number;
}

export interface ReadLinesOptions {
  signal?: AbortSignal;
  highWaterMark?: number;
  /** Fed every chunk of the file's bytes as read (e.g. to hash what was read). */
  onChunk?: (chunk: Buffer) => void;
}

function decode(buf: Buffer): { text: string; invalidUtf8: boolean; bytes: Buffer } {
  let end = buf.length;
  if (end > 0 && buf[end - 1] === 0x0d) end--;
  const slice = end === buf.length ? buf : buf.subarray(0, end);
  const invalidUtf8 = !isUtf8(slice);
  return { text: slice.toString('utf8'), invalidUtf8, bytes: slice };
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
  let lineStart = 0;
  // A line is held back one step so that we know whether it is the last one.
  let held: Omit<FileLine, 'last'> | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      throwIfAborted(options.signal, file);
      options.onChunk?.(chunk);
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
        held = { lineNo, ...decode(buf), bytesRead: consumed, start: lineStart, length: buf.length };
        lineStart = consumed;
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
      held = {
        lineNo,
        ...decode(Buffer.concat(pending, pendingLen)),
        bytesRead: consumed,
        start: lineStart,
        length: pendingLen,
      };
    }
    if (held) yield { ...held, last: true };
  } finally {
    stream.destroy();
  }
}

/** How much of the file a LineSource reads at once: the lines a run takes are read again mostly in file order. */
const WINDOW_BYTES = 1 << 20;

/**
 * The lines of a file read again by where `readLines` found them (start, length), synchronously: what lets an
 * importer keep a line's position instead of its content until it writes it. Decoded as `readLines` decodes
 * (a trailing CR dropped, a BOM at the file's start dropped). Reads a window of the file at a time (1 MiB, or the
 * line), not each line by a read of its own. Close it when done.
 */
export class LineSource {
  private fd: number | undefined;
  private window: { start: number; bytes: Buffer } | undefined;
  constructor(readonly file: string) {}

  /** The line at `start` (`length` bytes), decoded. */
  text(start: number, length: number): string {
    return this.decoded(this.bytes(start, length), start);
  }

  /**
   * The part of the line at `start` (`length` bytes) before the first occurrence of `marker`, decoded (the rest is
   * not); undefined when the line does not hold it.
   */
  textBefore(start: number, length: number, marker: Buffer): string | undefined {
    const line = this.bytes(start, length);
    const cut = line.indexOf(marker);
    return cut < 0 ? undefined : this.decoded(line.subarray(0, cut), start);
  }

  private decoded(bytes: Buffer, start: number): string {
    const { text } = decode(bytes);
    return start === 0 ? text.replace(/^\uFEFF/, '') : text;
  }

  /** The bytes of the line at `start` (`length` bytes), from the window read (read first if it lies outside). */
  private bytes(start: number, length: number): Buffer {
    let w = this.window;
    if (!w || start < w.start || start + length > w.start + w.bytes.length) {
      w = this.window = { start, bytes: this.read(start, Math.max(length, WINDOW_BYTES)) };
    }
    if (start + length > w.start + w.bytes.length) {
      throw new OcdbError(
        'ImportFailed',
        `${this.file} got shorter while it was imported (${w.start + w.bytes.length} bytes); nothing of it was imported. Import it again.`,
        { file: this.file },
      );
    }
    return w.bytes.subarray(start - w.start, start - w.start + length);
  }

  /** Up to `length` bytes from `start` (fewer at the end of the file). */
  private read(start: number, length: number): Buffer {
    this.fd ??= openSync(this.file, 'r');
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, buf, done, length - done, start + done);
      if (n === 0) break;
      done += n;
    }
    return buf.subarray(0, done);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.window = undefined;
  }
}
