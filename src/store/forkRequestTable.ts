/**
 * The `fork_requests` table: one record per fork (pending -> running -> completed / failed), validated when read
 * back. A request's owner and lease are those of its fork run (claimForkRequest sets the run's owner pid and host,
 * the runner or agent program keeps its heartbeat): a `running` request whose owner died reads as failed with the
 * error code `crashed`, the way a run whose recorder died reads as crashed, so `GET /forks/:id` always settles.
 */
import { ForkRequestRecordSchema, OcdbError, parseWith } from '../model';
import { isCrashed } from './liveness';
import { compact, json, str, toJson } from './rowCodec';
import type { ForkRequestRecord } from './runStore';
import type { SqlRow } from './sqlDriver';
import type { StoreContext } from './storeContext';

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
    return record.status === 'running' ? this.withLease(record) : record;
  }

  /** A running request whose owner (the fork run's owner pid / heartbeat) is gone: failed, code `crashed`. */
  private withLease(record: ForkRequestRecord): ForkRequestRecord {
    if (!record.forkRunId) return record;
    const run = this.ctx
      .sql('SELECT owner_pid, owner_host, heartbeat_at FROM runs WHERE run_id = ?', 'readsCounters')
      .get(record.forkRunId);
    if (!run) return record;
    const pid = run.owner_pid === null ? null : Number(run.owner_pid);
    const heartbeat = run.heartbeat_at === null ? null : Number(run.heartbeat_at);
    // the owner's liveness, whatever the run's own status (it may have ended just before the owner died)
    if (!isCrashed('running', pid, run.owner_host === null ? null : String(run.owner_host), heartbeat)) return record;
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
