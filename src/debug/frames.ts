/**
 * Stack frames of a replayed run: the checkpoints from the current one back
 * to the start, newest on top; for a fork, the frames before the fork point
 * continue in the parent run (and its parent, ...). Paged by startFrame /
 * levels without materialising all frames; a request for all of them (no `levels`: Emacs dap-mode) gets the newest
 * UNPAGED_FRAMES and a label frame that counts the rest. Frame ids are handed out per stop.
 * No DAP transport here: returns plain DAP-shaped objects.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { OcdbError } from '../model';
import type { CheckpointSummary } from '../store';
import type { RunView } from '../replay/runView';

/** A run of consecutive frames: checkpoints `top` down to 0 of one run. */
export interface FrameSegment {
  view: RunView;
  /** Highest checkpoint index shown (the current one for the first segment). */
  top: number;
}

/** What a frame id stands for. */
export interface FrameRef {
  view: RunView;
  index: number;
}

/** `step 3 · before_tool_call · issue_refund` (agent_end: `end · agent_end`). */
export function frameName(s: CheckpointSummary): string {
  const step = s.boundary === 'agent_end' || s.stepIndex < 0 ? 'end' : `step ${s.stepIndex}`;
  return s.toolName ? `${step} · ${s.boundary} · ${s.toolName}` : `${step} · ${s.boundary}`;
}

/**
 * The segments of the frame chain: the current run from `index` down, then
 * each ancestor from just before its fork point down. `parentOf` returns the
 * parent's view (or undefined when it is gone).
 */
export function frameSegments(
  view: RunView,
  index: number,
  parentOf: (view: RunView) => RunView | undefined,
): FrameSegment[] {
  const segments: FrameSegment[] = [{ view, top: index }];
  const seen = new Set([view.runId]);
  let child = view;
  for (;;) {
    const forkFrom = child.run.forkFromCheckpointId;
    const parent = child.run.parentRunId && forkFrom ? parentOf(child) : undefined;
    if (!parent || !forkFrom || seen.has(parent.runId)) break;
    seen.add(parent.runId);
    const at = parent.indexOf(forkFrom);
    // the fork's first checkpoint stands for the source checkpoint: the parent's frames start just before it
    if (at !== undefined && at > 0) segments.push({ view: parent, top: at - 1 });
    child = parent;
  }
  return segments;
}

/**
 * At most this many frames answer a stackTrace request without `levels` (a client that does not page: Emacs dap-mode
 * asks for every frame at every stop). The rest is counted by a label frame (labelFrame): at the end of a 10k-checkpoint
 * run a stop then shows 200 frames, not 10,000, and costs what it shows. A paging client (VS Code) is not affected.
 */
export const UNPAGED_FRAMES = 200;

/** The label frame after the frames an unpaged request was given: how many earlier checkpoints it leaves out. */
export function labelFrame(id: number, left: number): DebugProtocol.StackFrame {
  return {
    id,
    name: `… ${left.toLocaleString('en-US')} earlier checkpoint${left === 1 ? '' : 's'} not listed: step back to reach them`,
    line: 0,
    column: 0,
    presentationHint: 'label',
  };
}

export function totalFrames(segments: readonly FrameSegment[]): number {
  return segments.reduce((n, s) => n + s.top + 1, 0);
}

/** The refs of frames [startFrame, startFrame + levels) of the chain (levels 0 = all). */
export function pageFrames(segments: readonly FrameSegment[], startFrame: number, levels: number): FrameRef[] {
  const out: FrameRef[] = [];
  const want = levels > 0 ? levels : Number.POSITIVE_INFINITY;
  let skip = Math.max(0, startFrame);
  for (const seg of segments) {
    const size = seg.top + 1;
    if (skip >= size) {
      skip -= size;
      continue;
    }
    for (let i = seg.top - skip; i >= 0 && out.length < want; i--) out.push({ view: seg.view, index: i });
    skip = 0;
    if (out.length >= want) break;
  }
  return out;
}

