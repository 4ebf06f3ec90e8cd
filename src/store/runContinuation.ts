/**
 * A run continued in this store from a copy still being recorded elsewhere (RunStore.continueRunIn: a local-first
 * recorder's shipper confirming its run in the team store): the new tool calls, the calls finished since, the new
 * checkpoints and the end, in one transaction, checked as a copy is (copyRunIn, loadValidation.ts): each checkpoint
 * parsed as a shell and its new items validated as they are written, each argsHash, each id unique.
 *
 * Over the network it costs a constant number of round trips, whatever the run's length or the number of new
 * checkpoints: one read (the run's counts, its last checkpoint's id, its open calls, in one statement), then every
 * write goes with the COMMIT. Nothing is looked up a checkpoint: blobs are inserted without a look-up, list nodes
 * taken as new (ListNodes.takeNewNodes), checkpoint and call ids left to the unique indexes. When one of those was
 * there after all (a list node another run stored, an id used), the transaction fails whole and is written again
 * carefully: ids looked up (the refusal names the run holding one), nodes inserted or found one by one.
 */
import { DebugRunSchema, formatPath, OcdbError, parseWith, toolOutcomeOf, type Checkpoint } from '../model';
import { CheckpointShellSchema } from './checkpointShell';
import type { CheckpointTable } from './checkpointTable';
import type { ContentStore } from './contentStore';
import type { EngineTraits } from './engineTraits';
import { checkContinuedCalls, checkCopiedHashes, checkCopiedIds, type LoadLookups } from './loadValidation';
import { checkpointIdOf, toJson } from './rowCodec';
import type { RunContinuation } from './runStore';
import type { RunTable } from './runTable';
import type { StoreTransactions } from './storeTransactions';
import type { ToolCallTable } from './toolCallTable';

/**
 * What a continuation reads before it writes, in one statement: the run's counts (kind `r`), its last checkpoint's
 * id (`c`) and its open calls (`t`). Params: run id, run id, the last checkpoint's index, run id.
 */
const LOOK_UP = `SELECT 'r' AS kind, status AS name, run_key AS n, checkpoint_count AS a, tool_call_count AS b,
    NULL AS checkpoint_id, NULL AS args_hash, NULL AS live_edit_json
  FROM runs WHERE run_id = ?
  UNION ALL
  SELECT 'c', NULL, c.seq, NULL, NULL, c.checkpoint_id, NULL, NULL
  FROM checkpoints c JOIN runs r ON r.run_key = c.run_key WHERE r.run_id = ? AND c.seq = ?
  UNION ALL
  SELECT 't', tool_call_id, NULL, NULL, NULL, NULL, args_hash, live_edit_json
  FROM tool_calls WHERE run_id = ? AND state = 'running'`;

export interface RunContinuationTables {
  runs: RunTable;
  checkpoints: CheckpointTable;
  toolCalls: ToolCallTable;
}

export class RunContinuer {
  /** The last checkpoint this store continued each run with: its list memos continue that checkpoint's lists. */
  private readonly continuedTo = new Map<string, string>();

  constructor(
    private readonly tx: StoreTransactions,
    private readonly content: ContentStore,
    private readonly traits: EngineTraits,
    private readonly t: RunContinuationTables,
    /** The runs holding any of the ids (RunTransfer.ownersOf: one query a hundred ids). */
    private readonly ownersOf: (ids: readonly string[]) => Map<string, string | undefined>,
  ) {}

  /** The run was just copied here, its list memos kept (CopyOptions.continues): its lists end at `lastCheckpointId`. */
  copied(runId: string, lastCheckpointId: string): void {
    this.continuedTo.set(runId, lastCheckpointId);
  }

