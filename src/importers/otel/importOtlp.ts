/**
 * OpenTelemetry GenAI traces (OTLP JSON, a document or JSON Lines of export
 * requests) -> RunPlans: the spans of one trace make one run, in start-time
 * order. Each producer's model and tool spans are read by producers.ts
 * (GenAI semantic conventions, Vercel AI SDK, OpenLLMetry, OpenInference):
 * a model span is a model call (model, usage, finish reason, and the
 * conversation when captured — nothing is invented when it is not); a tool
 * span closes the call the model asked for (by id, else by name in order);
 * a call asked for but with no tool span is answered by the tool message
 * the next model call was sent. OTLP log records (`resourceLogs`, the
 * official instrumentations' message events) in the same file are read as
 * events of the span they name. Other spans only name the agent. Reads the
 * file; writes nothing.
 */
import type { Message, RuntimeContextSnapshot } from '../../model';
import type { ReadPlans, ReaderOptions } from '../reader';
import { readRecordsWithDigest } from '../jsonRecords';
import { RunPlanBuilder, planEnd, type RunPlan } from '../runPlan';
import { logEvents, type LogEvent } from './otlpLogs';
import { flattenSpans, groupTraces, ms, type FlatSpan } from './otlpSpans';
import { genAiSpan, type GenAiSpan, type ModelSpan, type ToolSpan } from './producers';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function traceContext(traceId: string, spans: FlatSpan[], genAi: GenAiSpan[]): RuntimeContextSnapshot {
  const first = spans[0] as FlatSpan;
  const chat = genAi.find((g): g is ModelSpan => g.kind === 'chat');
  const agent = spans.map((s) => str(s.attrs['gen_ai.agent.name'])).find((n) => n);
  const tools = new Set(genAi.filter((g): g is ToolSpan => g.kind === 'tool').map((g) => g.name));
  for (const g of genAi) if (g.kind === 'chat') for (const c of g.output.calls) tools.add(c.name);
  const userId = spans.map((s) => str(s.attrs['enduser.id'] ?? s.attrs['user.id'])).find((u) => u);
  const conversation = spans.map((s) => str(s.attrs['gen_ai.conversation.id'] ?? s.attrs['session.id'])).find((c) => c);
  return {
    user: { userId: userId ?? 'unknown', roleId: 'unknown', permissions: [] },
    conversation: { sessionId: conversation ?? traceId },
    project: { projectId: str(first.resource['service.name']) ?? 'unknown' },
    task: { taskId: traceId, workflowId: agent ?? 'otel', stepStates: {} },
    tools: { availableTools: [...tools].sort() },
    model: { provider: chat?.provider ?? 'unknown', model: chat?.model ?? 'unknown', promptVersion: 'unknown' },
  };
}

interface Asked {
  id: string;
  name: string;
  args: unknown;
}

