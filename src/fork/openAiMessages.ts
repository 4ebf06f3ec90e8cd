/**
 * Conversion between this project's messages (tool calls as content parts)
 * and the OpenAI chat-completions wire format, and the zod schema of a
 * chat-completions response. Pure.
 */
import { z } from 'zod';
import { messageText, messageToolCalls, type Message } from '../model';

export interface OpenAiMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** Our conversation (plus system prompt) as OpenAI messages. */
export function toOpenAiMessages(systemPrompt: string | undefined, messages: readonly Message[]): OpenAiMessage[] {
  const out: OpenAiMessage[] = [];
  if (systemPrompt) out.push({ role: 'system', content: systemPrompt });
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'user':
        out.push({ role: m.role, content: messageText(m) });
        break;
      case 'assistant': {
        const calls = messageToolCalls(m);
        const msg: OpenAiMessage = { role: 'assistant', content: messageText(m) || null };
        if (calls.length > 0) {
          msg.tool_calls = calls.map((c) => ({
            id: c.toolCallId,
            type: 'function',
            function: { name: c.toolName, arguments: JSON.stringify(c.args ?? {}) },
          }));
        }
        out.push(msg);
        break;
      }
      case 'tool':
        out.push({
          role: 'tool',
          tool_call_id: m.toolCallId ?? '',
          content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? null),
        });
        break;
      default: {
        const unreachable: never = m.role;
        throw new Error(`unknown message role ${String(unreachable)}`);
      }
    }
  }
  return out;
}

export const ChatCompletionSchema = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({
          role: z.string().optional(),
          content: z.string().nullable().optional(),
          tool_calls: z
            .array(
              z.object({
                id: z.string(),
                type: z.string().optional(),
                function: z.object({ name: z.string(), arguments: z.string() }),
              }),
            )
            .optional(),
        }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1, 'the response has no choices'),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).optional(),
});
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;

/** The first choice as our assistant message: text part plus tool_call parts (arguments parsed when they are JSON). */
export function fromOpenAiChoice(completion: ChatCompletion): { message: Message; finishReason?: string } {
  const choice = completion.choices[0] as ChatCompletion['choices'][number];
  const calls = choice.message.tool_calls ?? [];
  const text = choice.message.content ?? '';
  const content: unknown[] = [];
  if (text) content.push({ type: 'text', text });
  for (const c of calls) {
    let args: unknown = c.function.arguments;
    try {
      args = JSON.parse(c.function.arguments);
    } catch {
      // keep the raw string: a model may emit invalid JSON arguments, and the tool should see what it sent
    }
    content.push({ type: 'tool_call', toolCallId: c.id, toolName: c.function.name, args });
  }
  const message: Message = { role: 'assistant', content: calls.length === 0 ? text : content };
  return choice.finish_reason ? { message, finishReason: choice.finish_reason } : { message };
}
