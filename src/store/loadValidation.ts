/**
 * What `loadRun` (`ocdb load`, Import Run of a DebugRun JSON) checks beyond
 * the schema before anything is written, each refusal a located InvalidInput
 * (`<file>: toolLedger[3].argsHash: …`): every `argsHash` matches its args
 * (the cassette looks calls up by it, so a wrong one would hand a fork
 * another call's result), ids are unique (checkpoint ids across the store,
 * tool call ids within the run), a run is not its own parent and its parent
 * exists (in the store or in the same load), and the parent chain has no
 * cycle. Pure over the lookups the store passes in; no SQL here.
 */
import { OcdbError, argsHash, formatPath, type DebugRun, type ToolCallRecord } from '../model';

export interface LoadLookups {
  /** The run holding `checkpointId` in the store, if any. */
  checkpointOwner(checkpointId: string): string | undefined;
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

function checkHashes(records: readonly ToolCallRecord[], base: PropertyKey[], where: string | undefined): void {
  records.forEach((record, i) => {
    const expected = argsHash(record.args);
    if (record.argsHash !== expected) {
      throw invalid(
        where,
        [...base, i, 'argsHash'],
        `${record.argsHash} is not the hash of this call's args (${expected}); a fork would reuse another call's result. Fix the args or the hash (argsHash = first 16 hex of SHA-256 of the canonical JSON of args).`,
      );
    }
  });
}

/** Throws the first problem of `run` (already schema-checked); the store is not touched. */
export function checkLoadedRun(run: DebugRun, lookups: LoadLookups, where?: string): void {
  checkHashes(run.toolLedger, ['toolLedger'], where);
  run.checkpoints.forEach((cp, i) =>
    checkHashes(cp.toolLedgerSnapshot, ['checkpoints', i, 'toolLedgerSnapshot'], where),
  );

  const calls = new Map<string, number>();
  run.toolLedger.forEach((record, i) => {
    const first = calls.get(record.toolCallId);
    if (first !== undefined) {
      throw invalid(
        where,
        ['toolLedger', i, 'toolCallId'],
        `${JSON.stringify(record.toolCallId)} is already the id of toolLedger[${first}]; tool call ids are unique within a run`,
      );
    }
    calls.set(record.toolCallId, i);
  });

  const checkpoints = new Map<string, number>();
  run.checkpoints.forEach((cp, i) => {
    const first = checkpoints.get(cp.checkpointId);
    if (first !== undefined) {
      throw invalid(
        where,
        ['checkpoints', i, 'checkpointId'],
        `${JSON.stringify(cp.checkpointId)} is already the id of checkpoints[${first}]; checkpoint ids are unique`,
      );
    }
    checkpoints.set(cp.checkpointId, i);
    const owner = lookups.checkpointOwner(cp.checkpointId);
    if (owner !== undefined && owner !== run.runId) {
      throw invalid(
        where,
        ['checkpoints', i, 'checkpointId'],
        `${JSON.stringify(cp.checkpointId)} is already a checkpoint of run ${owner} in this store; checkpoint ids are unique across the store`,
      );
    }
  });

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
