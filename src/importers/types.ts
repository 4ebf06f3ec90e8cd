/**
 * The public shapes of the importers: formats, options, progress, warnings
 * and the summary an import answers. Types and their schemas only: no I/O, no
 * vscode.
 */
import { z } from 'zod';
import { RunModeSchema } from '../model';
import type { SideEffectTable } from './sideEffects';

/** The trace formats an importer reads (how each is recognised and read: formats.ts). */
export const IMPORT_FORMATS = [
  'claude-code',
  'openai-chat',
  'otel',
  'codex',
  'gemini-cli',
  'openai-responses',
  'openai-agents',
  'replay-turns',
] as const;
export const ImportFormatSchema = z.enum(IMPORT_FORMATS);
export type ImportFormat = z.infer<typeof ImportFormatSchema>;

/** What a user may ask for: a format, or 'auto' to sniff each file's content (CLI --format, the extension). */
export const IMPORT_FORMAT_OPTIONS = ['auto', ...IMPORT_FORMATS] as const;
export const ImportFormatOptionSchema = z.enum(IMPORT_FORMAT_OPTIONS);
export type ImportFormatOption = z.infer<typeof ImportFormatOptionSchema>;

/** The modes an imported run has: a recording (live) or a branch of one found in the trace (fork). */
export const ImportedRunModeSchema = RunModeSchema.extract(['live', 'fork']);
export type ImportedRunMode = z.infer<typeof ImportedRunModeSchema>;

/** Bytes read so far of the file being imported (and of the whole import when a directory is walked). */
export interface ImportProgress {
  /** 'read': parsing the file (bytes move); 'write': writing its runs in one transaction (checkpoints move). */
  phase: 'read' | 'write';
  file: string;
  /** During 'write': checkpoints written of the file's total (no total when the runs are written as they are read). */
  checkpointsWritten?: number;
  checkpointsTotal?: number;
  bytesRead: number;
  bytesTotal: number;
  /** Over every file of the import (equal to the file figures for a single file). */
  allBytesRead: number;
  allBytesTotal: number;
  /** Files done before this one, and the files of the import. */
  filesDone: number;
  filesTotal: number;
}

export interface ImportOptions {
  /** 'auto' (default) sniffs each file's content. */
  format?: ImportFormatOption;
  onProgress?: (progress: ImportProgress) => void;
  /**
   * Aborting stops before the next chunk is read; the file being read is not imported (its transaction never
   * starts). The write phase is one synchronous transaction and is not interruptible.
   */
  signal?: AbortSignal;
  /** Tool name -> side-effect level overrides (see sideEffects.ts); merged over the built-in table. */
  sideEffectTable?: SideEffectTable;
  /**
   * Fail a file on its first bad record (a line that is not JSON, a record of unexpected shape) with nothing of
   * it imported. Default false: such records are skipped with a warning and listed in the run's metadata.
   */
  strict?: boolean;
}

/** A record an importer skipped because it was malformed (not JSON, or not of the shape its format has). */
export interface SkippedRecord {
  file: string;
  /** 1-based line of a JSON Lines file; absent for a record of a JSON document (see `where`). */
  line?: number;
  /** Where in a JSON document (`[3]`, `resourceSpans[0]...`) when there are no lines. */
  where?: string;
  reason: string;
}

/** Something the importer skipped or could not map, naming where. */
export interface ImportWarning {
  file: string;
  line?: number;
  message: string;
}

export interface ImportedRunInfo {
  runId: string;
  agentId: string;
  mode: ImportedRunMode;
  parentRunId?: string;
  checkpointCount: number;
  toolCallCount: number;
  /** Set when the run was already in the store from a shorter copy of the file: the checkpoints it grew by. */
  appended?: number;
}

export type FileOutcome = 'imported' | 'skipped' | 'failed';

export interface FileResult {
  file: string;
  format?: ImportFormat;
  outcome: FileOutcome;
  /** Why the file was skipped or failed. */
  reason?: string;
  runs: ImportedRunInfo[];
  /** Lines whose `type` the importer does not know, by type (skipped and counted). */
  unknownTypes: Record<string, number>;
  warnings: ImportWarning[];
  /** Malformed records skipped (also in each run's `metadata.skippedRecords`); empty with --strict. */
  skippedRecords: SkippedRecord[];
  bytes: number;
  /** True when the file continued runs imported earlier from a shorter copy of it (a session that grew). */
  continued?: boolean;
  /**
   * For a file continued from where its last import stopped: the byte its new lines were read from (only they, and
   * the window checked before them, were read; fileTail.ts). Absent when the file was read whole.
   */
  readFrom?: number;
}

export interface ImportSummary {
  files: FileResult[];
  imported: number;
  /** Of the files imported, those that continued runs imported earlier from a shorter copy (`FileResult.continued`). */
  appended: number;
  skipped: number;
  failed: number;
  /** Malformed records skipped over every file. */
  skippedRecords: number;
  runIds: string[];
}
