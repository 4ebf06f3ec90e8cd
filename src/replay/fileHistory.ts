/**
 * The files a coding agent changed, at every checkpoint of its run, rebuilt
 * from its own edit tools (fileEdits.ts) in the order the calls finished:
 * each file starts from what a read showed of it (or from the first write),
 * edits apply to that text, and a later read of the file is checked against
 * the rebuilt text (a mismatch is marked, and the read's text taken from
 * there). A shell call may have changed any file: its step is marked. The
 * files "at" a checkpoint are what the calls finished by then had done: at a
 * `before_tool_call`, before that tool ran. A fork starts from the files its ancestors had made by its fork point
 * (inherited), its own changes on top. Read-only; no vscode.
 */
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { toolOutcomeOf, type ToolCallRecord } from '../model';
import type { CheckpointSummary, FileVersion, RunStore } from '../store';
import { applyEdits, applyHunks, callEffect, lineCounts, type FileOp } from './fileEdits';

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

export interface FileAt {
  /** Absolute path (relative paths of the agent resolved against the run's folder). */
  path: string;
  /** Relative to the run's folder when inside it. */
  displayPath: string;
  /** The text as the agent's edits made it; undefined when no read or whole write showed the file first. */
  content: string | undefined;
  /** The text before the run's first change of it, when known ('' for a file the run created). */
  original: string | undefined;
  deleted: boolean;
  added: number;
  removed: number;
  /** The calls that changed it, oldest first. */
  changes: FileEventAt[];
  /** Reads (or edits) whose text differed from the rebuilt one: the rebuilt text was not the file's. */
  mismatches: FileEventAt[];
}

export interface FileHistory {
  /** The folder the agent ran in (relative paths resolve against it). */
  cwd: string | undefined;
  /** Checkpoints closing a shell call: "files may have changed here (shell)". */
  shellMarks: FileEventAt[];
  /** The files changed by the calls finished at or before checkpoint `index` (every checkpoint: Infinity). */
  filesAt(index: number): FileAt[];
}

interface FileEvent {
  at: FileEventAt;
  op: FileOp;
}

interface State {
  path: string;
  content: string | undefined;
  original: string | undefined;
  /** False until a read or a whole write showed the text: edits before that are counted, not applied. */
  known: boolean;
  deleted: boolean;
  changes: FileEventAt[];
  mismatches: FileEventAt[];
  counted: { added: number; removed: number };
}

const sameText = (a: string, b: string): boolean => a.replace(/\n+$/, '') === b.replace(/\n+$/, '');

