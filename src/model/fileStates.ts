/**
 * The state machine of a coding agent's files: what each file operation of its own tools (fileEdits.ts) does to a
 * file's state — its text where known, its text before the run's first change, the calls that changed it, the reads
 * that disagreed — and the snapshots an import stores of it (one per file and checkpoint where its state moved, read
 * back in place of the operations that made it). The order of events is the caller's; paths arrive absolute.
 * Pure: no store, no file system, no path resolution.
 */
import { applyEdits, applyHunks, callEffect, lineCounts, saysOfFiles, type FileOp } from './fileEdits';
import { toolOutcomeOf, type ToolCallRecord } from './toolCall';

/**
 * Where a change or a mark happened: the checkpoint that closed the call (its `after_tool_call`). A fork's
 * inherited change (made by an ancestor before the fork point) is at index -1, before every checkpoint of the fork.
 */
export interface FileEventAt {
  checkpointIndex: number;
  stepIndex: number;
  toolCallId: string;
  toolName: string;
  /** Made by the run an ancestor of this fork was, before the fork point (its step is the ancestor's). */
  inherited?: true;
}

/** A file's whole state at once: a stored snapshot read back (its changes and mismatches those it adds). */
export interface FileSnapshotOp {
  op: 'snapshot';
  path: string;
  content: string | undefined;
  original: string | undefined;
  known: boolean;
  deleted: boolean;
  counted: { added: number; removed: number };
  changes: FileEventAt[];
  mismatches: FileEventAt[];
}

export interface FileEvent {
  at: FileEventAt;
  op: FileOp | FileSnapshotOp;
}

/** What a run's own calls did to files, in order, and the shell steps that may have. */
export interface FileEvents {
  events: FileEvent[];
  shellMarks: FileEventAt[];
}

/** One file's state after the events applied so far. */
export interface FileState {
  path: string;
  content: string | undefined;
  original: string | undefined;
  /** False until a read or a whole write showed the text: edits before that are counted, not applied. */
  known: boolean;
  deleted: boolean;
  changes: FileEventAt[];
  mismatches: FileEventAt[];
  /** Lines added and removed by changes whose texts were not known (what the counts fall back to). */
  counted: { added: number; removed: number };
}

const sameText = (a: string, b: string): boolean => a.replace(/\n+$/, '') === b.replace(/\n+$/, '');

function stateOf(states: Map<string, FileState>, path: string): FileState {
  let s = states.get(path);
  if (!s) {
    s = {
      path,
      content: undefined,
      original: undefined,
      known: false,
      deleted: false,
      changes: [],
      mismatches: [],
      counted: { added: 0, removed: 0 },
    };
    states.set(path, s);
  }
  return s;
}

/** Applies one event to the states of the files (by absolute path). */
export function applyFileEvent(states: Map<string, FileState>, e: FileEvent): void {
  apply(states, e.op.path, e.op, e.at);
}

const pathsOf = (op: FileOp | FileSnapshotOp): string[] =>
  op.op === 'patch' && op.moveTo ? [op.path, op.moveTo] : [op.path];

/**
 * Applies the events (in order) of checkpoints up to `index` to `states`. A snapshot holds its file's whole state:
 * one that the file's next event replaces (another snapshot) adds only its changes and mismatches, its texts not
 * read — a stored history's are blobs read on first use (storedSnapshotEvents) — so the files at a checkpoint cost
 * the texts of the files there, not of every version before.
 */
export function applyFileEventsUpTo(states: Map<string, FileState>, events: readonly FileEvent[], index: number): void {
  const replaced = new Set<FileEvent>();
  const lastOf = new Map<string, FileEvent>();
  for (const e of events) {
    if (e.at.checkpointIndex > index) continue;
    for (const p of pathsOf(e.op)) {
      const before = lastOf.get(p);
      if (before && before.op.op === 'snapshot' && e.op.op === 'snapshot') replaced.add(before);
      lastOf.set(p, e);
    }
  }
  for (const e of events) {
    if (e.at.checkpointIndex > index) continue;
    if (!replaced.has(e) || e.op.op !== 'snapshot') applyFileEvent(states, e);
    else {
      const s = stateOf(states, e.op.path);
      s.changes.push(...e.op.changes);
      s.mismatches.push(...e.op.mismatches);
    }
  }
}

