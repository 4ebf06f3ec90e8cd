/**
 * agent-core's `ToolJournal` (seed 004) over one RunRecorder: `beginTool({ toolId, input, invocation? })` opens a
 * receipt (a tool call in the run's ledger) and returns its invocation id — the caller's `invocation.id` when it
 * gives one, else a generated one; `finishTool({ invocationId, status, value })` closes it exactly once: the
 * result on success, the failure detail on error, a cancellation (value ignored) stored as cancelled, never as an
 * error. Each toolId (or a glob such as `fs.*`) gets its side-effect level and replay policy from the options.
 * A thin adapter: the rules are the RunRecorder's and the RunWriter's. Depends on model/ and the recorder only.
 */
import { z } from 'zod';
import {
  OcdbError,
  ReplayPolicySchema,
  SideEffectLevelSchema,
  parseWith,
  type ReplayPolicy,
  type SideEffectLevel,
  type ToolOutcome,
} from '../model';
import type { ToolOptions } from './inputs';

/**
 * What the journal asks of its run: RunRecorder's tool calls. Declared here, not taken from runRecorder.ts, because
 * the recorder creates the journal (`run.toolJournal()`): each file imports the other otherwise.
 */
export interface JournalRun {
  readonly runId: string;
  beginTool(toolName: string, args: unknown, options: ToolOptions): string;
  finishTool(toolCallId: string, outcome: ToolOutcome, value?: unknown, options?: { checkpoints?: boolean }): void;
}

/** The request of `beginTool`, as the seed declares it (`invocation` is what the caller already knows). */
export interface ToolJournalStart {
  toolId: string;
  input: unknown;
  invocation?: { readonly id?: string } | undefined;
}

/** The request of `finishTool`, as the seed declares it. */
export interface ToolJournalFinish {
  invocationId: string;
  status: 'error' | 'success' | 'cancelled';
  value: unknown;
}

/** The seed's `ToolJournal` interface (request-local execution receipts). */
export interface ToolJournal {
  beginTool: (request: ToolJournalStart) => string;
  finishTool: (request: ToolJournalFinish) => void;
}

export const ToolJournalToolSchema = z.object({
  sideEffectLevel: SideEffectLevelSchema,
  replayPolicy: ReplayPolicySchema.optional(),
});

export const ToolJournalOptionsSchema = z.object({
  /**
   * Per toolId, or per glob (`*` matches any run of characters, e.g. `fs.*`, `mcp__github__*`): its side-effect
   * level and replay policy. An exact toolId beats a glob; among globs the longest pattern wins.
   */
  tools: z.record(z.string().min(1), ToolJournalToolSchema).optional(),
  /** The level of a toolId no entry matches (default `write`: a fork asks before running it again). */
  defaultSideEffectLevel: SideEffectLevelSchema.optional(),
  /** Record before/after_tool_call checkpoints around each receipt (default true). */
  checkpoints: z.boolean().optional(),
});
export type ToolJournalOptions = z.input<typeof ToolJournalOptionsSchema>;

const StartSchema = z.object({
  toolId: z.string().min(1, 'toolId is required'),
  input: z.unknown(),
  invocation: z.looseObject({ id: z.string().min(1, 'invocation.id must not be empty').optional() }).optional(),
});

const FinishSchema = z.object({
  invocationId: z.string().min(1, 'invocationId is required'),
  status: z.enum(['success', 'error', 'cancelled']),
  value: z.unknown(),
});

function globRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

type ToolRule = { sideEffectLevel: SideEffectLevel; replayPolicy?: ReplayPolicy };

/** The entry of `tools` that names `toolId`: its exact name, else the longest matching glob. */
export function matchTool(toolId: string, tools: Readonly<Record<string, ToolRule>>): ToolRule | undefined {
  const exact = Object.hasOwn(tools, toolId) ? tools[toolId] : undefined;
  if (exact) return exact;
  const best = Object.keys(tools)
    .filter((k) => k.includes('*') && globRegExp(k).test(toolId))
    .sort((a, b) => b.length - a.length)[0];
  return best !== undefined ? tools[best] : undefined;
}

/** The side-effect level and policy of `toolId` under `tools`, `fallback` when no entry names it. */
export function journalToolOf(
  toolId: string,
  tools: Readonly<Record<string, ToolRule>>,
  fallback: SideEffectLevel,
): ToolRule {
  return matchTool(toolId, tools) ?? { sideEffectLevel: fallback };
}

/** Creates the journal of `run` (what `run.toolJournal(options)` returns). */
export function createToolJournal(run: JournalRun, options: ToolJournalOptions = {}): ToolJournal {
  const opts = parseWith(ToolJournalOptionsSchema, options, 'toolJournal(options)');
  const tools = opts.tools ?? {};
  const fallback = opts.defaultSideEffectLevel ?? 'write';
  /** Invocation id -> its toolId while open, and how it finished once closed. */
  const open = new Map<string, string>();
  const finished = new Map<string, { toolId: string; status: ToolJournalFinish['status'] }>();
  return {
    beginTool(request: ToolJournalStart): string {
      const data = parseWith(StartSchema, request, 'ToolJournal.beginTool');
      const id = data.invocation?.id;
      if (id !== undefined && (open.has(id) || finished.has(id))) {
        throw new OcdbError(
          'ToolCallAlreadyExists',
          `ToolJournal.beginTool: invocation ${id} (${open.get(id) ?? finished.get(id)?.toolId}) was already opened in run ${run.runId}; give each invocation its own id, or omit invocation.id to have one generated`,
          { runId: run.runId, invocationId: id, path: 'invocation.id' },
        );
      }
      const tool = journalToolOf(data.toolId, tools, fallback);
      const invocationId = run.beginTool(data.toolId, data.input, {
        sideEffectLevel: tool.sideEffectLevel,
        ...(tool.replayPolicy ? { replayPolicy: tool.replayPolicy } : {}),
        ...(id !== undefined ? { toolCallId: id } : {}),
        ...(opts.checkpoints === false ? { checkpoints: false } : {}),
      });
      open.set(invocationId, data.toolId);
      return invocationId;
    },

    finishTool(request: ToolJournalFinish): void {
      const data = parseWith(FinishSchema, request, 'ToolJournal.finishTool');
      const toolId = open.get(data.invocationId);
      if (toolId === undefined) {
        const done = finished.get(data.invocationId);
        if (done) {
          throw new OcdbError(
            'ToolCallAlreadyFinished',
            `ToolJournal.finishTool: invocation ${data.invocationId} (${done.toolId}) was already finished as ${done.status}; finishTool must be called exactly once per opened invocation`,
            { runId: run.runId, invocationId: data.invocationId },
          );
        }
        throw new OcdbError(
          'ToolCallNotFound',
          `ToolJournal.finishTool: no invocation ${data.invocationId} was opened by this journal in run ${run.runId}; pass the id beginTool returned`,
          { runId: run.runId, invocationId: data.invocationId, path: 'invocationId' },
        );
      }
      // The seed: the value is the result on success, the failure detail on error, ignored for cancellation.
      const value = data.status === 'cancelled' ? undefined : data.value;
      run.finishTool(data.invocationId, data.status, value, opts.checkpoints === false ? { checkpoints: false } : {});
      open.delete(data.invocationId);
      finished.set(data.invocationId, { toolId, status: data.status });
    },
  };
}
