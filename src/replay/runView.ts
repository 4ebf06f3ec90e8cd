/**
 * RunView: one recorded run as the debugger (and the extension's transcript
 * documents) read it — its summary, checkpoint summaries, whole tool ledger (each record read on first use: a
 * launch does not read every call's result),
 * transcript at one detail level (rendered on first use) and full checkpoints loaded on demand through a small cache. Implements the
 * CheckpointAccess that breakpoints need. Reads through the RunStore
 * contract only; no DAP, no vscode.
 */
import { divergenceOfError, divergenceSummary, type Checkpoint, type ToolCallRecord } from '../model';
import type { CheckpointSummary, RunStore, RunSummary, ToolCallFacts } from '../store';
import { divergenceCheckpointId, type CheckpointAccess } from './breakpoints';
import type { ToolCallLookup } from './evaluate';
import {
  DEFAULT_TRANSCRIPT_DETAIL,
  renderTranscript,
  transcriptLines,
  type Transcript,
  type TranscriptDetail,
  type TranscriptLine,
} from './transcript';
import { liveUntil } from './sessionLive';

const CACHE_SIZE = 16;

export class RunView implements CheckpointAccess, ToolCallLookup {
  readonly run: RunSummary;
  readonly summaries: CheckpointSummary[];
  /** The run's whole ledger, in order; a record's arguments and result are read when it is (a lazy list). */
  readonly ledger: readonly ToolCallRecord[];
  /** The calls without arguments and results (names, ids), read with the view. */
  private readonly facts: ToolCallFacts[];
  private callIndex: Map<string, number> | undefined;
  readonly divergenceCheckpointId?: string;
  readonly divergenceText?: string;
  /** The detail level of this view's transcript. */
  readonly detail: TranscriptDetail;
  /** An imported session whose file is still being written (sessionLive.ts): its transcript's header says "live". */
  readonly live: boolean;
  private transcriptCache: Transcript | undefined;
  private linesCache: TranscriptLine[] | undefined;
  private readonly cache = new Map<number, Checkpoint>();
  private readonly indexById = new Map<string, number>();

  /** Reads the run; throws RunNotFound (naming the run id and store) when it is not there. */
  constructor(
    /** The store the view reads (a fork's Files scope reads its ancestors' calls from it). */
    readonly store: RunStore,
    runId: string,
    options: { detail?: TranscriptDetail } = {},
  ) {
    this.detail = options.detail ?? DEFAULT_TRANSCRIPT_DETAIL;
    this.run = store.getRun(runId);
    this.summaries = store.listCheckpoints(runId);
    this.ledger = store.listToolCallsView(runId);
    this.facts = store.listToolCallFacts(runId);
    this.live = liveUntil(this.run) !== undefined;
    this.summaries.forEach((s, i) => this.indexById.set(s.checkpointId, i));
    const divergence = divergenceCheckpointId(this.run, this.summaries);
    if (divergence) this.divergenceCheckpointId = divergence;
    const where = divergenceOfError(this.run.error);
    if (where) this.divergenceText = divergenceSummary(where);
  }

  get runId(): string {
    return this.run.runId;
  }

  /** The tool names this run calls. */
  toolNames(): Set<string> {
    return new Set(this.facts.map((t) => t.toolName));
  }

  /** Index of a checkpoint of this run, or undefined. */
  indexOf(checkpointId: string): number | undefined {
    return this.indexById.get(checkpointId);
  }

  /**
   * The checkpoint at `index` (cached; the store validates what it reads). Its messages and ledger snapshot are
   * read on access (RunStore.getCheckpointView): a step shows a page of a long conversation without reading it all.
   */
  load(index: number): Checkpoint {
    const hit = this.cache.get(index);
    if (hit) {
      this.cache.delete(index);
      this.cache.set(index, hit);
      return hit;
    }
    const s = this.summaries[index];
    const cp = s ? this.store.getCheckpointView(s.checkpointId) : this.store.getCheckpointAt(this.runId, index);
    this.cache.set(index, cp);
    if (this.cache.size > CACHE_SIZE) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    return cp;
  }

  /**
   * The run's transcript at this view's detail level (rendered once): the one rendering of a run that the
   * debugger's frames and breakpoints and the extension's transcript documents share.
   */
  transcript(): Transcript {
    this.transcriptCache ??= renderTranscript(
      this.run,
      this.summaries,
      (id) => this.load(this.indexById.get(id) ?? -1),
      {
        toolCalls: this.ledger,
        lastMessage: (id) => this.store.getLastMessage(id),
        detail: this.detail,
        live: this.live,
        liveEdits: this.store.listLiveEdits(this.runId),
      },
    );
    return this.transcriptCache;
  }

  /**
   * The checkpoint lines of the transcript (those of `transcript()`), without rendering it when it was not: what
   * frames and source breakpoints need while the text is a file written before (debug/transcriptFiles.ts).
   */
  lines(): TranscriptLine[] {
    if (this.transcriptCache) return this.transcriptCache.lines;
    this.linesCache ??= transcriptLines(this.run, this.summaries, this.store.listLiveEdits(this.runId).length);
    return this.linesCache;
  }

  /** A call of the whole ledger by id (that record read alone). */
  toolCall(toolCallId: string): ToolCallRecord | undefined {
    if (!this.callIndex) {
      this.callIndex = new Map();
      // the two reads of the view may differ by the calls a writer added between them: only those of both count
      const n = Math.min(this.facts.length, this.ledger.length);
      for (let i = 0; i < n; i++) this.callIndex.set((this.facts[i] as ToolCallFacts).toolCallId, i);
    }
    const i = this.callIndex.get(toolCallId);
    return i === undefined ? undefined : this.ledger[i];
  }

  /** The latest call of `toolName` (that record read alone). */
  lastCallOf(toolName: string): ToolCallRecord | undefined {
    for (let i = Math.min(this.facts.length, this.ledger.length) - 1; i >= 0; i--) {
      if (this.facts[i]?.toolName === toolName) return this.ledger[i];
    }
    return undefined;
  }
}
