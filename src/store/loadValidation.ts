/**
 * What `loadRun` (`ocdb load`, Import Run of a DebugRun JSON) checks beyond
 * the schema before anything is written, each refusal a located InvalidInput
 * (`<file>: toolLedger[3].argsHash: …`): every `argsHash` matches its args
 * (the cassette looks calls up by it, so a wrong one would hand a fork
 * another call's result), ids are unique (checkpoint ids across the store,
 * tool call ids within the run), a run is not its own parent and its parent
 * exists (in the store or in the same load), and the parent chain has no
 * cycle. Pure over the lookups the store passes in; no SQL here. A run copied from another store
 * (RunStore.copyRunIn) is checked the same way: its head first, then its checkpoints' ids batch by batch before
 * they are written and their ledger hashes once their items are validated (in the same transaction).
 */
import { OcdbError, argsHash, formatPath, type DebugRun, type ToolCallRecord } from '../model';
import { isDeepFrozen } from './immutableValues';

export interface LoadLookups {
  /** The run holding `checkpointId` in the store, if any. */
  checkpointOwner(checkpointId: string): string | undefined;
  /** The runs holding any of `checkpointIds` (one look-up for a batch: a store over the network). */
  checkpointOwners?(checkpointIds: readonly string[]): Map<string, string | undefined>;
  /** The parent of a run already in the store; null when it has none, undefined when there is no such run. */
  parentOf(runId: string): string | null | undefined;
  /** Runs loaded in the same batch (`ocdb load` of an array), by id: parents may come later in the array. */
  batch?: ReadonlyMap<string, { parentRunId?: string }>;
}

function invalid(where: string | undefined, path: PropertyKey[], message: string): OcdbError {
  const at = formatPath(path);
  return new OcdbError('InvalidInput', `${where ? `${where}: ` : ''}${at}: ${message}`, {
    path: at,
    ...(where ? { where } : {}),
  });
}

function checkHashes(
  records: readonly ToolCallRecord[],
  base: PropertyKey[],
  where: string | undefined,
  checked?: WeakSet<object>,
): void {
  records.forEach((record, i) => {
    // a deep-frozen record checked before (the same object in every checkpoint of a copied run) cannot have changed
    if (checked?.has(record)) return;
    const expected = argsHash(record.args);
    if (record.argsHash !== expected) {
      throw invalid(
        where,
        [...base, i, 'argsHash'],
        `${record.argsHash} is not the hash of this call's args (${expected}); a fork would reuse another call's result. Fix the args or the hash (argsHash = first 16 hex of SHA-256 of the canonical JSON of args).`,
      );
    }
    if (checked && isDeepFrozen(record)) checked.add(record);
  });
}

/** Throws the first problem of `run` (already schema-checked); the store is not touched. */
export function checkLoadedRun(run: DebugRun, lookups: LoadLookups, where?: string): void {
  checkHashes(run.toolLedger, ['toolLedger'], where);
  run.checkpoints.forEach((cp, i) =>
    checkHashes(cp.toolLedgerSnapshot, ['checkpoints', i, 'toolLedgerSnapshot'], where),
  );
  checkCallIds(run, where);
  checkCheckpointIds(run.runId, run.checkpoints, 0, new Map(), lookups, where);
  checkParents(run, lookups, where);
}

/**
 * What a run copied from another store (RunStore.copyRunIn) is checked for before its checkpoints: its ledger's
 * hashes, its call ids, its parents. Its checkpoints are checked batch by batch as they come (checkCopiedCheckpoints).
 */
export function checkCopiedHead(run: Omit<DebugRun, 'checkpoints'>, lookups: LoadLookups, where?: string): void {
  checkHashes(run.toolLedger, ['toolLedger'], where);
  checkCallIds(run, where);
  checkParents(run, lookups, where);
}

/** The ids of checkpoints `offset` … of a copied run: unique in the run (`seen`: the batches before) and the store. */
export function checkCopiedIds(
  runId: string,
  checkpoints: readonly { checkpointId: string }[],
  offset: number,
  seen: Map<string, number>,
  lookups: LoadLookups,
  where?: string,
): void {
  checkCheckpointIds(runId, checkpoints, offset, seen, lookups, where);
}

