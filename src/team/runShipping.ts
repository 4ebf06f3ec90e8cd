/**
 * What a local-first recorder's shipper sends to the team store: its runs as they stand, ended or still being
 * recorded. Where `runTransfer.ts` (push / pull) refuses a run still being recorded, the shipper must confirm one
 * before a `write` or `external_irreversible` tool runs, so the team store holds the run up to that checkpoint.
 *
 * A run the team store lacks is loaded as it stands (its ancestors first). A run it holds as `running` whose
 * checkpoints are a prefix of the local run's (the same ids up to its last) is the earlier shipment of this same
 * recording: it is replaced by the run as it stands now (one transaction of the team store: readers see the old
 * prefix or the new one, never half). Any other run of the same id is compared: the same export is left alone, a
 * different one is refused by name (RunAlreadyExists), nothing copied. A shipped run still being recorded gets
 * the team store's heartbeat at each shipment, so it reads as running there, not crashed, while its agent ships.
 */
import { OcdbError, storeLocationLabel } from '../model';
import { HEARTBEAT_STALE_MS, type RunStore, type RunSummary } from '../store';
import { copySettledForkRequest, sameExport, transferOrder } from './runTransfer';

export interface ShipOutcome {
  /** Loaded, or replaced (a longer recording of a run shipped while it was being recorded). */
  copied: string[];
  unchanged: string[];
  skipped: string[];
}

/** The id of checkpoint `index` of `runId` in `store`. */
function checkpointIdAt(store: RunStore, runId: string, index: number): string | undefined {
  return store.listCheckpoints(runId, { offset: index, limit: 1 })[0]?.checkpointId;
}

/** True when `there` (the team store's copy) is an earlier shipment of the recording `here` continues. */
function isEarlierShipment(source: RunStore, target: RunStore, here: RunSummary, there: RunSummary): boolean {
  if (there.status !== 'running' || there.agentId !== here.agentId || there.sessionId !== here.sessionId) return false;
  const n = there.checkpointCount;
  if (n > here.checkpointCount) return false;
  return n === 0 || checkpointIdAt(target, there.runId, n - 1) === checkpointIdAt(source, here.runId, n - 1);
}

/** Ships `runIds` (with their ancestors) from the local store `source` to the team store `target`. */
export function shipRuns(source: RunStore, target: RunStore, runIds: readonly string[]): ShipOutcome {
  if (runIds.length === 0) throw new OcdbError('InvalidInput', 'Name at least one run to ship.', { path: 'runId' });
  const from = storeLocationLabel(source.path);
  const to = storeLocationLabel(target.path);
  const order = transferOrder(source, runIds);
  return target.transaction(() => {
    const outcome: ShipOutcome = { copied: [], unchanged: [], skipped: [] };
    for (const { runId } of order) {
      const run = source.getRun(runId);
      let replace = false;
      if (target.hasRun(runId)) {
        const there = target.getRun(runId);
        replace = isEarlierShipment(source, target, run, there);
        if (!replace) {
          if (!sameExport(source, target, runId)) {
            throw new OcdbError(
              'RunAlreadyExists',
              `Run ${runId} is in ${to} with different content than in ${from}; nothing was shipped. Compare them with ocdb export, delete one, or copy it under another id.`,
              { runId },
            );
          }
          outcome.unchanged.push(runId);
          continue;
        }
      }
      // a store over the network reads the run's rows in a query per table, not a few per checkpoint
      source.readAhead?.(runId, 0, Math.max(0, run.checkpointCount - 1));
      target.loadRun(source.exportRun(runId), { where: `${from}: run ${runId}`, replace });
      const recording = run.status === 'running' && !run.crashed;
      if (recording) target.heartbeat(runId, Date.now());
      else if (run.crashed) {
        // a loaded run has no owner: only its heartbeat's age says it died, so it reads crashed there at once
        const lastSign = run.heartbeatAt ?? run.lastCheckpointAt ?? run.startedAt;
        target.heartbeat(runId, Math.min(lastSign, Date.now() - HEARTBEAT_STALE_MS - 1));
      }
      outcome.copied.push(runId);
      copySettledForkRequest(source, target, run);
    }
    return outcome;
  });
}
