/**
 * Copying runs between two stores (`ocdb push`, `ocdb pull`): any two engines, through the RunStore contract only.
 * A run travels as its export (`store.exportRun`, the DebugRun `ocdb export` writes) and lands through
 * `store.copyRunIn` (checked like `ocdb load`; batch by batch, what checkpoints share written once), so whatever
 * an export carries — checkpoints, ledger, artifacts — is copied; its file rows (recorded, or rebuilt by its
 * import) follow it (store/fileRowCopy.ts). Its lineage comes first: a fork needs its parent's prefix (its cassette
 * and inherited ledger), so every ancestor is copied before the run. Idempotent: a run the target already holds with the same export is
 * left alone and reported as such; one that differs is an error naming it, and nothing is copied. All of one
 * transfer is one transaction of the target. A run still being recorded is refused (its export is not final);
 * a crashed one stays crashed on the target; a settled fork request of a copied fork run goes with it
 * (`GET /forks/:id` answers on the target too).
 */
import { FORK_METADATA_KEY, OcdbError, storeLocationLabel, type Checkpoint, type ForkRequestRecord } from '../model';
import { copyFileRows, HEARTBEAT_STALE_MS, READ_AHEAD_BATCH, type RunStore, type RunSummary } from '../store';

export interface TransferOptions {
  /** Also copy every fork of the named runs (and theirs), after them. */
  withForks?: boolean;
}

/** What one run's transfer did. */
export interface TransferredRun {
  runId: string;
  /**
   * `copied`: written to the target; `unchanged`: the target already held the same run; `skipped`: a fork found by
   * withForks that is still being recorded, or a fork of one (not copied; a named run or an ancestor still being
   * recorded is an error).
   */
  outcome: 'copied' | 'unchanged' | 'skipped';
  /** Why it was part of the transfer: named, an ancestor of a named run, or a fork of one (withForks). */
  reason: 'named' | 'ancestor' | 'fork';
  summary: RunSummary;
}

export interface TransferReport {
  runs: TransferredRun[];
  /** Fork requests written to the target (settled requests of copied fork runs). */
  forkRequests: string[];
}

const SETTLED = new Set<ForkRequestRecord['status']>(['completed', 'diverged', 'failed']);

/**
 * The runs a transfer of `runIds` touches, in the order they must land: each run after its parent. Throws
 * RunNotFound (naming the source) for an id the source does not hold.
 */
export function transferOrder(
  source: RunStore,
  runIds: readonly string[],
  options: TransferOptions = {},
  /** The summaries read on the way, by run id (filled here: a caller reads each run once). */
  summaries = new Map<string, RunSummary>(),
): { runId: string; reason: TransferredRun['reason'] }[] {
  const order: { runId: string; reason: TransferredRun['reason'] }[] = [];
  const seen = new Map<string, TransferredRun['reason']>();
  const add = (runId: string, reason: TransferredRun['reason']) => {
    const had = seen.get(runId);
    if (had === undefined) {
      seen.set(runId, reason);
      order.push({ runId, reason });
    } else if (reason === 'named' && had !== 'named') {
      seen.set(runId, reason);
      const entry = order.find((o) => o.runId === runId);
      if (entry) entry.reason = 'named';
    }
  };
  const withAncestors = (runId: string, reason: TransferredRun['reason']) => {
    const chain: string[] = [];
    let at: string | undefined = runId;
    while (at !== undefined && !chain.includes(at)) {
      chain.push(at);
      const run: RunSummary = summaries.get(at) ?? source.getRun(at);
      summaries.set(at, run);
      at = run.parentRunId;
    }
    chain.reverse();
    chain.forEach((id, i) => add(id, i === chain.length - 1 ? reason : 'ancestor'));
  };
  for (const runId of runIds) withAncestors(runId, 'named');
  if (options.withForks) {
    // breadth first from the named runs: a fork lands after its parent
    const queue = [...runIds];
    while (queue.length > 0) {
      const parent = queue.shift() as string;
      for (const fork of listAllForks(source, parent)) {
        add(fork.runId, 'fork');
        queue.push(fork.runId);
      }
    }
  }
  return order;
}

