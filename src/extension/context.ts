/**
 * The small context object every part of the extension receives instead of a
 * DI framework: the log, the store connection, the transcript service and
 * the few cross-part actions (reveal a run, start a replay, show a
 * checkpoint in the editor). Built once in extension.ts.
 */
import type * as vscode from 'vscode';
import type { StoreConnection } from './storeConnection';
import type { TranscriptService } from './transcriptService';

export interface ExtensionContextObject {
  readonly vscodeContext: vscode.ExtensionContext;
  readonly log: vscode.LogOutputChannel;
  readonly connection: StoreConnection;
  readonly transcripts: TranscriptService;
  /** Reveals (and selects) a run in the runs tree. */
  revealRun(runId: string): Promise<void>;
  /** Reveals a checkpoint in the runs tree. */
  revealCheckpoint(runId: string, checkpointId: string): Promise<void>;
  /** Starts "Replay agent run" on a run (optionally from a checkpoint). */
  startReplay(runId: string, checkpointId?: string): Promise<boolean>;
  /** Shows a checkpoint in the RuntimeContext editor (with the edits a replay staged there) and focuses it. */
  editCheckpoint(runId: string, checkpointId: string, focus: boolean): Promise<void>;
}
