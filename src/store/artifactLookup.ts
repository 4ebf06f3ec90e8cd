/**
 * Which artifact a name means in a run — for `ocdb artifact`, the HTTP API and the runs tree alike: the newest
 * version the run holds, or the version a given checkpoint carries, or a given version. Store contract only.
 */
import { OcdbError, findArtifact, latestArtifacts, type ArtifactRef } from '../model';
import type { RunStore } from './runStore';

export interface ArtifactLookup {
  /** The version this checkpoint of the run carries. */
  checkpointId?: string;
  version?: number;
}

/** The artifacts current at `checkpointId` (of `runId`), or the newest version of each the run holds. */
export function runArtifacts(store: RunStore, runId: string, checkpointId?: string): ArtifactRef[] {
  if (checkpointId === undefined) return latestArtifacts(store.listArtifacts(runId));
  const summary = store.getCheckpointSummary(checkpointId);
  if (summary.runId !== runId) {
    throw new OcdbError(
      'CheckpointNotFound',
      `Checkpoint ${checkpointId} is not in run ${runId} (it is in ${summary.runId}).`,
      {
        runId,
        checkpointId,
      },
    );
  }
  return store.getCheckpointView(checkpointId).artifactRefs ?? [];
}

/** The ref `name` means in `runId`; ArtifactNotFound naming the artifacts there is when none. */
export function findRunArtifact(
  store: RunStore,
  runId: string,
  name: string,
  lookup: ArtifactLookup = {},
): ArtifactRef {
  const refs =
    lookup.checkpointId !== undefined ? runArtifacts(store, runId, lookup.checkpointId) : store.listArtifacts(runId);
  const found = findArtifact(refs, name, lookup.version);
  if (found) return found;
  const names = [
    ...new Set(refs.map((r) => `${r.artifactId}${lookup.version !== undefined ? ` (v${r.version})` : ''}`)),
  ];
  const where = lookup.checkpointId !== undefined ? ` at checkpoint ${lookup.checkpointId}` : '';
  const version = lookup.version !== undefined ? ` version ${lookup.version}` : '';
  throw new OcdbError(
    'ArtifactNotFound',
    `Run ${runId} has no artifact ${name}${version}${where}; ${names.length > 0 ? `it has ${names.join(', ')}` : 'it has none'}.`,
    { runId, name, ...lookup },
  );
}

/** The size in bytes of a content, or undefined when this store does not hold it. */
export function artifactSize(store: RunStore, contentHash: string): number | undefined {
  try {
    return store.getArtifactContent(contentHash).byteLength;
  } catch (e) {
    if (e instanceof OcdbError && e.code === 'ArtifactNotFound') return undefined;
    throw e;
  }
}
