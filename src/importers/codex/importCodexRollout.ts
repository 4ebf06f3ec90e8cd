/**
 * OpenAI Codex CLI session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)
 * -> one RunPlan. Each line is `{ timestamp, type, payload }`: `session_meta`
 * (id, cwd, cli version), `turn_context` (model), `response_item` (the
 * Responses API items the model saw and wrote, mapped by responseItems.ts),
 * `event_msg` (`token_count`: the usage of the model call it follows; the
 * user / agent messages and reasoning it repeats are read only from a
 * rollout that holds no `message` response items — there they are the whole
 * conversation) and `compacted` (a compaction: the conversation restarts
 * from its summary). Rollouts of early 2025 (no
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

type TokenStep = { kind: 'repeat' } | { kind: 'usage'; usage: ReturnType<typeof responsesUsage> };

const TOKEN_KEYS = ['input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_output_tokens'];

/**
 * The tokens of the model call a `token_count` event follows. Codex writes the running total of the session
 * (`total_token_usage`) and the call's own figures (`last_token_usage`), and repeats the event unchanged after a
 * turn: the same total again is a repeat. The total starts again from zero when a session is resumed in a new
 * process (it drops below the one before): then the call's own figures are its tokens, never a negative growth;
 * so they are for the first event of a file.
 */
function tokenStep(info: Obj, previous: Obj | undefined): TokenStep {
  const total = info.total_token_usage;
  const last = info.last_token_usage;
  if (!isObj(total)) return { kind: 'usage', usage: responsesUsage(last) };
  if (previous && TOKEN_KEYS.every((k) => Number(total[k] ?? 0) === Number(previous[k] ?? 0)))
    return { kind: 'repeat' };
  // The first total of a file that starts mid-session (a cut rollout) is not this call's alone: its own figures are.
  const restarted = previous === undefined || TOKEN_KEYS.some((k) => Number(total[k] ?? 0) < Number(previous[k] ?? 0));
  if (restarted) return { kind: 'usage', usage: isObj(last) ? responsesUsage(last) : growth(total, {}) };
  return { kind: 'usage', usage: growth(total, previous ?? {}) };
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

/** An `event_msg` user / agent message or reasoning as the response item it stands for (event-only rollouts). */
function eventItem(payload: Obj): Obj | undefined {
  const text = typeof payload.message === 'string' ? payload.message : undefined;
  if (payload.type === 'user_message' && text !== undefined)
    return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
  if (payload.type === 'agent_message' && text !== undefined)
    return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] };
  if (payload.type === 'agent_reasoning' && typeof payload.text === 'string')
    return { type: 'reasoning', summary: [{ type: 'summary_text', text: payload.text }] };
  return undefined;
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
  let lastTotal: Obj | undefined;
  // A rollout with no message items (only event_msg user / agent messages): those events are the conversation.
  const itemTypes = new Set(
    lines.map((l) =>
      l.value.type === 'response_item' && isObj(l.value.payload) ? l.value.payload.type : l.value.type,
    ),
  );
  const fromEvents = !itemTypes.has('message');
  const reasoningFromEvents = fromEvents && !itemTypes.has('reasoning');
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
          const step = tokenStep(payload.info, lastTotal);
          if (isObj(payload.info.total_token_usage)) lastTotal = payload.info.total_token_usage;
          const usage = step.kind === 'usage' ? step.usage : undefined;
          if (usage && (usage.inputTokens > 0 || usage.outputTokens > 0)) {
            if (items.usage(usage)) tokenEvents++;
          }
        } else if (fromEvents) {
          const item = eventItem(payload);
          if (item && (item.type !== 'reasoning' || reasoningFromEvents)) items.item(item, t);
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
