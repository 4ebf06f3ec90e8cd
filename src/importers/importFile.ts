/**
 * Imports one trace file: sniffs (or takes) its format, maps it to RunPlans,
 * skips it when its run is already in the store (run ids are derived from the
 * source: session or trace id, plus a content hash for formats that do not
 * grow), continues the runs of a session log that grew since it was imported
 * (growth.ts), and writes all its runs in ONE store transaction — a corrupt
 * line leaves nothing of the file.
 * Depends on the RunStore interface, never on vscode.
 */
import { statSync } from 'node:fs';
import { OcdbError, errorMessage, isOcdbError } from '../model';
import type { RunStore, RunSummary } from '../store';
import { formatSpec } from './formats';
import type { RunPlan } from './runPlan';
import { sideEffectOf } from './sideEffects';
import { formatNames, sniffFormat } from './sniff';
import type { FileResult, ImportFormat, ImportOptions, SkippedRecord } from './types';
import { growthOf, noteGrowable, type Growth } from './growth';
import { StreamedPlans, continueRunPlan, writeRunPlan } from './writePlan';
import { storeRebuiltFilesOf } from './rebuiltFiles';
import type { FormatSpec } from './formats';
import { noteTitles } from './sessions/runTitles';
import { notRegularFile } from './regularFile';
import type { ReaderOptions } from './reader';
import { fileRange } from './fileTail';

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

/** The runs a file's write gave, as FileResult lists them. */
function runsOf(writes: { summary: RunSummary; appended: number | undefined }[]): FileResult['runs'] {
  return writes.map(({ summary: s, appended }) => ({
    runId: s.runId,
    agentId: s.agentId,
    mode: s.mode === 'fork' ? 'fork' : 'live',
    ...(s.parentRunId ? { parentRunId: s.parentRunId } : {}),
    checkpointCount: s.checkpointCount,
    toolCallCount: s.toolCallCount,
    ...(appended !== undefined ? { appended } : {}),
  }));
}

/**
 * The common case of a format that can stream (`FormatSpec.prepare`): no run of the file is in the store yet, so
 * its runs are written while they are mapped — the file read for its structure first, its content again line by
 * line — in one transaction, never held whole. Answers undefined when a run of the file is in the store already
 * (the caller then reads the plans whole and compares them with it: growth.ts) and, with `result` filled in, the
 * outcome otherwise.
 */
async function importStreamed(
  store: RunStore,
  file: string,
  spec: FormatSpec & { prepare: NonNullable<FormatSpec['prepare']> },
  options: ImportOptions,
  result: FileResult,
  readerOptions: () => ReaderOptions,
  bytesRead: ReadonlyMap<string, number>,
  onWrite?: (written: number, total?: number) => void,
): Promise<FileResult | undefined> {
  const prepared = await spec.prepare(file, readerOptions());
  try {
    if (store.hasRun(prepared.primaryRunId) || store.hasRun(`${prepared.primaryRunId}-${prepared.contentHash}`)) {
      return undefined;
    }
    if (options.signal?.aborted) throw new OcdbError('Cancelled', `Import of ${file} was cancelled.`, { file });
    let written = 0;
    const tick = onWrite
      ? () => {
          written++;
          if (written % 256 === 0) onWrite(written);
        }
      : undefined;
    let writes: RunSummary[] | undefined;
    try {
      writes = store.transaction(() => {
        const output = new StreamedPlans(store, {
          grows: spec.grows === true,
          ...(tick ? { onCheckpoint: tick } : {}),
        });
        const read = prepared.build(output);
        if (read.plans.length === 0) return undefined;
        noteSkipped(read.plans, result.skippedRecords);
        // The content was read again from the file: it must be the file that was read.
        const shas = prepared.verify();
        noteTitles(read.plans, spec.format);
        if (spec.grows) noteGrowable(read.plans, bytesRead, (plan) => output.resumeOf(plan), shas);
        const summaries = read.plans.map((plan) => output.close(plan));
        storeRebuiltFilesOf(
          store,
          summaries.map((s) => s.runId),
        );
        return summaries;
      });
    } catch (e) {
      // A run of the file (not its first) is in the store: nothing was written; compare the plans with it.
      if (isOcdbError(e, 'RunAlreadyExists')) return undefined;
      throw e;
    }
    if (onWrite && written % 256 !== 0) onWrite(written);
    if (!writes) {
      result.outcome = 'skipped';
      result.reason = result.bytes === 0 ? 'empty file' : 'no conversation in the file';
      return result;
    }
    result.runs = runsOf(writes.map((summary) => ({ summary, appended: undefined })));
    result.outcome = 'imported';
    return result;
  } finally {
    prepared.close();
  }
}

