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
import { readClaudeCodeSession } from './claudeCode/importSession';
import { readOpenAiChat } from './openai/importOpenAiChat';
import { readOtlpTraces } from './otel/importOtlp';
import { readReplayTurns } from './replayTurns/importReplayTurns';
import type { RunPlan } from './runPlan';
import { sideEffectOf } from './sideEffects';
import { sniffFormat } from './sniff';
import type { FileResult, ImportFormat, ImportOptions } from './types';
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
}

function readerFor(format: ImportFormat): (file: string, options: ReaderOptions) => Promise<ReadPlans> {
  switch (format) {
    case 'claude-code':
      return readClaudeCodeSession;
    case 'openai-chat':
      return readOpenAiChat;
    case 'otel':
      return readOtlpTraces;
    case 'replay-turns':
      return readReplayTurns;
    default: {
      const unreachable: never = format;
      throw new Error(`unknown format ${String(unreachable)}`);
    }
  }
}

export async function importFile(
  store: RunStore,
  file: string,
  options: ImportOptions,
  onBytes?: (file: string, bytesRead: number) => void,
  onWrite?: (written: number, total: number) => void,
): Promise<FileResult> {
  const result: FileResult = { file, outcome: 'failed', runs: [], unknownTypes: {}, warnings: [], bytes: 0 };
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
      if ('unknown' in sniffed) {
        result.reason = `format not recognised: ${sniffed.unknown}; pass --format to force one`;
        return result;
      }
      format = sniffed.format;
    }
    result.format = format;
    const read = await readerFor(format)(file, {
      signal: options.signal,
      warnings: result.warnings,
      unknownTypes: result.unknownTypes,
      onBytes,
      sideEffectOf: (name) => sideEffectOf(name, options.sideEffectTable),
    });
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