/** Hands out frame ids for one stop; `reset` on every stop. */
export class FrameIds {
  private next = 1;
  private readonly byKey = new Map<string, number>();
  private readonly refs = new Map<number, FrameRef>();
  private readonly labels = new Set<number>();

  reset(): void {
    this.byKey.clear();
    this.refs.clear();
    this.labels.clear();
  }

  /** An id for a label frame (labelFrame) of this stop: no checkpoint. */
  label(): number {
    const id = this.next++;
    this.labels.add(id);
    return id;
  }

  isLabel(id: number): boolean {
    return this.labels.has(id);
  }

  idOf(ref: FrameRef): number {
    const key = `${ref.view.runId}\u0000${ref.index}`;
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.next++;
      this.byKey.set(key, id);
    }
    this.refs.set(id, ref); // the latest view of the run (an attached run is read again as it grows)
    return id;
  }

  get(id: number): FrameRef | undefined {
    return this.refs.get(id);
  }

  /** The frame of `id` at this stop; the label frame, or a frame of an earlier stop, is an error saying so. */
  require(id: number): FrameRef {
    const ref = this.refs.get(id);
    if (!ref && this.isLabel(id)) {
      throw new OcdbError(
        'InvalidInput',
        `frameId ${id} is the label that counts the checkpoints not listed, not a checkpoint: step back to reach them.`,
        { path: 'frameId' },
      );
    }
    if (!ref) {
      throw new OcdbError(
        'InvalidInput',
        `frameId ${id} is not a frame of this stop: frame ids last until the next stop; ask stackTrace again.`,
        { path: 'frameId' },
      );
    }
    return ref;
  }
}

/** The DAP frame of `ref`; `source` gives the frame's transcript source and 1-based line. */
export function toStackFrame(
  ref: FrameRef,
  id: number,
  current: RunView,
  source: (view: RunView, index: number) => { source: DebugProtocol.Source; line: number },
): DebugProtocol.StackFrame {
  const s = ref.view.summaries[ref.index] as CheckpointSummary;
  const where = source(ref.view, ref.index);
  const frame: DebugProtocol.StackFrame = {
    id,
    name: ref.view.runId === current.runId ? frameName(s) : `${frameName(s)} (${ref.view.runId})`,
    source: where.source,
    line: where.line,
    column: 1,
    canRestart: ref.view.runId === current.runId,
  };
  if (ref.view.runId !== current.runId) frame.presentationHint = 'subtle';
  return frame;
}

/**
 * The stackTrace body of a thread whose frame chain is `segments` (`current`: the run it replays): the page asked
 * for; a request for every frame (no `levels`) gets the newest UNPAGED_FRAMES and a label frame counting the rest.
 * `at` gives a frame's source and client line, `column` the client's column of the debugger's 1.
 */
export function stackTrace(
  segments: readonly FrameSegment[],
  current: RunView,
  ids: FrameIds,
  args: { startFrame?: number; levels?: number },
  at: (view: RunView, index: number) => { source: DebugProtocol.Source; line: number },
  column: (column: number) => number,
): { stackFrames: DebugProtocol.StackFrame[]; totalFrames: number } {
  const total = totalFrames(segments);
  const start = Math.max(0, args.startFrame ?? 0);
  const unpaged = (args.levels ?? 0) <= 0 && total - start > UNPAGED_FRAMES;
  const refs = pageFrames(segments, start, unpaged ? UNPAGED_FRAMES : (args.levels ?? 0));
  const stackFrames = refs.map((ref) => {
    const frame = toStackFrame(ref, ids.idOf(ref), current, at);
    frame.column = column(frame.column); // 1 here; 0 for a client counting from 0
    return frame;
  });
  if (unpaged) stackFrames.push(labelFrame(ids.label(), total - start - refs.length));
  return { stackFrames, totalFrames: total };
}
