/**
 * The fork_confirmations table: manual_confirm questions a fork's agent
 * program records and waits on, and the user's answers (allow once, use
 * recorded, mock, abort). SQL for SqlRunStore only; rows are validated when
 * read back.
 */
import { ConfirmationRecordSchema, OcdbError, parseWith } from '../model';
import { compact, json, num, str } from './rowCodec';
import type { ConfirmationAnswer, ConfirmationFilter, ConfirmationRecord } from './runStore';
import type { SqlDriver, SqlRow } from './sqlDriver';

export class ConfirmationTable {
  constructor(
    private readonly db: SqlDriver,
    private readonly transaction: <T>(fn: () => T) => T,
    private readonly storePath: string,
  ) {}

  create(record: Omit<ConfirmationRecord, 'status' | 'answer' | 'mockResult' | 'answeredAt'>): void {
    this.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO fork_confirmations (confirmation_id, fork_request_id, run_id, tool_call_id, tool_name, args_json,
             side_effect_level, status, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
        )
        .run(
          record.confirmationId,
          record.forkRequestId,
          record.runId,
          record.toolCallId ?? null,
          record.toolName,
          JSON.stringify(record.args ?? null),
          record.sideEffectLevel,
          record.createdAt,
          record.expiresAt,
        );
    });
  }

  answer(confirmationId: string, answer: ConfirmationAnswer, at: number, mockResult?: unknown): ConfirmationRecord {
    return this.transaction(() => {
      const current = this.get(confirmationId);
      if (current.status !== 'pending') {
        throw new OcdbError(
          'InvalidInput',
          `Confirmation ${confirmationId} (${current.toolName}) is already ${current.status}${current.answer ? ` (${current.answer})` : ''}; it can be answered once.`,
          { confirmationId, status: current.status, path: 'answer' },
        );
      }
      this.db
        .prepare(
          "UPDATE fork_confirmations SET status = 'answered', answer = ?, mock_json = ?, answered_at = ? WHERE confirmation_id = ?",
        )
        .run(answer, mockResult === undefined ? null : JSON.stringify(mockResult), at, confirmationId);
      return this.get(confirmationId);
    });
  }

  expire(confirmationId: string, at: number): ConfirmationRecord {
    return this.transaction(() => {
      this.db
        .prepare(
          "UPDATE fork_confirmations SET status = 'expired', answered_at = ? WHERE confirmation_id = ? AND status = 'pending'",
        )
        .run(at, confirmationId);
      return this.get(confirmationId);
    });
  }

  get(confirmationId: string): ConfirmationRecord {
    const row = this.db.prepare('SELECT * FROM fork_confirmations WHERE confirmation_id = ?').get(confirmationId);
    if (!row) {
      throw new OcdbError('ForkNotFound', `No confirmation ${confirmationId} in ${this.storePath}.`, {
        confirmationId,
      });
    }
    return this.toRecord(row);
  }

  list(filter: ConfirmationFilter = {}): ConfirmationRecord[] {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.forkRequestId !== undefined) {
      where.push('fork_request_id = ?');
      params.push(filter.forkRequestId);
    }
    if (filter.status !== undefined) {
      where.push('status = ?');
      params.push(filter.status);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    return this.db
      .prepare(`SELECT * FROM fork_confirmations ${clause} ORDER BY created_at, confirmation_id`)
      .all(...params)
      .map((r) => this.toRecord(r));
  }

  private toRecord(row: SqlRow): ConfirmationRecord {
    const id = String(row.confirmation_id);
    return parseWith(
      ConfirmationRecordSchema,
      compact({
        confirmationId: id,
        forkRequestId: String(row.fork_request_id),
        runId: String(row.run_id),
        toolCallId: str(row.tool_call_id),
        toolName: String(row.tool_name),
        args: JSON.parse(String(row.args_json)),
        sideEffectLevel: row.side_effect_level,
        status: row.status,
        answer: str(row.answer),
        mockResult: json(row.mock_json),
        createdAt: Number(row.created_at),
        expiresAt: Number(row.expires_at),
        answeredAt: num(row.answered_at),
      }),
      `store confirmation ${id}`,
    );
  }
}