function apply(states: Map<string, State>, path: string, op: FileOp, at: FileEventAt): void {
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
  const change = (next: string | undefined, counts?: { added: number; removed: number }) => {
    if (s.changes.length === 0 && s.original === undefined && s.known) s.original = s.content;
    if (counts) {
      s.counted.added += counts.added;
      s.counted.removed += counts.removed;
    }
    s.content = next;
    s.deleted = false;
    s.changes.push(at);
  };
  switch (op.op) {
    case 'read': {
      if (!op.whole) {
        if (s.known && s.content !== undefined) {
          const lines = s.content
            .split('\n')
            .slice(op.fromLine - 1, op.fromLine - 1 + op.content.split('\n').length - 1);
          if (!sameText(`${lines.join('\n')}\n`, op.content)) s.mismatches.push(at);
        }
        return;
      }
      if (s.known && s.content !== undefined && !sameText(s.content, op.content)) {
        s.mismatches.push(at);
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
          s.mismatches.push(at);
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
          s.mismatches.push(at);
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

/** What a run's own calls did to files, in order, and the shell steps that may have. */
export interface FileEvents {
  events: FileEvent[];
  shellMarks: FileEventAt[];
}

/**
 * The run's folder: the runtime context's `project.cwd` where an importer set it. `inherited`: what a fork's
 * ancestors did before its fork point (`inheritedFileEvents`), the files the fork starts from.
 */
export function fileHistory(
  checkpoints: readonly CheckpointSummary[],
  calls: readonly ToolCallRecord[],
  cwd: string | undefined,
  inherited?: FileEvents,
  stored?: FileEvents,
): FileHistory {
  const own = fileEvents(checkpoints, calls, cwd);
  // stored versions (trackFiles) go where their checkpoints are among the tool calls' changes
  const events = [...(inherited?.events ?? []), ...byCheckpoint([...own.events, ...(stored?.events ?? [])])];
  const shellMarks = [...(inherited?.shellMarks ?? []), ...own.shellMarks];
  return {
    cwd,
    shellMarks,
    filesAt(index: number): FileAt[] {
      const states = new Map<string, State>();
      for (const e of events) if (e.at.checkpointIndex <= index) apply(states, e.op.path, e.op, e.at);
      const out: FileAt[] = [];
      for (const s of states.values()) {
        if (s.changes.length === 0) continue; // only read
        const counts =
          s.original !== undefined && s.content !== undefined && !s.deleted
            ? lineCounts(s.original, s.content)
            : s.deleted && s.original !== undefined
              ? lineCounts(s.original, '')
              : s.counted;
        const rel = cwd !== undefined ? relative(cwd, s.path) : s.path;
        out.push({
          path: s.path,
          displayPath: cwd !== undefined && !rel.startsWith('..') && !isAbsolute(rel) ? rel : s.path,
          content: s.deleted ? undefined : s.content,
          original: s.original,
          deleted: s.deleted,
          added: counts.added,
          removed: counts.removed,
          changes: s.changes,
          mismatches: s.mismatches,
        });
      }
      return out.sort((a, b) => a.displayPath.localeCompare(b.displayPath));
    },
  };
}

function fileEvents(
  checkpoints: readonly CheckpointSummary[],
  calls: readonly ToolCallRecord[],
  cwd: string | undefined,
): FileEvents {
  const byId = new Map(calls.map((c) => [c.toolCallId, c]));
  const events: FileEvent[] = [];
  const shellMarks: FileEventAt[] = [];
  const closed = new Set<string>();
  const abs = (p: string) => (isAbsolute(p) || cwd === undefined ? resolve(p) : resolve(cwd, p));
  for (const cp of checkpoints) {
    // a call's effect counts from the checkpoint that closed it (an unanswered call: from the one that opened it)
    if (!cp.toolCallId || closed.has(cp.toolCallId)) continue;
    const call = byId.get(cp.toolCallId);
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
      for (const op of effect.ops) events.push({ at, op: { ...op, path: abs(op.path) } });
  }
  return { events, shellMarks };
}

/** Events in checkpoint order, those of one checkpoint in the order given. */
const byCheckpoint = (events: FileEvent[]): FileEvent[] =>
  events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at.checkpointIndex - b.e.at.checkpointIndex || a.i - b.i)
    .map((x) => x.e);

/**
 * The versions a recorder stored (`run.trackFiles`) as file events: a version at -1 is the file as it was before
 * (shown, not a change), the others its text (a write) or its deletion at their checkpoint.
 */
export function storedFileEvents(
  versions: readonly FileVersion[],
  checkpoints: readonly CheckpointSummary[],
  text: (contentHash: string) => string,
): FileEvents {
  const events: FileEvent[] = [];
  for (const v of versions) {
    const cp = checkpoints[v.checkpointIndex];
    const at: FileEventAt = {
      checkpointIndex: v.checkpointIndex,
      stepIndex: cp?.stepIndex ?? 0,
      toolCallId: cp?.toolCallId ?? '',
      toolName: cp?.toolName ?? 'files',
    };
    const path = resolve(v.path);
    if (v.contentHash === undefined) events.push({ at, op: { op: 'delete', path } });
    else if (v.checkpointIndex < 0)
      events.push({ at, op: { op: 'read', path, content: text(v.contentHash), whole: true, fromLine: 1 } });
    else events.push({ at, op: { op: 'write', path, content: text(v.contentHash) } });
  }
  return { events, shellMarks: [] };
}

/** A run's stored file versions as events; undefined when it has none. */
function storedOf(store: RunStore, runId: string, checkpoints: readonly CheckpointSummary[]): FileEvents | undefined {
  const versions = store.listFileVersions(runId);
  if (versions.length === 0) return undefined;
  return storedFileEvents(versions, checkpoints, (hash) => store.getFileVersionText(hash));
}

/** How many ancestors a fork's files are looked for in (a cycle of parents, written by hand, ends there too). */
const MAX_LINEAGE = 64;

/**
 * The folder the run ran in: its first checkpoint's `project.cwd`; else, for a run whose files a recorder tracked,
 * the folder holding them all.
 */
export function cwdOf(
  store: RunStore,
  checkpoints: readonly CheckpointSummary[],
  stored?: FileEvents,
): string | undefined {
  const first = checkpoints[0];
  const cwd = first ? store.getCheckpoint(first.checkpointId).runtimeContext.project.cwd : undefined;
  if (typeof cwd === 'string') return cwd;
  const paths = stored?.events.map((e) => e.op.path) ?? [];
  if (paths.length === 0) return undefined;
  let common = dirname(paths[0] as string);
  for (const p of paths)
    while (common !== dirname(common) && relative(common, p).startsWith('..')) common = dirname(common);
  return common;
}

/**
 * What a fork inherits: the file changes (and shell marks) its ancestors made up to its fork point, each at index
 * -1 of the fork. At a fork point that is a `before_tool_call`, that tool had not run. Undefined for a run that
 * is not a fork, or whose parent is not in the store.
 */
export function inheritedFileEvents(store: RunStore, runId: string): FileEvents | undefined {
  const chain: { runId: string; forkPoint: string }[] = [];
  const seen = new Set([runId]);
  for (let r = store.getRun(runId); r.parentRunId && r.forkFromCheckpointId && chain.length < MAX_LINEAGE;) {
    if (seen.has(r.parentRunId) || !store.hasRun(r.parentRunId)) break;
    chain.push({ runId: r.parentRunId, forkPoint: r.forkFromCheckpointId });
    seen.add(r.parentRunId);
    r = store.getRun(r.parentRunId);
  }
  if (chain.length === 0) return undefined;
  const out: FileEvents = { events: [], shellMarks: [] };
  // the oldest ancestor first: each one's own changes up to where its child forked
  for (const { runId: id, forkPoint } of chain.reverse()) {
    const checkpoints = store.listCheckpoints(id);
    const cut = checkpoints.find((c) => c.checkpointId === forkPoint)?.index;
    if (cut === undefined) continue;
    const stored = storedOf(store, id, checkpoints);
    const calls = fileEvents(checkpoints, store.listToolCalls(id), cwdOf(store, checkpoints, stored));
    const own = { events: byCheckpoint([...calls.events, ...(stored?.events ?? [])]), shellMarks: calls.shellMarks };
    const moved = (at: FileEventAt): FileEventAt => ({ ...at, checkpointIndex: -1, inherited: true });
    // what an older ancestor gave this one is already in `out`
    for (const e of own.events) if (e.at.checkpointIndex <= cut) out.events.push({ ...e, at: moved(e.at) });
    for (const m of own.shellMarks) if (m.checkpointIndex <= cut) out.shellMarks.push(moved(m));
  }
  return out;
}

/** A run's file history read from the store (its folder from the first checkpoint's `project.cwd`), a fork's inherited files first. */
export function runFileHistory(
  store: RunStore,
  runId: string,
): { history: FileHistory; checkpoints: CheckpointSummary[] } {
  const checkpoints = store.listCheckpoints(runId);
  const stored = storedOf(store, runId, checkpoints);
  return {
    history: fileHistory(
      checkpoints,
      store.listToolCalls(runId),
      cwdOf(store, checkpoints, stored),
      inheritedFileEvents(store, runId),
      stored,
    ),
    checkpoints,
  };
}
