/**
 * Live debugging's tables (the protocol: src/debug/README.md, "Live debugging"): `live_attachments` (a debugger attached to
 * a run or an agent id, with a lease it renews), `live_stops` (the stop an agent asks at a boundary and the
 * debugger's answer) and `live_edits` (the edits an agent applied: the run's record of them, DebugRun.liveEdits).
 * The debugger and the agent talk only through these rows, so any process, language or store works. A stop whose
 * attachment is detached reads resumed (detach resumes them); one whose lease ran out reads expired. A lease is
 * given and judged on the store's clock (StoreContext.now), never on the debugger's or the agent's: a debugger whose
 * clock is ahead cannot hold an agent after it died, nor one behind lose every stop. Plain,
 * portable SQL (DML only; the DDL is a migration); rows are validated when read back.
 */
import {
  LiveAskInputSchema,
  LiveAttachInputSchema,
  LiveAttachmentSchema,
  LiveEditRecordSchema,
  LiveEditsSchema,
  LiveStopAnswerSchema,
  LiveStopSchema,
  MAX_LIVE_LEASE_MS,
  OcdbError,
  assertJsonInput,
  parseWith,
  type LiveAttachment,
  type LiveEditRecord,
  type LiveStop,
  type LiveStopAnswer,
  type LiveStopState,
} from '../model';
import { compact, json, num, str } from './rowCodec';
import type { AskLiveStopInput, AttachLiveInput } from './runStore';
import type { SqlRow } from './sqlDriver';
import type { StoreContext } from './storeContext';

const OPEN_STATES: readonly LiveStopState[] = ['asking', 'stopped'];

export class LiveTable {
  constructor(private readonly ctx: StoreContext) {}

  attach(given: AttachLiveInput): LiveAttachment {
    const input = parseWith(LiveAttachInputSchema, given, 'attachLive');
    if (input.runId === undefined && input.agentId === undefined) {
      throw new OcdbError('InvalidInput', 'attachLive: give runId (a running run) or agentId (its next runs).', {
        path: 'runId',
      });
    }
    return this.ctx.transaction(() => {
      if (input.runId !== undefined) this.ctx.requireRunning(input.runId);
      if (this.ctx.sql('SELECT 1 AS x FROM live_attachments WHERE attach_id = ?').get(input.attachId)) {
        throw new OcdbError('InvalidInput', `attachLive: attachment ${input.attachId} already exists.`, {
          path: 'attachId',
        });
      }
      this.ctx
        .sql(
          `INSERT INTO live_attachments (attach_id, run_id, agent_id, client, created_at, lease_until, state)
           VALUES (?, ?, ?, ?, ?, ?, 'active')`,
        )
        .run(
          input.attachId,
          input.runId ?? null,
          input.agentId ?? null,
          input.client,
          this.ctx.now(),
          this.ctx.now() + input.leaseMs,
        );
      return this.attachment(input.attachId);
    });
  }

  /**
   * Renews the lease `leaseMs` from now on the store's clock (`_at`, the debugger's clock, is not trusted). True
   * when it had lapsed first: its agents' open stops read expired meanwhile and they may have gone on.
   */
  renew(attachId: string, _at: number, leaseMs: number): boolean {
    this.checkLease(leaseMs);
    return this.ctx.transaction(() => {
      const current = this.attachment(attachId);
      if (current.state !== 'active') {
        throw new OcdbError('InvalidInput', `Attachment ${attachId} is detached; attach again.`, { attachId });
      }
      this.ctx
        .sql('UPDATE live_attachments SET lease_until = ? WHERE attach_id = ?')
        .run(Math.max(current.leaseUntil, this.ctx.now() + leaseMs), attachId);
      return current.leaseUntil <= this.ctx.now();
    });
  }

  detach(attachId: string, at: number): void {
    this.ctx.transaction(() => {
      this.attachment(attachId);
      this.ctx.sql("UPDATE live_attachments SET state = 'detached' WHERE attach_id = ?").run(attachId);
      const open = this.ctx
        .sql("SELECT stop_id, run_id FROM live_stops WHERE attach_id = ? AND state IN ('asking', 'stopped')")
        .all(attachId);
      this.ctx
        .sql(
          "UPDATE live_stops SET state = 'resumed', answered_at = ? WHERE attach_id = ? AND state IN ('asking', 'stopped')",
        )
        .run(at, attachId);
      for (const runId of new Set(open.map((r) => String(r.run_id)))) this.touch(runId);
    });
  }

  /** The cheap check at each boundary: one indexed SELECT on a table of a few rows (the lease on the store's clock). */
  attachmentFor(runId: string, agentId: string, _at: number): LiveAttachment | undefined {
    const row = this.ctx
      .sql(
        `SELECT * FROM live_attachments WHERE state = 'active' AND lease_until > ? AND (run_id = ? OR agent_id = ?)
         ORDER BY created_at DESC, attach_id DESC LIMIT 1`,
      )
      .get(this.ctx.now(), runId, agentId);
    return row ? this.toAttachment(row) : undefined;
  }

