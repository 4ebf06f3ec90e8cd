/**
 * OpenAI Agents SDK trace exports (what its exporter sends: `{ data: [...] }`
 * of `object: "trace"` and `object: "trace.span"` items, or those items one a
 * line) -> one RunPlan per trace, spans in `started_at` order. `generation`
 * spans (Chat Completions: `input` / `output` messages, `model`, `usage`)
 * and `response` spans (Responses API: the `response` object when the
 * export has it, else a model call with only its id) are model calls;
 * `function` spans are tool calls (`name`, `input` as JSON, `output`, the
 * span's `error`); `agent` spans name the agent; `handoff`, `guardrail` and
 * `custom` spans are counted in the metadata. Reads the file; writes nothing.
 */
import type { Message, RuntimeContextSnapshot } from '../../model';
import type { ReadPlans, ReaderOptions } from '../reader';
import { readRecordsWithDigest } from '../jsonRecords';
import { toChatMsg } from '../openai/chatMessages';
import { responsesUsage } from '../openai/responseItems';
import { RunPlanBuilder, planEnd, type RunPlan } from '../runPlan';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function isAgentsItem(v: unknown): boolean {
  return isObj(v) && (v.object === 'trace' || v.object === 'trace.span');
}

/** True for an Agents SDK export: `{ data: [trace / trace.span items] }` or one such item. */
export function isAgentsTrace(v: unknown): boolean {
  if (isAgentsItem(v)) return true;
  return isObj(v) && Array.isArray(v.data) && v.data.some(isAgentsItem);
}

const time = (v: unknown) => {
  const t = Date.parse(String(v ?? ''));
  return Number.isNaN(t) ? undefined : t;
};

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/**
 * A generation's `output` as the messages it stands for: the SDK writes the choice's message, but a model provider
 * behind it may write whole `chat.completion` objects (`choices[0].message`) or messages without a `role` — both
 * are what the model answered.
 */
function outputMessages(list: unknown): { messages: unknown[]; usage?: Obj; finishReason?: string } {
  if (!Array.isArray(list)) return { messages: [] };
  let usage: Obj | undefined;
  let finishReason: string | undefined;
  const messages = list.flatMap((m): unknown[] => {
    if (!isObj(m)) return [m];
    if (Array.isArray(m.choices)) {
      if (isObj(m.usage)) usage = m.usage;
      const choice = m.choices[0];
      if (!isObj(choice)) return [];
      if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
      const message = isObj(choice.message) ? choice.message : {};
      return [{ ...message, role: message.role ?? 'assistant' }];
    }
    return [m.role === undefined ? { ...m, role: 'assistant' } : m];
  });
  return { messages, ...(usage ? { usage } : {}), ...(finishReason ? { finishReason } : {}) };
}

/** Chat Completions messages as Messages, tool calls as parts. */
function chatMessages(list: unknown, where: string): Message[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((m, i): Message[] => {
    const c = toChatMsg(m, `${where}[${i}]`);
    if (c.role === 'tool') return c.answers.map((a) => ({ role: 'tool', toolCallId: a.id, content: a.result }));
    if (c.role === 'assistant' && c.calls.length > 0) {
      const parts: unknown[] =
        typeof c.content === 'string' && c.content !== '' ? [{ type: 'text', text: c.content }] : [];
      for (const call of c.calls)
        parts.push({ type: 'tool_call', toolCallId: call.id, toolName: call.name, args: call.args });
      return [{ role: 'assistant', content: parts }];
    }
    return [{ role: c.role, content: c.content }];
  });
}

