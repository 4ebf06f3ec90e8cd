/**
 * The `fork_requests` table: one record per fork (pending -> running -> completed / failed), validated when read
 * back. A request's owner and lease are those of its fork run (claimForkRequest sets the run's owner pid and host,
 * the runner or agent program keeps its heartbeat): a `running` request whose owner died reads as failed with the
 * error code `crashed`, the way a run whose recorder died reads as crashed. A request nobody claimed (`pending`, or
 * `waiting_for_agent` for an agent program that never started recording) has no owner: its fork run's heartbeat is
 * its creation, so after HEARTBEAT_STALE_MS (on the store's clock) it reads failed with the code `unclaimed`, and the
 * run reads crashed. So `GET /forks/:id` always settles, within a minute when nothing runs the fork.
 */
import { ForkRequestRecordSchema, OcdbError, parseWith } from '../model';
import { HEARTBEAT_STALE_MS, isCrashed } from './liveness';
import { compact, json, str, toJson } from './rowCodec';
import type { ForkRequestRecord } from './runStore';
import type { SqlRow } from './sqlDriver';
import type { StoreContext } from './storeContext';

/** The statuses whose truth depends on a process: its owner's (running) or one that should claim it. */
const OWNED_OR_WAITING: ReadonlySet<ForkRequestRecord['status']> = new Set(['pending', 'waiting_for_agent', 'running']);

export class ForkRequestTable {
  constructor(private readonly ctx: StoreContext) {}

  save(record: ForkRequestRecord): void {
    this.ctx.transaction(() => {
      this.ctx
        .sql(
          `INSERT INTO fork_requests (fork_request_id, source_run_id, source_checkpoint_id, fork_run_id, config_json,
           acknowledged_json, status, error_json, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (fork_request_id) DO UPDATE SET fork_run_id = excluded.fork_run_id, status = excluded.status,
           error_json = excluded.error_json, updated_at = excluded.updated_at`,
        )
        .run(
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
      if (record.forkRunId && this.ctx.hasRun(record.forkRunId)) this.ctx.touchRun(record.forkRunId);
    });
  }

  get(forkRequestId: string): ForkRequestRecord {
    const row = this.ctx.sql('SELECT * FROM fork_requests WHERE fork_request_id = ?').get(forkRequestId);
    if (!row)
      throw new OcdbError('ForkNotFound', `No fork request ${forkRequestId} in ${this.ctx.path}.`, { forkRequestId });
    const record = this.decode(forkRequestId, row);
    return OWNED_OR_WAITING.has(record.status) ? this.withLease(record) : record;
  }

  /**
   * A running request whose owner (the fork run's owner pid / heartbeat) is gone: failed, code `crashed`; one
   * nothing claimed within HEARTBEAT_STALE_MS of its creation: failed, code `unclaimed`.
   */
  private withLease(record: ForkRequestRecord): ForkRequestRecord {
    if (!record.forkRunId) return record;
    const run = this.ctx
      .sql('SELECT status, owner_pid, owner_host, heartbeat_at FROM runs WHERE run_id = ?', 'readsCounters')
      .get(record.forkRunId);
    if (!run) return record;
    const pid = run.owner_pid === null ? null : Number(run.owner_pid);
    const heartbeat = run.heartbeat_at === null ? null : Number(run.heartbeat_at);
    const host = run.owner_host === null ? null : String(run.owner_host);
    if (record.status !== 'running') {
      // nobody claimed it: a run that ended anyway (loaded, or ended by hand) settles nothing here
      if (
        run.status !== 'running' ||
        heartbeat === null ||
        !isCrashed('running', null, null, heartbeat, this.ctx.now())
      )
        return record;
      const waited = Math.round(HEARTBEAT_STALE_MS / 1000);
      return {
        ...record,
        status: 'failed',
        error: {
          code: 'unclaimed',
          message:
            record.status === 'waiting_for_agent'
              ? `The agent program never claimed fork ${record.forkRunId} (${waited} s since it was handed over): it exited or could not open the store before it started recording. Check its output, then create the fork again.`
              : `Nothing ran fork ${record.forkRunId} within ${waited} s of its creation (a fork made by a debugger's fork request is run by the editor that asked; other editors leave it). Create it again with ocdb fork, the HTTP API or Context & Fork.`,
          lastHeartbeatAt: heartbeat,
        },
      };
    }
    // the owner's liveness, whatever the run's own status (it may have ended just before the owner died)
    if (!isCrashed('running', pid, host, heartbeat, this.ctx.now())) return record;
    return {
      ...record,
      status: 'failed',
      error: {
        code: 'crashed',
        message: `The process running fork ${record.forkRunId}${pid !== null ? ` (pid ${pid})` : ''} died before the fork finished; create the fork again to rerun it.`,
        ...(pid !== null ? { ownerPid: pid } : {}),
        ...(heartbeat !== null ? { lastHeartbeatAt: heartbeat } : {}),
      },
    };
  }

  private decode(forkRequestId: string, row: SqlRow): ForkRequestRecord {
    return parseWith(
      ForkRequestRecordSchema,
      compact({
        forkRequestId,
        sourceRunId: String(row.source_run_id),
        sourceCheckpointId: String(row.source_checkpoint_id),
        forkRunId: str(row.fork_run_id),
        config: json(row.config_json),
        acknowledgedTools: json(row.acknowledged_json),
        status: row.status,
        error: json(row.error_json),
        createdAt: Number(row.created_at),
        updatedAt: Number(row.updated_at),
      }),
      `store fork request ${forkRequestId}`,
    );
  }
}
