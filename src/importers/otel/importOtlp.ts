/**
 * OpenTelemetry GenAI traces (OTLP JSON, a document or JSON Lines of export
 * requests) -> RunPlans: the spans of one trace make one run, in start-time
 * order. `chat` spans (gen_ai.operation.name) are model calls — model,
 * usage, finish reason, and input/output messages when captured (else the
 * conversation is left as it was: nothing is invented); `execute_tool` spans
 * are tool calls (gen_ai.tool.name / call.id / call.arguments / call.result,
 * error from the span status). Other spans (invoke_agent, HTTP, ...) only
 * name the agent. Reads the file; writes nothing.
 */
import type { Message, RuntimeContextSnapshot } from '../../model';
import type { ReadPlans, ReaderOptions } from '../importFile';
import { readRecordsWithDigest } from '../jsonRecords';
import { RunPlanBuilder, type RunPlan } from '../runPlan';
import { inputMessages, maybeJson, outputTurn } from './genAiMessages';
import { flattenSpans, groupTraces, ms, type FlatSpan } from './otlpSpans';

const CHAT_OPS = new Set(['chat', 'text_completion', 'generate_content']);

function operation(s: FlatSpan): string {
  const op = s.attrs['gen_ai.operation.name'];
  if (typeof op === 'string') return op;
  return s.name.split(' ')[0] ?? s.name;
}

