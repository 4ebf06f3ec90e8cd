/**
 * What every format whose file only grows (a coding agent's JSON Lines session) needs to re-import it from where its
 * last import stopped, whatever the format: the resume point a run keeps in `metadata.source.tail` (its generic
 * fields, parsed with zod: the byte offset and line to map again from, the checkpoints kept, the digest chain and
 * the run's clock there, the SHA-256 state of the bytes read, and hashes of the file's first bytes and of a window
 * before the old end), the checks that prove the bytes before the old end unchanged, and the new complete lines
 * after it (a last line still being written is left for the next import). Each format keeps its mapper's own state
 * beside these fields and decides what it cannot continue (`fallback`: the file is then read whole, as a first
 * import reads it). Reads files; writes nothing.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { z } from 'zod';
import { assertJsonDepth } from '../model';
import type { RunSummary } from '../store';
import type { ResumeMarks, StreamedResume } from './planDigest';
import type { PlanOp } from './runPlan';
import { ResumableSha256, type Sha256State } from './resumableSha256';

/** How many of the file's first bytes are checked unchanged, and of the last ones read. */
export const CHECKED_BYTES = 4096;

export type TailOutcome =
  /** Not continued from the kept tail: read the file whole (`why` says what stood in the way). */
  | { kind: 'fallback'; why: string }
  /** The bytes imported, unchanged, or only a line still being written after them. */
  | { kind: 'same'; runId: string; partialLine: boolean }
  /** Continued: `readFrom` is the old end, where the new lines were read from. */
  | { kind: 'continued'; summary: RunSummary; appended: number; readFrom: number };

/** The fields every kept tail has (`FileTail`); a format adds its mapper's state beside them. */
export const FileTailSchema = z.looseObject({
  v: z.literal(1),
  /** The first byte of the lines to map again, and that line's number. */
  at: z.number().int().nonnegative(),
  atLine: z.number().int().positive(),
  /** The checkpoints the run keeps (the state before `at` is the store's at the last of them). */
  keep: z.number().int().positive(),
  /** The run's digest chain there (planDigest.ts `DigestChain`) and its resume marks. */
  link: z.string(),
  marks: z.looseObject({}),
  /** The run's clock there. */
  lastAt: z.number(),
  /** SHA-256 state of every byte read (`bytes` of the source). */
  sha: z.object({ saved: z.string(), length: z.number().int().nonnegative() }),
  /** sha256 of the file's first `head.bytes` bytes, and of the bytes from `window.from` to the end read. */
  head: z.object({ bytes: z.number().int().nonnegative(), sha256: z.string() }),
  window: z.object({ from: z.number().int().nonnegative(), sha256: z.string() }),
});

export interface FileTail {
  v: 1;
  at: number;
  atLine: number;
  keep: number;
  link: string;
  marks: ResumeMarks;
  lastAt: number;
  sha: Sha256State;
  head: { bytes: number; sha256: string };
  window: { from: number; sha256: string };
}

/** What `metadata.source` of a run with a kept tail holds (a format's own fields pass through). */
export function sourceSchema<T extends z.ZodType>(format: string, tail: T) {
  return z.looseObject({
    format: z.literal(format),
    file: z.string(),
    bytes: z.number().int().nonnegative(),
    /** The last line read that held a record (a format may not count them). */
    lines: z.number().int().nonnegative().optional(),
    tail,
  });
}

/** Reads `length` bytes from `start` (undefined when there are fewer). */
export type ByteRange = (start: number, length: number) => Buffer | undefined;

