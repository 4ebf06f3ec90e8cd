/**
 * What a local-first recorder's shipper sends to the team store: its runs as they stand, ended or still being
 * recorded. Where `runTransfer.ts` (push / pull) refuses a run still being recorded, the shipper must confirm one
 * before a `write` or `external_irreversible` tool runs, so the team store holds the run up to that checkpoint.
 *
 * Only what the team store lacks is sent. A `RunShipping` lives as long as its thread and remembers, run by run,
 * what it shipped (how many checkpoints, each tool call as it was). A run the team store holds as `running` with a
 * prefix of the local run's checkpoints (the same id at its last index) is continued in place: the new tool calls
 * begun (and finished), the open ones finished, the new checkpoints appended, the end written when the run ended,
 * the heartbeat (`RunStore.continueRunIn`: one transaction of the team store, checked as a copy is; over the
 * network, two round trips whatever the run's length and what was recorded since). What it did not ship itself
 * (another thread's earlier shipment) it reads from the team store first. A change a continuation cannot carry (a live edit, an artifact, the run's metadata while running)
 * replaces the run by its whole self, also in one transaction: readers see the earlier prefix or the new one.
 *
 * A run the team store lacks is copied whole (its ancestors first, `copyRunIn`: batch by batch). Any other run of
 * the same id is compared: the same export is left alone, a different one is refused by name (RunAlreadyExists),
 * nothing copied. A shipped run still being recorded gets the team store's heartbeat at each shipment, so it reads
 * as running there, not crashed, while its agent ships. Shipments are made one at a time by one thread
 * (teamWorker.ts): two never race through the same run.
 */
import { OcdbError, storeLocationLabel, type Checkpoint, type ToolCallRecord } from '../model';
import { HEARTBEAT_STALE_MS, READ_AHEAD_BATCH, type FinishRunInput, type RunStore, type RunSummary } from '../store';
import { copySettledForkRequest, sameExport, transferOrder } from './runTransfer';

export interface ShipOutcome {
  /** Loaded, continued, or replaced (a longer recording of a run shipped while it was being recorded). */
  copied: string[];
  unchanged: string[];
  skipped: string[];
}

/** What the team store holds of a run still being recorded, as this thread shipped (or read) it. */
interface Shipped {
  checkpoints: number;
  lastCheckpointId: string | undefined;
  /** Each tool call as shipped (its JSON), by id. */
  calls: Map<string, string>;
  artifacts: number;
  liveEdits: number;
  metadata: string;
}

/** A change a continuation in place does not carry: the run is replaced whole. */
class NeedsWholeRun extends Error {}

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

/** A run's checkpoints `from` … `to - 1` in batches, each read ahead first (over the network: a query a table). */
function* batchesOf(store: RunStore, runId: string, from: number, to: number): Generator<Checkpoint[]> {
  for (let at = from; at < to; at += READ_AHEAD_BATCH) {
    const end = Math.min(to, at + READ_AHEAD_BATCH);
    store.readAhead?.(runId, at, end - 1);
    yield store.exportCheckpoints(runId, at, end);
  }
}

/** Ships runs from one local store to one team store, remembering what it shipped (see the file's comment). */
export class RunShipping {
  private readonly shipped = new Map<string, Shipped>();

  constructor(
    readonly source: RunStore,
    readonly target: RunStore,
  ) {}

  /** Ships `runIds` (with their ancestors); each run in a transaction of the team store of its own. */
  ship(runIds: readonly string[]): ShipOutcome {
    if (runIds.length === 0) throw new OcdbError('InvalidInput', 'Name at least one run to ship.', { path: 'runId' });
    const outcome: ShipOutcome = { copied: [], unchanged: [], skipped: [] };
    for (const { runId } of transferOrder(this.source, runIds)) {
      const done = this.shipOne(runId);
      outcome[done].push(runId);
    }
    return outcome;
  }

  private shipOne(runId: string): 'copied' | 'unchanged' {
    const { source, target } = this;
    const run = source.getRun(runId);
    const known = this.shipped.get(runId);
    if (known) {
      try {
        // in the team store's own transaction (continueRunIn's), which it may write again carefully
        return this.continueRun(run, known);
      } catch (e) {
        // what this thread remembered no longer holds (another writer, a change it cannot carry): looked at again
        this.shipped.delete(runId);
        if (!(e instanceof NeedsWholeRun) && !(e instanceof OcdbError)) throw e;
      }
    }
    try {
      return target.transaction(() => this.shipFresh(run, false));
    } catch (e) {
      if (!(e instanceof NeedsWholeRun)) throw e;
      return target.transaction(() => this.shipFresh(run, true));
    }
  }

  /** Ships a run this thread has no memory of: copied, continued from what the team store holds, or compared. */
  private shipFresh(run: RunSummary, whole: boolean): 'copied' | 'unchanged' {
    const { source, target } = this;
    const runId = run.runId;
    const from = storeLocationLabel(source.path);
    if (!target.hasRun(runId)) {
      // continued next at its next confirmation: where its lists end stays known there (no read of them)
      target.copyRunIn(source.exportRunHead(runId), batchesOf(source, runId, 0, run.checkpointCount), {
        where: `${from}: run ${runId}`,
        continues: true,
      });
      this.settle(run);
      return 'copied';
    }
    const there = target.getRun(runId);
    if (isEarlierShipment(source, target, run, there)) {
      if (whole) {
        source.readAhead?.(runId, 0, Math.max(0, run.checkpointCount - 1));
        target.loadRun(source.exportRun(runId), { where: `${from}: run ${runId}`, replace: true });
        this.settle(run);
        return 'copied';
      }
      return this.continueRun(run, this.readShipped(there));
    }
    if (!sameExport(source, target, runId)) {
      throw new OcdbError(
        'RunAlreadyExists',
        `Run ${runId} is in ${storeLocationLabel(target.path)} with different content than in ${from}; nothing was shipped. Compare them with ocdb export, delete one, or copy it under another id.`,
        { runId },
      );
    }
    this.shipped.delete(runId);
    return 'unchanged';
  }