function apply(states: Map<string, FileState>, path: string, op: FileOp | FileSnapshotOp, at: FileEventAt): void {
  const s = stateOf(states, path);
  const change = (next: string | undefined, counts?: { added: number; removed: number }) => {
    if (s.changes.length === 0 && s.original === undefined && s.known) s.original = s.content;
    if (counts) s.counted = { added: s.counted.added + counts.added, removed: s.counted.removed + counts.removed };
    s.content = next;
    s.deleted = false;
    s.changes.push(at);
  };
  const mismatch = () => {
    s.mismatches.push(at);
  };
  switch (op.op) {
    case 'snapshot':
      s.content = op.content;
      s.original = op.original;
      s.known = op.known;
      s.deleted = op.deleted;
      s.counted = op.counted;
      s.changes.push(...op.changes);
      s.mismatches.push(...op.mismatches);
      return;
    case 'read': {
      if (!op.whole) {
        if (s.known && s.content !== undefined) {
          const lines = s.content
            .split('\n')
            .slice(op.fromLine - 1, op.fromLine - 1 + op.content.split('\n').length - 1);
          if (!sameText(`${lines.join('\n')}\n`, op.content)) mismatch();
        }
        return;
      }
      if (s.known && s.content !== undefined && !sameText(s.content, op.content)) {
        mismatch();
        s.content = op.content;
      } else if (!s.known) {
        s.content = op.content;
        s.known = true;
        if (s.changes.length === 0) s.original = op.content;
      }
      return;
    }
    case 'write': {
      const before = s.known ? (s.content ?? '') : undefined;
      if (s.changes.length === 0 && !s.known) s.original = ''; // written before anything showed it: new, as far as the run knows
      s.known = true;
      change(op.content, before !== undefined ? undefined : lineCounts('', op.content));
      return;
    }
    case 'edit': {
      if (s.known && s.content !== undefined) {
        const next = applyEdits(s.content, op.edits);
        if (next === undefined) {
          mismatch();
          s.known = false;
          change(undefined, sumEdits(op.edits));
        } else change(next);
      } else change(undefined, sumEdits(op.edits));
      return;
    }
    case 'patch': {
      if (s.known && s.content !== undefined) {
        const next = applyHunks(s.content, op.hunks);
        if (next === undefined) {
          mismatch();
          s.known = false;
          change(undefined, sumHunks(op.hunks));
        } else change(next);
      } else change(undefined, sumHunks(op.hunks));
      if (op.moveTo) {
        const moved = s.content;
        apply(states, path, { op: 'delete', path }, at);
        if (moved !== undefined) apply(states, op.moveTo, { op: 'write', path: op.moveTo, content: moved }, at);
      }
      return;
    }
    case 'delete':
      change(undefined, s.known && s.content !== undefined ? lineCounts(s.content, '') : undefined);
      s.deleted = true;
      s.known = true;
      return;
    case 'opaque':
      s.known = false;
      change(undefined);
      return;
    default: {
      const unreachable: never = op;
      throw new Error(`unknown file op ${JSON.stringify(unreachable)}`);
    }
  }
}

function sumEdits(edits: readonly { oldText: string; newText: string }[]): { added: number; removed: number } {
  return edits.reduce(
    (n, e) => {
      const c = lineCounts(e.oldText, e.newText);
      return { added: n.added + c.added, removed: n.removed + c.removed };
    },
    { added: 0, removed: 0 },
  );
}

function sumHunks(hunks: readonly string[][]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const h of hunks)
    for (const l of h) {
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
    }
  return { added, removed };
}

/** What fileEventsOf needs of a checkpoint (a CheckpointSummary has it). */
export interface CheckpointPlace {
  index: number;
  stepIndex: number;
  boundary: string;
  toolCallId?: string;
  /** The call's tool, when known: a call of a tool that says nothing of files is not read. */
  toolName?: string;
}

/**
 * The file events of a run's own calls, from checkpoint `from` on: a call's effect counts from the checkpoint that
 * closed it (an unanswered call: from the one that opened it). `abs` resolves a path as the agent gave it.
 */
export function fileEventsOf(
  checkpoints: readonly CheckpointPlace[],
  callOf: (toolCallId: string) => ToolCallRecord | undefined,
  abs: (path: string) => string,
  from = 0,
): FileEvents {
  const events: FileEvent[] = [];
  const shellMarks: FileEventAt[] = [];
  const closed = new Set<string>();
  for (const cp of checkpoints) {
    if (cp.index < from || !cp.toolCallId || closed.has(cp.toolCallId)) continue;
    if (cp.toolName !== undefined && !saysOfFiles(cp.toolName)) continue;
    const call = callOf(cp.toolCallId);
    if (!call) continue;
    if (cp.boundary === 'before_tool_call' && call.endedAt !== undefined) continue;
    closed.add(cp.toolCallId);
    const at = {
      checkpointIndex: cp.index,
      stepIndex: cp.stepIndex,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
    };
    const effect = callEffect(
      call.toolName,
      call.args,
      call.result,
      call.endedAt !== undefined && toolOutcomeOf(call) === 'success',
    );
    if (effect.kind === 'shell') shellMarks.push(at);
    else if (effect.kind === 'files')
      for (const op of effect.ops)
        events.push({
          at,
          op:
            op.op === 'patch' && op.moveTo
              ? { ...op, path: abs(op.path), moveTo: abs(op.moveTo) }
              : { ...op, path: abs(op.path) },
        });
  }
  return { events, shellMarks };
}

/** A snapshot of one file at one checkpoint: its state then, and the changes and mismatches that checkpoint added. */
export type FileSnapshot = Omit<FileSnapshotOp, 'op'> & { checkpointIndex: number };

/** A state as it was before a checkpoint's events: its fields, and how many changes and mismatches it had. */
type Before = Omit<FileState, 'changes' | 'mismatches'> & { changes: number; mismatches: number };

