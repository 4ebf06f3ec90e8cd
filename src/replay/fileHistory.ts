/**
 * The files a coding agent changed, at every checkpoint of its run: from its own edit tools (model/fileEdits.ts,
 * model/fileStates.ts) in the order the calls finished — each file starts from what a read showed of it (or from the
 * first write), edits apply to that text, and a later read of the file is checked against the rebuilt text (a
 * mismatch is marked, and the read's text taken from there). A shell call may have changed any file: its step is
 * marked. The files "at" a checkpoint are what the calls finished by then had done: at a `before_tool_call`, before
 * that tool ran. A fork starts from the files its ancestors had made by its fork point (inherited), its own changes
 * on top. An imported run's files were rebuilt once by its import and stored (importers/rebuiltFiles.ts): read back,
 * its tool calls are not read; a run imported before that, or recorded, is rebuilt here. Read-only; no vscode.
 */
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import {
  applyFileEventsUpTo,
  fileEventsOf,
  lineCounts,
  storedSnapshotEvents,
  type FileEvent,
  type FileEventAt,
  type FileEvents,
  type FileState,
  type ToolCallRecord,
} from '../model';
import type { CheckpointSummary, FileVersion, RunStore } from '../store';

export type { FileEventAt, FileEvents } from '../model';

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

/** A path as the agent gave it, resolved against the run's folder. */
export const resolverOf =
  (cwd: string | undefined) =>
  (p: string): string =>
    isAbsolute(p) || cwd === undefined ? resolve(p) : resolve(cwd, p);

