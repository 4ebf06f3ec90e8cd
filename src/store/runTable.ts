/**
 * The `runs` table: a run's row (created, read, listed, finished, continued, owned, deleted) and what a write reads
 * of it (RunNotFound, RunNotRunning, its counts), with crash state judged on the store server's clock when it has
 * one. Deleting a run collects the list nodes and blobs nothing refers to any more.
 */
import { ArtifactRefSchema, OcdbError, parseWith, RuntimeContextSnapshotSchema } from '../model';
import { z } from 'zod';
import type { CheckpointTable } from './checkpointTable';
import type { ContentStore } from './contentStore';
import type { EngineTraits } from './engineTraits';
import type { LiveTable } from './liveTable';
import { CLOCK_SKEW_MS, isCrashed, THIS_HOST } from './liveness';
import { rowToRunSummary as decodeRunRow, str, toJson } from './rowCodec';
import type { CreateRunInput, FinishRunInput, ListRunsOptions, ReopenRunInput, RunSummary } from './runStore';
import type { SqlDriver, SqlRow } from './sqlDriver';
import type { RunsUse } from './storeContext';
import type { StoreTransactions } from './storeTransactions';

export class RunTable {
  constructor(
    private readonly path: string,
    private readonly db: SqlDriver,
    private readonly tx: StoreTransactions,
    private readonly content: ContentStore,
    private readonly checkpoints: CheckpointTable,
    private readonly live: LiveTable,
    private readonly traits: EngineTraits,
  ) {}

  private sql(text: string, runs: RunsUse = 'none') {
    return this.tx.sql(text, runs);
  }

  /**
   * The time a heartbeat is written with: `given` (this host's clock, or the caller's), unless the store's server
   * says this host's clock is off by more than CLOCK_SKEW_MS — then the server's time, so hosts compare one clock.
   */
  heartbeatTime(given: number = Date.now()): number {
    return this.clockSkewed() ? Date.now() + (this.db.clockOffsetMs?.() ?? 0) : given;
  }

  /** This host's clock is off the store server's by more than CLOCK_SKEW_MS. */
  clockSkewed(): boolean {
    return Math.abs(this.db.clockOffsetMs?.() ?? 0) > CLOCK_SKEW_MS;
  }

  /** A runs row as a RunSummary, crash state judged on the server's clock when the store has one. */
  toSummary(row: SqlRow): RunSummary {
    const summary = decodeRunRow(row);
    const offset = this.db.clockOffsetMs?.();
    if (offset !== undefined && summary.status === 'running') {
      summary.crashed = isCrashed(
        summary.status,
        summary.ownerPid ?? null,
        str(row.owner_host) ?? null,
        summary.heartbeatAt ?? null,
        Date.now() + offset,
      );
    }
    return summary;
  }

  create(input: CreateRunInput): RunSummary {
    const metadata = input.metadata ?? {};
    const artifactRefs = parseWith(z.array(ArtifactRefSchema), input.artifactRefs ?? [], 'artifactRefs');
    return this.tx.writeRun(input.runId, () => {
      if (this.has(input.runId)) {
        throw new OcdbError('RunAlreadyExists', `Run ${input.runId} already exists in ${this.path}.`, {
          runId: input.runId,
        });
      }
      this.sql(
        `INSERT INTO runs (run_id, session_id, agent_id, parent_run_id, fork_from_checkpoint_id, status, mode,
           started_at, metadata_json, artifact_refs_json, owner_pid, owner_host, heartbeat_at)
         VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)`,
        'writes',
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
        this.heartbeatTime(),
      );
      this.tx.touchRun(input.runId);
      return this.get(input.runId);
    });
  }

  /** The run's row, or RunNotFound. */
  requireRow(runId: string): SqlRow {
    return this.rowOrThrow(runId, this.sql('SELECT * FROM runs WHERE run_id = ?', 'readsCounters').get(runId));
  }

  private rowOrThrow(runId: string, row: SqlRow | undefined): SqlRow {
    if (!row) {
      throw new OcdbError('RunNotFound', `No run ${runId} in ${this.path}. \`ocdb runs\` lists the runs there.`, {
        runId,
      });
    }
    return row;
  }

  /**
   * The columns of the run's row a write on a running run reads (its status, the next checkpoint and tool call
   * seq, its artifacts): not `SELECT *`, which was a tenth of an import's writes.
   */
  requireRunning(runId: string): SqlRow {
    const row = this.sql(
      'SELECT run_id, status, checkpoint_count, tool_call_count, artifact_refs_json FROM runs WHERE run_id = ?',
      'readsCounters',
    ).get(runId);
    if (!row) return this.requireRow(runId);
    return this.runningOrThrow(runId, row);
  }

