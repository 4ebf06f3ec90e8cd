/** The `tool_calls` table: a run's ledger (the tool cassette) — begin, finish exactly once, read, find by cassette key. */
import {
  OcdbError,
  REPLAY_POLICIES,
  SIDE_EFFECT_LEVELS,
  ToolCallRecordSchema,
  argsHash,
  parseWith,
  toolOutcomeOf,
  type ToolCallLiveEdit,
  type ToolCallRecord,
  type ToolOutcome,
} from '../model';
import { hashKey, hashOf } from './blobCodec';
import { lazyList } from './lazyList';
import { markColumns } from './markColumns';
import { compact, json, num, toJson } from './rowCodec';
import type {
  BeginToolCallInput,
  FinishToolCallInput,
  ToolCallFacts,
  ToolCallMarks,
  ToolCallMarksSince,
} from './runStore';
import type { SqlRow } from './sqlDriver';
import type { StoreContext } from './storeContext';

const ToolCallFactsSchema = ToolCallRecordSchema.pick({
  toolCallId: true,
  toolName: true,
  sideEffectLevel: true,
  replayPolicy: true,
  startedAt: true,
  endedAt: true,
  heldMs: true,
});

const MARK_LEVELS: ReadonlySet<unknown> = new Set(SIDE_EFFECT_LEVELS);
const MARK_POLICIES: ReadonlySet<unknown> = new Set(REPLAY_POLICIES);
const MARK_STATES: ReadonlySet<unknown> = new Set(['running', 'success', 'error', 'cancelled']);
const MARK_COLUMNS = [
  'tool_call_id',
  'tool_name',
  'side_effect_level',
  'replay_policy',
  'started_at',
  'ended_at',
  'held_ms',
  'state',
  'edited',
] as const;

/** The `state` column: running until finished, then how it finished. */
export type ToolCallState = 'running' | ToolOutcome;

export class ToolCallTable {
  constructor(private readonly ctx: StoreContext) {}

  begin(runId: string, input: BeginToolCallInput): ToolCallRecord {
    return this.ctx.transaction(() => {
      const run = this.ctx.requireRunCounts(runId, true);
      // SQLite: the primary key refuses a used id at the INSERT (no read first); PostgreSQL: read first
      if (!this.ctx.uniqueErrorKeepsTransaction) this.assertNewCall(runId, input.toolCallId);
      const record: ToolCallRecord = {
        toolCallId: input.toolCallId,
        toolName: input.toolName,
        args: input.args,
        argsHash: argsHash(input.args),
        sideEffectLevel: input.sideEffectLevel,
        replayPolicy: input.replayPolicy,
        startedAt: input.startedAt,
      };
      const parsed = parseWith(ToolCallRecordSchema, record, 'tool call');
      let argsRef: string;
      try {
        argsRef = this.insert(runId, parsed, 'running', Number(run.tool_call_count));
      } catch (e) {
        // the failed INSERT alone is undone; the caller's transaction rolls back with the error
        if (this.ctx.uniqueErrorKeepsTransaction) this.assertNewCall(runId, input.toolCallId);
        throw e;
      }
      this.ctx.counted(runId, run, 'tool_call_count');
      // The record as it reads back (args as stored, a fresh parse: the caller's objects are not handed out).
      return { ...parsed, args: this.ctx.content.getValue(argsRef) };
    });
  }

  /** ToolCallAlreadyExists when run `runId` has a call `toolCallId` already. */
  private assertNewCall(runId: string, toolCallId: string): void {
    if (this.ctx.sql('SELECT 1 AS x FROM tool_calls WHERE run_id = ? AND tool_call_id = ?').get(runId, toolCallId)) {
      throw new OcdbError('ToolCallAlreadyExists', `Tool call ${toolCallId} already exists in run ${runId}.`, {
        runId,
        toolCallId,
      });
    }
  }