  /** What the team store holds of a running run another thread shipped (a few reads). */
  private readShipped(there: RunSummary): Shipped {
    const { target } = this;
    const runId = there.runId;
    const calls = new Map(target.listToolCalls(runId).map((c) => [c.toolCallId, JSON.stringify(c)]));
    return {
      checkpoints: there.checkpointCount,
      lastCheckpointId:
        there.checkpointCount > 0 ? checkpointIdAt(target, runId, there.checkpointCount - 1) : undefined,
      calls,
      artifacts: target.listArtifacts(runId).length,
      liveEdits: target.listLiveEdits(runId).length,
      metadata: JSON.stringify(there.metadata),
    };
  }

  /**
   * Continues the team store's copy of a running run with what was recorded since `known`: tool calls begun and
   * finished, checkpoints appended, the end, the heartbeat — one continueRunIn, a few round trips whatever the run's
   * length. Throws NeedsWholeRun for a change it cannot carry, InvalidInput when the team store's copy is not
   * `known` any more (nothing written either way).
   */
  private continueRun(run: RunSummary, known: Shipped): 'copied' | 'unchanged' {
    const { source, target } = this;
    const runId = run.runId;
    const ended = run.status !== 'running';
    const metadata = JSON.stringify(run.metadata);
    if (
      (!ended && metadata !== known.metadata) ||
      source.listArtifacts(runId).length !== known.artifacts ||
      source.listLiveEdits(runId).length !== known.liveEdits
    ) {
      throw new NeedsWholeRun();
    }
    const calls = source.listToolCalls(runId);
    const changed = calls.filter((c) => known.calls.get(c.toolCallId) !== JSON.stringify(c));
    for (const call of changed) {
      const shipped = known.calls.get(call.toolCallId);
      // a live edit, or a finished call that changed: not something a continuation (or a recording) does
      if (call.liveEdit) throw new NeedsWholeRun();
      if (shipped !== undefined && (JSON.parse(shipped) as ToolCallRecord).endedAt !== undefined) {
        throw new NeedsWholeRun();
      }
    }
    const count = run.checkpointCount;
    const recording = run.status === 'running' && !run.crashed;
    if (count === known.checkpoints && !ended && changed.length === 0) {
      if (recording) target.heartbeat(runId, Date.now());
      this.settle(run, calls, true);
      return 'unchanged';
    }
    // from the last checkpoint shipped: the new ones' lists continue its lists (the same objects: not hashed again)
    const batches = batchesOf(source, runId, Math.max(0, known.checkpoints - 1), Math.max(count, known.checkpoints));
    let first = count > known.checkpoints ? batches.next().value : undefined;
    const before = first?.[0]?.checkpointId === known.lastCheckpointId ? first?.[0] : undefined;
    if (before) first = first?.slice(1);
    target.continueRunIn(
      {
        runId,
        from: known.checkpoints,
        ...(known.lastCheckpointId !== undefined ? { lastCheckpointId: known.lastCheckpointId } : {}),
        ...(before
          ? {
              listsFrom: {
                checkpointId: before.checkpointId,
                messages: before.messages,
                ledger: before.toolLedgerSnapshot,
              },
            }
          : {}),
        toolCalls: changed,
        ...(recording ? { heartbeatAt: Date.now() } : {}),
        ...(ended
          ? {
              end: {
                status: run.status as FinishRunInput['status'],
                endedAt: run.endedAt ?? Date.now(),
                ...(run.error !== undefined ? { error: run.error } : {}),
                ...(metadata !== known.metadata ? { metadata: run.metadata } : {}),
              },
            }
          : {}),
      },
      (function* () {
        if (first && first.length > 0) yield first;
        yield* batches;
      })(),
      { where: `${storeLocationLabel(source.path)}: run ${runId}` },
    );
    this.settle(run, calls, true);
    return 'copied';
  }

  /**
   * After a shipment: the run's heartbeat in the team store (running there, or crashed at once when it crashed
   * here: a shipped run has no owner), its fork request, and what this thread now knows the team store holds.
   */
  private settle(run: RunSummary, calls?: ToolCallRecord[], beaten = false): void {
    const { source, target } = this;
    const runId = run.runId;
    const recording = run.status === 'running' && !run.crashed;
    if (recording && !beaten) target.heartbeat(runId, Date.now());
    else if (run.crashed) {
      const lastSign = run.heartbeatAt ?? run.lastCheckpointAt ?? run.startedAt;
      target.heartbeat(runId, Math.min(lastSign, Date.now() - HEARTBEAT_STALE_MS - 1));
    }
    copySettledForkRequest(source, target, run);
    if (run.status !== 'running') {
      this.shipped.delete(runId);
      return;
    }
    const ledger = calls ?? source.listToolCalls(runId);
    this.shipped.set(runId, {
      checkpoints: run.checkpointCount,
      lastCheckpointId: run.checkpointCount > 0 ? checkpointIdAt(source, runId, run.checkpointCount - 1) : undefined,
      calls: new Map(ledger.map((c) => [c.toolCallId, JSON.stringify(c)])),
      artifacts: source.listArtifacts(runId).length,
      liveEdits: source.listLiveEdits(runId).length,
      metadata: JSON.stringify(run.metadata),
    });
  }
}
