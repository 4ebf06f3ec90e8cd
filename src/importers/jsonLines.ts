/**
 * JSON Lines over the streaming line reader: blank lines skipped, a UTF-8 BOM
 * dropped, each line parsed. A corrupt line in the middle is skipped with a
 * warning naming "line N" (`strict`: fails the file), a cut-off LAST line (a
 * transcript still being written) is skipped with a warning naming it,
 * invalid UTF-8 is decoded with U+FFFD and warned about. Depends on
 * lineReader.ts only.
 */
import { OcdbError, assertJsonDepth } from '../model';
import { readLines, type FileLine } from './lineReader';
import type { ImportWarning } from './types';

export interface JsonLine {
  lineNo: number;
  value: unknown;
  /** Length of the line in bytes (approximate for invalid UTF-8). */
  bytes: number;
  /** Where the line's bytes are in the file (without its LF): what `readLineAt` reads again. */
  start: number;
  length: number;
}

export interface JsonLinesOptions {
  signal?: AbortSignal;
  warnings: ImportWarning[];
  /** Called with the bytes consumed so far, at most every `progressEvery` bytes and at the end. */
  onBytes?: (bytesRead: number) => void;
  progressEvery?: number;
  /**
   * Fed every line's text (with its LF), e.g. to hash the content for a stable run id; `bytes`, when given, are
   * the text's UTF-8 exactly (the line as read): hash those, the text need not be encoded again.
   */
  onText?: (text: string, bytes?: Buffer) => void;
  /** Fail on a corrupt line in the middle instead of skipping it. */
  strict?: boolean;
  /** Called for each corrupt line skipped (not for a cut-off last line). */
  onSkip?: (lineNo: number, reason: string) => void;
  /** Fed the file's bytes as read. */
  onChunk?: (chunk: Buffer) => void;
  /** Fed every line as read (blank ones too), in place of `onText` (e.g. to a LineHashes). */
  onLine?: (line: FileLine) => void;
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Parses `file` line by line; the generator throws InvalidInput naming the line of the first corrupt one. */
export async function* readJsonLines(file: string, options: JsonLinesOptions): AsyncGenerator<JsonLine> {
  let failed: { lineNo: number; message: string; text: string } | undefined;
  const badUtf8: number[] = [];
  const every = options.progressEvery ?? 1 << 20;
  let lastReported = 0;
  let bytes = 0;
  for await (const line of readLines(file, {
    signal: options.signal,
    ...(options.onChunk ? { onChunk: options.onChunk } : {}),
  })) {
    bytes = line.bytesRead;
    if (options.onBytes && bytes - lastReported >= every) {
      lastReported = bytes;
      options.onBytes(bytes);
    }
    if (options.onLine) options.onLine(line);
    else if (options.onText) {
      options.onText(line.text, line.invalidUtf8 ? undefined : line.bytes);
      options.onText('\n');
    }
    const text = line.lineNo === 1 ? line.text.replace(/^\uFEFF/, '') : line.text;
    if (text.trim() === '') continue;
    if (failed) {
      // The bad line was not the last one: the file is corrupt there, not merely cut off.
      if (options.strict) {
        throw new OcdbError(
          'InvalidInput',
          `${file}: line ${failed.lineNo}: not valid JSON (${failed.message}); nothing of this file was imported (--strict). Fix or remove the line and import again.`,
          { file, line: failed.lineNo },
        );
      }
      const reason = `not valid JSON (${failed.message}: ${shorten(failed.text)})`;
      if (options.onSkip) options.onSkip(failed.lineNo, reason);
      else
        options.warnings.push({ file, line: failed.lineNo, message: `line ${failed.lineNo}: ${reason}; skipped it` });
      failed = undefined;
    }
    if (line.invalidUtf8) badUtf8.push(line.lineNo);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      failed = { lineNo: line.lineNo, message: (e as Error).message, text: line.text };
      continue;
    }
    assertJsonDepth(value, `${file}: line ${line.lineNo}`); // MAX_JSON_DEPTH, named by line
    yield { lineNo: line.lineNo, value, bytes: line.text.length, start: line.start, length: line.length };
  }
  if (failed) {
    options.warnings.push({
      file,
      line: failed.lineNo,
      message: `line ${failed.lineNo} is cut off (${failed.message}: ${shorten(failed.text)}); skipped it as a transcript still being written`,
    });
  }
  if (badUtf8.length > 0) {
    const shown = badUtf8.slice(0, 5).join(', ') + (badUtf8.length > 5 ? `, ... (${badUtf8.length} lines)` : '');
    options.warnings.push({
      file,
      line: badUtf8[0],
      message: `line ${shown}: bytes that are not UTF-8 were replaced with U+FFFD`,
    });
  }
  options.onBytes?.(bytes);
}