function traceToPlan(
  traceId: string,
  spans: FlatSpan[],
  genAi: GenAiSpan[],
  runId: string,
  file: string,
  digest: string,
  options: ReaderOptions,
): RunPlan {
  const context = traceContext(traceId, spans, genAi);
  const startedAt = ms(spans[0]?.start) ?? 0;
  const b = new RunPlanBuilder(runId, { messages: [], ledger: [], runtimeContext: context, at: startedAt });
  let pending: Asked[] = []; // asked by the last model call, no tool span seen yet
  /** Calls asked and never seen as tool spans: opened now, answered by the tool messages `input` carries. */
  const settle = (input: Message[] | undefined) => {
    for (const c of pending) {
      if (b.hasTool(c.id)) continue;
      b.beginTool({
        toolCallId: c.id,
        toolName: c.name,
        args: c.args,
        sideEffectLevel: options.sideEffectOf(c.name),
        startedAt: b.lastTimestamp,
      });
      const answer = input?.find((m) => m.role === 'tool' && m.toolCallId === c.id);
      if (!answer) continue;
      const content = answer.content as { error?: unknown } | undefined;
      if (content && typeof content === 'object' && 'error' in content)
        b.finishTool(c.id, { error: content.error, endedAt: b.lastTimestamp });
      else b.finishTool(c.id, { result: answer.content, endedAt: b.lastTimestamp });
    }
    pending = [];
  };
  let chats = 0;
  for (const g of genAi) {
    const s = g.span;
    if (g.kind === 'chat') {
      chats++;
      for (const note of g.notes ?? [])
        options.warnings.push({ file, message: `trace ${traceId} span ${s.spanId} (${s.name}): ${note}` });
      settle(g.input);
      if (g.model) b.setModel({ provider: g.provider ?? 'unknown', model: g.model });
      if (g.system !== undefined) b.setSystemPrompt(g.system);
      if (g.input) b.resetMessages(g.input);
      b.checkpoint('before_model_call', { at: ms(s.start) });
      if (g.output.message) b.addMessage(g.output.message);
      pending = [...g.output.calls];
      b.checkpoint('after_model_call', {
        at: ms(s.end ?? s.start),
        finishReason: s.error ? 'error' : g.output.finishReason,
        ...(g.usage ? { usage: g.usage } : {}),
      });
      continue;
    }
    const match =
      (g.toolCallId !== undefined ? pending.find((c) => c.id === g.toolCallId) : undefined) ??
      (g.toolCallId === undefined ? pending.find((c) => c.name === g.name) : undefined);
    if (match) pending = pending.filter((c) => c !== match);
    const id = g.toolCallId ?? match?.id ?? s.spanId;
    if (b.hasTool(id)) {
      options.warnings.push({
        file,
        message: `trace ${traceId}: tool call id ${id} appears twice; the second span ${s.spanId} was skipped`,
      });
      continue;
    }
    b.beginTool({
      toolCallId: id,
      toolName: g.name,
      args: g.hasArgs ? g.args : match?.args,
      sideEffectLevel: options.sideEffectOf(g.name),
      startedAt: ms(s.start) ?? startedAt,
    });
    const endedAt = ms(s.end ?? s.start) ?? startedAt;
    if (s.error) b.finishTool(id, { error: { message: s.error, type: s.attrs['error.type'] }, endedAt });
    else b.finishTool(id, { result: g.result, endedAt });
  }
  settle(undefined);
  const open = b.closeUnanswered('the trace ends before its result');
  const root = spans.find((s) => !s.parentSpanId || !spans.some((p) => p.spanId === s.parentSpanId));
  const endedAt = spans.reduce((m, s) => Math.max(m, ms(s.end ?? s.start) ?? 0), startedAt);
  const plan = b.finish({
    sessionId: context.conversation.sessionId,
    agentId:
      context.task.workflowId === 'otel'
        ? (str(spans[0]?.resource['service.name']) ?? 'otel')
        : context.task.workflowId,
    mode: 'live',
    startedAt,
    endedAt,
    ...planEnd(open, 'the trace', root?.error ? { message: root.error } : undefined),
    metadata: {
      source: { format: 'otel', file, traceId, contentHash: digest },
      producers: [...new Set(genAi.map((g) => g.producer))],
      spanCount: spans.length,
      chatSpans: chats,
    },
  });
  if (plan.error === undefined) delete plan.error;
  return plan;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export async function readOtlpTraces(file: string, options: ReaderOptions): Promise<ReadPlans> {
  const spans: FlatSpan[] = [];
  const logs: LogEvent[] = [];
  const digest = (
    await readRecordsWithDigest(file, options, (value, where) => {
      try {
        if (isRecord(value) && 'resourceLogs' in value) logs.push(...logEvents(value, where));
        if (!isRecord(value) || 'resourceSpans' in value || !('resourceLogs' in value))
          spans.push(...flattenSpans(value, where));
      } catch (e) {
        const m = /: line (\d+)$/.exec(where);
        options.skip(m ? { file, line: Number(m[1]) } : { file, where: where.slice(file.length + 2) || '(root)' }, e);
      }
    })
  ).slice(0, 10);
  // Log records carrying message events belong to the span they name.
  const bySpan = new Map(spans.map((s) => [`${s.traceId}/${s.spanId}`, s]));
  let orphanLogs = 0;
  for (const l of logs) {
    const span = bySpan.get(`${l.traceId}/${l.spanId}`);
    if (span) span.events.push({ name: l.name, ...(l.time !== undefined ? { time: l.time } : {}), attrs: l.attrs });
    else orphanLogs++;
  }
  if (orphanLogs > 0)
    options.warnings.push({
      file,
      message: `${orphanLogs} OTLP log record(s) name no span of this file; import the traces and logs in one file (JSON Lines) to join them`,
    });
  const plans: RunPlan[] = [];
  for (const [traceId, list] of groupTraces(spans)) {
    for (const s of list)
      s.events.sort((a, b) => ((a.time ?? 0n) < (b.time ?? 0n) ? -1 : (a.time ?? 0n) > (b.time ?? 0n) ? 1 : 0));
    const genAi: GenAiSpan[] = [];
    for (const s of list) {
      try {
        const g = genAiSpan(s);
        if (g) genAi.push(g);
      } catch (e) {
        options.skip({ file, where: `trace ${traceId} span ${s.spanId} (${s.name})` }, e);
      }
    }
    if (genAi.length === 0) {
      options.warnings.push({
        file,
        message: `trace ${traceId} (${list.length} span(s)) has no model or tool span this importer reads (GenAI semantic conventions, Vercel AI SDK ai.*, OpenLLMetry, OpenInference); skipped`,
      });
      continue;
    }
    try {
      plans.push(traceToPlan(traceId, list, genAi, `otel-${traceId}-${digest}`, file, digest, options));
    } catch (e) {
      throw new Error(`${file}: trace ${traceId}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
  return { plans, primaryRunId: plans[0]?.runId ?? `otel-none-${digest}`, extraFiles: [] };
}

export type { Message };
