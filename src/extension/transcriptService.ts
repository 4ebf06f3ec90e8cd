/**
 * Transcript documents: one file per run, `<store folder>/transcripts/<run>.transcript`
 * (the debugger's transcriptPath; language `agent-transcript`, read-only
 * through `files.readonlyInclude`), rendered by the replay layer's RunView at
 * the `transcriptDetail` setting and written by the debugger's own
 * writeRunTranscript — the same file, text and line numbers the debugger
 * points its frames and breakpoints at (the launch configuration carries the
 * setting to the adapter). Rewrites a file only when its run changed.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { runIdOfTranscript, transcriptPath, writeRunTranscript } from '../debug/transcriptFiles';
import { RunView } from '../replay/runView';
import { liveUntil } from '../replay/sessionLive';
import type { Transcript, TranscriptDetail } from '../replay/transcript';
import { OcdbError } from '../model';
import { readLocalFile, type RunStore } from '../store';
import { TRANSCRIPT_EXTENSION } from './ids';
import { readSettings } from './settings';
import type { StoreConnection } from './storeConnection';

interface Rendered {
  view: RunView;
  changeSeq: number;
  detail: TranscriptDetail;
}

export class TranscriptService implements vscode.Disposable {
  private readonly cache = new Map<string, Rendered>();
  /** fsPath -> runId of every transcript written or opened. */
  private readonly byPath = new Map<string, string>();
  private readonly disposable: vscode.Disposable;
  /** Per run whose header says "live": when that runs out, its transcript is written again without it. */
  private readonly liveTimers = new Map<string, NodeJS.Timeout>();
  /** Runs that grew while a frame was focused: followed once no frame is (the continue reaches VS Code later). */
  private readonly followLater = new Set<string>();

  constructor(private readonly connection: StoreConnection) {
    this.disposable = vscode.Disposable.from(
      connection.onDidChange((e) => {
        if (e.kind === 'reset') {
          this.cache.clear();
          return;
        }
        for (const run of e.changes.changedRuns) this.refreshIfWritten(run.runId);
        for (const runId of e.changes.deletedRunIds) this.cache.delete(runId);
      }),
      vscode.debug.onDidChangeActiveStackItem((item) => {
        if (item instanceof vscode.DebugStackFrame) return;
        const runs = [...this.followLater];
        this.followLater.clear();
        for (const runId of runs) void this.followServed(runId);
      }),
    );
  }

  private store(): RunStore {
    return this.connection.getOrCreate();
  }

  /** The run as read for its transcript at the current setting (re-read when the run or the setting changed). */
  private viewOf(runId: string): RunView {
    const store = this.store();
    const changeSeq = store.getRun(runId).changeSeq;
    const detail = readSettings().transcriptDetail;
    const known = this.cache.get(runId);
    if (known && known.changeSeq === changeSeq && known.detail === detail) return known.view;
    const view = new RunView(store, runId, { detail });
    this.cache.set(runId, { view, changeSeq: view.run.changeSeq, detail });
    const until = view.live ? liveUntil(view.run) : undefined;
    if (until !== undefined && !this.liveTimers.has(runId)) {
      const timer = setTimeout(
        () => {
          this.liveTimers.delete(runId);
          this.refreshIfWritten(runId);
        },
        until - Date.now() + 50,
      );
      this.liveTimers.set(runId, timer);
    }
    return view;
  }

  /**
   * The checkpoint lines of `runId`'s transcript (cached until the run changes): laid out from its summaries, not
   * rendered — the text is the file (ensureFile), rendered only when it is not current.
   */
  transcript(runId: string): Pick<Transcript, 'lines'> {
    return { lines: this.viewOf(runId).lines() };
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
    if (!writeRunTranscript(this.connection.path, this.viewOf(runId))) {
      throw new OcdbError(
        'StoreUnavailable',
        `Cannot write the transcript ${uri.fsPath}: make the store's folder writable.`,
        { path: uri.fsPath },
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

  /**
   * When the last debug session ended: a transcript the debugger served by reference while its run grew (a
   * `debug:` document, frozen as it was when the session ended) is replaced by the run's transcript file, which
   * follows the run (a live run that went on after Disconnect ends up completed there, not "running").
   */
  async reopenServedTranscripts(): Promise<void> {
    for (const { tab, runId } of this.servedTabs()) {
      if (!this.connection.tryGet()?.hasRun(runId)) continue;
      await vscode.window.tabGroups.close(tab, true);
      await this.open(runId, undefined, { preview: true, preserveFocus: true });
    }
  }

  /** The open tabs of transcripts the debugger served by reference (`debug:` documents), with their runs. */
  private servedTabs(only?: string): { tab: vscode.Tab; group: vscode.TabGroup; uri: vscode.Uri; runId: string }[] {
    const found = [];
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const uri = tab.input instanceof vscode.TabInputText ? tab.input.uri : undefined;
        if (uri?.scheme !== 'debug' || !uri.path.endsWith(TRANSCRIPT_EXTENSION)) continue;
        const runId = runIdOfTranscript(uri.path);
        if (runId && (only === undefined || runId === only)) found.push({ tab, group, uri, runId });
      }
    }
    return found;
  }

  private refreshIfWritten(runId: string): void {
    this.cache.delete(runId);
    if (fs.existsSync(transcriptPath(this.connection.path, runId))) {
      try {
        this.ensureFile(runId);
        void this.followServed(runId);
      } catch {
        // the run may be mid-write or deleted; the next change retries
      }
    }
  }

  /**
   * A transcript the debugger served by reference at a stop (a `debug:` document: VS Code does not fetch it again)
   * whose run went on after Continue and grew: replaced by the run's file, which follows the run (its header's
   * count, its new lines). At the next stop the debugger shows that stop's text again.
   */
  private async followServed(runId: string): Promise<void> {
    // only where the debugger's copy is open: the file is read for it, not on every change of every run
    const served = this.servedTabs(runId);
    if (served.length === 0) return;
    // stopped at a frame, the served text is what the frame points at (a replay of a run still being recorded)
    if (vscode.debug.activeStackItem instanceof vscode.DebugStackFrame) {
      this.followLater.add(runId);
      return;
    }
    const file = this.uriOf(runId);
    // read as the debugger writes it: a regular file reached without a link (never a FIFO that would block)
    const text = readLocalFile(file.fsPath);
    if (text === undefined) return;
    for (const { tab, group, uri } of served) {
      const shown = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (!shown || shown.getText() === text) continue;
      await vscode.window.tabGroups.close(tab, true);
      const doc = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(doc, { viewColumn: group.viewColumn, preview: true, preserveFocus: true });
    }
  }

  dispose(): void {
    for (const t of this.liveTimers.values()) clearTimeout(t);
    this.disposable.dispose();
  }
}
