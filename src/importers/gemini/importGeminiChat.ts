/**
 * Gemini CLI chats (`~/.gemini/tmp/<project hash>/chats/session-*.json`: one
 * JSON document `{ sessionId, projectHash, startTime, lastUpdated, messages }`;
 * or the later `session-*.jsonl` recording, replayed into that shape by
 * chatRecords.ts) -> one RunPlan. A `user` message is the user's prompt; a `gemini` message
 * is one model call (its text, its `thoughts` as reasoning parts, `tokens`
 * as usage, `model`) whose `toolCalls` are its tool calls, each closed at
 * once with its `result` (`functionResponse.response`) and `status`
 * (error / cancelled; a call still scheduled or executing when the file ends
 * is unanswered). `info`, `warning` and `error` messages are kept as notes in
 * the run's metadata. A recording's run id is its session's (a grown recording continues its run); a whole
 * document's carries its content hash. Reads the file; writes nothing.
 */
import { z } from 'zod';
import { parseWith, type RuntimeContextSnapshot } from '../../model';
import type { ReadPlans, ReaderOptions } from '../reader';
import { readRecordsWithDigest } from '../jsonRecords';
import { RunPlanBuilder, planEnd } from '../runPlan';
import { isGeminiChatHeader, replayChatRecords } from './chatRecords';

const ToolCallSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.unknown().optional(),
  result: z.unknown().optional(),
  status: z.string().nullish(),
  timestamp: z.string().nullish(),
  resultDisplay: z.unknown().optional(),
});
const MessageSchema = z.looseObject({
  id: z.string().nullish(),
  timestamp: z.string().nullish(),
  type: z.string(),
  content: z.unknown().optional(),
  thoughts: z.array(z.looseObject({ subject: z.string().nullish(), description: z.string().nullish() })).nullish(),
  tokens: z
    .looseObject({
      input: z.number().nullish(),
      output: z.number().nullish(),
      cached: z.number().nullish(),
      thoughts: z.number().nullish(),
      tool: z.number().nullish(),
      total: z.number().nullish(),
    })
    .nullish(),
  model: z.string().nullish(),
  toolCalls: z.array(ToolCallSchema).nullish(),
});
const SessionSchema = z.looseObject({
  sessionId: z.string().min(1),
  projectHash: z.string().nullish(),
  startTime: z.string().nullish(),
  lastUpdated: z.string().nullish(),
  messages: z.array(z.unknown()),
});

/** True for a Gemini CLI chat document, or the header line of a JSON Lines chat recording. */
export function isGeminiChat(v: unknown): boolean {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return (typeof o.sessionId === 'string' && 'projectHash' in o && Array.isArray(o.messages)) || isGeminiChatHeader(v);
}

/** Tool call states of a call the CLI had not finished when the file was written. */
const UNFINISHED = new Set(['validating', 'scheduled', 'executing', 'awaiting_approval']);

/** A JSON Lines recording (its first record a header, not a whole document) as the one document it stands for. */
function wholeDocs(
  file: string,
  docs: { value: unknown; where: string }[],
  options: ReaderOptions,
): { value: unknown; where: string; rewritten?: number }[] {
  if (!isGeminiChatHeader(docs[0]?.value)) return docs;
  const replayed = replayChatRecords(docs, (where, e) => {
    const line = /: line (\d+)$/.exec(where);
    options.skip(line ? { file, line: Number(line[1]) } : { file, where }, e);
  });
  return [{ value: replayed.doc, where: file, rewritten: replayed.rewritten }];
}

const time = (s: string | null | undefined) => {
  const t = Date.parse(s ?? '');
  return Number.isNaN(t) ? undefined : t;
};

/** The text of a Gemini message's content (a string, or parts `{ text }`). */
function textOf(content: unknown): unknown {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((p) => p && typeof (p as { text?: unknown }).text === 'string'))
    return content.map((p) => (p as { text: string }).text).join('\n');
  return content ?? '';
}

/** What a tool call returned: the `response` of its functionResponse parts (`output` unwrapped). */
function resultOf(result: unknown): unknown {
  const parts = Array.isArray(result) ? result : result === undefined ? [] : [result];
  const responses = parts.map((p) => {
    const fr = (p as { functionResponse?: { response?: unknown } } | undefined)?.functionResponse;
    const r = fr?.response ?? p;
    return r && typeof r === 'object' && 'output' in r && Object.keys(r).length === 1
      ? (r as { output: unknown }).output
      : r;
  });
  return responses.length === 1 ? responses[0] : responses;
}

function context(sessionId: string, projectHash: string | undefined, model: string): RuntimeContextSnapshot {
  return {
    user: { userId: 'unknown', roleId: 'unknown', permissions: [] },
    conversation: { sessionId },
    project: { projectId: projectHash ? projectHash.slice(0, 12) : 'unknown' },
    task: { taskId: sessionId, workflowId: 'gemini-cli', stepStates: {} },
    tools: { availableTools: [] },
    model: { provider: 'google', model, promptVersion: 'gemini-cli' },
  };
}

