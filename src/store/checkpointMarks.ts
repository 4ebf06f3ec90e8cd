/**
 * A run's checkpoints as the Timeline draws them: columns of the `checkpoints` rows alone (no join, no checkpoint
 * id, no head), checked as they are read — a boundary code the store knows, a usage of two token counts — without
 * building a summary object per row, so a 20,000-checkpoint run costs its rows.
 */
import { OcdbError, type CheckpointBoundary, type Usage } from '../model';
import { boundaryOf, num, str, usageOf } from './rowCodec';
import type { CheckpointMarks } from './runStore';
import type { SqlStatement } from './sqlDriver';

const BOUNDARIES: ReadonlySet<unknown> = new Set<CheckpointBoundary>([
  'before_prompt_build',
  'before_model_call',
  'after_model_call',
  'before_tool_call',
  'after_tool_call',
  'agent_end',
]);

function corrupt(runId: string, index: number, what: string): OcdbError {
  return new OcdbError('StoreCorrupt', `store checkpoint ${index} of run ${runId}: ${what}`, { runId, index });
}

export function checkpointMarks(sql: (text: string) => SqlStatement, runId: string): CheckpointMarks {
  const rows = sql(
    `SELECT seq, boundary, step_index, tool_call_id, usage_json, created_at, held_ms FROM checkpoints
      WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?) ORDER BY seq`,
  ).all(runId);
  const marks: CheckpointMarks = { createdAt: [], stepIndex: [], boundary: [], toolCallId: [], usage: [], heldMs: [] };
  rows.forEach((row, i) => {
    const boundary = boundaryOf(row.boundary);
    if (!BOUNDARIES.has(boundary)) throw corrupt(runId, i, `unknown boundary ${String(row.boundary)}`);
    let usage: Usage | undefined;
    if (row.usage_json !== null && row.usage_json !== undefined) {
      const u = usageOf(row.usage_json) as Partial<Usage> | null;
      if (typeof u?.inputTokens !== 'number' || typeof u.outputTokens !== 'number')
        throw corrupt(runId, i, 'usage without its token counts');
      usage = u as Usage;
    }
    marks.createdAt.push(Number(row.created_at));
    marks.stepIndex.push(Number(row.step_index));
    marks.boundary.push(boundary as CheckpointBoundary);
    marks.toolCallId.push(str(row.tool_call_id));
    marks.usage.push(usage);
    marks.heldMs.push(num(row.held_ms));
  });
  return marks;
}
