/**
 * A run's file rows copied into another store beside its checkpoints (`ocdb push` / `pull`, the shipper, opening a
 * team run: team/runTransfer.ts): the versions a recorder read (run.trackFiles) and the files an import rebuilt
 * from the run's edit tools (rebuiltFileTable.ts), so the copy reads its files back as the source does instead of
 * rebuilding them from its tool calls. Each text is read once from the source however many versions share it, and
 * stored once by content in the target. Call it in the transaction that copies the run. Store contract only.
 */
import type { FileSnapshot, NewFileHistory, StoredFileHistory } from '../model';
import type { RunStore } from './runStore';

/** The source's texts, each read once by its hash. */
function textReader(source: RunStore): (hash: string | undefined) => string | undefined {
  const texts = new Map<string, string>();
  return (hash) => {
    if (hash === undefined) return undefined;
    let text = texts.get(hash);
    if (text === undefined) texts.set(hash, (text = source.getFileVersionText(hash)));
    return text;
  };
}

/** A stored history as the store takes it back: every row, from the first index a row has (-1: inherited). */
function asNew(stored: StoredFileHistory, text: (hash: string | undefined) => string | undefined): NewFileHistory {
  const at = (checkpointIndex: number) => (r: { stepIndex: number; toolCallId: string; toolName: string }) => ({
    checkpointIndex,
    ...r,
    ...(checkpointIndex < 0 ? { inherited: true as const } : {}),
  });
  const snapshots: FileSnapshot[] = stored.snapshots.map((s) => ({
    checkpointIndex: s.checkpointIndex,
    path: s.path,
    content: text(s.contentHash),
    original: text(s.originalHash),
    known: s.known,
    deleted: s.deleted,
    counted: s.counted,
    changes: s.changes.map(at(s.checkpointIndex)),
    mismatches: s.mismatches.map(at(s.checkpointIndex)),
  }));
  return {
    from: -1,
    through: stored.through,
    ...(stored.cwd !== undefined ? { cwd: stored.cwd } : {}),
    snapshots,
    shellMarks: stored.shellMarks.map((m) => at(m.checkpointIndex)(m.at)),
  };
}

/**
 * Copies the file rows of `runId` from `source` into `target`, which holds the run already (copyRunIn): what the
 * target holds of them is left as it is (a run copied again), what it lacks is added. Answers what was copied.
 */
export function copyFileRows(source: RunStore, target: RunStore, runId: string): { recorded: number; rebuilt: number } {
  const text = textReader(source);
  let recorded = 0;
  const versions = source.listFileVersions(runId);
  if (versions.length > 0 && target.listFileVersions(runId).length === 0) {
    recorded = target.addFileVersions(
      runId,
      versions.map((v) => ({ checkpointIndex: v.checkpointIndex, path: v.path, content: text(v.contentHash) ?? null })),
    ).length;
  }
  let rebuilt = 0;
  const stored = source.getRebuiltFiles(runId);
  if (stored && !target.getRebuiltFiles(runId)) {
    target.putRebuiltFiles(runId, asNew(stored, text));
    rebuilt = stored.snapshots.length;
  }
  return { recorded, rebuilt };
}
