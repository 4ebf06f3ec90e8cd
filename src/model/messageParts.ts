/**
 * Reading message content the way every view needs it: plain text and the
 * tool calls an assistant message asks for. Content is a string or an array of
 * parts; this project writes tool calls as
 * `{ type: 'tool_call', toolCallId, toolName, args }` and also understands the
 * Anthropic (`tool_use`) and OpenAI (`tool_calls`) shapes. Pure.
 */
import type { Message } from './checkpoint';

export interface ToolCallPart {
  type: 'tool_call';
  toolCallId: string;
  toolName: string;
  args: unknown;
}

export interface TextPart {
  type: 'text';
  text: string;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The text of a message: a string content, or its text parts joined by newlines; non-text content as JSON. */
export function messageText(message: Pick<Message, 'content'>): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts: string[] = [];
    for (const part of content) {
      const p = asRecord(part);
      if (p && typeof p.text === 'string') texts.push(p.text);
      else if (typeof part === 'string') texts.push(part);
    }
    return texts.join('\n');
  }
  if (content === undefined || content === null) return '';
  return JSON.stringify(content);
}

/** The tool calls an assistant message requests, in order, whatever shape they were recorded in. */
export function messageToolCalls(message: Message): ToolCallPart[] {
  const calls: ToolCallPart[] = [];
  if (Array.isArray(message.content)) {
    for (const part of message.content) {
      const p = asRecord(part);
      if (!p) continue;
      if (p.type === 'tool_call' && typeof p.toolCallId === 'string' && typeof p.toolName === 'string') {
        calls.push({ type: 'tool_call', toolCallId: p.toolCallId, toolName: p.toolName, args: p.args });
      } else if (p.type === 'tool_use' && typeof p.id === 'string' && typeof p.name === 'string') {
        calls.push({ type: 'tool_call', toolCallId: p.id, toolName: p.name, args: p.input });
      }
    }
  }
  const openAi = (message as Record<string, unknown>).tool_calls;
  if (Array.isArray(openAi)) {
    for (const c of openAi) {
      const call = asRecord(c);
      const fn = asRecord(call?.function);
      if (!call || !fn || typeof call.id !== 'string' || typeof fn.name !== 'string') continue;
      let args: unknown = fn.arguments;
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args);
        } catch {
          // keep the raw string: a model may emit invalid JSON arguments
        }
      }
      calls.push({ type: 'tool_call', toolCallId: call.id, toolName: fn.name, args });
    }
  }
  return calls;
}