export async function readGeminiChat(file: string, options: ReaderOptions): Promise<ReadPlans> {
  const docs: { value: unknown; where: string }[] = [];
  const digest = (await readRecordsWithDigest(file, options, (value, where) => docs.push({ value, where }))).slice(
    0,
    10,
  );
  const plans = [];
  // a JSON Lines recording is appended to: its run is the session's, continued when the file grows (growth.ts);
  // a whole document is written again each time, so each content is a run of its own
  const recording = isGeminiChatHeader(docs[0]?.value);
  for (const doc of wholeDocs(file, docs, options)) {
    const session = parseWith(SessionSchema, doc.value, doc.where);
    const messages: z.infer<typeof MessageSchema>[] = [];
    session.messages.forEach((m, i) => {
      try {
        messages.push(parseWith(MessageSchema, m, `${doc.where}: messages[${i}]`));
      } catch (e) {
        options.skip({ file, where: `messages[${i}]` }, e);
      }
    });
    const model = messages.find((m) => m.model)?.model ?? 'unknown';
    const startedAt = time(session.startTime) ?? time(messages[0]?.timestamp) ?? 0;
    const suffix = recording ? options.idSuffix : digest;
    const runId = `gemini-${session.sessionId}${suffix !== undefined ? `-${suffix}` : ''}`;
    const ctx = context(session.sessionId, session.projectHash ?? undefined, model);
    const tools = new Set(messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.name)));
    ctx.tools.availableTools = [...tools].sort();
    const b = new RunPlanBuilder(runId, { messages: [], ledger: [], runtimeContext: ctx, at: startedAt });
    const notes: { type: string; content: unknown }[] = [];
    for (const m of messages) {
      const at = time(m.timestamp);
      if (m.type === 'user') {
        b.addMessage({ role: 'user', content: textOf(m.content) });
        if (at !== undefined) b.noteTime(at);
        continue;
      }
      if (m.type !== 'gemini') {
        notes.push({ type: m.type, content: m.content });
        continue;
      }
      if (m.model) b.setModel({ provider: 'google', model: m.model });
      b.checkpoint('before_model_call', { at: b.lastTimestamp });
      const parts: unknown[] = [];
      for (const t of m.thoughts ?? [])
        parts.push({ type: 'reasoning', text: [t.subject, t.description].filter((x) => x).join(': ') });
      const text = textOf(m.content);
      if (text !== '') parts.push({ type: 'text', text });
      const calls = m.toolCalls ?? [];
      for (const c of calls) parts.push({ type: 'tool_call', toolCallId: c.id, toolName: c.name, args: c.args ?? {} });
      b.addMessage({
        role: 'assistant',
        content: parts.length === 1 && typeof text === 'string' && text !== '' ? text : parts,
      });
      const tk = m.tokens;
      b.checkpoint('after_model_call', {
        at,
        finishReason: calls.length > 0 ? 'tool_calls' : 'stop',
        ...(tk
          ? {
              usage: {
                inputTokens: tk.input ?? 0,
                outputTokens: tk.output ?? 0,
                ...(tk.cached ? { cacheReadInputTokens: tk.cached } : {}),
                ...(tk.thoughts ? { reasoningOutputTokens: tk.thoughts } : {}),
                ...(tk.tool ? { toolInputTokens: tk.tool } : {}),
              },
            }
          : {}),
      });
      for (const c of calls) {
        const callAt = time(c.timestamp) ?? at ?? b.lastTimestamp;
        b.beginTool({
          toolCallId: c.id,
          toolName: c.name,
          args: c.args ?? {},
          sideEffectLevel: options.sideEffectOf(c.name),
          startedAt: callAt,
        });
        const value = resultOf(c.result);
        if (c.status === 'error')
          b.finishTool(c.id, {
            error: { message: String(c.resultDisplay ?? 'tool error'), content: value },
            endedAt: callAt,
          });
        else if (c.status === 'cancelled')
          b.finishTool(c.id, { outcome: 'cancelled', error: 'cancelled in the Gemini CLI', endedAt: callAt });
        else if (UNFINISHED.has(c.status ?? '') && (c.result === undefined || c.result === null)) continue;
        else b.finishTool(c.id, { result: value, endedAt: callAt });
      }
    }
    const end = time(session.lastUpdated);
    const open = b.closeUnanswered('the chat ends before its result');
    plans.push(
      b.finish({
        sessionId: session.sessionId,
        agentId: 'gemini-cli',
        mode: 'live',
        startedAt,
        ...(end !== undefined ? { endedAt: Math.max(end, b.lastTimestamp) } : {}),
        ...planEnd(open, 'the chat'),
        metadata: {
          source: { format: 'gemini-cli', file, contentHash: digest },
          ...(doc.rewritten ? { rewrittenMessages: doc.rewritten } : {}),
          ...(session.projectHash ? { projectHash: session.projectHash } : {}),
          ...(notes.length > 0 ? { notes } : {}),
        },
      }),
    );
  }
  return { plans, primaryRunId: plans[0]?.runId ?? `gemini-none-${digest}`, extraFiles: [] };
}
