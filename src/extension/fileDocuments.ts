/**
 * Read-only documents of a coding agent's file as of a checkpoint (replay/fileHistory.ts): the file as the run had
 * made it (`at`), and as it was just before the last call that changed it up to there (`before`) — the two sides of
 * Open Changes. URIs: `ocdb-file:/<run>/<checkpoint index>/<at|before>/<path relative to the session's folder>`
 * (the tab shows the file's own name, so the editor picks its language). A run's history is worked out once per
 * state of the run (its change counter). A text the run's tools do not show reads as a note saying why.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { runFileHistory, type FileHistory } from '../replay/fileHistory';
import { fileAt, lastChange } from '../replay/fileVersions';
import type { CheckpointSummary } from '../store';
import { FILE_SCHEME } from './ids';
import type { StoreConnection } from './storeConnection';

export type FileSide = 'at' | 'before';

export interface FileRef {
  runId: string;
  checkpointIndex: number;
  side: FileSide;
  /** Absolute, or relative to the folder the agent ran in. */
  path: string;
}

export function fileUri(ref: FileRef, displayPath: string): vscode.Uri {
  const rel = displayPath.replace(/^\/+/, '');
  return vscode.Uri.from({
    scheme: FILE_SCHEME,
    path: `/${encodeURIComponent(ref.runId)}/${ref.checkpointIndex}/${ref.side}/${rel}`,
    // the absolute path, when the display path is not one (files outside the session's folder)
    query: path.isAbsolute(ref.path) ? encodeURIComponent(ref.path) : '',
  });
}

export function fileRefOf(uri: vscode.Uri): FileRef | undefined {
  const m = /^\/([^/]+)\/(\d+)\/(at|before)\/(.+)$/.exec(uri.path);
  if (!m) return undefined;
  return {
    runId: decodeURIComponent(m[1] as string),
    checkpointIndex: Number(m[2]),
    side: m[3] as FileSide,
    path: uri.query ? decodeURIComponent(uri.query) : (m[4] as string),
  };
}

/** The file histories of runs, each kept while its run is unchanged. */
export class FileHistories {
  private readonly cache = new Map<
    string,
    { changeSeq: number; history: FileHistory; checkpoints: CheckpointSummary[] }
  >();

  constructor(private readonly connection: StoreConnection) {}

  get(runId: string): { history: FileHistory; checkpoints: CheckpointSummary[] } {
    const store = this.connection.getOrCreate();
    const changeSeq = store.getRun(runId).changeSeq;
    const known = this.cache.get(runId);
    if (known && known.changeSeq === changeSeq) return known;
    const made = { changeSeq, ...runFileHistory(store, runId) };
    this.cache.set(runId, made);
    return made;
  }
}

export class FileDocumentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly histories: FileHistories) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    const ref = fileRefOf(uri);
    if (!ref) return `// ${uri.toString()} is not a file of a run`;
    const { history } = this.histories.get(ref.runId);
    const where = `[${ref.checkpointIndex}] of ${ref.runId}`;
    if (ref.side === 'before') {
      const change = lastChange(history, ref.checkpointIndex, ref.path);
      if (!change) return `// ${ref.path} had not been changed by the run at ${where}\n`;
      return (
        change.before ??
        `// ${ref.path}: its text before step ${change.at.stepIndex} is not known (no read showed it before that edit)\n`
      );
    }
    const file = fileAt(history, ref.checkpointIndex, ref.path);
    if (!file) return `// ${ref.path} had not been changed by the run at ${where}\n`;
    if (file.deleted) return '';
    return file.content ?? `// ${ref.path}: its text at ${where} is not known (the run edited it before any read)\n`;
  }
}
