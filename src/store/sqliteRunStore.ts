/**
 * The SQLite implementation of RunStore: WAL, busy timeout, foreign keys,
 * migrations at open, every write one IMMEDIATE transaction, heavy values in
 * content-addressed blobs (see contentStore.ts). The only file with SQL.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ArtifactRefSchema,
  CheckpointSchema,
  DebugRunSchema,
  ForkConfigSchema,
  MessageSchema,
  OcdbError,
  RuntimeContextSnapshotSchema,
  ToolCallRecordSchema,
  argsHash,
  formatPath,
  parseWith,
  type Checkpoint,
  type DebugRun,
  type ToolCallRecord,
} from '../model';
import { z } from 'zod';
import { ConfirmationTable } from './confirmationTable';
import { ContentStore } from './contentStore';
import { isCrashed, THIS_HOST } from './liveness';
import { migrate } from './migrations';
import { openDriver } from './openDriver';
import type {
  BeginToolCallInput,
  ConfirmationAnswer,
  ConfirmationRecord,
  CheckpointSummary,
  CreateRunInput,
  FinishRunInput,
  FinishToolCallInput,
  ForkRequestRecord,
  ListRunsOptions,
  RunStore,
  RunSummary,
  StoreChanges,
} from './runStore';
import type { DriverName, SqlDriver, SqlRow, SqlStatement } from './sqlDriver';
import { translateSqliteError } from './sqliteErrors';

export interface OpenStoreOptions {
  /** Create the file (and its folder) when missing; default true. Readers pass false to get a clear error instead. */
  create?: boolean;
  driver?: DriverName;
  /** Milliseconds a writer waits for another process's lock before StoreLocked; default 5000. */
  busyTimeoutMs?: number;
}

/** Opens (and migrates) the store at `file`. */
export function openRunStore(file: string, options: OpenStoreOptions = {}): SqliteRunStore {
  const create = options.create ?? true;
  const abs = path.resolve(file);
  if (!create && !fs.existsSync(abs)) {
    throw new OcdbError(
      'StoreUnavailable',
      `No run store at ${abs}. Record a run, run \`ocdb demo --store ${abs}\`, or point --store / OCDB_STORE at an existing store.`,
      { path: abs },
    );
  }
  if (create) fs.mkdirSync(path.dirname(abs), { recursive: true });
  let db: SqlDriver;
  try {
    db = openDriver(abs, { create, driver: options.driver });
  } catch (e) {
    throw translateSqliteError(e, abs);
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    migrate(db);
  } catch (e) {
    db.close();
    throw translateSqliteError(e, abs);
  }
  return new SqliteRunStore(abs, db);
}

const num = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v));
const str = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v));
const json = (v: unknown): unknown => (v === null || v === undefined ? undefined : JSON.parse(String(v)));
const toJson = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));

/** Drops keys whose value is undefined, so exported JSON has no `"x": undefined` noise and round-trips exactly. */
function compact<T extends object>(o: T): T {
  for (const key of Object.keys(o) as (keyof T)[]) if (o[key] === undefined) delete o[key];
  return o;
}

const ForkRequestRowSchema = z.object({
  status: z.enum(['pending', 'running', 'waiting_for_agent', 'completed', 'failed']),
  config: ForkConfigSchema,
  acknowledgedTools: z.array(z.string()),
});