  getAttachment(attachId: string): LiveAttachment {
    return this.attachment(attachId);
  }

  ask(given: AskLiveStopInput): void {
    const input = parseWith(LiveAskInputSchema, given, 'askLiveStop');
    this.ctx.transaction(() => {
      this.ctx.requireRunRow(input.runId);
      this.attachment(input.attachId);
      this.ctx
        .sql(
          `INSERT INTO live_stops (stop_id, attach_id, run_id, agent_id, checkpoint_id, boundary, tool_call_id, asked_at,
             state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'asking')`,
        )
        .run(
          input.stopId,
          input.attachId,
          input.runId,
          input.agentId,
          input.checkpointId,
          input.boundary,
          input.toolCallId ?? null,
          input.askedAt,
        );
      this.touch(input.runId);
    });
  }

  list(attachId: string, states: readonly LiveStopState[] | undefined, _at: number): LiveStop[] {
    const lease = this.leaseOf(attachId);
    // The debugger polls for `asking` every few ms over a session of many stops: only the rows that can read as
    // one of `states` are read (an open stop reads expired once the lease ran out).
    const stored = states
      ? [...new Set(states.flatMap((s) => (s === 'expired' ? ['expired', ...OPEN_STATES] : [s])))]
      : undefined;
    const rows = stored
      ? this.ctx
          .sql(
            `SELECT * FROM live_stops WHERE attach_id = ? AND state IN (${stored.map(() => '?').join(', ')})
             ORDER BY asked_at, stop_id`,
          )
          .all(attachId, ...stored)
      : this.ctx.sql('SELECT * FROM live_stops WHERE attach_id = ? ORDER BY asked_at, stop_id').all(attachId);
    const stops = rows.map((r) => this.toStop(r, lease));
    return states ? stops.filter((s) => states.includes(s.state)) : stops;
  }

  answer(stopId: string, answer: LiveStopAnswer, at: number): LiveStop {
    // the edits come from a debugger (a user's setVariable): nesting and __proto__ keys checked like any JSON input
    assertJsonInput(answer, 'answer');
    const data = parseWith(LiveStopAnswerSchema, answer, 'answer');
    return this.ctx.transaction(() => {
      const current = this.get(stopId, at);
      if (!OPEN_STATES.includes(current.state)) {
        throw new OcdbError(
          'InvalidInput',
          `Stop ${stopId} (${current.boundary} of run ${current.runId}) is already ${current.state}; the agent has gone on.`,
          { stopId, state: current.state, path: 'state' },
        );
      }
      if (data.state === 'stopped') {
        this.ctx
          .sql("UPDATE live_stops SET state = 'stopped', reason = ?, answered_at = ? WHERE stop_id = ?")
          .run(data.reason, at, stopId);
      } else {
        this.ctx
          .sql("UPDATE live_stops SET state = 'resumed', edits_json = ?, answered_at = ? WHERE stop_id = ?")
          .run(data.edits === undefined ? null : JSON.stringify(data.edits), at, stopId);
      }
      this.touch(current.runId);
      return this.get(stopId, at);
    });
  }

  /** Marks an open stop expired (its agent went on without an answer); a stop already answered stays as it is. */
  expire(stopId: string, at: number): LiveStop {
    return this.ctx.transaction(() => {
      const changed = this.ctx
        .sql(
          "UPDATE live_stops SET state = 'expired', answered_at = ? WHERE stop_id = ? AND state IN ('asking', 'stopped')",
        )
        .run(at, stopId);
      const stop = this.get(stopId, at);
      if (changed.changes > 0) this.touch(stop.runId);
      return stop;
    });
  }

  get(stopId: string, _at: number): LiveStop {
    const row = this.ctx.sql('SELECT * FROM live_stops WHERE stop_id = ?').get(stopId);
    if (!row) {
      throw new OcdbError('LiveStopNotFound', `No live stop ${stopId} in ${this.ctx.path}.`, { stopId });
    }
    return this.toStop(row, this.leaseOf(String(row.attach_id)));
  }

  // ---- the run's record of applied edits --------------------------------------------

  /** Records an applied edit at the end of the run's list (inside the caller's transaction, or its own). */
  recordEdit(runId: string, record: LiveEditRecord): void {
    const edit = parseWith(LiveEditRecordSchema, record, 'live edit');
    this.ctx.transaction(() => {
      this.ctx.requireRunRow(runId);
      this.insertEdit(runId, edit);
      this.ctx.touchRun(runId);
    });
  }

