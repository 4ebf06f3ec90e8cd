/**
 * A run's checkpoints as the Timeline draws them: columns of the `checkpoints` rows alone (no join, no checkpoint
 * id, no head), checked as they are read — a boundary code the store knows, a usage of two token counts.
 *
 * Read as one row of columns (markColumns.ts): the engine builds each column as a JSON array, so a 20,000-checkpoint
 * run costs one row and a JSON.parse a column, not 20,000 row objects built by the driver (most of the read's time
 * when the rows came one by one) — and on PostgreSQL one answer from the worker, not 20,000 rows copied across.
 */
import { OcdbError, type CheckpointBoundary, type Usage } from '../model';
import { markColumns } from './markColumns';
import { BOUNDARY_CODES, usageOf } from './rowCodec';
import type { CheckpointMarks } from './runStore';
import type { SqlStatement } from './sqlDriver';

/** The boundary each code stands for (rowCodec.ts BOUNDARY_CODES), by code. */
const BOUNDARY_BY_CODE: readonly (CheckpointBoundary | undefined)[] = (() => {
  const names: (CheckpointBoundary | undefined)[] = [];
  for (const [name, code] of Object.entries(BOUNDARY_CODES)) names[code] = name as CheckpointBoundary;
  return names;
})();
/** A boundary stored by its name (a column that held names before codes): still known. */
const BOUNDARY_NAMES: ReadonlySet<unknown> = new Set(Object.keys(BOUNDARY_CODES));

function corrupt(runId: string, index: number, what: string): OcdbError {
  return new OcdbError('StoreCorrupt', `store checkpoint ${index} of run ${runId}: ${what}`, { runId, index });
}

/** A column of numbers as parsed (a NOT NULL column of numbers: anything else is a corrupt row). */
function numbers(values: unknown[], runId: string, column: string, from: number): number[] {
  for (let i = 0; i < values.length; i++)
    if (typeof values[i] !== 'number')
      throw corrupt(runId, from + i, `${column} is not a number: ${String(values[i])}`);
  return values as number[];
}

const COLUMNS = ['created_at', 'step_index', 'boundary', 'tool_call_id', 'usage_json', 'held_ms'] as const;

/**
 * The checkpoints of a run from index `from` on (a range of the primary key: a reader following a live run reads
 * what is new, not the run again); `marks.x[i]` is checkpoint `from + i`.
 */
export function checkpointMarks(sql: (text: string) => SqlStatement, runId: string, from = 0): CheckpointMarks {
  const c = markColumns(
    sql,
    COLUMNS,
    'checkpoints WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND seq >= ?',
    [runId, from],
    `the checkpoints of run ${runId}`,
  );
  const n = c.seq.length;
  const at = (i: number) => from + i;
  // the number columns are the parsed arrays themselves, checked, not copied
  const createdAt = numbers(c.created_at, runId, 'created_at', from);
  const stepIndex = numbers(c.step_index, runId, 'step_index', from);
  const marks: CheckpointMarks = {
    createdAt,
    stepIndex,
    boundary: new Array<CheckpointBoundary>(n),
    toolCallId: new Array<string | undefined>(n).fill(undefined),
    usage: new Array<Usage | undefined>(n).fill(undefined),
    heldMs: new Array<number | undefined>(n).fill(undefined),
  };
  for (let i = 0; i < n; i++) {
    const code = c.boundary[i];
    const boundary =
      typeof code === 'number'
        ? BOUNDARY_BY_CODE[code]
        : BOUNDARY_NAMES.has(code)
          ? (code as CheckpointBoundary)
          : undefined;
    if (boundary === undefined) throw corrupt(runId, at(i), `unknown boundary ${String(code)}`);
    marks.boundary[i] = boundary;
    const u = c.usage_json[i];
    if (u !== null) {
      const parsed = usageOf(u) as Partial<Usage> | null;
      if (typeof parsed?.inputTokens !== 'number' || typeof parsed.outputTokens !== 'number')
        throw corrupt(runId, at(i), 'usage without its token counts');
      marks.usage[i] = parsed as Usage;
    }
    const id = c.tool_call_id[i];
    if (id !== null) marks.toolCallId[i] = String(id);
    const held = c.held_ms[i];
    if (held !== null) marks.heldMs[i] = Number(held);
  }
  return marks;
}