  continueRunIn(
    input: RunContinuation,
    batches: Iterable<readonly Checkpoint[]>,
    options: { where?: string } = {},
  ): void {
    const where = options.where;
    const calls = parseWith(DebugRunSchema.shape.toolLedger, input.toolCalls, where, ['toolCalls']);
    checkContinuedCalls(calls, where);
    if (input.end) parseWith(DebugRunSchema.shape.status, input.end.status, where, ['end', 'status']);
    // the batches as the first attempt read them: a careful second attempt writes the same ones
    const read: (readonly Checkpoint[])[] = [];
    const source = batches[Symbol.iterator]();
    const again: Iterable<readonly Checkpoint[]> = {
      *[Symbol.iterator]() {
        yield* read;
        for (let next = source.next(); !next.done; next = source.next()) {
          read.push(next.value);
          yield next.value;
        }
      },
    };
    const write = (careful: boolean) =>
      this.tx.writeRun(input.runId, () => this.write({ ...input, toolCalls: calls }, again, careful, where));
    // inside the caller's transaction a failed attempt cannot be taken back alone: careful at once
    if (this.tx.inWrite || this.traits.nodeIdBlock === undefined) return write(true);
    try {
      return write(false);
    } catch (e) {
      // a refusal of ours, or the store unreachable: said as it is; a unique index's: written again, carefully
      if (e instanceof OcdbError) throw e;
      this.continuedTo.delete(input.runId);
      return write(true);
    }
  }

  private write(
    input: RunContinuation,
    batches: Iterable<readonly Checkpoint[]>,
    careful: boolean,
    where: string | undefined,
  ): void {
    const { runs, toolCalls } = this.t;
    const { runId, from } = input;
    const at = where ? `${where}: ` : '';
    const rows = this.tx.sql(LOOK_UP, 'readsCounters').all(runId, runId, from - 1, runId);
    const runRow = rows.find((r) => r.kind === 'r');
    if (runRow) {
      this.tx.keepRunCounts(runId, {
        run_key: runRow.n ?? null,
        status: runRow.name ?? null,
        checkpoint_count: runRow.a ?? null,
        tool_call_count: runRow.b ?? null,
      });
    }
    // RunNotFound, RunNotRunning as every write says them
    let counts = runs.requireCounts(runId, true);
    const last = rows.find((r) => r.kind === 'c');
    const lastId = last ? checkpointIdOf(last.checkpoint_id) : undefined;
    if (Number(counts.checkpoint_count) !== from || lastId !== input.lastCheckpointId) {
      throw new OcdbError(
        'InvalidInput',
        `${at}run ${runId} changed here since it was copied: it has ${String(counts.checkpoint_count)} checkpoints (the last ${lastId ?? 'none'}), not ${from} (the last ${input.lastCheckpointId ?? 'none'}); nothing was written.`,
        { runId },
      );
    }
    const open = new Map(rows.filter((r) => r.kind === 't').map((r) => [String(r.name), r]));
    input.toolCalls.forEach((record, i) => {
      const here = open.get(record.toolCallId);
      if (!here) {
        if (careful) this.assertNewCall(runId, record.toolCallId, at);
        const state = record.endedAt === undefined && record.error === undefined ? 'running' : toolOutcomeOf(record);
        toolCalls.insert(runId, record, state, Number(counts.tool_call_count));
        this.tx.counted(runId, counts, 'tool_call_count');
        counts = runs.requireCounts(runId, false);
        return;
      }
      if (here.args_hash !== record.argsHash || String(here.live_edit_json ?? '') !== (toJson(record.liveEdit) ?? '')) {
        const path = formatPath(['toolCalls', i]);
        throw new OcdbError(
          'InvalidInput',
          `${at}${path}: tool call ${record.toolCallId} of run ${runId} is open here with other arguments or another live edit; nothing was written.`,
          { runId, path },
        );
      }
      if (record.endedAt !== undefined || record.error !== undefined) toolCalls.finishCopied(runId, record);
    });
    this.appendCheckpoints(input, batches, careful, where);
    if (input.end) {
      const { end } = input;
      this.tx
        .sql('UPDATE runs SET status = ?, ended_at = ?, error_json = ?, heartbeat_at = ? WHERE run_id = ?', 'writes')
        .run(end.status, end.endedAt, toJson(end.error), runs.heartbeatTime(), runId);
      if (end.metadata !== undefined) {
        this.tx
          .sql('UPDATE runs SET metadata_json = ? WHERE run_id = ?', 'writes')
          .run(JSON.stringify(end.metadata), runId);
      }
    } else if (input.heartbeatAt !== undefined) {
      this.tx
        .sql("UPDATE runs SET heartbeat_at = ? WHERE run_id = ? AND status = 'running'", 'writes')
        .run(runs.heartbeatTime(input.heartbeatAt), runId);
    }
    this.tx.touchRun(runId);
  }

