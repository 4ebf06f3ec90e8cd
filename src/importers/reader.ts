/**
 * What a format reader is given and gives back: its options (warnings, skipped records, `--strict`, the id suffix
 * of a grown file), the plans of a file read whole, and a file prepared to be mapped once (streamed). Types only,
 * in a file of their own so a reader does not import importFile.ts, which imports every reader through formats.ts.
 */
import type { PlanOutput, RunPlan } from './runPlan';
import type { sideEffectOf } from './sideEffects';
import type { FileResult, SkippedRecord } from './types';

export interface ReadPlans {
  plans: RunPlan[];
  primaryRunId: string;
  extraFiles: string[];
}

/** A trace read for its structure, ready to be mapped once: into plans kept whole, or streamed to an output. */
export interface PreparedRead {
  primaryRunId: string;
  /** The content part of the file's legacy run ids. */
  contentHash: string;
  build(output?: PlanOutput): ReadPlans;
  /** The sha256 of the bytes each file was read with; throws when a file changed since it was read. */
  verify(): Map<string, string | undefined>;
  close(): void;
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
  /** For a format that `grows`: appended to its run ids (the runs of a file that cannot continue earlier ones). */
  idSuffix?: string;
}
