/**
 * OpenAI chat logs -> RunPlans. Accepts a JSON array of messages, a
 * request/response pair (`{ request: { model, messages, tools }, response:
 * <chat.completion> }`), a bare chat.completion, or JSON Lines / arrays of
 * those. Successive records whose request repeats the conversation so far
 * continue one run (a log of one agent's calls); one that does not starts a
 * new run. Each assistant message is a model call; each tool call a ledger
 * record answered by its tool message. Reads the file; writes nothing.
 */
import { statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { canonicalJson, parseWith, type RuntimeContextSnapshot } from '../../model';
import type { ReadPlans, ReaderOptions } from '../reader';
import { readRecordsWithDigest } from '../jsonRecords';
import { RunPlanBuilder, planEnd, type RunPlan } from '../runPlan';
import { toChatMsg, type ChatMsg } from './chatMessages';
import { assembleChunks } from './streamChunks';

const ResponseSchema = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  created: z.number().optional(),
  choices: z.array(z.looseObject({ message: z.unknown(), finish_reason: z.string().nullish() })).min(1),
  usage: z.looseObject({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).nullish(),
});
const RequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(z.unknown()),
  tools: z
    .array(z.looseObject({ function: z.looseObject({ name: z.string() }).optional(), name: z.string().optional() }))
    .optional(),
});

interface Turn {
  messages: ChatMsg[];
  /** The response to the request, when the record has one. */
  response?: {
    msg: ChatMsg;
    model?: string;
    finishReason?: string;
    usage?: { inputTokens: number; outputTokens: number };
    at?: number;
  };
  model?: string;
  tools: string[];
  /** A record that is one message (JSONL of messages): it continues the current run. */
  append?: boolean;
}

function toTurn(value: unknown, where: string): Turn {
  const at = (i: number | string) =>
    where ? `${where}${typeof i === 'number' ? `[${i}]` : `.${i}`}` : typeof i === 'number' ? `[${i}]` : i;
  if (Array.isArray(value)) return { messages: value.map((m, i) => toChatMsg(m, at(i))), tools: [] };
  const o = parseWith(z.looseObject({}), value, where || 'record');
  if ('role' in o && !('messages' in o))
    return { messages: [toChatMsg(o, where || '(root)')], tools: [], append: true };
  if ('choices' in o && !('request' in o)) return { messages: [], response: responseOf(o, where), tools: [] };
  const reqValue = 'request' in o ? o.request : o;
  const req = parseWith(RequestSchema, reqValue, 'request' in o ? at('request') : where || '(root)');
  const turn: Turn = {
    messages: req.messages.map((m, i) => toChatMsg(m, `${'request' in o ? at('request') : where}.messages[${i}]`)),
    model: req.model,
    tools: (req.tools ?? []).map((t) => t.function?.name ?? t.name ?? '').filter((n) => n !== ''),
  };
  if ('response' in o && o.response !== undefined && o.response !== null)
    turn.response = responseOf(o.response, at('response'));
  return turn;
}

function responseOf(value: unknown, where: string): NonNullable<Turn['response']> {
  const r = parseWith(ResponseSchema, value, where || '(root)');
  const choice = r.choices[0] as { message: unknown; finish_reason?: string | null };
  return {
    msg: toChatMsg(choice.message, `${where}.choices[0].message`),
    model: r.model,
    finishReason: choice.finish_reason ?? undefined,
    usage: r.usage
      ? { inputTokens: r.usage.prompt_tokens ?? 0, outputTokens: r.usage.completion_tokens ?? 0 }
      : undefined,
    at: r.created !== undefined ? r.created * 1000 : undefined,
  };
}

class ChatRun {
  readonly builder: RunPlanBuilder;
  readonly seen: string[] = [];
  toolNames = new Set<string>();
  model?: string;
  clock: number;
  /** Calls the log gave no id, oldest first: tool messages without a call id answer them in order. */
  private readonly unnamed: string[] = [];
  private calls = 0;

  constructor(
    runId: string,
    private readonly options: ReaderOptions,
    context: RuntimeContextSnapshot,
    readonly startedAt: number,
  ) {
    this.builder = new RunPlanBuilder(runId, { messages: [], ledger: [], runtimeContext: context, at: startedAt });
    this.clock = startedAt;
  }

  private tick(at?: number): number {
    this.clock = at !== undefined ? Math.max(at, this.clock) : this.clock + 1;
    return this.clock;
  }

  continues(messages: ChatMsg[]): boolean {
    if (messages.length < this.seen.length) return false;
    return this.seen.every((text, i) => text === canonicalJson(messages[i]));
  }