  /** The new checkpoints, each checked as a copy's (copyRunIn) and written at the run's end. */
  private appendCheckpoints(
    input: RunContinuation,
    batches: Iterable<readonly Checkpoint[]>,
    careful: boolean,
    where: string | undefined,
  ): void {
    const { runs, checkpoints } = this.t;
    const { runId, from } = input;
    const lookups: LoadLookups = careful
      ? {
          checkpointOwner: (id) => checkpoints.runOf(id),
          checkpointOwners: (ids) => this.ownersOf(ids),
          parentOf: (id) => runs.parentOf(id),
        }
      : // the unique index refuses a used id at COMMIT; the careful attempt then names its run
        { checkpointOwner: () => undefined, checkpointOwners: () => new Map(), parentOf: () => null };
    // the lists continue the last checkpoint's: this store's list memos when it wrote that checkpoint last (known
    // by identity of its items, nothing read), else adopted from the checkpoint given (its node ids read once)
    const own =
      this.continuedTo.get(runId) === input.lastCheckpointId &&
      this.content.knowsList(`m:${runId}`) &&
      this.content.knowsList(`l:${runId}`);
    let listsFrom = own ? undefined : input.listsFrom;
    const ids = new Map<string, number>();
    const checked = new WeakSet<object>();
    let offset = from;
    let lastId = input.lastCheckpointId;
    this.continuedTo.delete(runId);
    this.content.bulkWrites(
      () => {
        for (const batch of batches) {
          const shells = batch.map((cp, i) => {
            const path = ['checkpoints', offset + i];
            const shell = parseWith(CheckpointShellSchema, cp, where, path);
            if (shell.runId !== runId) {
              throw new OcdbError(
                'InvalidInput',
                `${where ? `${where}: ` : ''}${formatPath([...path, 'runId'])}: checkpoint belongs to run ${shell.runId}, not ${runId}`,
                { path: formatPath([...path, 'runId']) },
              );
            }
            return shell;
          });
          checkCopiedIds(runId, shells, offset, ids, lookups, where);
          for (const cp of shells) {
            checkpoints.insert(cp, true, listsFrom, runs.requireCounts(runId, false), true);
            listsFrom = undefined;
            lastId = cp.checkpointId;
          }
          checkCopiedHashes(shells as unknown as readonly Checkpoint[], offset, checked, where);
          offset += batch.length;
        }
      },
      { newNodes: !careful },
    );
    if (lastId !== undefined) this.continuedTo.set(runId, lastId);
  }

  /** ToolCallAlreadyExists when run `runId` has a call `toolCallId` (the careful attempt: a look-up a call). */
  private assertNewCall(runId: string, toolCallId: string, at: string): void {
    if (this.tx.sql('SELECT 1 AS x FROM tool_calls WHERE run_id = ? AND tool_call_id = ?').get(runId, toolCallId)) {
      throw new OcdbError('ToolCallAlreadyExists', `${at}tool call ${toolCallId} already exists in run ${runId}.`, {
        runId,
        toolCallId,
      });
    }
  }
}
