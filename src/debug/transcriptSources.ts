/**
 * The DAP sources of run transcripts for one session: each run's transcript
 * is written beside the store (see transcriptFiles.ts for why a file) and
 * named by path; when the folder is not writable it is served by
 * sourceReference instead. A run still being recorded carries a fresh
 * sourceReference beside its path each time it grows, so a client that
 * already holds the old text asks for the new one (VS Code, nvim-dap) rather
 * than pointing past the end of a stale buffer; `onSource` tells the session
 * to send `loadedSource` (new / changed). Maps sources back to run ids for
 * breakpoints and goto. No transport; no vscode.
 */
import { Handles } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { OcdbError } from '../model';
import type { RunView } from '../replay/runView';
import { runIdOfTranscript, writeRunTranscript } from './transcriptFiles';

export class TranscriptSources {
  private readonly sources = new Map<string, DebugProtocol.Source>();
  private readonly refs = new Handles<string>();
  private readonly seen = new Set<string>();
  /** The change counter of the run each source was written from: a view read since the run grew writes it again. */
  private readonly writtenAt = new Map<string, number>();

  constructor(
    private readonly storePath: string,
    /** Debugger path -> client path (URIs or paths, as the client asked). */
    private readonly toClient: (p: string) => string,
    private readonly toDebugger: (p: string) => string,
    /** A transcript source was made (`new`) or replaced because its run grew (`changed`). */
    private readonly onSource: (source: DebugProtocol.Source, reason: 'new' | 'changed') => void = () => undefined,
  ) {}

  /** The source of `view`'s transcript (at the view's detail level: the launch's `transcriptDetail`), written on first use. */
  sourceOf(view: RunView): DebugProtocol.Source {
    let src = this.sources.get(view.runId);
    // a run still being recorded, read again since its source was written: its header and lines are behind
    if (src && this.writtenAt.get(view.runId) !== view.run.changeSeq) src = undefined;
    if (!src) {
      this.writtenAt.set(view.runId, view.run.changeSeq);
      const file = writeRunTranscript(this.storePath, view);
      const name = `${view.runId}.transcript`;
      src = file ? { name, path: this.toClient(file) } : { name, sourceReference: this.refs.create(view.runId) };
      if (file && view.run.status === 'running') {
        // a live run: the same path, and a new reference for each version of its text
        src.sourceReference = this.refs.create(view.runId);
        src.origin = 'a run still being recorded';
      }
      this.sources.set(view.runId, src);
      this.onSource(src, this.seen.has(view.runId) ? 'changed' : 'new');
      this.seen.add(view.runId);
    }
    return src;
  }

  /**
   * A run that grew while nobody looks at a stop of it (its agent runs on after Continue): its file is written again
   * and its source, the same reference, is `changed` — VS Code then fetches the text again for the document it
   * shows, whose header and lines follow the run. (A stop makes a new reference instead: sourceOf.)
   */
  refresh(view: RunView): void {
    const src = this.sources.get(view.runId);
    if (!src) {
      this.sourceOf(view);
      return;
    }
    if (this.writtenAt.get(view.runId) === view.run.changeSeq) return;
    this.writtenAt.set(view.runId, view.run.changeSeq);
    writeRunTranscript(this.storePath, view);
    this.onSource(src, 'changed');
  }

  /** The sources made so far (loadedSources): the transcripts of the runs the session showed. */
  all(): DebugProtocol.Source[] {
    return [...this.sources.values()];
  }

  /** Forgets `runId`'s source so the next use re-renders and rewrites it (the run grew). */
  forget(runId: string): void {
    this.sources.delete(runId);
    this.writtenAt.delete(runId);
  }

  /** The run a source is the transcript of; InvalidInput for any other file. */
  runIdOf(source: DebugProtocol.Source): string {
    const runId = source.sourceReference
      ? this.refs.get(source.sourceReference)
      : source.path
        ? runIdOfTranscript(this.toDebugger(source.path))
        : undefined;
    if (!runId) {
      throw new OcdbError('InvalidInput', `${source.path ?? source.name ?? 'This source'} is not a run transcript.`, {
        path: 'source',
      });
    }
    return runId;
  }
}
