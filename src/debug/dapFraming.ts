/**
 * Reading DAP frames (`Content-Length: N\r\n\r\n<N bytes of JSON>`) from a client that may lie or flood: the
 * adapter never goes deaf. In place of @vscode/debugadapter's reader, which concatenates every chunk onto all it
 * holds (quadratic on a large message) and waits forever for bytes a lying `Content-Length` promised:
 *
 * - chunks are kept in a list and joined once, when a frame is complete (linear);
 * - a frame larger than `maxBytes` is not kept: its first bytes are (to name the request), the rest is skipped as it
 *   arrives, and it is refused with a clear message;
 * - a `Content-Length` that lies is found: a longer one by the next frame's header showing up inside the body (or
 *   the client going quiet) after bytes that are a whole JSON message; a shorter one by a body that is not JSON. The
 *   reader goes on at the next header. Pure: no DAP, no I/O.
 */

/** The largest request the adapter reads: far above any edit or expression, far below what would stall it. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** What the reader could not take, for the session to answer (an error response when the request is known). */
export interface RefusedFrame {
  /** The request's `seq` and `command` when its first bytes name them. */
  seq?: number;
  command?: string;
  message: string;
}

export interface FrameReaderOptions {
  maxBytes: number;
  onMessage(message: unknown): void;
  onRefused(refused: RefusedFrame): void;
  /** How long a body may stall before what is there is tried as the whole message (ms). */
  stallMs?: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const HEADER_NAME = Buffer.from('Content-Length:');
/** A header longer than this is garbage: what is before the last `Content-Length:` is dropped. */
const MAX_HEADER = 8192;
/** How much of a refused frame is kept to name its request. */
const KEPT_PREFIX = 4096;

export class DapFrameReader {
  private header: Buffer = Buffer.alloc(0);
  /** The body being read: its length as announced, the chunks so far and their total. */
  private body: { length: number; chunks: Buffer[]; have: number; prefix: Buffer; skipping: boolean } | undefined;
  private stall: NodeJS.Timeout | undefined;

  constructor(private readonly options: FrameReaderOptions) {}

  /** Takes the next bytes from the client. */
  push(data: Buffer): void {
    let rest: Buffer | undefined = data;
    while (rest && rest.length > 0) rest = this.body ? this.readBody(rest) : this.readHeader(rest);
    this.armStall();
  }

  /** Stops the stall timer (the connection closed). */
  close(): void {
    if (this.stall) clearTimeout(this.stall);
    this.stall = undefined;
  }

  private readHeader(data: Buffer): Buffer | undefined {
    this.header = this.header.length === 0 ? data : Buffer.concat([this.header, data]);
    const end = this.header.indexOf(HEADER_END);
    if (end < 0) {
      if (this.header.length > MAX_HEADER) {
        const name = this.header.lastIndexOf(HEADER_NAME);
        this.header = name > 0 ? this.header.subarray(name) : this.header.subarray(-HEADER_NAME.length);
      }
      return undefined;
    }
    const text = this.header.subarray(0, end).toString('latin1');
    const rest = this.header.subarray(end + HEADER_END.length);
    this.header = Buffer.alloc(0);
    const m = /Content-Length:\s*(\d{1,15})\s*$/im.exec(text.slice(text.lastIndexOf('Content-Length:')));
    if (!m) {
      this.options.onRefused({ message: 'A message without a valid Content-Length header was ignored.' });
      return rest;
    }
    const length = Number(m[1]);
    this.body = { length, chunks: [], have: 0, prefix: Buffer.alloc(0), skipping: length > this.options.maxBytes };
    return rest;
  }

  private readBody(data: Buffer): Buffer | undefined {
    const body = this.body as NonNullable<typeof this.body>;
    const take = Math.min(data.length, body.length - body.have);
    const part = data.subarray(0, take);
    if (body.skipping) {
      if (body.prefix.length < KEPT_PREFIX) {
        body.prefix = Buffer.concat([body.prefix, part.subarray(0, KEPT_PREFIX - body.prefix.length)]);
      }
    } else {
      // the next frame's header inside this body: the announced length was longer than the message
      const at = part.indexOf(HEADER_NAME);
      if (at >= 0) {
        const before = Buffer.concat([...body.chunks, part.subarray(0, at)]);
        const message = parseJson(before);
        if (message !== undefined) {
          this.body = undefined;
          this.lied(message, body.length, before.length);
          return data.subarray(at);
        }
      }
      body.chunks.push(part);
    }
    body.have += take;
    if (body.have < body.length) return undefined;
    this.body = undefined;
    if (body.skipping) this.refuseLarge(body.prefix, body.length);
    else this.finish(Buffer.concat(body.chunks));
    return data.subarray(take);
  }

  private finish(bytes: Buffer): void {
    const message = parseJson(bytes);
    if (message !== undefined) {
      this.options.onMessage(message);
      return;
    }
    // shorter than announced, or not JSON: refuse it; what follows is read from its next header
    const named = nameOf(bytes);
    this.options.onRefused({
      ...named,
      message: `ignored a message that could not be read (${bytes.length} bytes, as its Content-Length says, that are not JSON); the session goes on.`,
    });
    const next = bytes.indexOf(HEADER_NAME);
    if (next >= 0) this.push(bytes.subarray(next));
  }

  /** A message read at its real length: answered as usual, the client told its Content-Length was wrong. */
  private lied(message: unknown, announced: number, actual: number): void {
    this.options.onRefused({
      message: `A message announced ${announced} bytes (Content-Length) but was ${actual}; it was read as ${actual}.`,
    });
    this.options.onMessage(message);
  }

  private refuseLarge(prefix: Buffer, length: number): void {
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 2 : 0)} MB`;
    this.options.onRefused({
      ...nameOf(prefix),
      message: `The request is ${mb(length)}, more than this debugger takes (${mb(this.options.maxBytes)}); it was not read.`,
    });
  }

  /** A body that stalls short of its announced length is tried as the whole message: a client waiting for an answer. */
  private armStall(): void {
    if (this.stall) clearTimeout(this.stall);
    this.stall = undefined;
    const body = this.body;
    if (!body || body.skipping || body.have === 0) return;
    this.stall = setTimeout(() => {
      this.stall = undefined;
      if (this.body !== body) return;
      const bytes = Buffer.concat(body.chunks);
      const message = parseJson(bytes);
      if (message === undefined) return;
      this.body = undefined;
      this.lied(message, body.length, bytes.length);
    }, this.options.stallMs ?? 500);
    this.stall.unref();
  }
}

function parseJson(bytes: Buffer): unknown {
  const text = bytes.toString('utf8').trim();
  if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The `seq` and `command` a request's first bytes name, when they do. */
function nameOf(prefix: Buffer): { seq?: number; command?: string } {
  const text = prefix.toString('utf8');
  const seq = /"seq"\s*:\s*(\d{1,15})/.exec(text)?.[1];
  const command = /"command"\s*:\s*"([A-Za-z]{1,64})"/.exec(text)?.[1];
  return { ...(seq ? { seq: Number(seq) } : {}), ...(command ? { command } : {}) };
}