export async function importFile(
  store: RunStore,
  file: string,
  options: ImportOptions,
  onBytes?: (file: string, bytesRead: number) => void,
  onWrite?: (written: number, total?: number) => void,
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
    const st = statSync(file);
    // Opening a FIFO or a device blocks (or never ends): refuse it before anything opens it.
    if (!st.isFile()) {
      result.reason = notRegularFile(st);
      return result;
    }
    result.bytes = st.size;
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
      if ('invalid' in sniffed) {
        result.reason = sniffed.invalid;
        return result;
      }
      if ('unknown' in sniffed) {
        // what went wrong first; how each format is recognised is in `ocdb import --help` and media/docs/reference/formats.md
        result.reason = `format not recognised: ${sniffed.unknown}. Pass --format to force one of ${formatNames()}.`;
        return result;
      }
      format = sniffed.format;
    }
    result.format = format;
    const spec = formatSpec(format);
    const bytesRead = new Map<string, number>();
    const readerOptions = (idSuffix?: string): ReaderOptions => {
      result.warnings = [];
      result.unknownTypes = {};
      result.skippedRecords = [];
      return {
        signal: options.signal,
        warnings: result.warnings,
        unknownTypes: result.unknownTypes,
        onBytes: (f, n) => {
          bytesRead.set(f, n);
          onBytes?.(f, n);
        },
        sideEffectOf: (name) => sideEffectOf(name, options.sideEffectTable),
        strict: options.strict === true,
        skip: skipperFor(result, options.strict === true),
        ...(idSuffix !== undefined ? { idSuffix } : {}),
      };
    };
    if (spec.tail) {
      // A session imported before and grown since: only its new lines are read when its kept tail allows.
      let tailWritten = 0;
      const tail = await spec.tail(store, file, readerOptions(), fileRange(file), () => {
        if (++tailWritten % 256 === 0) onWrite?.(tailWritten);
      });
      if (tail.kind === 'same') {
        result.outcome = 'skipped';
        result.reason = `already imported as ${tail.runId}${tail.partialLine ? ' (its last line is still being written)' : ''}`;
        return result;
      }
      if (tail.kind === 'continued') {
        result.runs = runsOf([tail]);
        result.continued = true;
        result.readFrom = tail.readFrom;
        result.outcome = 'imported';
        return result;
      }
    }
    if (spec.prepare) {
      const { prepare } = spec;
      const streamed = await importStreamed(
        store,
        file,
        { ...spec, prepare },
        options,
        result,
        () => readerOptions(),
        bytesRead,
        onWrite,
      );
      if (streamed) return streamed;
    }
    const readWith = async (idSuffix?: string) => {
      const read = await spec.read(file, readerOptions(idSuffix));
      noteSkipped(read.plans, result.skippedRecords);
      noteTitles(read.plans, format);
      if (spec.grows) noteGrowable(read.plans, bytesRead);
      return read;
    };
    let read = await readWith();
    if (read.plans.length === 0) {
      result.outcome = 'skipped';
      result.reason = result.bytes === 0 ? 'empty file' : 'no conversation in the file';
      return result;
    }
    let growth: Growth[] | undefined;
    if (spec.grows) {
      growth = read.plans.map((plan) => growthOf(store, plan));
      const contentHash = (read.plans[0]?.metadata.source as { contentHash?: unknown } | undefined)?.contentHash;
      const legacyId = typeof contentHash === 'string' ? `${read.primaryRunId}-${contentHash}` : undefined;
      const diverged = growth.find((g): g is Extract<Growth, { kind: 'diverged' }> => g.kind === 'diverged');
      if (growth.every((g) => g.kind === 'same') || (growth[0]?.kind === 'new' && legacyId && store.hasRun(legacyId))) {
        result.outcome = 'skipped';
        result.reason = `already imported as ${growth[0]?.kind === 'same' ? read.primaryRunId : String(legacyId)}`;
        return result;
      }
      if (diverged && typeof contentHash === 'string') {
        read = await readWith(contentHash);
        result.warnings.push({
          file,
          message: `${diverged.reason}: cannot continue it, imported as a new run ${read.primaryRunId}`,
        });
        growth = undefined;
      }
    }
    if (!growth && store.hasRun(read.primaryRunId)) {
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
    const writeAll = (plans: RunPlan[], growths: Growth[] | undefined) =>
      store.transaction(() => {
        const writes = plans.map((plan, i) => {
          const g: Growth = growths?.[i] ?? { kind: 'new' };
          switch (g.kind) {
            case 'new':
              return { summary: writeRunPlan(store, plan, tick), appended: undefined };
            case 'same':
              return { summary: store.getRun(plan.runId), appended: 0 };
            case 'grown': {
              const before = store.getRun(plan.runId).checkpointCount;
              const summary = continueRunPlan(
                store,
                plan,
                g.keep,
                g.fromOp,
                {
                  runtimeContexts: g.runtimeContexts,
                  // The file's own forks are continued or written again in this transaction.
                  rewrittenForks: plans.filter((p) => p.parentRunId === plan.runId).map((p) => p.runId),
                },
                tick,
              );
              return { summary, appended: summary.checkpointCount - before };
            }
            case 'diverged':
              throw new OcdbError('ImportFailed', `${file}: ${g.reason}`, { file });
            default: {
              const unreachable: never = g;
              throw new Error(`unknown growth ${JSON.stringify(unreachable)}`);
            }
          }
        });
        // the files of each run written or continued, rebuilt from its tools once and stored with it
        storeRebuiltFilesOf(
          store,
          writes.filter((w, i) => (growths?.[i]?.kind ?? 'new') !== 'same').map((w) => w.summary.runId),
        );
        return writes;
      });
    let writes;
    let continued = growth?.some((g) => g.kind !== 'new') === true;
    try {
      writes = writeAll(read.plans, growth);
    } catch (e) {
      // The store refused to continue a run (a fork starts from its end): nothing was written; a new run.
      const contentHash = (read.plans[0]?.metadata.source as { contentHash?: unknown } | undefined)?.contentHash;
      if (!growth || !isOcdbError(e, 'InvalidInput') || typeof contentHash !== 'string') throw e;
      read = await readWith(contentHash);
      result.warnings.push({ file, message: `${errorMessage(e)} Imported as a new run ${read.primaryRunId}.` });
      if (store.hasRun(read.primaryRunId)) {
        result.outcome = 'skipped';
        result.reason = `already imported as ${read.primaryRunId}`;
        return result;
      }
      writes = writeAll(read.plans, undefined);
      continued = false;
    }
    if (continued) result.continued = true;
    result.runs = runsOf(writes);
    result.outcome = 'imported';
    return result;
  } catch (e) {
    if (isOcdbError(e, 'Cancelled')) throw e;
    result.outcome = 'failed';
    result.reason = errorMessage(e);
    return result;
  }
}