/**
 * The argsHash of every record in the ledger snapshots of checkpoints `offset` … of a copied run, once their items
 * are validated (written); a deep-frozen record checked before (`checked`: the same object in every checkpoint that
 * holds it) is not hashed again.
 */
export function checkCopiedHashes(
  checkpoints: readonly { toolLedgerSnapshot: readonly ToolCallRecord[] }[],
  offset: number,
  checked: WeakSet<object>,
  where?: string,
): void {
  checkpoints.forEach((cp, i) =>
    checkHashes(cp.toolLedgerSnapshot, ['checkpoints', offset + i, 'toolLedgerSnapshot'], where, checked),
  );
}

/**
 * The tool-call records a run's continuation brings (RunStore.continueRunIn): each argsHash its args' hash, each id
 * once among them (ids already in the run are checked against its rows, in the same transaction).
 */
export function checkContinuedCalls(records: readonly ToolCallRecord[], where?: string): void {
  checkHashes(records, ['toolCalls'], where);
  checkCallIds({ toolLedger: records }, where, 'toolCalls');
}

function checkCallIds(
  run: { toolLedger: readonly ToolCallRecord[] },
  where: string | undefined,
  field = 'toolLedger',
): void {
  const calls = new Map<string, number>();
  run.toolLedger.forEach((record, i) => {
    const first = calls.get(record.toolCallId);
    if (first !== undefined) {
      throw invalid(
        where,
        [field, i, 'toolCallId'],
        `${JSON.stringify(record.toolCallId)} is already the id of ${field}[${first}]; tool call ids are unique within a run`,
      );
    }
    calls.set(record.toolCallId, i);
  });
}

function checkCheckpointIds(
  runId: string,
  checkpoints: readonly { checkpointId: string }[],
  offset: number,
  seen: Map<string, number>,
  lookups: LoadLookups,
  where: string | undefined,
): void {
  checkpoints.forEach((cp, j) => {
    const i = offset + j;
    const first = seen.get(cp.checkpointId);
    if (first !== undefined) {
      throw invalid(
        where,
        ['checkpoints', i, 'checkpointId'],
        `${JSON.stringify(cp.checkpointId)} is already the id of checkpoints[${first}]; checkpoint ids are unique`,
      );
    }
    seen.set(cp.checkpointId, i);
  });
  const owners = lookups.checkpointOwners
    ? lookups.checkpointOwners(checkpoints.map((cp) => cp.checkpointId))
    : new Map(checkpoints.map((cp) => [cp.checkpointId, lookups.checkpointOwner(cp.checkpointId)]));
  checkpoints.forEach((cp, j) => {
    const owner = owners.get(cp.checkpointId);
    if (owner !== undefined && owner !== runId) {
      throw invalid(
        where,
        ['checkpoints', offset + j, 'checkpointId'],
        `${JSON.stringify(cp.checkpointId)} is already a checkpoint of run ${owner} in this store; checkpoint ids are unique across the store`,
      );
    }
  });
}

function checkParents(
  run: Pick<DebugRun, 'runId' | 'parentRunId'>,
  lookups: LoadLookups,
  where: string | undefined,
): void {
  if (run.parentRunId === undefined) return;
  if (run.parentRunId === run.runId) {
    throw invalid(where, ['parentRunId'], `run ${run.runId} cannot be its own parent`);
  }
  // walk up: every parent must exist, and the chain must come to an end
  const seen = new Set([run.runId]);
  let cur: string | undefined = run.parentRunId;
  while (cur !== undefined) {
    if (seen.has(cur)) {
      throw invalid(where, ['parentRunId'], `the parents of run ${run.runId} form a cycle through ${cur}`);
    }
    seen.add(cur);
    const inBatch: { parentRunId?: string } | undefined = lookups.batch?.get(cur);
    const inStore: string | null | undefined = inBatch ? undefined : lookups.parentOf(cur);
    if (!inBatch && inStore === undefined) {
      throw invalid(
        where,
        ['parentRunId'],
        cur === run.parentRunId
          ? `the parent run ${cur} is not in this store: load it first (or in the same file), or remove parentRunId`
          : `run ${cur}, an ancestor of this run, is not in this store`,
      );
    }
    cur = inBatch ? inBatch.parentRunId : (inStore ?? undefined);
  }
}