/** `gen_ai.system_instructions` (parts `[{ type: 'text', content }]`, as JSON or not) as the system prompt text. */
function instructionsText(v: unknown): string {
  const parsed = maybeJson(v);
  if (Array.isArray(parsed)) {
    const texts = parsed.map((p) => (p && typeof p === 'object' ? (p as { content?: unknown }).content : p));
    if (texts.every((x) => typeof x === 'string')) return texts.join('\n');
  }
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function traceContext(traceId: string, spans: FlatSpan[]): RuntimeContextSnapshot {
  const first = spans[0] as FlatSpan;
  const chat = spans.find((s) => CHAT_OPS.has(operation(s)));
  const agent = spans.map((s) => str(s.attrs['gen_ai.agent.name'])).find((n) => n);
  const tools = new Set(
    spans
      .filter((s) => operation(s) === 'execute_tool')
      .map((s) => str(s.attrs['gen_ai.tool.name']) ?? s.name.replace(/^execute_tool /, '')),
  );
  const userId = spans.map((s) => str(s.attrs['enduser.id'] ?? s.attrs['user.id'])).find((u) => u);
  const conversation = spans.map((s) => str(s.attrs['gen_ai.conversation.id'] ?? s.attrs['session.id'])).find((c) => c);
  return {
    user: { userId: userId ?? 'unknown', roleId: 'unknown', permissions: [] },
    conversation: { sessionId: conversation ?? traceId },
    project: { projectId: str(first.resource['service.name']) ?? 'unknown' },
    task: { taskId: traceId, workflowId: agent ?? 'otel', stepStates: {} },
    tools: { availableTools: [...tools].sort() },
    model: {
      provider: str(chat?.attrs['gen_ai.provider.name'] ?? chat?.attrs['gen_ai.system']) ?? 'unknown',
      model: str(chat?.attrs['gen_ai.request.model'] ?? chat?.attrs['gen_ai.response.model']) ?? 'unknown',
      promptVersion: 'unknown',
    },
  };
}

function traceToPlan(
  traceId: string,
  spans: FlatSpan[],
  runId: string,
  file: string,
  digest: string,
  options: ReaderOptions,
): RunPlan {
  const context = traceContext(traceId, spans);
  const startedAt = ms(spans[0]?.start) ?? 0;
  const b = new RunPlanBuilder(runId, { messages: [], ledger: [], runtimeContext: context, at: startedAt });
  const asked = new Map<string, unknown>();
  let chats = 0;
  for (const s of spans) {
    const op = operation(s);
    if (CHAT_OPS.has(op)) {
      chats++;
      const model = str(s.attrs['gen_ai.response.model'] ?? s.attrs['gen_ai.request.model']);
      const provider = str(s.attrs['gen_ai.provider.name'] ?? s.attrs['gen_ai.system']) ?? 'unknown';
      if (model) b.setModel({ provider, model });
      const system = s.attrs['gen_ai.system_instructions'];
      if (system !== undefined) b.setSystemPrompt(instructionsText(system));
      const input = inputMessages(s);
      if (input) {
        const sys = input.filter((m) => m.role === 'system');
        if (sys.length > 0 && system === undefined)
          b.setSystemPrompt(
            sys.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n'),
          );
        b.resetMessages(input.filter((m) => m.role !== 'system'));
      }
      b.checkpoint('before_model_call', { at: ms(s.start) });
      const out = outputTurn(s);
      if (out.message) b.addMessage(out.message);
      for (const c of out.calls) asked.set(c.id, c.args);
      const inTok = s.attrs['gen_ai.usage.input_tokens'];
      const outTok = s.attrs['gen_ai.usage.output_tokens'];
      const usage =
        typeof inTok === 'number' || typeof outTok === 'number'
          ? { inputTokens: Number(inTok ?? 0), outputTokens: Number(outTok ?? 0) }
          : undefined;
      b.checkpoint('after_model_call', {
        at: ms(s.end ?? s.start),
        finishReason: s.error ? 'error' : out.finishReason,
        usage,
      });
    } else if (op === 'execute_tool') {
      const name = str(s.attrs['gen_ai.tool.name']) ?? s.name.replace(/^execute_tool /, '');
      const id = str(s.attrs['gen_ai.tool.call.id']) ?? s.spanId;
      const rawArgs = s.attrs['gen_ai.tool.call.arguments'];
      const args = rawArgs !== undefined ? maybeJson(rawArgs) : asked.get(id);
      if (b.hasTool(id)) {
        options.warnings.push({
          file,
          message: `trace ${traceId}: tool call id ${id} appears twice; the second span ${s.spanId} was skipped`,
        });
        continue;
      }
      b.beginTool({
        toolCallId: id,
        toolName: name,
        args,
        sideEffectLevel: options.sideEffectOf(name),
        startedAt: ms(s.start) ?? startedAt,
      });
      const result = s.attrs['gen_ai.tool.call.result'];
      const endedAt = ms(s.end ?? s.start) ?? startedAt;
      if (s.error) b.finishTool(id, { error: { message: s.error, type: s.attrs['error.type'] }, endedAt });
      else b.finishTool(id, { result: result === undefined ? undefined : maybeJson(result), endedAt });
    }
  }
  const root = spans.find((s) => !s.parentSpanId || !spans.some((p) => p.spanId === s.parentSpanId));
  const endedAt = spans.reduce((m, s) => Math.max(m, ms(s.end ?? s.start) ?? 0), startedAt);
  const status = root?.error ? 'failed' : 'completed';
  const plan = b.finish({
    sessionId: context.conversation.sessionId,
    agentId:
      context.task.workflowId === 'otel'
        ? (str(spans[0]?.resource['service.name']) ?? 'otel')
        : context.task.workflowId,
    mode: 'live',
    startedAt,
    endedAt,
    status,
    error: root?.error ? { message: root.error } : undefined,
    metadata: {
      source: { format: 'otel', file, traceId, contentHash: digest },
      spanCount: spans.length,
      chatSpans: chats,
    },
  });
  if (plan.error === undefined) delete plan.error;
  return plan;
}

export async function readOtlpTraces(file: string, options: ReaderOptions): Promise<ReadPlans> {
  const spans: FlatSpan[] = [];
  const digest = (
    await readRecordsWithDigest(file, options, (value, where) => spans.push(...flattenSpans(value, where)))
  ).slice(0, 10);
  const plans: RunPlan[] = [];
  for (const [traceId, list] of groupTraces(spans)) {
    const hasGenAi = list.some((s) => Object.keys(s.attrs).some((k) => k.startsWith('gen_ai.')));
    if (!hasGenAi) {
      options.warnings.push({ file, message: `trace ${traceId} has no gen_ai.* spans; skipped` });
      continue;
    }
    plans.push(traceToPlan(traceId, list, `otel-${traceId}-${digest}`, file, digest, options));
  }
  return { plans, primaryRunId: plans[0]?.runId ?? `otel-none-${digest}`, extraFiles: [] };
}

export type { Message };