  insertEdit(runId: string, edit: LiveEditRecord): void {
    const next = this.ctx.sql('SELECT COALESCE(MAX(seq), -1) + 1 AS n FROM live_edits WHERE run_id = ?').get(runId);
    this.ctx
      .sql(
        `INSERT INTO live_edits (run_id, seq, stop_id, checkpoint_id, boundary, tool_call_id, edits_json, applied_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        runId,
        Number(next?.n ?? 0),
        edit.stopId,
        edit.checkpointId,
        edit.boundary,
        edit.toolCallId ?? null,
        JSON.stringify(edit.edits),
        edit.appliedAt,
      );
  }

  /** A run's edits in order, from the `from`-th on (a range of the primary key). */
  edits(runId: string, from = 0): LiveEditRecord[] {
    return this.ctx
      .sql('SELECT * FROM live_edits WHERE run_id = ? AND seq >= ? ORDER BY seq')
      .all(runId, from)
      .map((row) =>
        parseWith(
          LiveEditRecordSchema,
          compact({
            stopId: String(row.stop_id),
            checkpointId: String(row.checkpoint_id),
            boundary: row.boundary,
            toolCallId: str(row.tool_call_id),
            edits: json(row.edits_json),
            appliedAt: Number(row.applied_at),
          }),
          `store live edit ${String(row.run_id)}#${String(row.seq)}`,
        ),
      );
  }

  /** Removes the edit records of checkpoints a reopened run cut (inside the caller's transaction). */
  removeEditsAt(runId: string, checkpointIds: readonly string[]): void {
    if (checkpointIds.length === 0) return;
    const marks = checkpointIds.map(() => '?').join(', ');
    this.ctx
      .sql(`DELETE FROM live_edits WHERE run_id = ? AND checkpoint_id IN (${marks})`)
      .run(runId, ...checkpointIds);
  }

  // ---- rows -------------------------------------------------------------------------------

  private checkLease(leaseMs: number): void {
    if (!Number.isFinite(leaseMs) || leaseMs <= 0 || leaseMs > MAX_LIVE_LEASE_MS) {
      throw new OcdbError(
        'InvalidInput',
        `leaseMs: ${leaseMs} is not a lease (1 to ${MAX_LIVE_LEASE_MS} milliseconds).`,
        {
          path: 'leaseMs',
        },
      );
    }
  }

  /** A stop's run changed (asked, answered, expired): the change feed bumps so a watcher notices. */
  private touch(runId: string): void {
    if (this.ctx.hasRun(runId)) this.ctx.touchRun(runId);
  }

  private attachment(attachId: string): LiveAttachment {
    const row = this.ctx.sql('SELECT * FROM live_attachments WHERE attach_id = ?').get(attachId);
    if (!row) {
      throw new OcdbError('LiveStopNotFound', `No live attachment ${attachId} in ${this.ctx.path}.`, { attachId });
    }
    return this.toAttachment(row);
  }

  private leaseOf(attachId: string): { active: boolean; leaseUntil: number } {
    const row = this.ctx.sql('SELECT state, lease_until FROM live_attachments WHERE attach_id = ?').get(attachId);
    return row
      ? { active: row.state === 'active', leaseUntil: Number(row.lease_until) }
      : { active: false, leaseUntil: 0 };
  }

  private toAttachment(row: SqlRow): LiveAttachment {
    const id = String(row.attach_id);
    return parseWith(
      LiveAttachmentSchema,
      compact({
        attachId: id,
        runId: str(row.run_id),
        agentId: str(row.agent_id),
        client: String(row.client),
        createdAt: Number(row.created_at),
        leaseUntil: Number(row.lease_until),
        state: row.state,
      }),
      `store live attachment ${id}`,
    );
  }

  /** A stop as its agent must read it: open under a lease that ran out (or a vanished attachment) reads expired. */
  private toStop(row: SqlRow, lease: { active: boolean; leaseUntil: number }): LiveStop {
    const id = String(row.stop_id);
    const stored = String(row.state) as LiveStopState;
    const open = OPEN_STATES.includes(stored);
    const state = open && (!lease.active || lease.leaseUntil <= this.ctx.now()) ? 'expired' : stored;
    return parseWith(
      LiveStopSchema,
      compact({
        stopId: id,
        attachId: String(row.attach_id),
        runId: String(row.run_id),
        agentId: String(row.agent_id),
        checkpointId: String(row.checkpoint_id),
        boundary: row.boundary,
        toolCallId: str(row.tool_call_id),
        askedAt: Number(row.asked_at),
        state,
        reason: str(row.reason),
        edits: row.edits_json === null ? undefined : parseWith(LiveEditsSchema, json(row.edits_json), `stop ${id}`),
        answeredAt: num(row.answered_at),
      }),
      `store live stop ${id}`,
    );
  }
}
