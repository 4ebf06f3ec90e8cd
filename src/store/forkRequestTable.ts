/** The `fork_requests` table: one record per fork (pending -> running -> completed / failed), validated when read back. */
import { ForkRequestRecordSchema, OcdbError, parseWith } from '../model';
import { compact, json, str, toJson } from './rowCodec';
import type { ForkRequestRecord } from './runStore';
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