function listAllForks(store: RunStore, parentRunId: string): RunSummary[] {
  const out: RunSummary[] = [];
  const PAGE = 500;
  for (let offset = 0; ; offset += PAGE) {
    const { runs, total } = store.listRuns({ parentRunId, limit: PAGE, offset });
    out.push(...runs);
    if (runs.length === 0 || offset + runs.length >= total) return out;
  }
}

/**
 * True when both stores export `runId` to the same text: the heads compared as text, then the checkpoints batch by
 * batch, each item compared once (the same objects repeat in every checkpoint of an exportCheckpoints copy: a pair
 * found equal is known by identity), so the cost is the items the run holds, not the export's size.
 */
export function sameExport(a: RunStore, b: RunStore, runId: string): boolean {
  if (JSON.stringify(a.exportRunHead(runId)) !== JSON.stringify(b.exportRunHead(runId))) return false;
  const count = a.getRun(runId).checkpointCount;
  if (b.getRun(runId).checkpointCount !== count) return false;
  const equal = new WeakMap<object, object>();
  const sameItems = (x: readonly object[], y: readonly object[]) =>
    x.length === y.length &&
    x.every((item, i) => {
      const other = y[i] as object;
      if (equal.get(item) === other) return true;
      if (JSON.stringify(item) !== JSON.stringify(other)) return false;
      equal.set(item, other);
      return true;
    });
  const left = checkpointBatches(a, runId, count);
  const right = checkpointBatches(b, runId, count);
  a.readAhead?.(runId, 0, Math.min(count, READ_AHEAD_BATCH) - 1, Math.min(count, 2 * READ_AHEAD_BATCH) - 1);
  b.readAhead?.(runId, 0, Math.min(count, READ_AHEAD_BATCH) - 1, Math.min(count, 2 * READ_AHEAD_BATCH) - 1);
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done === y.done;
    const same = x.value.every((cp, i) => {
      const other = y.value[i];
      if (!other) return false;
      const { messages, toolLedgerSnapshot, ...rest } = cp;
      const { messages: m, toolLedgerSnapshot: l, ...otherRest } = other;
      return (
        JSON.stringify(rest) === JSON.stringify(otherRest) && sameItems(messages, m) && sameItems(toolLedgerSnapshot, l)
      );
    });
    if (!same) return false;
  }
}

/**
 * A run's checkpoints in batches of READ_AHEAD_BATCH, each read ahead first (batch 0 by the caller) with the next
 * batch's read started, so the next batch travels while the caller writes this one.
 */
function* checkpointBatches(source: RunStore, runId: string, count: number): Generator<Checkpoint[]> {
  for (let from = 0; from < count; from += READ_AHEAD_BATCH) {
    const to = Math.min(count, from + READ_AHEAD_BATCH);
    if (from > 0) source.readAhead?.(runId, from, to - 1, Math.min(count, to + READ_AHEAD_BATCH) - 1);
    yield source.exportCheckpoints(runId, from, to);
  }
}

/** The fork request a fork run was created by (its id is in the run's fork metadata), if the store has it. */
function forkRequestOf(store: RunStore, run: RunSummary): ForkRequestRecord | undefined {
  const fork = run.metadata[FORK_METADATA_KEY];
  const id = fork && typeof fork === 'object' ? (fork as { forkRequestId?: unknown }).forkRequestId : undefined;
  if (typeof id !== 'string') return undefined;
  try {
    return store.getForkRequest(id);
  } catch (e) {
    if (e instanceof OcdbError && e.code === 'ForkNotFound') return undefined;
    throw e;
  }
}

function hasForkRequest(store: RunStore, forkRequestId: string): boolean {
  try {
    store.getForkRequest(forkRequestId);
    return true;
  } catch (e) {
    if (e instanceof OcdbError && e.code === 'ForkNotFound') return false;
    throw e;
  }
}