/** The history the events (in order) and shell marks make. */
function historyOf(cwd: string | undefined, events: readonly FileEvent[], shellMarks: FileEventAt[]): FileHistory {
  return {
    cwd,
    shellMarks,
    filesAt(index: number): FileAt[] {
      const states = new Map<string, FileState>();
      applyFileEventsUpTo(states, events, index);
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

/**
 * Rebuilds a run's file history from its calls. The run's folder: the runtime context's `project.cwd` where an
 * importer set it. `inherited`: what a fork's ancestors did before its fork point (`inheritedFileEvents`), the files
 * the fork starts from; `stored`: the versions a recorder read (`recordedFileEvents`).
 */
export function fileHistory(
  checkpoints: readonly CheckpointSummary[],
  calls: readonly ToolCallRecord[],
  cwd: string | undefined,
  inherited?: FileEvents,
  stored?: FileEvents,
): FileHistory {
  const byId = new Map(calls.map((c) => [c.toolCallId, c]));
  const own = fileEventsOf(checkpoints, (id) => byId.get(id), resolverOf(cwd));
  // stored versions (trackFiles) go where their checkpoints are among the tool calls' changes
  const events = [...(inherited?.events ?? []), ...byCheckpoint([...own.events, ...(stored?.events ?? [])])];
  return historyOf(cwd, events, [...(inherited?.shellMarks ?? []), ...own.shellMarks]);
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

/** An ancestor's event as its fork inherits it: at -1, before every checkpoint of the fork (a snapshot's marks too). */
const movedAt = (at: FileEventAt): FileEventAt => ({ ...at, checkpointIndex: -1, inherited: true });
function moved(e: FileEvent): FileEvent {
  const op =
    e.op.op === 'snapshot'
      ? { ...e.op, changes: e.op.changes.map(movedAt), mismatches: e.op.mismatches.map(movedAt) }
      : e.op;
  return { at: movedAt(e.at), op };
}

/** The text of a blob the store holds (a file version's). */
const textOf = (store: RunStore) => (hash: string) => store.getFileVersionText(hash);

/**
 * What a fork inherits: the file changes (and shell marks) its ancestors made up to its fork point, each at index
 * -1 of the fork. At a fork point that is a `before_tool_call`, that tool had not run. Undefined for a run that
 * is not a fork, or whose parent is not in the store. An ancestor whose import stored its files is read from them
 * (they hold what its own ancestors gave it); `rebuild`: every ancestor rebuilt from its calls instead.
 */
export function inheritedFileEvents(store: RunStore, runId: string, rebuild = false): FileEvents | undefined {
  const chain: { runId: string; forkPoint: string }[] = [];
  const seen = new Set([runId]);
  for (let r = store.getRun(runId); r.parentRunId && r.forkFromCheckpointId && chain.length < MAX_LINEAGE;) {
    if (seen.has(r.parentRunId) || !store.hasRun(r.parentRunId)) break;
    chain.push({ runId: r.parentRunId, forkPoint: r.forkFromCheckpointId });
    seen.add(r.parentRunId);
    r = store.getRun(r.parentRunId);
  }
  if (chain.length === 0) return undefined;
  let out: FileEvents = { events: [], shellMarks: [] };
  // the oldest ancestor first: each one's own changes up to where its child forked
  for (const { runId: id, forkPoint } of chain.reverse()) {
    const checkpoints = store.listCheckpoints(id);
    const cut = checkpoints.find((c) => c.checkpointId === forkPoint)?.index;
    if (cut === undefined) continue;
    const stored = storedOf(store, id, checkpoints);
    const rows = rebuild ? undefined : store.getRebuiltFiles(id);
    let own: FileEvents;
    if (rows) {
      // its rows at -1 are what its ancestors gave it: the older ancestors' events are not applied twice
      out = { events: [], shellMarks: [] };
      const snapshots = storedSnapshotEvents(rows, textOf(store));
      own = {
        events: byCheckpoint([...snapshots.events, ...(stored?.events ?? [])]),
        shellMarks: snapshots.shellMarks,
      };
    } else {
      const byId = new Map(store.listToolCalls(id).map((c) => [c.toolCallId, c]));
      const calls = fileEventsOf(checkpoints, (x) => byId.get(x), resolverOf(cwdOf(store, checkpoints, stored)));
      own = { events: byCheckpoint([...calls.events, ...(stored?.events ?? [])]), shellMarks: calls.shellMarks };
    }
    // what an older ancestor gave this one is already in `out`
    for (const e of own.events) if (e.at.checkpointIndex <= cut) out.events.push(moved(e));
    for (const m of own.shellMarks) if (m.checkpointIndex <= cut) out.shellMarks.push(movedAt(m));
  }
  return out;
}

/** A run's file history, and what the Files scope asks of it: whether it inherits files, whether a recorder stored any. */
export interface RunFiles {
  /** Made when first asked (a rebuild reads every call). */
  history(): FileHistory;
  inherits: boolean;
  recorded: boolean;
}

/**
 * A run's file history: read from what its import stored (its calls are not read), else rebuilt from its calls
 * (`calls`, asked only then) with a fork's inherited files first; the versions a recorder read go where their
 * checkpoints are. Its folder: the first checkpoint's `project.cwd`.
 */
export function runFilesOf(
  store: RunStore,
  runId: string,
  checkpoints: readonly CheckpointSummary[],
  calls: () => readonly ToolCallRecord[],
): RunFiles {
  const recorded = storedOf(store, runId, checkpoints);
  const rows = store.getRebuiltFiles(runId);
  if (rows) {
    let history: FileHistory | undefined;
    return {
      history: () => {
        if (history) return history;
        const own = storedSnapshotEvents(rows, textOf(store));
        const cwd = rows.cwd ?? (recorded ? cwdOf(store, checkpoints, recorded) : undefined);
        return (history = historyOf(cwd, byCheckpoint([...own.events, ...(recorded?.events ?? [])]), own.shellMarks));
      },
      inherits: rows.snapshots.some((v) => v.checkpointIndex < 0) || rows.shellMarks.some((m) => m.checkpointIndex < 0),
      recorded: recorded !== undefined,
    };
  }
  const inherited = inheritedFileEvents(store, runId);
  let history: FileHistory | undefined;
  return {
    history: () =>
      (history ??= fileHistory(checkpoints, calls(), cwdOf(store, checkpoints, recorded), inherited, recorded)),
    inherits: (inherited?.events.length ?? 0) > 0,
    recorded: recorded !== undefined,
  };
}

/** A run's file history read from the store: what its import stored, or rebuilt; a fork's inherited files first. */
export function runFileHistory(
  store: RunStore,
  runId: string,
): { history: FileHistory; checkpoints: CheckpointSummary[] } {
  const checkpoints = store.listCheckpoints(runId);
  return { history: runFilesOf(store, runId, checkpoints, () => store.listToolCalls(runId)).history(), checkpoints };
}

/** A run's file history rebuilt from its calls (and its ancestors'), whatever its import stored: what that must equal. */
export function rebuiltFileHistory(store: RunStore, runId: string): FileHistory {
  const checkpoints = store.listCheckpoints(runId);
  const recorded = storedOf(store, runId, checkpoints);
  return fileHistory(
    checkpoints,
    store.listToolCalls(runId),
    cwdOf(store, checkpoints, recorded),
    inheritedFileEvents(store, runId, true),
    recorded,
  );
}