  add(m: ChatMsg, meta?: Turn['response']): void {
    this.seen.push(canonicalJson(m));
    const b = this.builder;
    switch (m.role) {
      case 'system':
        b.setSystemPrompt(typeof m.content === 'string' ? m.content : canonicalJson(m.content));
        return;
      case 'user':
        b.addMessage({ role: 'user', content: m.content });
        return;
      case 'assistant': {
        const model = meta?.model ?? this.model;
        if (model) b.setModel({ provider: 'openai', model });
        b.checkpoint('before_model_call', { at: this.tick() });
        const calls = m.calls.map((c) => {
          this.calls++;
          if (c.id !== '' && !b.tool(c.id)) return c;
          // No id (or one used already): a stable one of its own, answered in order.
          const id = `${c.id || 'call'}-${this.calls}`;
          if (c.id === '') this.unnamed.push(id);
          return { ...c, id };
        });
        const parts: unknown[] = [];
        if (typeof m.content === 'string' && m.content !== '') parts.push({ type: 'text', text: m.content });
        else if (Array.isArray(m.content)) parts.push(...(m.content as unknown[]));
        for (const c of calls) parts.push({ type: 'tool_call', toolCallId: c.id, toolName: c.name, args: c.args });
        // Text alone stays a string; tool calls are always parts, whatever the content was ('', null, text).
        b.addMessage({
          role: 'assistant',
          content: calls.length === 0 && typeof m.content === 'string' ? m.content : parts,
        });
        b.checkpoint('after_model_call', {
          at: this.tick(meta?.at),
          finishReason: meta?.finishReason ?? (m.calls.length > 0 ? 'tool_calls' : 'stop'),
          usage: meta?.usage,
        });
        for (const c of calls) {
          this.toolNames.add(c.name);
          b.beginTool({
            toolCallId: c.id,
            toolName: c.name,
            args: c.args,
            sideEffectLevel: this.options.sideEffectOf(c.name),
            startedAt: this.tick(),
          });
        }
        return;
      }
      case 'tool':
        for (const answer of m.answers) {
          const a =
            answer.id === '' || !b.tool(answer.id) ? { ...answer, id: this.unnamed.shift() ?? answer.id } : answer;
          if (!b.tool(a.id) || b.tool(a.id)?.endedAt !== undefined) {
            this.options.warnings.push({
              file: '',
              message: `tool result for ${a.id}, which no assistant message asked for; kept as a message`,
            });
            b.addMessage({ role: 'tool', toolCallId: a.id, toolName: a.name, content: a.result });
            continue;
          }
          if (a.isError)
            b.finishTool(a.id, {
              error: { message: typeof a.result === 'string' ? a.result : 'tool error', content: a.result },
              endedAt: this.tick(),
            });
          else b.finishTool(a.id, { result: a.result, endedAt: this.tick() });
        }
        return;
      default: {
        const unreachable: never = m.role;
        throw new Error(`unknown role ${String(unreachable)}`);
      }
    }
  }
}

function chatContext(file: string, runId: string, model: string | undefined, tools: string[]): RuntimeContextSnapshot {
  return {
    user: { userId: 'unknown', roleId: 'user', permissions: [] },
    conversation: { sessionId: runId },
    project: { projectId: basename(dirname(file)) },
    task: { taskId: basename(file), workflowId: 'openai-chat', stepStates: {} },
    tools: { availableTools: [...tools].sort() },
    model: { provider: 'openai', model: model ?? 'unknown', promptVersion: 'unknown' },
  };
}

export async function readOpenAiChat(file: string, options: ReaderOptions): Promise<ReadPlans> {
  const records: { value: unknown; where: string }[] = [];
  const digest = (await readRecordsWithDigest(file, options, (value, where) => records.push({ value, where }))).slice(
    0,
    12,
  );
  const turns: Turn[] = [];
  for (const { value, where } of assembleChunks(records)) {
    try {
      turns.push(toTurn(value, where));
    } catch (e) {
      const m = /: line (\d+)$/.exec(where);
      options.skip(m ? { file, line: Number(m[1]) } : { file, where: where.slice(file.length + 2) || '(root)' }, e);
    }
  }
  // Run times come from the responses' `created`; the file's modification time only when no record has one.
  const created = turns.map((t) => t.response?.at).find((at) => at !== undefined);
  const base = created ?? Math.floor(statSync(file).mtimeMs);
  const plans: RunPlan[] = [];
  let run: ChatRun | undefined;
  const allTools = new Set(
    turns.flatMap((t) => [
      ...t.tools,
      ...t.messages.flatMap((m) => m.calls.map((c) => c.name)),
      ...(t.response?.msg.calls.map((c) => c.name) ?? []),
    ]),
  );
  const close = () => {
    if (!run) return;
    const open = run.builder.closeUnanswered('the log ends before its result');
    plans.push(
      run.builder.finish({
        sessionId: run.builder.runId,
        agentId: 'openai-chat',
        mode: 'live',
        startedAt: run.startedAt,
        ...planEnd(open, 'the log'),
        metadata: {
          source: { format: 'openai-chat', file, contentHash: digest },
          ...(open.length > 0 ? { unansweredToolCalls: open.map((r) => r.toolCallId) } : {}),
        },
      }),
    );
    run = undefined;
  };
  for (const turn of turns) {
    if (turn.append && run) {
      for (const m of turn.messages) run.add(m);
      continue;
    }
    if (!run || (!turn.append && turn.messages.length > 0 && !run.continues(turn.messages))) {
      close();
      const runId = `oa-${digest}-${plans.length + 1}`;
      const model = turn.model ?? turn.response?.model;
      const at = turn.response?.at ?? base + plans.length * 1000;
      run = new ChatRun(runId, options, chatContext(file, runId, model, [...allTools]), at);
    }
    run.model = turn.model ?? turn.response?.model ?? run.model;
    for (const m of turn.messages.slice(run.seen.length)) run.add(m);
    if (turn.response) run.add(turn.response.msg, turn.response);
  }
  close();
  for (const w of options.warnings) if (w.file === '') w.file = file;
  return { plans, primaryRunId: plans[0]?.runId ?? `oa-${digest}-1`, extraFiles: [] };
}