/** Copies the settled fork request `run` was created by when the target lacks it; answers its id when copied. */
export function copySettledForkRequest(source: RunStore, target: RunStore, run: RunSummary): string | undefined {
  const request = forkRequestOf(source, run);
  if (!request || !SETTLED.has(request.status) || hasForkRequest(target, request.forkRequestId)) return undefined;
  target.saveForkRequest(request);
  return request.forkRequestId;
}

/**
 * Copies `runIds` (with their ancestors, and their forks when asked) from `source` to `target` in one transaction
 * of the target. Throws before anything is written when a run is still being recorded, is missing from the source,
 * or is in the target with different content (RunAlreadyExists naming it).
 */
export function transferRuns(
  source: RunStore,
  target: RunStore,
  runIds: readonly string[],
  options: TransferOptions = {},
): TransferReport {
  if (runIds.length === 0) throw new OcdbError('InvalidInput', 'Name at least one run to copy.', { path: 'runId' });
  const from = storeLocationLabel(source.path);
  const to = storeLocationLabel(target.path);
  // each run's summary read once (a round trip each over the network): the order, the checks and the copy use it
  const summaries = new Map<string, RunSummary>();
  const order = transferOrder(source, runIds, options, summaries);
  const recording = (run: RunSummary) => run.status === 'running' && !run.crashed;
  const summaryOf = (runId: string) => {
    const known = summaries.get(runId) ?? source.getRun(runId);
    summaries.set(runId, known);
    return known;
  };
  for (const { runId, reason } of order) {
    const run = summaryOf(runId);
    if (recording(run) && reason !== 'fork') {
      const owner = run.ownerPid !== undefined ? ` by process ${run.ownerPid}` : ' (a fork waiting for its runner)';
      throw new OcdbError(
        'InvalidInput',
        `Run ${runId} in ${from} is still being recorded${owner}; copy it once it has ended.`,
        { runId },
      );
    }
  }
  return target.transaction(() => {
    const report: TransferReport = { runs: [], forkRequests: [] };
    const skipped = new Set<string>();
    for (const { runId, reason } of order) {
      const run = summaryOf(runId);
      // a fork still being recorded, or one of its own forks (its parent stays behind)
      if (recording(run) || (run.parentRunId !== undefined && skipped.has(run.parentRunId))) {
        skipped.add(runId);
        report.runs.push({ runId, outcome: 'skipped', reason, summary: run });
        continue;
      }
      if (target.hasRun(runId)) {
        if (!sameExport(source, target, runId)) {
          throw new OcdbError(
            'RunAlreadyExists',
            `Run ${runId} is in ${to} with different content than in ${from}; nothing was copied. Compare them with ocdb export, delete one, or copy it under another id.`,
            { runId },
          );
        }
        // a run copied before its file rows travelled with it gets them now (the rest of it is the same)
        copyFileRows(source, target, runId);
        report.runs.push({ runId, outcome: 'unchanged', reason, summary: target.getRun(runId) });
      } else {
        // batch by batch: the source reads a batch's rows in a query per table (over the network), the target
        // writes what the run holds once, not what every checkpoint repeats
        const count = run.checkpointCount;
        if (count > 0)
          source.readAhead?.(
            runId,
            0,
            Math.min(count, READ_AHEAD_BATCH) - 1,
            Math.min(count, 2 * READ_AHEAD_BATCH) - 1,
          );
        target.copyRunIn(source.exportRunHead(runId), checkpointBatches(source, runId, run.checkpointCount), {
          where: `${from}: run ${runId}`,
        });
        // its files as the source reads them back (recorded, or rebuilt by its import): not rebuilt on the target
        copyFileRows(source, target, runId);
        if (run.crashed) {
          // a loaded run has no owner: only its heartbeat's age says it died, so it reads crashed there at once
          const lastSign = run.heartbeatAt ?? run.lastCheckpointAt ?? run.startedAt;
          target.heartbeat(runId, Math.min(lastSign, Date.now() - HEARTBEAT_STALE_MS - 1));
        }
        report.runs.push({ runId, outcome: 'copied', reason, summary: target.getRun(runId) });
      }
      const copied = copySettledForkRequest(source, target, run);
      if (copied) report.forkRequests.push(copied);
    }
    return report;
  });
}