  /** Inserts a record into a run's ledger (inside the caller's transaction); `seq`: its index, when the caller knows it. */
  insert(runId: string, record: ToolCallRecord, state: ToolCallState, seq?: number): string {
    seq ??= Number(
      this.ctx.sql('SELECT tool_call_count AS n FROM runs WHERE run_id = ?', 'readsCounters').get(runId)?.n ?? 0,
    );
    const argsRef = this.ctx.content.putValue(record.args ?? null);
    this.ctx
      .sql(
        `INSERT INTO tool_calls (run_id, tool_call_id, seq, tool_name, args_hash, args_ref, result_ref, error_json,
         side_effect_level, replay_policy, started_at, ended_at, state, live_edit_json, held_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        runId,
        record.toolCallId,
        seq,
        record.toolName,
        record.argsHash,
        hashKey(argsRef),
        record.result === undefined ? null : hashKey(this.ctx.content.putValue(record.result)),
        toJson(record.error),
        record.sideEffectLevel,
        record.replayPolicy,
        record.startedAt,
        record.endedAt ?? null,
        state,
        toJson(record.liveEdit),
        record.heldMs ?? null,
      );
    this.ctx.countRun(runId, { toolCalls: 1, toolErrors: state === 'error' ? 1 : 0 });
    return argsRef;
  }

  finish(runId: string, toolCallId: string, input: FinishToolCallInput): ToolCallRecord {
    return this.ctx.transaction(() => {
      this.ctx.requireRunCounts(runId, false);
      // How an error or a cancellation is stored is the writer's rule (src/writer/outcomes.ts): it always gives it.
      const error = input.error;
      const isError = input.outcome !== 'success';
      if (isError && error === undefined) {
        throw new OcdbError(
          'InvalidInput',
          `finishToolCall: tool call ${toolCallId} ended ${input.outcome} without its error value; write runs through RunWriter.`,
          { runId, toolCallId, path: 'error' },
        );
      }
      // The result as stored, deep-frozen: its canonical text is known by identity to the ledger record and the
      // tool message that carry it next (written once, not serialised and hashed again for each). Stored before the
      // call is known to be open: a refused finish rolls the transaction back with it.
      const stored = !isError && input.result !== undefined ? this.ctx.content.putFrozenValue(input.result) : undefined;
      const resultRef = stored ? hashKey(stored.hash) : null;
      const errorJson = isError ? JSON.stringify(error ?? null) : null;
      const open = input.open;
      if (open && open.toolCallId === toolCallId && open.endedAt === undefined) {
        // The writer knows the open record: finished while running and still as it knows it, it is that record
        // with its end (no read back; RETURNING costs three plain UPDATEs). Otherwise read back, below.
        const changed = this.ctx
          .sql(
            `UPDATE tool_calls SET result_ref = ?, error_json = ?, ended_at = ?, state = ?, held_ms = ?
             WHERE run_id = ? AND tool_call_id = ? AND state = 'running' AND args_hash = ?
               AND COALESCE(live_edit_json, '') = ?`,
          )
          .run(
            resultRef,
            errorJson,
            input.endedAt,
            input.outcome,
            input.heldMs ?? null,
            runId,
            toolCallId,
            open.argsHash,
            toJson(open.liveEdit) ?? '',
          ).changes;
        if (changed === 1) {
          this.afterFinish(runId, input.outcome === 'error');
          // the record as toToolCall reads it back: its keys in the schema's order, the error as stored
          return compact({
            toolCallId: open.toolCallId,
            toolName: open.toolName,
            args: open.args,
            argsHash: open.argsHash,
            result: stored?.value,
            error: json(errorJson),
            sideEffectLevel: open.sideEffectLevel,
            replayPolicy: open.replayPolicy,
            startedAt: open.startedAt,
            endedAt: input.endedAt,
            heldMs: input.heldMs,
            liveEdit: open.liveEdit,
          });
        }
      }
      // Finished only while running, and read back by the same statement (no read first).
      const row = this.ctx
        .sql(
          `UPDATE tool_calls SET result_ref = ?, error_json = ?, ended_at = ?, state = ?, held_ms = ?
           WHERE run_id = ? AND tool_call_id = ? AND state = 'running' RETURNING *`,
        )
        .get(resultRef, errorJson, input.endedAt, input.outcome, input.heldMs ?? null, runId, toolCallId);
      if (!row) {
        const found = this.requireToolCallRow(runId, toolCallId);
        throw new OcdbError(
          'ToolCallAlreadyFinished',
          `Tool call ${toolCallId} (${String(found.tool_name)}) in run ${runId} was already finished (${String(
            found.state,
          )}); finish it exactly once.`,
          { runId, toolCallId, state: found.state },
        );
      }
      this.afterFinish(runId, input.outcome === 'error');
      // The record as it reads back, from the row the UPDATE returned (the result as just stored, not read again).
      return this.toToolCall(row, stored?.value);
    });
  }

  /**
   * Finishes a call a run's continuation found open here, as the copy's record ended (RunContinuer: read under the
   * run's lock, with its args hash and live edit checked): one UPDATE, sent with the transaction's next read or
   * COMMIT, nothing read back.
   */
  finishCopied(runId: string, record: ToolCallRecord): void {
    const outcome = toolOutcomeOf(record);
    const resultRef = record.result === undefined ? null : hashKey(this.ctx.content.putValue(record.result));
    this.ctx
      .sql(
        `UPDATE tool_calls SET result_ref = ?, error_json = ?, ended_at = ?, state = ?, held_ms = ?
         WHERE run_id = ? AND tool_call_id = ? AND state = 'running'`,
      )
      .run(
        resultRef,
        toJson(record.error),
        record.endedAt ?? null,
        outcome,
        record.heldMs ?? null,
        runId,
        record.toolCallId,
      );
    this.afterFinish(runId, outcome === 'error');
  }

  /** The run's counts and change stamp after a call finished (a cancelled call is not an error: store/fixups.ts). */
  private afterFinish(runId: string, isError: boolean): void {
    if (isError) this.ctx.countRun(runId, { toolErrors: 1 });
    this.ctx.touchRun(runId);
  }

  private requireToolCallRow(runId: string, toolCallId: string): SqlRow {
    const row = this.ctx.sql('SELECT * FROM tool_calls WHERE run_id = ? AND tool_call_id = ?').get(runId, toolCallId);
    if (!row) {
      throw new OcdbError('ToolCallNotFound', `No tool call ${toolCallId} in run ${runId}.`, { runId, toolCallId });
    }
    return row;
  }

  /** A record from its row; `result`: its result as just stored (frozen), instead of a read of `result_ref`. */
  private toToolCall(row: SqlRow, result?: unknown): ToolCallRecord {
    return parseWith(
      ToolCallRecordSchema,
      compact({
        toolCallId: String(row.tool_call_id),
        toolName: String(row.tool_name),
        args: this.ctx.content.getValue(hashOf(row.args_ref)),
        argsHash: String(row.args_hash),
        result:
          row.result_ref === null
            ? undefined
            : result !== undefined
              ? result
              : this.ctx.content.getValue(hashOf(row.result_ref)),
        error: json(row.error_json),
        sideEffectLevel: row.side_effect_level,
        replayPolicy: row.replay_policy,
        startedAt: Number(row.started_at),
        endedAt: num(row.ended_at),
        heldMs: num(row.held_ms),
        liveEdit: json(row.live_edit_json),
      }),
      `store tool call ${String(row.tool_call_id)}`,
    );
  }

  /**
   * A running call's arguments replaced by those a live debugger edited (the tool runs with them), with the
   * edit it records (live debugging); inside the caller's transaction.
   */
  reviseArgs(runId: string, toolCallId: string, args: unknown, liveEdit: ToolCallLiveEdit): ToolCallRecord {
    const row = this.requireToolCallRow(runId, toolCallId);
    if (row.state !== 'running') {
      throw new OcdbError(
        'ToolCallAlreadyFinished',
        `Tool call ${toolCallId} in run ${runId} has already finished; its arguments cannot be edited.`,
        { runId, toolCallId },
      );
    }
    this.ctx
      .sql(
        'UPDATE tool_calls SET args_hash = ?, args_ref = ?, live_edit_json = ? WHERE run_id = ? AND tool_call_id = ?',
      )
      .run(
        argsHash(args),
        hashKey(this.ctx.content.putValue(args ?? null)),
        JSON.stringify(liveEdit),
        runId,
        toolCallId,
      );
    this.ctx.touchRun(runId);
    return this.get(runId, toolCallId);
  }

  get(runId: string, toolCallId: string): ToolCallRecord {
    return this.toToolCall(this.requireToolCallRow(runId, toolCallId));
  }

  list(runId: string): ToolCallRecord[] {
    this.ctx.requireRunRow(runId);
    return this.ctx
      .sql('SELECT * FROM tool_calls WHERE run_id = ? ORDER BY seq')
      .all(runId)
      .map((r) => this.toToolCall(r));
  }

  /** list, each record put together (its blobs read, parsed) on first access; `open` checks the store is still open. */
  view(runId: string, open: () => void): readonly ToolCallRecord[] {
    this.ctx.requireRunRow(runId);
    const rows = this.ctx.sql('SELECT * FROM tool_calls WHERE run_id = ? ORDER BY seq').all(runId);
    return lazyList(rows.length, (i) => {
      open();
      const row = rows[i] as SqlRow;
      try {
        return this.toToolCall(row);
      } catch (e) {
        if (!(e instanceof OcdbError) || e.code !== 'StoreCorrupt') throw e;
        const id = String(row.tool_call_id);
        throw new OcdbError(
          'StoreCorrupt',
          `Tool call ${id} of run ${runId}: ${e.message}`,
          { runId, toolCallId: id },
          { cause: e },
        );
      }
    });
  }

  /** The ids of a run's calls, in order. */
  ids(runId: string): string[] {
    this.ctx.requireRunRow(runId);
    return this.ctx
      .sql('SELECT tool_call_id FROM tool_calls WHERE run_id = ? ORDER BY seq')
      .all(runId)
      .map((row) => String(row.tool_call_id));
  }

  /** The calls of a run without their arguments and results (what a fork's plan weighs), in order. */
  facts(runId: string): ToolCallFacts[] {
    this.ctx.requireRunRow(runId);
    return this.ctx
      .sql(
        `SELECT tool_call_id, tool_name, side_effect_level, replay_policy, started_at, ended_at, held_ms
           FROM tool_calls WHERE run_id = ? ORDER BY seq`,
      )
      .all(runId)
      .map((row) =>
        parseWith(
          ToolCallFactsSchema,
          compact({
            toolCallId: String(row.tool_call_id),
            toolName: String(row.tool_name),
            sideEffectLevel: row.side_effect_level,
            replayPolicy: row.replay_policy,
            startedAt: Number(row.started_at),
            endedAt: num(row.ended_at),
            heldMs: num(row.held_ms),
          }),
          `store tool call ${String(row.tool_call_id)}`,
        ),
      );
  }

  /**
   * facts with how each call stands (running, or how it ended) and whether a live edit changed it: the Timeline's.
   * `since`: only the calls begun after the one at `afterSeq` (a range of `tool_calls_by_seq`) and those of `ids`
   * (calls a reader saw open), each once.
   */
  marks(runId: string, since?: ToolCallMarksSince): ToolCallMarks[] {
    this.ctx.requireRunRow(runId);
    const cols = `seq, tool_call_id, tool_name, side_effect_level, replay_policy, started_at, ended_at, held_ms, state,
               live_edit_json IS NOT NULL AS edited FROM tool_calls`;
    const ids = since?.ids ?? [];
    const from = !since
      ? `(SELECT ${cols} WHERE run_id = ? ORDER BY seq) AS calls`
      : ids.length === 0
        ? `(SELECT ${cols} WHERE run_id = ? AND seq > ? ORDER BY seq) AS calls`
        : `(SELECT ${cols} WHERE run_id = ? AND seq > ?
            UNION SELECT ${cols} WHERE run_id = ? AND tool_call_id IN (${ids.map(() => '?').join(', ')})
            ORDER BY seq) AS calls`;
    const params = !since
      ? [runId]
      : ids.length === 0
        ? [runId, since.afterSeq]
        : [runId, since.afterSeq, runId, ...ids];
    // one row of columns (markColumns.ts), checked field by field, not parsed per row: a long run's calls are read
    // at the cost of their values
    const c = markColumns((text) => this.ctx.sql(text), MARK_COLUMNS, from, params, `tool calls of run ${runId}`);
    const bad = (i: number, what: string, value: unknown) => {
      const toolCallId = String(c.tool_call_id[i]);
      return new OcdbError('StoreCorrupt', `store tool call ${toolCallId}: unknown ${what} ${String(value)}`, {
        runId,
        toolCallId,
      });
    };
    const marks = new Array<ToolCallMarks>(c.seq.length);
    for (let i = 0; i < marks.length; i++) {
      const level = c.side_effect_level[i];
      const policy = c.replay_policy[i];
      const state = c.state[i];
      if (!MARK_LEVELS.has(level)) throw bad(i, 'side-effect level', level);
      if (!MARK_POLICIES.has(policy)) throw bad(i, 'replay policy', policy);
      if (!MARK_STATES.has(state)) throw bad(i, 'state', state);
      const mark: ToolCallMarks = {
        seq: c.seq[i] as number,
        toolCallId: String(c.tool_call_id[i]),
        toolName: String(c.tool_name[i]),
        sideEffectLevel: level as ToolCallMarks['sideEffectLevel'],
        replayPolicy: policy as ToolCallMarks['replayPolicy'],
        startedAt: Number(c.started_at[i]),
        state: state as ToolCallState,
        // SQLite's IS NOT NULL is 0 or 1, PostgreSQL's a boolean
        liveEdited: Boolean(c.edited[i]),
      };
      const ended = num(c.ended_at[i]);
      if (ended !== undefined) mark.endedAt = ended;
      const held = num(c.held_ms[i]);
      if (held !== undefined) mark.heldMs = held;
      marks[i] = mark;
    }
    return marks;
  }

  find(runIds: readonly string[], toolName: string, hash: string): ToolCallRecord[] {
    if (runIds.length === 0) return [];
    const marks = runIds.map(() => '?').join(', ');
    return this.ctx
      .sql(
        `SELECT * FROM tool_calls WHERE tool_name = ? AND args_hash = ? AND run_id IN (${marks}) ORDER BY started_at, seq`,
      )
      .all(toolName, hash, ...runIds)
      .map((r) => this.toToolCall(r));
  }
}