  private runningOrThrow(runId: string, row: SqlRow): SqlRow {
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

  /**
   * What a write of a checkpoint or a tool call reads of its run: its status and counters, not the whole row (the
   * hot path of recording reads it once or twice per write). RunNotFound, or RunNotRunning when `running`.
   */
  requireCounts(runId: string, running: boolean): SqlRow {
    let row = this.tx.runCounts(runId);
    if (!row) {
      row = this.rowOrThrow(
        runId,
        this.sql(
          'SELECT run_key, status, checkpoint_count, tool_call_count FROM runs WHERE run_id = ?',
          'readsCounters',
        ).get(runId),
      );
      this.tx.keepRunCounts(runId, row);
    }
    return running ? this.runningOrThrow(runId, row) : row;
  }

  has(runId: string): boolean {
    return this.sql('SELECT 1 AS x FROM runs WHERE run_id = ?').get(runId) !== undefined;
  }

  get(runId: string): RunSummary {
    return this.toSummary(this.requireRow(runId));
  }

  /** The parent of run `id`: null for a top-level run, undefined when there is no such run. */
  parentOf(id: string): string | null | undefined {
    const row = this.sql('SELECT parent_run_id FROM runs WHERE run_id = ?').get(id);
    return row ? (row.parent_run_id as string | null) : undefined;
  }

  list(options: ListRunsOptions = {}): { runs: RunSummary[]; total: number } {
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
    // The tree page (top-level runs, newest first) walks the partial index of root runs backwards: no sort of
    // every root run (the planner would otherwise pick runs_by_parent and sort in a temporary B-tree).
    const from = options.parentRunId === null ? 'runs INDEXED BY runs_roots_by_start' : 'runs';
    // The count of top-level runs alone is kept in meta by triggers on SQLite (schema 4): the tree page does not
    // count them there. PostgreSQL counts them (EngineTraits.rootRunsKept: no row every writer holds).
    const total =
      where.length === 1 && options.parentRunId === null && this.traits.rootRunsKept
        ? Number(this.sql("SELECT value AS n FROM meta WHERE key = 'root_runs'").get()?.n ?? 0)
        : Number(this.sql(`SELECT COUNT(*) AS n FROM ${from} ${clause}`, 'readsCounters').get(...params)?.n ?? 0);
    const limit = Math.max(0, Math.min(options.limit ?? 200, 10_000));
    const offset = Math.max(0, options.offset ?? 0);
    const rows = this.sql(
      `SELECT * FROM ${from} ${clause} ORDER BY started_at DESC, rowid DESC LIMIT ? OFFSET ?`,
      'readsCounters',
    ).all(...params, limit, offset);
    return { runs: rows.map((r) => this.toSummary(r)), total };
  }

  finish(runId: string, input: FinishRunInput): RunSummary {
    return this.tx.writeRun(runId, () => {
      this.requireRunning(runId);
      this.sql(
        'UPDATE runs SET status = ?, ended_at = ?, error_json = ?, heartbeat_at = ? WHERE run_id = ?',
        'writes',
      ).run(input.status, input.endedAt, toJson(input.error), this.heartbeatTime(), runId);
      if (input.metadata !== undefined) {
        this.sql('UPDATE runs SET metadata_json = ? WHERE run_id = ?', 'writes').run(
          JSON.stringify(input.metadata),
          runId,
        );
      }
      this.tx.touchRun(runId);
      return this.get(runId);
    });
  }

  reopen(runId: string, input: ReopenRunInput): RunSummary {
    const keep = input.keepCheckpoints;
    const summary = this.tx.writeRun(runId, () => {
      const row = this.requireRow(runId);
      const where = `Run ${runId} cannot be continued`;
      if (row.status === 'running') throw new OcdbError('InvalidInput', `${where}: it has not ended.`, { runId });
      if (!Number.isInteger(keep) || keep < 0 || keep > Number(row.checkpoint_count)) {
        throw new OcdbError(
          'InvalidInput',
          `${where} after checkpoint ${keep}: it has ${String(row.checkpoint_count)}.`,
          {
            runId,
            path: 'keepCheckpoints',
          },
        );
      }
      const cut = this.checkpoints
        .from(runId, keep)
        .map((c) => ({ checkpoint_id: c.checkpointId, boundary: c.boundary, tool_call_id: c.toolCallId }));
      const ids = cut.map((c) => c.checkpoint_id);
      const marks = ids.map(() => '?').join(', ');
      const forks =
        ids.length === 0
          ? []
          : this.sql(
              `SELECT run_id AS id FROM runs WHERE fork_from_checkpoint_id IN (${marks})
         UNION SELECT fork_request_id AS id FROM fork_requests WHERE source_checkpoint_id IN (${marks})`,
            ).all(...ids, ...ids);
      const rewritten = new Set(input.rewrittenForks ?? []);
      const blocking = forks.filter((f) => !rewritten.has(String(f.id)));
      if (blocking.length > 0) {
        throw new OcdbError(
          'InvalidInput',
          `${where}: ${blocking.map((f) => String(f.id)).join(', ')} fork(s) from its end (${ids.join(', ')}), which continuing would replace.`,
          { runId, forks: blocking.map((f) => String(f.id)) },
        );
      }
      // Tool calls begun in the part removed go with it; those only closed there are open again.
      const begun = new Set(
        cut.filter((c) => c.boundary === 'before_tool_call' && c.tool_call_id).map((c) => String(c.tool_call_id)),
      );
      for (const c of cut) {
        const toolCallId = c.tool_call_id;
        if (toolCallId === null || toolCallId === undefined) continue;
        if (c.boundary !== 'before_tool_call' && c.boundary !== 'after_tool_call') continue;
        if (c.boundary === 'after_tool_call' && begun.has(String(toolCallId))) continue;
        const call = this.sql('SELECT state FROM tool_calls WHERE run_id = ? AND tool_call_id = ?').get(
          runId,
          toolCallId,
        );
        if (!call) continue;
        const failed = call.state === 'error' ? 1 : 0;
        if (c.boundary === 'before_tool_call') {
          this.sql('DELETE FROM tool_calls WHERE run_id = ? AND tool_call_id = ?').run(runId, toolCallId);
          this.sql(
            'UPDATE runs SET tool_call_count = tool_call_count - 1, tool_error_count = tool_error_count - ? WHERE run_id = ?',
            'writes',
          ).run(failed, runId);
        } else if (call.state !== 'running') {
          this.sql(
            "UPDATE tool_calls SET result_ref = NULL, error_json = NULL, ended_at = NULL, held_ms = NULL, state = 'running' WHERE run_id = ? AND tool_call_id = ?",
          ).run(runId, toolCallId);
          this.sql('UPDATE runs SET tool_error_count = tool_error_count - ? WHERE run_id = ?', 'writes').run(
            failed,
            runId,
          );
        }
      }
      this.sql(`DELETE FROM checkpoints WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND seq >= ?`).run(
        runId,
        keep,
      );
      this.live.removeEditsAt(runId, ids);
      // its rebuilt files (rebuiltFileTable.ts) at the checkpoints removed go; no later checkpoint is final now
      this.sql(
        `DELETE FROM file_versions WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?)
           AND kind IN (1, 2) AND checkpoint_index >= ?`,
      ).run(runId, keep);
      this.sql(
        `UPDATE file_versions SET checkpoint_index = ? WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?)
           AND kind = 3 AND checkpoint_index > ?`,
      ).run(keep, runId, keep);
      const segments = input.runtimeContexts ?? [];
      segments.forEach((segment, i) => {
        const context = parseWith(RuntimeContextSnapshotSchema, segment.runtimeContext, 'runtimeContext');
        const to = Math.min(segments[i + 1]?.fromCheckpoint ?? keep, keep);
        this.checkpoints.setContext(runId, segment.fromCheckpoint, to, this.content.putValue(context));
      });
      // The run's counters over what is kept (usage counted as appendCheckpoint counts it: when not captured).
      const tokens = { inputTokens: 0, outputTokens: 0 };
      for (const u of this.checkpoints.usages(runId)) {
        const usage = u as { inputTokens?: number; outputTokens?: number; captured?: boolean } | null;
        if (!usage || usage.captured) continue;
        tokens.inputTokens += Number(usage.inputTokens ?? 0);
        tokens.outputTokens += Number(usage.outputTokens ?? 0);
      }
      this.sql(
        `UPDATE runs SET status = 'running', ended_at = NULL, error_json = NULL, metadata_json = ?, owner_pid = ?,
           owner_host = ?, heartbeat_at = ?, checkpoint_count = ?, rewrites = rewrites + 1,
           max_step = (SELECT COALESCE(MAX(step_index), -1) FROM checkpoints WHERE run_key = runs.run_key),
           last_checkpoint_at = (SELECT MAX(created_at) FROM checkpoints WHERE run_key = runs.run_key),
           input_tokens = ?, output_tokens = ?
         WHERE run_id = ?`,
        'writes',
      ).run(
        JSON.stringify(input.metadata),
        process.pid,
        THIS_HOST,
        this.heartbeatTime(),
        keep,
        tokens.inputTokens,
        tokens.outputTokens,
        runId,
      );
      this.tx.touchRun(runId);
      return this.get(runId);
    });
    this.content.forgetMemos();
    return summary;
  }

  heartbeat(runId: string, at: number): void {
    this.tx.writeRun(runId, () => {
      this.sql("UPDATE runs SET heartbeat_at = ? WHERE run_id = ? AND status = 'running'", 'writes').run(
        this.heartbeatTime(at),
        runId,
      );
    });
  }

  /** The heartbeat a checkpoint wrote (this host's clock) replaced by the server's time when this host's is off. */
  heartbeatOnServerClock(runId: string): void {
    if (this.clockSkewed()) {
      this.sql('UPDATE runs SET heartbeat_at = ? WHERE run_id = ?', 'writes').run(this.heartbeatTime(), runId);
    }
  }

  setOwner(runId: string, owner: { pid: number; at: number } | null): void {
    this.tx.writeRun(runId, () => {
      this.requireRunning(runId);
      this.sql('UPDATE runs SET owner_pid = ?, owner_host = ?, heartbeat_at = ? WHERE run_id = ?', 'writes').run(
        owner?.pid ?? null,
        owner ? THIS_HOST : null,
        // no owner: judged on the heartbeat alone, from now on (a fork nobody claims, a run recorded over HTTP)
        this.heartbeatTime(owner?.at),
        runId,
      );
      this.tx.touchRun(runId);
    });
  }

  /** Deletes the row of `runId` (its checkpoints, calls and edits go with it by cascade); inside a write. */
  deleteRow(runId: string): void {
    this.sql('DELETE FROM runs WHERE run_id = ?', 'writes').run(runId);
  }

  delete(runId: string): void {
    // exclusive: the collection below sees every reference a writer was about to commit (none is in flight)
    this.tx.write(() => {
      this.tx.lockRun(runId);
      this.requireRow(runId);
      this.deleteRow(runId);
      this.tx.deleted(runId);
      this.collectGarbage();
    }, true);
    this.content.forgetMemos();
  }

  /**
   * Removes list nodes and blobs no run refers to any more (inside the caller's transaction, which holds the
   * store exclusively: on PostgreSQL a writer in flight may hold a blob or a list node it found and is about to
   * reference — its shared write lock keeps this collection waiting until it has committed or rolled back).
   */
  private collectGarbage(): void {
    this.sql('DELETE FROM checkpoint_heads WHERE head_id NOT IN (SELECT head_id FROM checkpoints)').run();
    this.sql(
      `WITH RECURSIVE live(id) AS (
         SELECT messages_node FROM checkpoints UNION SELECT ledger_node FROM checkpoints
         UNION SELECT n.parent FROM list_nodes n JOIN live ON n.id = live.id)
       DELETE FROM list_nodes WHERE id NOT IN (SELECT id FROM live)`,
    ).run();
    // Blobs reachable from a live row, and the member blobs those refer to (blobs.refs), transitively.
    this.sql(
      `WITH RECURSIVE live(hash) AS (
         SELECT item FROM list_nodes
         UNION SELECT context_hash FROM checkpoint_heads
         UNION SELECT system_prompt_hash FROM checkpoint_heads WHERE system_prompt_hash IS NOT NULL
         UNION SELECT args_ref FROM tool_calls
         UNION SELECT result_ref FROM tool_calls WHERE result_ref IS NOT NULL
         UNION SELECT content_hash FROM file_versions WHERE content_hash IS NOT NULL
         UNION SELECT original_hash FROM file_versions WHERE original_hash IS NOT NULL
         UNION SELECT unhex(json_extract(a.value, '$.contentHash')) FROM runs r, json_each(r.artifact_refs_json) a
         UNION SELECT unhex(json_extract(a.value, '$.contentHash')) FROM checkpoint_heads c, json_each(c.artifact_refs_json) a
          WHERE c.artifact_refs_json IS NOT NULL
         UNION SELECT unhex(json_extract(r.value, '$[1]')) FROM blobs b JOIN live ON b.hash = live.hash, json_each(b.refs) r
          WHERE b.refs IS NOT NULL)
       DELETE FROM blobs WHERE hash NOT IN (SELECT hash FROM live)`,
    ).run();
  }
}