function traceToPlan(
  trace: Obj | undefined,
  traceId: string,
  spans: Obj[],
  file: string,
  digest: string,
  options: ReaderOptions,
): RunPlan {
  const agents = spans
    .map((s) => (isObj(s.span_data) && s.span_data.type === 'agent' ? str(s.span_data.name) : undefined))
    .filter((n): n is string => n !== undefined);
  const startedAt = time(spans[0]?.started_at) ?? 0;
  const ctx: RuntimeContextSnapshot = {
    user: { userId: 'unknown', roleId: 'unknown', permissions: [] },
    conversation: { sessionId: str(trace?.group_id) ?? traceId },
    project: { projectId: str(trace?.workflow_name) ?? 'unknown' },
    task: { taskId: traceId, workflowId: str(trace?.workflow_name) ?? 'openai-agents', stepStates: {} },
    tools: { availableTools: [] },
    model: { provider: 'openai', model: 'unknown', promptVersion: 'unknown' },
  };
  const b = new RunPlanBuilder(`oaa-${traceId}-${digest}`, {
    messages: [],
    ledger: [],
    runtimeContext: ctx,
    at: startedAt,
  });
  let asked: { id: string; name: string; args: unknown }[] = [];
  const counts: Record<string, number> = {};
  const tools = new Set<string>();
  for (const s of spans) {
    const d = isObj(s.span_data) ? s.span_data : {};
    const type = String(d.type ?? 'unknown');
    counts[type] = (counts[type] ?? 0) + 1;
    const start = time(s.started_at);
    const end = time(s.ended_at) ?? start;
    if (type === 'generation' || type === 'response') {
      const response = isObj(d.response) ? d.response : undefined;
      const model = str(d.model) ?? str(response?.model);
      if (model) b.setModel({ provider: 'openai', model });
      const input = type === 'generation' ? chatMessages(d.input, `${file}: span ${String(s.id)} input`) : [];
      const system = input.filter((m) => m.role === 'system');
      if (system.length > 0) b.setSystemPrompt(system.map((m) => String(m.content)).join('\n'));
      if (input.length > 0) b.resetMessages(input.filter((m) => m.role !== 'system'));
      b.checkpoint('before_model_call', { at: start });
      const answered = type === 'generation' ? outputMessages(d.output) : { messages: [] };
      const output = chatMessages(answered.messages, `${file}: span ${String(s.id)} output`);
      const calls: typeof asked = [];
      if (response && Array.isArray(response.output)) {
        const parts: unknown[] = [];
        for (const it of response.output as Obj[]) {
          if (it.type === 'message')
            parts.push({
              type: 'text',
              text: (it.content as { text?: string }[] | undefined)?.map((p) => p.text ?? '').join('\n') ?? '',
            });
          if (it.type === 'function_call') {
            const call = { id: String(it.call_id ?? it.id), name: String(it.name), args: parseJson(it.arguments) };
            calls.push(call);
            parts.push({ type: 'tool_call', toolCallId: call.id, toolName: call.name, args: call.args });
          }
        }
        if (parts.length > 0) b.addMessage({ role: 'assistant', content: parts });
      }
      for (const m of output) {
        b.addMessage(m);
        if (Array.isArray(m.content))
          for (const p of m.content as { type?: string; toolCallId?: string; toolName?: string; args?: unknown }[])
            if (p.type === 'tool_call')
              calls.push({ id: String(p.toolCallId), name: String(p.toolName), args: p.args });
      }
      const counted = isObj(d.usage) ? d.usage : answered.usage;
      const usage = counted
        ? {
            inputTokens: Number(counted.input_tokens ?? counted.prompt_tokens ?? 0),
            outputTokens: Number(counted.output_tokens ?? counted.completion_tokens ?? 0),
          }
        : responsesUsage(response?.usage);
      b.checkpoint('after_model_call', {
        at: end,
        ...(s.error ? { finishReason: 'error' } : answered.finishReason ? { finishReason: answered.finishReason } : {}),
        ...(usage ? { usage } : {}),
      });
      asked = calls;
      continue;
    }
    if (type === 'function') {
      const name = String(d.name ?? 'function');
      tools.add(name);
      const match = asked.find((c) => c.name === name);
      if (match) asked = asked.filter((c) => c !== match);
      const id = match?.id ?? String(s.id);
      if (b.hasTool(id)) continue;
      b.beginTool({
        toolCallId: id,
        toolName: name,
        args: d.input !== undefined ? parseJson(d.input) : (match?.args ?? {}),
        sideEffectLevel: options.sideEffectOf(name),
        startedAt: start ?? b.lastTimestamp,
      });
      const err = isObj(s.error) ? s.error : undefined;
      if (err)
        b.finishTool(id, {
          error: { message: String(err.message ?? 'error'), ...(err.data !== undefined ? { data: err.data } : {}) },
          endedAt: end ?? b.lastTimestamp,
        });
      else b.finishTool(id, { result: parseJson(d.output), endedAt: end ?? b.lastTimestamp });
    }
  }
  for (const c of asked) {
    if (b.hasTool(c.id)) continue;
    b.beginTool({
      toolCallId: c.id,
      toolName: c.name,
      args: c.args,
      sideEffectLevel: options.sideEffectOf(c.name),
      startedAt: b.lastTimestamp,
    });
  }
  const open = b.closeUnanswered('the trace ends before its result');
  ctx.tools.availableTools = [...tools].sort();
  const failed = spans.find((s) => isObj(s.error) && isObj(s.span_data) && s.span_data.type === 'agent');
  return b.finish({
    sessionId: ctx.conversation.sessionId,
    agentId: agents[0] ?? 'openai-agents',
    mode: 'live',
    startedAt,
    ...planEnd(open, 'the trace', failed?.error),
    metadata: {
      source: { format: 'openai-agents', file, traceId, contentHash: digest },
      spans: counts,
      agents: [...new Set(agents)],
    },
  });
}

export async function readAgentsTrace(file: string, options: ReaderOptions): Promise<ReadPlans> {
  const items: Obj[] = [];
  const digest = (
    await readRecordsWithDigest(file, options, (value, where) => {
      const list = isObj(value) && Array.isArray(value.data) ? value.data : [value];
      list.forEach((v, i) => {
        if (isAgentsItem(v)) items.push(v as Obj);
        else
          options.skip(
            { file, where: `${where.slice(file.length + 2)}${list.length > 1 ? ` data[${i}]` : ''}` || '(root)' },
            new Error('neither a trace nor a trace.span'),
          );
      });
    })
  ).slice(0, 10);
  const traces = new Map<string, { trace?: Obj; spans: Obj[] }>();
  for (const it of items) {
    const id = String(it.object === 'trace' ? it.id : it.trace_id);
    const t = traces.get(id) ?? { spans: [] };
    if (it.object === 'trace') t.trace = it;
    else t.spans.push(it);
    traces.set(id, t);
  }
  const plans: RunPlan[] = [];
  for (const [id, t] of traces) {
    t.spans.sort((a, b) => (time(a.started_at) ?? 0) - (time(b.started_at) ?? 0));
    if (t.spans.length === 0) {
      options.warnings.push({ file, message: `trace ${id} has no spans; skipped` });
      continue;
    }
    plans.push(traceToPlan(t.trace, id, t.spans, file, digest, options));
  }
  return { plans, primaryRunId: plans[0]?.runId ?? `oaa-none-${digest}`, extraFiles: [] };
}