export class SqliteRunStore implements RunStore {
  readonly driverName: string;
  private readonly content: ContentStore;
  private readonly confirmations: ConfirmationTable;
  private readonly stmts: Record<string, SqlStatement> = {};
  private depth = 0;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly db: SqlDriver,
  ) {
    this.driverName = db.name;
    this.content = new ContentStore(db);
    this.confirmations = new ConfirmationTable(db, (fn) => this.transaction(fn), path);
  }

  private sql(text: string): SqlStatement {
    let stmt = this.stmts[text];
    if (!stmt) {
      stmt = this.db.prepare(text);
      this.stmts[text] = stmt;
    }
    return stmt;
  }

  // ---- transactions ------------------------------------------------------

  transaction<T>(fn: () => T): T {
    this.assertOpen();
    if (this.depth > 0) return fn();
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (e) {
      throw translateSqliteError(e, this.path);
    }
    this.depth++;
    try {
      const result = fn();
      this.db.exec('COMMIT');
      return result;
    } catch (e) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // the transaction may already be gone (e.g. SQLITE_FULL rolls back by itself)
      }
      // Nodes written in the failed transaction are gone: memos pointing at them must go too.
      this.content.forgetMemos();
      throw translateSqliteError(e, this.path);
    } finally {
      this.depth--;
    }
  }

  private bumpChangeSeq(): number {
    this.sql("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'change_seq'").run();
    return this.changeSeq();
  }

  private touchRun(runId: string): void {
    const seq = this.bumpChangeSeq();
    this.sql('UPDATE runs SET change_seq = ? WHERE run_id = ?').run(seq, runId);
  }

  changeSeq(): number {
    this.assertOpen();
    return Number(this.sql("SELECT value FROM meta WHERE key = 'change_seq'").get()?.value ?? 0);
  }

  // ---- runs ----------------------------------------------------------------

  createRun(input: CreateRunInput): RunSummary {
    const metadata = input.metadata ?? {};
    const artifactRefs = parseWith(z.array(ArtifactRefSchema), input.artifactRefs ?? [], 'artifactRefs');
    return this.transaction(() => {
      if (this.hasRun(input.runId)) {
        throw new OcdbError('RunAlreadyExists', `Run ${input.runId} already exists in ${this.path}.`, {
          runId: input.runId,
        });
      }
      this.sql(
        `INSERT INTO runs (run_id, session_id, agent_id, parent_run_id, fork_from_checkpoint_id, status, mode,
           started_at, metadata_json, artifact_refs_json, owner_pid, owner_host, heartbeat_at)
         VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        input.runId,
        input.sessionId,
        input.agentId,
        input.parentRunId ?? null,
        input.forkFromCheckpointId ?? null,
        input.mode ?? 'live',
        input.startedAt,
        JSON.stringify(metadata),
        JSON.stringify(artifactRefs),
        input.ownerPid ?? process.pid,
        THIS_HOST,
        Date.now(),
      );
      this.touchRun(input.runId);
      return this.getRun(input.runId);
    });
  }

  private requireRunRow(runId: string): SqlRow {
    const row = this.sql('SELECT * FROM runs WHERE run_id = ?').get(runId);
    if (!row) {
      throw new OcdbError('RunNotFound', `No run ${runId} in ${this.path}. \`ocdb runs\` lists the runs there.`, {
        runId,
      });
    }
    return row;
  }

  private requireRunning(runId: string): SqlRow {
    const row = this.requireRunRow(runId);
    if (row.status !== 'running') {
      throw new OcdbError(
        'RunNotRunning',
        `Run ${runId} has already ended (${String(row.status)}); it cannot record more.`,
        {
          runId,
          status: row.status,
        },
      );
    }
    return row;
  }

  hasRun(runId: string): boolean {
    this.assertOpen();
    return this.sql('SELECT 1 AS x FROM runs WHERE run_id = ?').get(runId) !== undefined;
  }

  getRun(runId: string): RunSummary {
    this.assertOpen();
    return this.toSummary(this.requireRunRow(runId));
  }

  private toSummary(row: SqlRow): RunSummary {
    const status = String(row.status) as RunSummary['status'];
    const ownerPid = num(row.owner_pid);
    const heartbeatAt = num(row.heartbeat_at);
    return compact({
      runId: String(row.run_id),
      sessionId: String(row.session_id),
      agentId: String(row.agent_id),
      parentRunId: str(row.parent_run_id),
      forkFromCheckpointId: str(row.fork_from_checkpoint_id),
      status,
      mode: String(row.mode) as RunSummary['mode'],
      startedAt: Number(row.started_at),
      endedAt: num(row.ended_at),
      error: json(row.error_json),
      metadata: json(row.metadata_json) as Record<string, unknown>,
      checkpointCount: Number(row.checkpoint_count),
      toolCallCount: Number(row.tool_call_count),
      toolErrorCount: Number(row.tool_error_count),
      stepCount: Number(row.max_step) + 1,
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      crashed: isCrashed(status, ownerPid ?? null, str(row.owner_host) ?? null, heartbeatAt ?? null),
      ownerPid,
      heartbeatAt,
      changeSeq: Number(row.change_seq),
    });
  }

  listRuns(options: ListRunsOptions = {}): { runs: RunSummary[]; total: number } {
    this.assertOpen();
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (options.agentId !== undefined) {
      where.push('agent_id = ?');
      params.push(options.agentId);
    }
    if (options.status !== undefined) {
      where.push('status = ?');
      params.push(options.status);
    }
    if (options.mode !== undefined) {
      where.push('mode = ?');
      params.push(options.mode);
    }
    if (options.parentRunId === null) where.push('parent_run_id IS NULL');
    else if (options.parentRunId !== undefined) {
      where.push('parent_run_id = ?');
      params.push(options.parentRunId);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const total = Number(this.sql(`SELECT COUNT(*) AS n FROM runs ${clause}`).get(...params)?.n ?? 0);
    const limit = Math.max(0, Math.min(options.limit ?? 200, 10_000));
    const offset = Math.max(0, options.offset ?? 0);
    const rows = this.sql(`SELECT * FROM runs ${clause} ORDER BY started_at DESC, rowid DESC LIMIT ? OFFSET ?`).all(
      ...params,
      limit,
      offset,
    );
    return { runs: rows.map((r) => this.toSummary(r)), total };
  }

  finishRun(runId: string, input: FinishRunInput): RunSummary {
    return this.transaction(() => {
      this.requireRunning(runId);
      this.sql('UPDATE runs SET status = ?, ended_at = ?, error_json = ?, heartbeat_at = ? WHERE run_id = ?').run(
        input.status,
        input.endedAt,
        toJson(input.error),
        Date.now(),
        runId,
      );
      this.touchRun(runId);
      return this.getRun(runId);
    });
  }

  heartbeat(runId: string, at: number): void {
    this.transaction(() => {
      this.sql("UPDATE runs SET heartbeat_at = ? WHERE run_id = ? AND status = 'running'").run(at, runId);
    });
  }

  setRunOwner(runId: string, owner: { pid: number; at: number } | null): void {
    this.transaction(() => {
      this.requireRunning(runId);
      this.sql('UPDATE runs SET owner_pid = ?, owner_host = ?, heartbeat_at = ? WHERE run_id = ?').run(
        owner?.pid ?? null,
        owner ? THIS_HOST : null,
        owner?.at ?? null,
        runId,
      );
      this.touchRun(runId);
    });
  }

  deleteRun(runId: string): void {
    this.transaction(() => {
      this.requireRunRow(runId);
      this.sql('DELETE FROM runs WHERE run_id = ?').run(runId);
      const seq = this.bumpChangeSeq();
      this.sql('INSERT INTO deleted_runs (run_id, change_seq) VALUES (?, ?)').run(runId, seq);
      this.collectGarbage();
    });
    this.content.forgetMemos();
  }

  /** Removes list nodes and blobs no run refers to any more (inside the caller's transaction). */
  private collectGarbage(): void {
    this.sql(
      `WITH RECURSIVE live(id) AS (
         SELECT messages_node FROM checkpoints UNION SELECT ledger_node FROM checkpoints
         UNION SELECT n.parent FROM list_nodes n JOIN live ON n.id = live.id)
       DELETE FROM list_nodes WHERE id NOT IN (SELECT id FROM live)`,
    ).run();
    this.sql(
      `DELETE FROM blobs WHERE hash NOT IN (
         SELECT item FROM list_nodes
         UNION SELECT context_hash FROM checkpoints
         UNION SELECT system_prompt_hash FROM checkpoints WHERE system_prompt_hash IS NOT NULL
         UNION SELECT args_ref FROM tool_calls
         UNION SELECT result_ref FROM tool_calls WHERE result_ref IS NOT NULL)`,
    ).run();
  }

  // ---- checkpoints ------------------------------------------------------------

  appendCheckpoint(input: Checkpoint): CheckpointSummary {
    const cp = parseWith(CheckpointSchema, input, 'checkpoint');
    return this.transaction(() => {
      this.requireRunning(cp.runId);
      return this.insertCheckpoint(cp);
    });
  }

  private insertCheckpoint(cp: Checkpoint): CheckpointSummary {
    const existing = this.sql('SELECT run_id FROM checkpoints WHERE checkpoint_id = ?').get(cp.checkpointId);
    if (existing) {
      throw new OcdbError(
        'InvalidInput',
        `checkpointId ${cp.checkpointId} is already used (run ${String(existing.run_id)}); checkpoint ids are unique in a store.`,
        { path: 'checkpointId', checkpointId: cp.checkpointId },
      );
    }
    const run = this.requireRunRow(cp.runId);
    const index = Number(run.checkpoint_count);
    const messagesNode = this.content.putList(cp.messages, `m:${cp.runId}`);
    const ledgerNode = this.content.putList(cp.toolLedgerSnapshot, `l:${cp.runId}`);
    const contextHash = this.content.putValue(cp.runtimeContext);
    const promptHash = cp.systemPrompt === undefined ? null : this.content.putValue(cp.systemPrompt);
    this.sql(
      `INSERT INTO checkpoints (checkpoint_id, run_id, seq, boundary, step_index, messages_node, message_count,
         system_prompt_hash, model_json, prompt_version, context_hash, tool_call_id, ledger_node, ledger_count,
         artifact_refs_json, finish_reason, usage_json, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      cp.checkpointId,
      cp.runId,
      index,
      cp.boundary,
      cp.stepIndex,
      messagesNode,
      cp.messages.length,
      promptHash,
      toJson(cp.model),
      cp.promptVersion ?? null,
      contextHash,
      cp.toolCallId ?? null,
      ledgerNode,
      cp.toolLedgerSnapshot.length,
      toJson(cp.artifactRefs),
      cp.finishReason ?? null,
      toJson(cp.usage),
      cp.createdAt,
    );
    const usageIn = cp.usage && !cp.usage.captured ? cp.usage.inputTokens : 0;
    const usageOut = cp.usage && !cp.usage.captured ? cp.usage.outputTokens : 0;
    this.sql(
      `UPDATE runs SET checkpoint_count = checkpoint_count + 1, max_step = MAX(max_step, ?),
         input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, heartbeat_at = ? WHERE run_id = ?`,
    ).run(cp.stepIndex, usageIn, usageOut, Date.now(), cp.runId);
    this.touchRun(cp.runId);
    return this.toCheckpointSummary({
      checkpoint_id: cp.checkpointId,
      run_id: cp.runId,
      seq: index,
      boundary: cp.boundary,
      step_index: cp.stepIndex,
      tool_call_id: cp.toolCallId ?? null,
      finish_reason: cp.finishReason ?? null,
      usage_json: toJson(cp.usage),
      message_count: cp.messages.length,
      prompt_version: cp.promptVersion ?? null,
      created_at: cp.createdAt,
      tool_name: null,
    });
  }

  private toCheckpointSummary(row: SqlRow): CheckpointSummary {
    return compact({
      checkpointId: String(row.checkpoint_id),
      runId: String(row.run_id),
      index: Number(row.seq),
      boundary: String(row.boundary) as CheckpointSummary['boundary'],
      stepIndex: Number(row.step_index),
      toolCallId: str(row.tool_call_id),
      toolName: str(row.tool_name),
      finishReason: str(row.finish_reason),
      usage: json(row.usage_json) as CheckpointSummary['usage'],
      messageCount: Number(row.message_count),
      promptVersion: str(row.prompt_version),
      createdAt: Number(row.created_at),
    });
  }

  listCheckpoints(runId: string, range: { offset?: number; limit?: number } = {}): CheckpointSummary[] {
    this.assertOpen();
    this.requireRunRow(runId);
    const offset = Math.max(0, range.offset ?? 0);
    const limit = range.limit === undefined ? -1 : Math.max(0, range.limit);
    return this.sql(
      `SELECT c.checkpoint_id, c.run_id, c.seq, c.boundary, c.step_index, c.tool_call_id, c.finish_reason, c.usage_json,
              c.message_count, c.prompt_version, c.created_at, t.tool_name
         FROM checkpoints c LEFT JOIN tool_calls t ON t.run_id = c.run_id AND t.tool_call_id = c.tool_call_id
        WHERE c.run_id = ? ORDER BY c.seq LIMIT ? OFFSET ?`,
    )
      .all(runId, limit, offset)
      .map((r) => this.toCheckpointSummary(r));
  }

  getCheckpoint(checkpointId: string): Checkpoint {
    this.assertOpen();
    const row = this.sql('SELECT * FROM checkpoints WHERE checkpoint_id = ?').get(checkpointId);
    if (!row) {
      throw new OcdbError('CheckpointNotFound', `No checkpoint ${checkpointId} in ${this.path}.`, { checkpointId });
    }
    return this.toCheckpoint(row);
  }

  getCheckpointAt(runId: string, index: number): Checkpoint {
    this.assertOpen();
    const row = this.sql('SELECT * FROM checkpoints WHERE run_id = ? AND seq = ?').get(runId, index);
    if (!row) {
      this.requireRunRow(runId);
      throw new OcdbError('CheckpointNotFound', `Run ${runId} has no checkpoint at index ${index}.`, { runId, index });
    }
    return this.toCheckpoint(row);
  }

  /** Rebuilds a whole Checkpoint from its row and blobs, validating what comes back from disk. */
  private toCheckpoint(row: SqlRow): Checkpoint {
    const where = `store checkpoint ${String(row.checkpoint_id)}`;
    const cp = compact({
      checkpointId: String(row.checkpoint_id),
      runId: String(row.run_id),
      boundary: row.boundary,
      stepIndex: Number(row.step_index),
      messages: this.content.getList(Number(row.messages_node)),
      systemPrompt: row.system_prompt_hash === null ? undefined : this.content.getValue(String(row.system_prompt_hash)),
      model: json(row.model_json),
      promptVersion: str(row.prompt_version),
      runtimeContext: this.content.getValue(String(row.context_hash)),
      toolCallId: str(row.tool_call_id),
      toolLedgerSnapshot: this.content.getList(Number(row.ledger_node)),
      artifactRefs: json(row.artifact_refs_json),
      finishReason: str(row.finish_reason),
      usage: json(row.usage_json),
      createdAt: Number(row.created_at),
    });
    return parseWith(CheckpointSchema, cp, where);
  }

  // ---- tool calls ----------------------------------------------------------------

  beginToolCall(runId: string, input: BeginToolCallInput): ToolCallRecord {
    return this.transaction(() => {
      this.requireRunning(runId);
      const exists = this.sql('SELECT 1 AS x FROM tool_calls WHERE run_id = ? AND tool_call_id = ?').get(
        runId,
        input.toolCallId,
      );
      if (exists) {
        throw new OcdbError('ToolCallAlreadyExists', `Tool call ${input.toolCallId} already exists in run ${runId}.`, {
          runId,
          toolCallId: input.toolCallId,
        });
      }
      const record: ToolCallRecord = {
        toolCallId: input.toolCallId,
        toolName: input.toolName,
        args: input.args,
        argsHash: argsHash(input.args),
        sideEffectLevel: input.sideEffectLevel,
        replayPolicy: input.replayPolicy,
        startedAt: input.startedAt,
      };
      this.insertToolCall(runId, parseWith(ToolCallRecordSchema, record, 'tool call'), 'running');
      this.touchRun(runId);
      return this.getToolCall(runId, input.toolCallId);
    });
  }

  private insertToolCall(runId: string, record: ToolCallRecord, state: string): void {
    const seq = Number(this.sql('SELECT tool_call_count AS n FROM runs WHERE run_id = ?').get(runId)?.n ?? 0);
    this.sql(
      `INSERT INTO tool_calls (run_id, tool_call_id, seq, tool_name, args_hash, args_ref, result_ref, error_json,
         side_effect_level, replay_policy, started_at, ended_at, state)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      runId,
      record.toolCallId,
      seq,
      record.toolName,
      record.argsHash,
      this.content.putValue(record.args ?? null),
      record.result === undefined ? null : this.content.putValue(record.result),
      toJson(record.error),
      record.sideEffectLevel,
      record.replayPolicy,
      record.startedAt,
      record.endedAt ?? null,
      state,
    );
    this.sql(
      'UPDATE runs SET tool_call_count = tool_call_count + 1, tool_error_count = tool_error_count + ? WHERE run_id = ?',
    ).run(record.error === undefined ? 0 : 1, runId);
  }

  finishToolCall(runId: string, toolCallId: string, input: FinishToolCallInput): ToolCallRecord {
    return this.transaction(() => {
      this.requireRunRow(runId);
      const row = this.requireToolCallRow(runId, toolCallId);
      if (row.state !== 'running') {
        throw new OcdbError(
          'ToolCallAlreadyFinished',
          `Tool call ${toolCallId} (${String(row.tool_name)}) in run ${runId} was already finished (${String(
            row.state,
          )}); finish it exactly once.`,
          { runId, toolCallId, state: row.state },
        );
      }
      const error =
        input.outcome === 'cancelled'
          ? (input.error ?? { name: 'Cancelled', message: 'tool call cancelled' })
          : input.error;
      const isError = input.outcome !== 'success';
      this.sql(
        'UPDATE tool_calls SET result_ref = ?, error_json = ?, ended_at = ?, state = ? WHERE run_id = ? AND tool_call_id = ?',
      ).run(
        !isError && input.result !== undefined ? this.content.putValue(input.result) : null,
        isError ? JSON.stringify(error ?? null) : null,
        input.endedAt,
        input.outcome,
        runId,
        toolCallId,
      );
      if (isError) this.sql('UPDATE runs SET tool_error_count = tool_error_count + 1 WHERE run_id = ?').run(runId);
      this.touchRun(runId);
      return this.getToolCall(runId, toolCallId);
    });
  }

  private requireToolCallRow(runId: string, toolCallId: string): SqlRow {
    const row = this.sql('SELECT * FROM tool_calls WHERE run_id = ? AND tool_call_id = ?').get(runId, toolCallId);
    if (!row) {
      throw new OcdbError('ToolCallNotFound', `No tool call ${toolCallId} in run ${runId}.`, { runId, toolCallId });
    }
    return row;
  }

  private toToolCall(row: SqlRow): ToolCallRecord {
    return parseWith(
      ToolCallRecordSchema,
      compact({
        toolCallId: String(row.tool_call_id),
        toolName: String(row.tool_name),
        args: this.content.getValue(String(row.args_ref)),
        argsHash: String(row.args_hash),
        result: row.result_ref === null ? undefined : this.content.getValue(String(row.result_ref)),
        error: json(row.error_json),
        sideEffectLevel: row.side_effect_level,
        replayPolicy: row.replay_policy,
        startedAt: Number(row.started_at),
        endedAt: num(row.ended_at),
      }),
      `store tool call ${String(row.tool_call_id)}`,
    );
  }

  getToolCall(runId: string, toolCallId: string): ToolCallRecord {
    this.assertOpen();
    return this.toToolCall(this.requireToolCallRow(runId, toolCallId));
  }

  listToolCalls(runId: string): ToolCallRecord[] {
    this.assertOpen();
    this.requireRunRow(runId);
    return this.sql('SELECT * FROM tool_calls WHERE run_id = ? ORDER BY seq')
      .all(runId)
      .map((r) => this.toToolCall(r));
  }

  findToolCalls(runIds: readonly string[], toolName: string, hash: string): ToolCallRecord[] {
    this.assertOpen();
    if (runIds.length === 0) return [];
    const marks = runIds.map(() => '?').join(', ');
    return this.sql(
      `SELECT * FROM tool_calls WHERE tool_name = ? AND args_hash = ? AND run_id IN (${marks}) ORDER BY started_at, seq`,
    )
      .all(toolName, hash, ...runIds)
      .map((r) => this.toToolCall(r));
  }

  // ---- export / load ------------------------------------------------------------

  exportRun(runId: string): DebugRun {
    this.assertOpen();
    const row = this.requireRunRow(runId);
    const summary = this.toSummary(row);
    const checkpoints = this.sql('SELECT * FROM checkpoints WHERE run_id = ? ORDER BY seq')
      .all(runId)
      .map((r) => this.toCheckpoint(r));
    return compact({
      runId: summary.runId,
      sessionId: summary.sessionId,
      agentId: summary.agentId,
      parentRunId: summary.parentRunId,
      forkFromCheckpointId: summary.forkFromCheckpointId,
      status: summary.status,
      mode: summary.mode,
      startedAt: summary.startedAt,
      endedAt: summary.endedAt,
      error: summary.error,
      checkpoints,
      toolLedger: this.listToolCalls(runId),
      artifactRefs: json(row.artifact_refs_json) as DebugRun['artifactRefs'],
      metadata: summary.metadata,
    });
  }

  loadRun(input: unknown, options: { where?: string; replace?: boolean } = {}): RunSummary {
    const run = parseWith(DebugRunSchema, input, options.where);
    run.checkpoints.forEach((cp, i) => {
      if (cp.runId !== run.runId) {
        throw new OcdbError(
          'InvalidInput',
          `${options.where ? `${options.where}: ` : ''}${formatPath(['checkpoints', i, 'runId'])}: checkpoint belongs to run ${cp.runId}, not ${run.runId}`,
          { path: formatPath(['checkpoints', i, 'runId']) },
        );
      }
    });
    const summary = this.transaction(() => {
      if (this.hasRun(run.runId)) {
        if (!options.replace) {
          throw new OcdbError(
            'RunAlreadyExists',
            `Run ${run.runId} is already in ${this.path}; delete it first or load with --replace.`,
            { runId: run.runId },
          );
        }
        this.sql('DELETE FROM runs WHERE run_id = ?').run(run.runId);
      }
      const lastAt = run.endedAt ?? run.checkpoints.at(-1)?.createdAt ?? run.startedAt;
      this.sql(
        `INSERT INTO runs (run_id, session_id, agent_id, parent_run_id, fork_from_checkpoint_id, status, mode,
           started_at, ended_at, error_json, metadata_json, artifact_refs_json, owner_pid, owner_host, heartbeat_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?)`,
      ).run(
        run.runId,
        run.sessionId,
        run.agentId,
        run.parentRunId ?? null,
        run.forkFromCheckpointId ?? null,
        run.status,
        run.mode,
        run.startedAt,
        run.endedAt ?? null,
        toJson(run.error),
        JSON.stringify(run.metadata),
        JSON.stringify(run.artifactRefs),
        lastAt,
      );
      for (const record of run.toolLedger) {
        const state = record.error !== undefined ? 'error' : record.endedAt === undefined ? 'running' : 'success';
        this.insertToolCall(run.runId, record, state);
      }
      for (const cp of run.checkpoints) this.insertCheckpoint(cp);
      this.touchRun(run.runId);
      return this.getRun(run.runId);
    });
    this.content.forgetMemo(`m:${run.runId}`);
    this.content.forgetMemo(`l:${run.runId}`);
    return summary;
  }

  // ---- fork requests --------------------------------------------------------------

  saveForkRequest(record: ForkRequestRecord): void {
    this.transaction(() => {
      this.sql(
        `INSERT INTO fork_requests (fork_request_id, source_run_id, source_checkpoint_id, fork_run_id, config_json,
           acknowledged_json, status, error_json, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (fork_request_id) DO UPDATE SET fork_run_id = excluded.fork_run_id, status = excluded.status,
           error_json = excluded.error_json, updated_at = excluded.updated_at`,
      ).run(
        record.forkRequestId,
        record.sourceRunId,
        record.sourceCheckpointId,
        record.forkRunId ?? null,
        JSON.stringify(record.config),
        JSON.stringify(record.acknowledgedTools),
        record.status,
        toJson(record.error),
        record.createdAt,
        record.updatedAt,
      );
      if (record.forkRunId && this.hasRun(record.forkRunId)) this.touchRun(record.forkRunId);
    });
  }

  getForkRequest(forkRequestId: string): ForkRequestRecord {
    this.assertOpen();
    const row = this.sql('SELECT * FROM fork_requests WHERE fork_request_id = ?').get(forkRequestId);
    if (!row)
      throw new OcdbError('ForkNotFound', `No fork request ${forkRequestId} in ${this.path}.`, { forkRequestId });
    const parsed = parseWith(
      ForkRequestRowSchema,
      {
        status: row.status,
        config: json(row.config_json),
        acknowledgedTools: json(row.acknowledged_json),
      },
      `store fork request ${forkRequestId}`,
    );
    return compact({
      forkRequestId,
      sourceRunId: String(row.source_run_id),
      sourceCheckpointId: String(row.source_checkpoint_id),
      forkRunId: str(row.fork_run_id),
      config: parsed.config,
      acknowledgedTools: parsed.acknowledgedTools,
      status: parsed.status,
      error: json(row.error_json),
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    });
  }

  // ---- fork confirmations (manual_confirm in agent-program mode) ----------------------

  createConfirmation(record: Omit<ConfirmationRecord, 'status' | 'answer' | 'mockResult' | 'answeredAt'>): void {
    this.assertOpen();
    this.confirmations.create(record);
  }

  answerConfirmation(id: string, answer: ConfirmationAnswer, at: number, mockResult?: unknown): ConfirmationRecord {
    this.assertOpen();
    return this.confirmations.answer(id, answer, at, mockResult);
  }

  expireConfirmation(id: string, at: number): ConfirmationRecord {
    this.assertOpen();
    return this.confirmations.expire(id, at);
  }

  getConfirmation(id: string): ConfirmationRecord {
    this.assertOpen();
    return this.confirmations.get(id);
  }

  listConfirmations(filter?: { forkRequestId?: string; status?: ConfirmationRecord['status'] }): ConfirmationRecord[] {
    this.assertOpen();
    return this.confirmations.list(filter);
  }

  // ---- change feed ---------------------------------------------------------------------

  changesSince(since: number): StoreChanges {
    this.assertOpen();
    const changeSeq = this.changeSeq();
    if (changeSeq === since) return { changeSeq, changedRuns: [], deletedRunIds: [] };
    const changedRuns = this.sql('SELECT * FROM runs WHERE change_seq > ? ORDER BY change_seq')
      .all(since)
      .map((r) => this.toSummary(r));
    const deletedRunIds = this.sql('SELECT run_id FROM deleted_runs WHERE change_seq > ?')
      .all(since)
      .map((r) => String(r.run_id));
    return { changeSeq, changedRuns, deletedRunIds };
  }

  // ---- maintenance ----------------------------------------------------------------------

  /** Folds the WAL into the main file (for size measurements and before copying the file). */
  checkpointWal(): void {
    this.assertOpen();
    this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  /** `PRAGMA integrity_check` result: 'ok' when the file is sound. */
  integrityCheck(): string {
    this.assertOpen();
    return this.db
      .prepare('PRAGMA integrity_check')
      .all()
      .map((r) => String(Object.values(r)[0]))
      .join('; ');
  }

  /** Byte counts for benchmarks: unique content in blobs, and the size of the database file. */
  contentBytes(): { blobBytes: number; blobCount: number; listNodes: number } {
    this.assertOpen();
    const b = this.db
      .prepare('SELECT COALESCE(SUM(LENGTH(CAST(data AS BLOB))), 0) AS bytes, COUNT(*) AS n FROM blobs')
      .get();
    const n = this.db.prepare('SELECT COUNT(*) AS n FROM list_nodes').get();
    return { blobBytes: Number(b?.bytes ?? 0), blobCount: Number(b?.n ?? 0), listNodes: Number(n?.n ?? 0) };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private assertOpen(): void {
    if (this.closed)
      throw new OcdbError('StoreUnavailable', `The run store ${this.path} is closed.`, { path: this.path });
  }
}

/** Validates one message (used by the HTTP ingest and importers for per-item errors). */
export const validateMessage = (m: unknown, where: string): unknown => parseWith(MessageSchema, m, where);
/** Validates a runtime context snapshot. */
export const validateContext = (c: unknown, where: string): unknown =>
  parseWith(RuntimeContextSnapshotSchema, c, where);
