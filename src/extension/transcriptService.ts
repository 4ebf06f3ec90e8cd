/**
 * Transcript documents: one file per run, `<store folder>/transcripts/<run>.transcript`
 * (the debugger's transcriptPath; language `agent-transcript`, read-only
 * through `files.readonlyInclude`), rendered by the replay layer's
 * renderTranscript — the same file, text and line numbers the debugger points
 * its frames and breakpoints at. Rewrites a file only when its run changed.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { runIdOfTranscript, transcriptPath, writeTranscriptFile } from '../debug/transcriptFiles';
import { renderTranscript, type Transcript } from '../replay/transcript';
import { OcdbError } from '../model';
import type { RunStore } from '../store';
import { TRANSCRIPT_EXTENSION } from './ids';
import { excerptLengthOf, readSettings } from './settings';
import type { StoreConnection } from './storeConnection';

interface Rendered {
  transcript: Transcript;
  changeSeq: number;
  excerptLength: number;
}

export class TranscriptService implements vscode.Disposable {
  private readonly cache = new Map<string, Rendered>();
  /** fsPath -> runId of every transcript written or opened. */
  private readonly byPath = new Map<string, string>();
  private readonly disposable: vscode.Disposable;

  constructor(private readonly connection: StoreConnection) {
    this.disposable = connection.onDidChange((e) => {
      if (e.kind === 'reset') {
        this.cache.clear();
        return;
      }
      for (const run of e.changes.changedRuns) this.refreshIfWritten(run.runId);
      for (const runId of e.changes.deletedRunIds) this.cache.delete(runId);
    });
  }

  private store(): RunStore {
    return this.connection.getOrCreate();
  }

  /** The rendered transcript of `runId` (cached until the run changes). */
  transcript(runId: string): Transcript {
    const store = this.store();
    const run = store.getRun(runId);
    const excerptLength = excerptLengthOf(readSettings().transcriptDetail);
    const known = this.cache.get(runId);
    if (known && known.changeSeq === run.changeSeq && known.excerptLength === excerptLength) return known.transcript;
    const transcript = renderTranscript(run, store.listCheckpoints(runId), (id) => store.getCheckpoint(id), {
      excerptLength,
      toolCalls: store.listToolCalls(runId),
    });
    this.cache.set(runId, { transcript, changeSeq: run.changeSeq, excerptLength });
    return transcript;
  }

  /** Where the transcript file of `runId` lives. */
  uriOf(runId: string): vscode.Uri {
    const file = transcriptPath(this.connection.path, runId);
    this.byPath.set(file, runId);
    return vscode.Uri.file(file);
  }

  /** Writes the transcript file when missing or stale and returns its uri. */
  ensureFile(runId: string): vscode.Uri {
    const uri = this.uriOf(runId);
    const text = this.transcript(runId).text;
    let current: string | undefined;
    try {
      current = fs.readFileSync(uri.fsPath, 'utf8');
    } catch {
      current = undefined;
    }
    if (current !== text && !writeTranscriptFile(uri.fsPath, text)) {
      throw new OcdbError(
        'StoreUnavailable',
        `Cannot write the transcript ${uri.fsPath}: make the store's folder writable.`,
        {
          path: uri.fsPath,
        },
      );
    }
    return uri;
  }

  /** Opens the transcript of `runId`, optionally at a checkpoint's line. */
  async open(
    runId: string,
    checkpointId?: string,
    options: { preview?: boolean; preserveFocus?: boolean } = {},
  ): Promise<vscode.TextEditor> {
    const uri = this.ensureFile(runId);
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc, {
      preview: options.preview ?? true,
      preserveFocus: options.preserveFocus ?? false,
    });
    if (checkpointId) {
      const line = this.transcript(runId).lines.find((l) => l.checkpointId === checkpointId)?.line;
      if (line !== undefined) {
        const pos = new vscode.Position(line, 0);
        editor.selection = new vscode.Selection(pos, pos);
        editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
    }
    return editor;
  }

  /** The run a transcript document belongs to, or undefined for other documents. */
  runIdOf(uri: vscode.Uri): string | undefined {
    if (uri.scheme !== 'file' || !uri.fsPath.endsWith(TRANSCRIPT_EXTENSION)) return undefined;
    const known = this.byPath.get(uri.fsPath);
    if (known) return known;
    const store = this.connection.tryGet();
    const guess = runIdOfTranscript(uri.fsPath);
    if (guess !== undefined && store?.hasRun(guess)) {
      this.byPath.set(uri.fsPath, guess);
      return guess;
    }
    return undefined;
  }

  private refreshIfWritten(runId: string): void {
    this.cache.delete(runId);
    if (fs.existsSync(transcriptPath(this.connection.path, runId))) {
      try {
        this.ensureFile(runId);
      } catch {
        // the run may be mid-write or deleted; the next change retries
      }
    }
  }

  dispose(): void {
    this.disposable.dispose();
  }
}