const sameState = (a: FileState, b: Before): boolean =>
  a.content === b.content &&
  a.original === b.original &&
  a.known === b.known &&
  a.deleted === b.deleted &&
  a.counted.added === b.counted.added &&
  a.counted.removed === b.counted.removed;

/**
 * Applies `events` (in checkpoint order) to `states` and answers a snapshot of each file whose state moved at a
 * checkpoint (or that a checkpoint added a change or a mismatch to): what an import stores, so that applying the
 * snapshots in order gives the states the events give, without the events.
 */
export function fileSnapshots(states: Map<string, FileState>, events: readonly FileEvent[]): FileSnapshot[] {
  const out: FileSnapshot[] = [];
  for (let i = 0; i < events.length;) {
    const index = (events[i] as FileEvent).at.checkpointIndex;
    const before = new Map<string, Before>();
    for (; i < events.length && (events[i] as FileEvent).at.checkpointIndex === index; i++) {
      const e = events[i] as FileEvent;
      for (const p of pathsOf(e.op))
        if (!before.has(p)) {
          const s = stateOf(states, p);
          before.set(p, { ...s, changes: s.changes.length, mismatches: s.mismatches.length });
        }
      applyFileEvent(states, e);
    }
    for (const [path, was] of before) {
      const now = states.get(path) as FileState;
      const changes = now.changes.slice(was.changes);
      const mismatches = now.mismatches.slice(was.mismatches);
      if (changes.length === 0 && mismatches.length === 0 && sameState(now, was)) continue;
      out.push({
        checkpointIndex: index,
        path,
        content: now.content,
        original: now.original,
        known: now.known,
        deleted: now.deleted,
        counted: now.counted,
        changes,
        mismatches,
      });
    }
  }
  return out;
}

/** Where a stored snapshot's change, mismatch or shell mark was made (its checkpoint is the row's). */
export interface FileEventRef {
  stepIndex: number;
  toolCallId: string;
  toolName: string;
}

/** A snapshot as the store keeps it: texts by content hash (a blob each, stored once by content). */
export interface StoredFileSnapshot extends Omit<FileSnapshot, 'content' | 'original' | 'changes' | 'mismatches'> {
  contentHash?: string;
  originalHash?: string;
  changes: FileEventRef[];
  mismatches: FileEventRef[];
}

/**
 * A run's files as an import rebuilt them from its own tools and stored them: snapshots and shell marks (those at
 * index -1 inherited, made by its ancestors before its fork point), the run's folder, and `through`: the checkpoints
 * before it are final (a later one may still move when the run's session grows).
 */
export interface StoredFileHistory {
  through: number;
  cwd?: string;
  snapshots: StoredFileSnapshot[];
  shellMarks: { checkpointIndex: number; at: FileEventRef }[];
}

/** What an import hands the store: the snapshots with their texts, from checkpoint `from` on (the rest kept). */
export interface NewFileHistory {
  from: number;
  through: number;
  cwd?: string;
  snapshots: FileSnapshot[];
  shellMarks: FileEventAt[];
}

export const refOf = (at: FileEventAt): FileEventRef => ({
  stepIndex: at.stepIndex,
  toolCallId: at.toolCallId,
  toolName: at.toolName,
});

const atOf = (checkpointIndex: number, r: FileEventRef): FileEventAt => ({
  checkpointIndex,
  stepIndex: r.stepIndex,
  toolCallId: r.toolCallId,
  toolName: r.toolName,
  ...(checkpointIndex < 0 ? { inherited: true as const } : {}),
});

/** A stored history as events (snapshots) and shell marks, in checkpoint order; `text` reads a blob, when first asked. */
export function storedSnapshotEvents(stored: StoredFileHistory, text: (contentHash: string) => string): FileEvents {
  const texts = new Map<string, string>();
  const read = (hash: string | undefined): string | undefined => {
    if (hash === undefined) return undefined;
    let t = texts.get(hash);
    if (t === undefined) texts.set(hash, (t = text(hash)));
    return t;
  };
  const events: FileEvent[] = stored.snapshots.map((s) => {
    const changes = s.changes.map((r) => atOf(s.checkpointIndex, r));
    const mismatches = s.mismatches.map((r) => atOf(s.checkpointIndex, r));
    const at = changes[0] ?? mismatches[0] ?? atOf(s.checkpointIndex, { stepIndex: 0, toolCallId: '', toolName: '' });
    const op: FileSnapshotOp = {
      op: 'snapshot',
      path: s.path,
      content: undefined,
      original: undefined,
      known: s.known,
      deleted: s.deleted,
      counted: s.counted,
      changes,
      mismatches,
    };
    // the texts are read when first asked for (a version another one replaces is usually never asked)
    Object.defineProperty(op, 'content', { get: () => read(s.contentHash), enumerable: true });
    Object.defineProperty(op, 'original', { get: () => read(s.originalHash), enumerable: true });
    return { at, op };
  });
  return { events, shellMarks: stored.shellMarks.map((m) => atOf(m.checkpointIndex, m.at)) };
}
