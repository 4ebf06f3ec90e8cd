/**
 * OpenAI Codex CLI session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)
 * -> one RunPlan. Each line is `{ timestamp, type, payload }`: `session_meta`
 * (id, cwd, cli version), `turn_context` (model), `response_item` (the
 * Responses API items the model saw and wrote, mapped by responseItems.ts),
 * `event_msg` (only `token_count` is read: its `last_token_usage` is the
 * usage of the model call it follows; the user / agent messages it repeats
 * are in the response items) and `compacted` (a compaction: the
 * conversation restarts from its summary). Rollouts of early 2025 (no
 * `type` wrapper: a first line `{ id, timestamp, instructions }`, then bare
 * items and `record_type: state` lines) are read too. Reads the file; writes
 * nothing.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { RuntimeContextSnapshot } from '../../model';
import type { ReadPlans, ReaderOptions } from '../reader';
import { readJsonLines } from '../jsonLines';
import { ResponseItems, itemText, responsesUsage } from '../openai/responseItems';
import { RunPlanBuilder, planEnd } from '../runPlan';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** True for a line of a Codex rollout (either generation). */
export function isCodexLine(v: unknown): boolean {
  if (!isObj(v)) return false;
  if (typeof v.timestamp === 'string' && isObj(v.payload))
    return ['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted'].includes(String(v.type));
  return typeof v.id === 'string' && typeof v.timestamp === 'string' && 'instructions' in v;
}

/** `total - previous` of Codex's running token totals, as a model call's usage. */
function growth(total: Obj, previous: Obj): ReturnType<typeof responsesUsage> {
  const d = (k: string) => Math.max(0, Number(total[k] ?? 0) - Number(previous[k] ?? 0));
  return responsesUsage({
    input_tokens: d('input_tokens'),
    cached_input_tokens: d('cached_input_tokens'),
    output_tokens: d('output_tokens'),
    reasoning_output_tokens: d('reasoning_output_tokens'),
  });
}

function context(meta: Obj, model: string | undefined, sessionId: string): RuntimeContextSnapshot {
  const cwd = str(meta.cwd);
  const git = isObj(meta.git) ? meta.git : {};
  return {
    user: { userId: 'unknown', roleId: str(meta.originator) ?? 'unknown', permissions: [] },
    conversation: { sessionId },
    project: {
      projectId: cwd ? basename(cwd) : 'unknown',
      ...(cwd ? { cwd } : {}),
      ...(str(git.branch) ? { gitBranch: String(git.branch) } : {}),
    },
    task: { taskId: sessionId, workflowId: 'codex', stepStates: {} },
    tools: { availableTools: [] },
    model: {
      provider: str(meta.model_provider) ?? 'openai',
      model: model ?? 'unknown',
      promptVersion: str(meta.cli_version) ? `codex@${String(meta.cli_version)}` : 'codex',
    },
  };
}

export async function readCodexRollout(file: string, options: ReaderOptions): Promise<ReadPlans> {
  const lines: { lineNo: number; value: Obj }[] = [];
  const hash = createHash('sha256');
  for await (const { lineNo, value } of readJsonLines(file, {
    signal: options.signal,
    warnings: options.warnings,
    onBytes: (b) => options.onBytes?.(file, b),
    onText: (t, bytes) => hash.update(bytes ?? t),
    strict: options.strict,
    onSkip: (line, reason) => options.skip({ file, line }, new Error(reason)),
  })) {
    if (!isObj(value)) {
      options.skip({ file, line: lineNo }, new Error('not a JSON object'));
      continue;
    }
    lines.push({ lineNo, value });
  }
  const digest = hash.digest('hex').slice(0, 10);
  const first = lines[0]?.value ?? {};
  const metaLine = lines.find((l) => l.value.type === 'session_meta')?.value;
  const meta: Obj = isObj(metaLine?.payload) ? metaLine.payload : 'instructions' in first ? first : {};
  const sessionId = str(meta.id) ?? basename(file, '.jsonl');
  const models = lines
    .filter((l) => l.value.type === 'turn_context' && isObj(l.value.payload))
    .map((l) => str((l.value.payload as Obj).model))
    .filter((m): m is string => m !== undefined);
  const at = (v: Obj) => {
    const t = Date.parse(String(v.timestamp ?? ''));
    return Number.isNaN(t) ? undefined : t;
  };
  const startedAt = at(meta) ?? at(first) ?? 0;
  const ctx = context(meta, models[0], sessionId);
  // From the session, not the content: a re-import of the grown rollout continues the run (growth.ts).
  const runId = `codex-${sessionId}${options.idSuffix !== undefined ? `-${options.idSuffix}` : ''}`;
  const builder = new RunPlanBuilder(runId, { messages: [], ledger: [], runtimeContext: ctx, at: startedAt });
  if (str(meta.instructions)) builder.setSystemPrompt(String(meta.instructions));
  const items = new ResponseItems(builder, {
    file,
    warnings: options.warnings,
    sideEffectOf: options.sideEffectOf,
    unknownTypes: options.unknownTypes,
  });
  const tools = new Set<string>();
  let compactions = 0;
  let tokenEvents = 0;
  let lastTotal: Obj = {};
  for (const { lineNo, value } of lines) {
    try {
      const t = at(value);
      const type = value.type;
      const payload = isObj(value.payload) ? value.payload : undefined;
      if (type === 'turn_context' && payload) {
        if (str(payload.model)) builder.setModel({ provider: ctx.model.provider, model: String(payload.model) });
      } else if (type === 'response_item' && payload) {
        if (typeof payload.name === 'string') tools.add(payload.name);
        items.item(payload, t);
      } else if (type === 'event_msg' && payload) {
        if (payload.type === 'token_count' && isObj(payload.info)) {
          // The call's tokens: the growth of the running total (Codex repeats the event), else last_token_usage.
          const total = payload.info.total_token_usage;
          const usage = isObj(total) ? growth(total, lastTotal) : responsesUsage(payload.info.last_token_usage);
          if (isObj(total)) lastTotal = total;
          if (usage && (usage.inputTokens > 0 || usage.outputTokens > 0)) {
            if (items.usage(usage)) tokenEvents++;
          }
        }
      } else if (type === 'compacted' && payload) {
        items.flush();
        compactions++;
        builder.resetMessages([{ role: 'user', content: itemText(payload.message), compactSummary: true }]);
        builder.checkpoint('before_prompt_build', { at: t });
      } else if (type === undefined && lineNo > 1 && value.record_type === undefined) {
        if (typeof value.name === 'string') tools.add(value.name);
        items.item(value, t); // an early rollout: bare items
      } else if (type !== 'session_meta' && type !== undefined) {
        options.unknownTypes[String(type)] = (options.unknownTypes[String(type)] ?? 0) + 1;
      }
    } catch (e) {
      options.skip({ file, line: lineNo }, e);
    }
  }
  items.flush();
  const open = builder.closeUnanswered('the rollout ends before its result');
  const plan = builder.finish({
    sessionId,
    agentId: 'codex',
    mode: 'live',
    startedAt,
    ...planEnd(open, 'the rollout'),
    metadata: {
      source: { format: 'codex', file, lines: lines.at(-1)?.lineNo ?? 0, contentHash: digest },
      ...(str(meta.cli_version) ? { codexVersion: meta.cli_version } : {}),
      tools: [...tools].sort(),
      compactions,
      tokenCountEvents: tokenEvents,
    },
  });
  return { plans: builder.checkpointCount > 1 ? [plan] : [], primaryRunId: runId, extraFiles: [] };
}
