/**
 * The side-effect level of an imported tool call, by tool name. Traces do not
 * say what a tool does to the world, so a documented table decides (Claude
 * Code's built-in tools; `mcp__*` counts as write unless configured), and a
 * user's JSON file overrides it: `{ "Bash": "read_only", "mcp__github__*": "expensive_read" }`
 * (exact names, or a trailing `*` as a prefix). Unknown tools are `write`
 * so a fork never re-executes them unasked. Reads the override file only.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { OcdbError, SideEffectLevelSchema, parseWith, type SideEffectLevel } from '../model';

export type SideEffectTable = Readonly<Record<string, SideEffectLevel>>;

/** The built-in table (media/docs/importing.md documents it). */
export const DEFAULT_SIDE_EFFECTS: SideEffectTable = {
  Read: 'read_only',
  Grep: 'read_only',
  Glob: 'read_only',
  LS: 'read_only',
  NotebookRead: 'read_only',
  TodoRead: 'read_only',
  BashOutput: 'read_only',
  TodoWrite: 'none',
  ExitPlanMode: 'none',
  Write: 'write',
  Edit: 'write',
  MultiEdit: 'write',
  NotebookEdit: 'write',
  Bash: 'external_irreversible',
  KillShell: 'external_irreversible',
  WebFetch: 'expensive_read',
  WebSearch: 'expensive_read',
  Task: 'expensive_read',
  Agent: 'expensive_read',
  'mcp__*': 'write',
};

/** Level for tools the table does not name. */
export const UNKNOWN_TOOL_LEVEL: SideEffectLevel = 'write';

const TableFileSchema = z.record(z.string().min(1), SideEffectLevelSchema);

/** Reads and validates a side-effect table file (tool name or `prefix*` -> level). */
export function loadSideEffectTable(file: string): SideEffectTable {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new OcdbError('InvalidInput', `${file}: not a readable JSON side-effect table (${(e as Error).message})`, {
      file,
    });
  }
  return parseWith(TableFileSchema, data, file);
}

/** Looks `toolName` up: the override table first, then the defaults; exact names beat the longest matching `prefix*`. */
export function sideEffectOf(toolName: string, overrides?: SideEffectTable): SideEffectLevel {
  for (const table of [overrides, DEFAULT_SIDE_EFFECTS]) {
    if (!table) continue;
    // own entries only: a tool named `constructor` or `toString` is not Object.prototype's
    const exact = Object.hasOwn(table, toolName) ? table[toolName] : undefined;
    if (exact) return exact;
    let best: { len: number; level: SideEffectLevel } | undefined;
    for (const [pattern, level] of Object.entries(table)) {
      if (pattern.endsWith('*') && toolName.startsWith(pattern.slice(0, -1))) {
        if (!best || pattern.length > best.len) best = { len: pattern.length, level };
      }
    }
    if (best) return best.level;
  }
  return UNKNOWN_TOOL_LEVEL;
}
