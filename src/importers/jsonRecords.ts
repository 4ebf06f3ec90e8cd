/**
 * Reads a JSON trace file as records: a whole JSON document (an array is
 * spread into its items when `spread`) or JSON Lines (one record a line,
 * via jsonLines.ts). A broken document fails naming its line and column.
 * Documents are read whole (up to 512 MiB); use JSONL for bigger logs.
 */
import { createHash } from 'node:crypto';
import { closeSync, readFileSync, readSync, statSync } from 'node:fs';
import { openRegularFile } from './regularFile';
import { OcdbError, assertJsonDepth } from '../model';
import type { ReaderOptions } from './reader';
import { readJsonLines, type JsonLinesOptions } from './jsonLines';
import { jsonErrorText } from './jsonError';

export interface JsonRecord {
  value: unknown;
  /** `line N` for JSONL, `[i]` or '' for a document: prefix of error paths. */
  where: string;
  /** For a JSONL record: where its line is in the file (jsonLines.ts), to read it again. */
  start?: number;
  length?: number;
}

const MAX_DOCUMENT = 512 * 1024 * 1024;

function firstLines(file: string): string[] {
  const fd = openRegularFile(file);
  try {
    const buf = Buffer.alloc(1 << 20);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf
      .subarray(0, n)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart()
      .split('\n', 6)
      .map((l) => l.trim())
      .filter((l) => l !== '');
  } finally {
    closeSync(fd);
  }
}

function isObjectLine(line: string | undefined): boolean {
  if (!line?.startsWith('{') || !line.endsWith('}')) return false;
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/** One JSON object a line: the first line is one, or (a corrupt first line) one of the next few is. */
function isJsonLines(file: string): boolean {
  const lines = firstLines(file);
  const first = lines[0];
  if (!first?.startsWith('{')) return false;
  if (isObjectLine(first)) return true;
  return lines.slice(1, 5).some(isObjectLine);
}

export async function* readJsonRecords(
  file: string,
  options: JsonLinesOptions & { spread: boolean },
): AsyncGenerator<JsonRecord> {
  if (isJsonLines(file)) {
    for await (const { lineNo, value, start, length } of readJsonLines(file, options)) {
      yield { value, where: `line ${lineNo}`, start, length };
    }
    return;
  }
  const size = statSync(file).size;
  if (size > MAX_DOCUMENT) {
    throw new OcdbError(
      'InvalidInput',
      `${file}: a ${Math.round(size / 2 ** 20)} MiB JSON document is too big to read whole; write it as JSON Lines (one record a line)`,
      { file },
    );
  }
  const text = readFileSync(file, 'utf8');
  options.onText?.(text);
  options.onBytes?.(size);
  let value: unknown;
  const json = text.replace(/^\uFEFF/, '');
  try {
    value = JSON.parse(json);
  } catch (e) {
    throw new OcdbError('InvalidInput', `${file}: ${jsonErrorText(json, e)}; nothing of this file was imported`, {
      file,
    });
  }
  assertJsonDepth(value, file); // MAX_JSON_DEPTH, named by field path
  if (
    options.spread &&
    Array.isArray(value) &&
    value.every((v) => Array.isArray(v) || (v && typeof v === 'object' && !('role' in v)))
  ) {
    for (const [i, v] of value.entries()) yield { value: v, where: `[${i}]` };
  } else yield { value, where: '' };
}

/**
 * Reads every record of a JSON / JSONL trace file (arrays spread), giving
 * `onRecord` each value and its location (`file: line N`), with progress and
 * cancellation from `options`. Returns the SHA-256 hex of the text read, the
 * content part of the file's deterministic run ids.
 */
export async function readRecordsWithDigest(
  file: string,
  options: ReaderOptions,
  onRecord: (value: unknown, where: string) => void,
): Promise<string> {
  const hash = createHash('sha256');
  for await (const rec of readJsonRecords(file, {
    spread: true,
    signal: options.signal,
    warnings: options.warnings,
    onBytes: (b) => options.onBytes?.(file, b),
    onText: (t, bytes) => hash.update(bytes ?? t),
    strict: options.strict,
    onSkip: (line, reason) => options.skip({ file, line }, new Error(reason)),
  })) {
    onRecord(rec.value, rec.where ? `${file}: ${rec.where}` : file);
  }
  return hash.digest('hex');
}