/** A ByteRange over `file`. */
export function fileRange(file: string): ByteRange {
  return (start, length) => {
    const buf = Buffer.alloc(length);
    const fd = openSync(file, 'r');
    try {
      let done = 0;
      while (done < length) {
        const n = readSync(fd, buf, done, length - done, start + done);
        if (n === 0) return undefined;
        done += n;
      }
    } finally {
      closeSync(fd);
    }
    return buf;
  };
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** The checks of the first bytes of a file (`bytes` read) and of the window before its end from `from`. */
export function byteChecks(
  read: ByteRange,
  bytes: number,
  from: number,
): Pick<FileTail, 'head' | 'window'> | undefined {
  const headBytes = Math.min(CHECKED_BYTES, bytes);
  const windowFrom = Math.max(0, Math.min(from, bytes - CHECKED_BYTES));
  const head = read(0, headBytes);
  const window = read(windowFrom, bytes - windowFrom);
  if (head === undefined || window === undefined) return undefined;
  return { head: { bytes: headBytes, sha256: sha256(head) }, window: { from: windowFrom, sha256: sha256(window) } };
}

/** Thrown while the new lines are mapped when one turns out to need the whole file (the transaction keeps nothing). */
export class NeedsWholeRead extends Error {}

/** A complete line after the old end (or in the window): where it starts, its bytes without the LF, its number. */
export interface TailLine {
  start: number;
  bytes: Buffer;
  lineNo: number;
}

/** A grown file whose bytes before the kept end read as they did, with what came after them. */
export interface GrownFile {
  /** The file's first bytes (up to CHECKED_BYTES) and its bytes from `tail.window.from` to its end, as read. */
  head: Buffer;
  window: Buffer;
  /** The new complete lines, each LF-ended UTF-8 without CR, numbered; blank ones too. */
  fresh: TailLine[];
  /** The file's size when it was read. */
  size: number;
  /** The bytes the run will have been read to: the old end and the new complete lines. */
  bytes: number;
  /** The number of the line after the last one read. */
  nextLine: number;
  /** The hash of every byte up to `bytes`, fed (its state and digest give the run's new source facts). */
  sha: ResumableSha256;
  /** The lines from `from` to the old end, in the window (`from` at a line start at or after `tail.window.from`). */
  linesFrom(from: number, fromLine: number): TailLine[];
  /** A ByteRange over what was read (the checks of the next tail are taken from it). */
  inMemory: ByteRange;
}

export type GrownRead =
  { kind: 'fallback'; why: string } | { kind: 'same'; partialLine: boolean } | { kind: 'grown'; file: GrownFile };

/**
 * Checks `file` against the tail its run kept (`old`: the bytes read then) — the file's first bytes and the window
 * before the old end unchanged, the kept hash loads — and reads its new complete lines, feeding them to the hash.
 * One read of the head and one of the window to the end, through `read`.
 */
export async function readGrownFile(
  file: string,
  old: { bytes: number },
  tail: FileTail,
  read: ByteRange,
): Promise<GrownRead> {
  // the one wait (the hash's WebAssembly), before the store is read: the rest runs in one turn
  const sha = await ResumableSha256.create();
  const fallback = (why: string): GrownRead => ({ kind: 'fallback', why });
  const size = statSync(file).size;
  if (size < old.bytes) return fallback('the file is shorter');
  if (tail.window.from > old.bytes || tail.at > old.bytes || tail.at < tail.window.from)
    return fallback('no tail kept for this file');
  const head = read(0, Math.min(CHECKED_BYTES, size));
  const window = read(tail.window.from, size - tail.window.from);
  if (!head || !window) return fallback('the file is shorter');
  if (sha256(head.subarray(0, tail.head.bytes)) !== tail.head.sha256) return fallback('its first bytes changed');
  const wf = tail.window.from;
  const oldInWindow = old.bytes - wf;
  if (sha256(window.subarray(0, oldInWindow)) !== tail.window.sha256)
    return fallback('the bytes before its end changed');
  const added = window.subarray(oldInWindow);
  const complete = added.lastIndexOf(0x0a) + 1;
  if (complete === 0) return { kind: 'same', partialLine: added.length > 0 };
  try {
    sha.resume(tail.sha);
  } catch (e) {
    return fallback(`its kept hash does not load (${e instanceof Error ? e.message : String(e)})`);
  }
  // the bytes after the kept hash's last whole block, up to the old end: in the window read
  if (tail.sha.length < wf || tail.sha.length > old.bytes) return fallback('no tail kept for this file');
  sha.update(window.subarray(tail.sha.length - wf, oldInWindow));
  const linesFrom = (from: number, fromLine: number, to = old.bytes): TailLine[] => {
    const lines: TailLine[] = [];
    let n = fromLine;
    for (let p = from; p < to; n++) {
      const nl = window.indexOf(0x0a, p - wf) + wf;
      if (nl < wf) break;
      lines.push({ start: p, bytes: window.subarray(p - wf, nl - wf), lineNo: n });
      p = nl + 1;
    }
    return lines;
  };
  let lineNo = tail.atLine;
  for (let p = tail.at; p < old.bytes; p++) if (window[p - wf] === 0x0a) lineNo++;
  const fresh: TailLine[] = [];
  for (let p = 0; p < complete;) {
    const nl = added.indexOf(0x0a, p);
    const bytes = added.subarray(p, nl);
    fresh.push({ start: old.bytes + p, bytes, lineNo });
    if (bytes.at(-1) === 0x0d || !isUtf8(bytes)) return fallback(`line ${lineNo} is not LF-ended UTF-8`);
    lineNo++;
    p = nl + 1;
  }
  sha.update(added.subarray(0, complete));
  const inMemory: ByteRange = (start, length) =>
    start + length <= head.length
      ? head.subarray(start, start + length)
      : start >= wf && start + length <= wf + window.length
        ? window.subarray(start - wf, start - wf + length)
        : undefined;
  return {
    kind: 'grown',
    file: {
      head,
      window,
      fresh,
      size,
      bytes: old.bytes + complete,
      nextLine: lineNo,
      sha,
      linesFrom: (from, fromLine) => linesFrom(from, fromLine),
      inMemory,
    },
  };
}

/**
 * Feeds a whole plan's ops to `resume` (the chain the plan started from) and answers the run's resume facts
 * (growth.ts) and the chain where the op at index `at` starts — where a kept tail takes the run up again. The chain
 * is taken once the plan is whole: a format may still change an op after it was made (a usage set later).
 */
export function chainAt(
  ops: readonly PlanOp[],
  resume: StreamedResume,
  at: number | undefined,
): { resume: { checkpoints: number; digest: string }; chain: ReturnType<StreamedResume['state']> } {
  let chain: ReturnType<StreamedResume['state']>;
  ops.forEach((op, i) => {
    if (i === at) chain = resume.state();
    resume.op(op);
  });
  if (at === ops.length) chain = resume.state();
  return { resume: resume.result(), chain };
}

/** A place a format's recorder found to keep: the line it starts at, the checkpoints and ops before it, the clock. */
export interface KeptPlace {
  at: number;
  atLine: number;
  keep: number;
  lastAt: number;
  /** How many of the plan's ops come before it. */
  ops: number;
}

/**
 * The run's resume facts and, when `place` was found, its chain taken and its bytes checked, and the hash can go
 * on, the fields every kept tail has (a format adds its mapper's state beside them).
 */
export function keptTail(
  input: {
    plan: { ops: readonly PlanOp[] };
    resume: StreamedResume;
    read: ByteRange;
    bytes: number;
    sha: Sha256State | undefined;
  },
  place: KeptPlace | undefined,
): { resume: { checkpoints: number; digest: string }; tail: FileTail | undefined } {
  const { resume, chain } = chainAt(input.plan.ops, input.resume, place?.ops);
  if (!place || !chain || !input.sha) return { resume, tail: undefined };
  const checks = byteChecks(input.read, input.bytes, place.at);
  if (!checks) return { resume, tail: undefined };
  const { at, atLine, keep, lastAt } = place;
  return {
    resume,
    tail: { v: 1, at, atLine, keep, link: chain.link, marks: chain.marks, lastAt, sha: input.sha, ...checks },
  };
}

/** A line of a grown file read as JSON: where it starts, its length in bytes, its number, its value. */
export interface ParsedTailLine {
  start: number;
  length: number;
  lineNo: number;
  value: unknown;
}

/**
 * The lines from the kept place to the old end and the new ones, each parsed as a whole read parses it (blank lines
 * skipped, the depth bound kept), or why one does not read (the file is then read whole).
 */
export function parsedTailLines(
  g: GrownFile,
  tail: FileTail,
  file: string,
): { lines: ParsedTailLine[] } | { why: string } {
  const lines: ParsedTailLine[] = [];
  for (const line of [...g.linesFrom(tail.at, tail.atLine), ...g.fresh]) {
    const text = line.bytes.toString('utf8');
    if (text.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(text);
      assertJsonDepth(value, `${file}: line ${line.lineNo}`);
      lines.push({ start: line.start, length: line.bytes.length, lineNo: line.lineNo, value });
    } catch (e) {
      return { why: `line ${line.lineNo} does not read (${e instanceof Error ? e.message : String(e)})` };
    }
  }
  return { lines };
}
