/**
 * Tells the format of a trace file from its first bytes (at most 64 KiB),
 * asking each format of the registry (formats.ts) in order. A gzip, zip or
 * other binary file is named as such instead of being guessed at.
 */
import { closeSync, fstatSync, readSync, readFileSync } from 'node:fs';
import { FORMAT_SPECS } from './formats';
import { openRegularFile } from './regularFile';
import { jsonErrorOf } from './jsonError';
import type { ImportFormat } from './types';

const HEAD_BYTES = 64 * 1024;
/** Up to this size a JSON document no format recognises is parsed whole, to say where it breaks. */
const WHOLE_JSON_BYTES = 64 * 1024 * 1024;

/** `invalid`: a JSON document that does not parse, with where (`invalid JSON at line 5, column 14: …`). */
export type SniffResult =
  { format: ImportFormat } | { empty: true } | { unknown: string } | { binary: string } | { invalid: string };

function readHead(file: string): { head: Buffer; size: number } {
  const fd = openRegularFile(file);
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return { head: buf.subarray(0, n), size: fstatSync(fd).size };
  } finally {
    closeSync(fd);
  }
}

/** What a binary head is, or undefined for text. */
function binaryKind(head: Buffer): string | undefined {
  if (head[0] === 0x1f && head[1] === 0x8b)
    return 'a gzip-compressed file: decompress it first (gunzip -k FILE) and import the result';
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04)
    return 'a zip archive: extract it first and import the folder';
  if (head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd)
    return 'a zstd-compressed file: decompress it first (zstd -d FILE) and import the result';
  if (head.subarray(0, 8192).includes(0)) return 'a binary file, not a JSON or JSON Lines trace';
  return undefined;
}

/** The names of the formats, for `--format`: `claude-code, codex, …`. */
export function formatNames(): string {
  return FORMAT_SPECS.map((s) => s.format).join(', ');
}

export function sniffFormat(file: string): SniffResult {
  const { head: raw, size } = readHead(file);
  const binary = binaryKind(raw);
  if (binary) return { binary };
  const head = raw
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (head === '') return { empty: true };
  const firstLine = head.split('\n', 1)[0] as string;
  let first: unknown;
  try {
    first = JSON.parse(firstLine);
  } catch {
    first = undefined; // not one JSON value per line: a pretty-printed document, or cut at 64 KiB
  }
  for (const spec of FORMAT_SPECS) if (spec.recognise({ first, head })) return { format: spec.format };
  // A document whose first line does not parse alone: try again on the head text only.
  if (first !== undefined) return { unknown: 'no format recognises its records' };
  // A JSON document no format took may be one cut off or broken: say where, before anything about formats.
  if ((head.startsWith('{') || head.startsWith('[')) && size <= WHOLE_JSON_BYTES) {
    const text =
      size <= raw.length
        ? head
        : readFileSync(file, 'utf8')
            .replace(/^\uFEFF/, '')
            .trimStart();
    const invalid = jsonErrorOf(text);
    if (invalid) return { invalid };
  }
  return { unknown: 'no format recognises its content' };
}
