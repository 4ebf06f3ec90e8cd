/**
 * An imported run's files, rebuilt once by its import and stored (RunStore.putRebuiltFiles): the run's own edit
 * tools applied in order (model/fileStates.ts) and a snapshot kept of each file at each checkpoint where its state
 * moved, its texts stored once by content, with the shell steps and the reads that disagreed. The views read them
 * back instead of rebuilding them (replay/fileHistory.ts). A run that grew is continued from its stored states:
 * only the checkpoints after its last final one (a call still open there may close later) are rebuilt. A fork of
 * the file starts from its parent's stored files at the fork point, kept at index -1. Where that cannot be done (a
 * parent whose files were not stored, a text past the store's bound), nothing is stored and the views rebuild the
 * files when asked. Call it in the import's transaction, after the run is written. No vscode.
 */
import { isAbsolute, resolve } from 'node:path';
import {
  applyFileEventsUpTo,
  fileEventsOf,
  fileSnapshots,
  storedSnapshotEvents,
  type FileEvent,
  type FileEventAt,
  type FileSnapshot,
  type FileState,
  type StoredFileHistory,
} from '../model';
import { MAX_FILE_VERSION_CHARS, type CheckpointSummary, type RunStore } from '../store';

/** A path as the agent gave it, resolved against the run's folder (as replay/fileHistory.ts does). */
const resolverOf =
  (cwd: string | undefined) =>
  (p: string): string =>
    isAbsolute(p) || cwd === undefined ? resolve(p) : resolve(cwd, p);

/** The stored events of `stored` up to checkpoint `upTo`, applied to `states`. */
function applyStored(
  store: RunStore,
  states: Map<string, FileState>,
  stored: StoredFileHistory,
  upTo: number,
): FileEventAt[] {
  const events = storedSnapshotEvents(stored, (hash) => store.getFileVersionText(hash));
  applyFileEventsUpTo(states, events.events, upTo);
  return events.shellMarks.filter((m) => m.checkpointIndex <= upTo);
}

/**
 * What a fork starts from: its parent's stored files at the fork point, as snapshots at -1 (their changes marked
 * inherited); undefined when the parent's files were not stored by an import (or it has a recorder's versions).
 */
function inherited(
  store: RunStore,
  parentRunId: string,
  forkPoint: string | undefined,
  states: Map<string, FileState>,
): { snapshots: FileSnapshot[]; shellMarks: FileEventAt[] } | undefined {
  if (!store.hasRun(parentRunId)) return { snapshots: [], shellMarks: [] };
  const parent = store.getRebuiltFiles(parentRunId);
  if (!parent || store.listFileVersions(parentRunId).length > 0) return undefined;
  const cut = store.listCheckpoints(parentRunId).find((c) => c.checkpointId === forkPoint)?.index;
  if (cut === undefined) return undefined;
  const at = (a: FileEventAt): FileEventAt => ({ ...a, checkpointIndex: -1, inherited: true });
  const events: FileEvent[] = storedSnapshotEvents(parent, (hash) => store.getFileVersionText(hash))
    .events.filter((e) => e.at.checkpointIndex <= cut)
    .map((e) => ({
      at: at(e.at),
      op:
        e.op.op === 'snapshot' ? { ...e.op, changes: e.op.changes.map(at), mismatches: e.op.mismatches.map(at) } : e.op,
    }));
  const shellMarks = parent.shellMarks
    .filter((m) => m.checkpointIndex <= cut)
    .map((m) => at({ checkpointIndex: m.checkpointIndex, ...m.at }));
  return { snapshots: fileSnapshots(states, events), shellMarks };
}

/**
 * The first checkpoint of a call still open (its effect may move to the checkpoint that closes it): the end of what
 * is final. `checkpoints`: the run's from some index on (an import closes every call, so there is seldom one open:
 * then the whole list is read, as a call open now may have begun before that index).
 */
function finalUpTo(store: RunStore, runId: string, checkpoints: readonly CheckpointSummary[], count: number): number {
  const open = new Set(
    store
      .listToolCallFacts(runId)
      .filter((c) => c.endedAt === undefined)
      .map((c) => c.toolCallId),
  );
  if (open.size === 0) return count;
  const all = checkpoints[0]?.index === 0 ? checkpoints : store.listCheckpoints(runId);
  return all.find((c) => c.toolCallId !== undefined && open.has(c.toolCallId))?.index ?? count;
}

const tooLong = (s: FileSnapshot): boolean =>
  (s.content?.length ?? 0) > MAX_FILE_VERSION_CHARS || (s.original?.length ?? 0) > MAX_FILE_VERSION_CHARS;

/** Rebuilds and stores the files of the imported run `runId` (continuing what its import stored before). */
export function storeRebuiltFiles(store: RunStore, runId: string): void {
  const run = store.getRun(runId);
  const count = run.checkpointCount;
  const first = count > 0 ? store.listCheckpoints(runId, { limit: 1 })[0] : undefined;
  const projectCwd = first ? store.getCheckpoint(first.checkpointId).runtimeContext.project.cwd : undefined;
  const cwd = typeof projectCwd === 'string' ? projectCwd : undefined;
  const prior = store.getRebuiltFiles(runId);
  const states = new Map<string, FileState>();
  let from = -1;
  let start: { snapshots: FileSnapshot[]; shellMarks: FileEventAt[] } = { snapshots: [], shellMarks: [] };
  if (prior && prior.cwd === cwd) {
    // the checkpoints before `through` are final: continue from the states stored there
    from = Math.min(prior.through, count);
    applyStored(store, states, prior, from - 1);
  } else if (run.parentRunId) {
    const given = inherited(store, run.parentRunId, run.forkFromCheckpointId, states);
    if (!given) {
      if (prior) store.putRebuiltFiles(runId, undefined);
      return;
    }
    start = given;
  }
  // a run continued reads its checkpoints from where its stored files stop; only the calls that say something of
  // files are read (fileEventsOf asks by the checkpoint's tool name)
  const checkpoints = from > 0 ? store.listCheckpoints(runId, { offset: from }) : store.listCheckpoints(runId);
  const own = fileEventsOf(checkpoints, (id) => store.getToolCall(runId, id), resolverOf(cwd), Math.max(from, 0));
  const snapshots = [...start.snapshots, ...fileSnapshots(states, own.events)];
  if (snapshots.some(tooLong)) {
    store.putRebuiltFiles(runId, undefined);
    return;
  }
  store.putRebuiltFiles(runId, {
    from,
    through: finalUpTo(store, runId, checkpoints, count),
    ...(cwd !== undefined ? { cwd } : {}),
    snapshots,
    shellMarks: [...start.shellMarks, ...own.shellMarks],
  });
}

/** storeRebuiltFiles for the runs an import wrote, each fork after the run it forks from. */
export function storeRebuiltFilesOf(store: RunStore, runIds: readonly string[]): void {
  const pending = new Set(runIds);
  const visit = (runId: string) => {
    if (!pending.delete(runId)) return;
    const parent = store.getRun(runId).parentRunId;
    if (parent !== undefined) visit(parent);
    storeRebuiltFiles(store, runId);
  };
  for (const runId of runIds) visit(runId);
}
