/**
 * Imports one trace file: sniffs (or takes) its format, maps it to RunPlans,
 * skips it when its run is already in the store (run ids are derived from the
 * source: session or trace id plus a content hash), and writes all its runs
 * in ONE store transaction — a corrupt line leaves nothing of the file.
 * Depends on the RunStore interface, never on vscode.
 */
import { statSync } from 'node:fs';
import { OcdbError, errorMessage, isOcdbError } from '../model';
import type { RunStore } from '../store';
import { formatSpec } from './formats';
import type { RunPlan } from './runPlan';
import { sideEffectOf } from './sideEffects';
import { formatsHelp, sniffFormat } from './sniff';
import type { FileResult, ImportFormat, ImportOptions, SkippedRecord } from './types';
import { writeRunPlan } from './writePlan';

export interface ReadPlans {
  plans: RunPlan[];
  primaryRunId: string;
  extraFiles: string[];
}

/** The context every format reader gets. */
export interface ReaderOptions {
  signal?: AbortSignal;
  warnings: FileResult['warnings'];
  unknownTypes: Record<string, number>;
  onBytes?: (file: string, bytesRead: number) => void;
  sideEffectOf: (toolName: string) => ReturnType<typeof sideEffectOf>;
  /** Fail on the first malformed record instead of skipping it (`--strict`). */
  strict?: boolean;
  /**
   * Reports a malformed record: throws (the file fails) when strict, else warns and lists it. `error` says what
   * was wrong; its message usually already names the file and line.
   */
  skip: (record: Omit<SkippedRecord, 'reason'>, error: unknown) => void;
}

/** `reason` without the `file: line N: ` prefix the error messages carry. */
function bare(message: string, file: string, line?: number): string {
  let m = message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message;
  if (line !== undefined && m.startsWith(`line ${line}: `)) m = m.slice(`line ${line}: `.length);
  return m;
}

/** A reader that skips records as `options` say: strict rethrows, else warning + list. */
export function skipperFor(
  result: Pick<FileResult, 'warnings' | 'skippedRecords'>,
  strict: boolean,
): ReaderOptions['skip'] {
  return (record, error) => {
    const message = errorMessage(error);
    if (strict) {
      const where = record.line !== undefined ? `line ${record.line}` : (record.where ?? '');
      throw new OcdbError(
        'InvalidInput',
        `${record.file}: ${where ? `${where}: ` : ''}${bare(message, record.file, record.line)}; nothing of this file was imported (--strict)`,
        { file: record.file, ...(record.line !== undefined ? { line: record.line } : {}) },
        { cause: error },
      );
    }
    const reason = bare(message, record.file, record.line);
    result.skippedRecords.push({ ...record, reason });
    const where = record.line !== undefined ? `line ${record.line}: ` : record.where ? `${record.where}: ` : '';
    result.warnings.push({
      file: record.file,
      ...(record.line !== undefined ? { line: record.line } : {}),
      message: `${where}${reason}; skipped the record`,
    });
  };
}

/** Lists the records skipped in each plan's metadata (the plans read from that file). */
function noteSkipped(plans: RunPlan[], skipped: SkippedRecord[]): void {
  if (skipped.length === 0) return;
  for (const plan of plans) {
    const source = (plan.metadata.source as { file?: unknown } | undefined)?.file;
    const mine = skipped
      .filter((r) => source === undefined || r.file === source)
      .map(({ file: _file, ...rest }) => rest);
    if (mine.length > 0) plan.metadata.skippedRecords = mine;
  }
}

export async function importFile(
  store: RunStore,
  file: string,
  options: ImportOptions,
  onBytes?: (file: string, bytesRead: number) => void,
  onWrite?: (written: number, total: number) => void,
): Promise<FileResult> {
  const result: FileResult = {
    file,
    outcome: 'failed',
    runs: [],
    unknownTypes: {},
    warnings: [],
    skippedRecords: [],
    bytes: 0,
  };
  try {
    result.bytes = statSync(file).size;
    let format: ImportFormat;
    if (options.format && options.format !== 'auto') format = options.format;
    else {
      const sniffed = sniffFormat(file);
      if ('empty' in sniffed) {
        result.outcome = 'skipped';
        result.reason = 'empty file';
        return result;
      }
      if ('binary' in sniffed) {
        result.reason = `not a trace file: ${sniffed.binary}`;
        return result;
      }
      if ('unknown' in sniffed) {
        result.reason = `format not recognised (${sniffed.unknown}). The formats and how each is recognised: ${formatsHelp()}. Pass --format to force one.`;
        return result;
      }
      format = sniffed.format;
    }
    result.format = format;
    const read = await formatSpec(format).read(file, {
      signal: options.signal,
      warnings: result.warnings,
      unknownTypes: result.unknownTypes,
      onBytes,
      sideEffectOf: (name) => sideEffectOf(name, options.sideEffectTable),
      strict: options.strict === true,
      skip: skipperFor(result, options.strict === true),
    });
    noteSkipped(read.plans, result.skippedRecords);
    if (read.plans.length === 0) {
      result.outcome = 'skipped';
      result.reason = result.bytes === 0 ? 'empty file' : 'no conversation in the file';
      return result;
    }
    if (store.hasRun(read.primaryRunId)) {
      result.outcome = 'skipped';
      result.reason = `already imported as ${read.primaryRunId}`;
      return result;
    }
    if (options.signal?.aborted) throw new OcdbError('Cancelled', `Import of ${file} was cancelled.`, { file });
    const total = read.plans.reduce((a, p) => a + p.checkpointCount, 0);
    let written = 0;
    const tick = onWrite
      ? () => {
          written++;
          if (written % 256 === 0 || written === total) onWrite(written, total);
        }
      : undefined;
    const summaries = store.transaction(() => read.plans.map((plan) => writeRunPlan(store, plan, tick)));
    result.runs = summaries.map((s) => ({
      runId: s.runId,
      agentId: s.agentId,
      mode: s.mode === 'fork' ? 'fork' : 'live',
      ...(s.parentRunId ? { parentRunId: s.parentRunId } : {}),
      checkpointCount: s.checkpointCount,
      toolCallCount: s.toolCallCount,
    }));
    result.outcome = 'imported';
    return result;
  } catch (e) {
    if (isOcdbError(e, 'Cancelled')) throw e;
    result.outcome = 'failed';
    result.reason = errorMessage(e);
    return result;
  }
}
