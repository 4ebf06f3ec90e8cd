/**
 * Tells the format of a trace file from its first bytes: Claude Code JSONL
 * lines (type + uuid/sessionId), OTLP JSON (resourceSpans), or OpenAI chat
 * logs (messages / request-response / role). Reads at most 64 KiB.
 */
import { openSync, readSync, closeSync } from 'node:fs';
import type { ImportFormat } from './types';

const HEAD_BYTES = 64 * 1024;
const CLAUDE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'progress',
  'file-history-snapshot',
  'queue-operation',
]);

export type SniffResult = { format: ImportFormat } | { empty: true } | { unknown: string };

function readHead(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function classify(value: unknown): ImportFormat | undefined {
  if (Array.isArray(value)) {
    const first = value[0] as Record<string, unknown> | undefined;
    if (first && typeof first === 'object' && ('role' in first || 'messages' in first || 'request' in first))
      return 'openai-chat';
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const o = value as Record<string, unknown>;
  if ('resourceSpans' in o || 'resourceLogs' in o) return 'otel';
  if (
    typeof o.type === 'string' &&
    CLAUDE_TYPES.has(o.type) &&
    ('uuid' in o || 'sessionId' in o || 'leafUuid' in o || 'messageId' in o)
  ) {
    return 'claude-code';
  }
  if ('messages' in o || 'request' in o || 'response' in o || 'choices' in o || 'role' in o) return 'openai-chat';
  return undefined;
}

export function sniffFormat(file: string): SniffResult {
  const head = readHead(file);
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text === '') return { empty: true };
  const firstLine = text.split('\n', 1)[0] as string;
  try {
    const format = classify(JSON.parse(firstLine));
    if (format) return { format };
  } catch {
    // not one JSON value per line: a pretty-printed document, or cut at 64 KiB
  }
  if (/"resourceSpans"\s*:/.test(text)) return { format: 'otel' };
  if (/"parentUuid"\s*:/.test(text) && /"sessionId"\s*:/.test(text)) return { format: 'claude-code' };
  // A first line longer than the head (a big snapshot or tool result) still starts like a transcript line.
  if (/^\{"(type|parentUuid|leafUuid|messageId)":/.test(text) && /"(sessionId|leafUuid|messageId|uuid)":/.test(text)) {
    return { format: 'claude-code' };
  }
  if (/"role"\s*:\s*"(user|assistant|system|tool)"/.test(text)) return { format: 'openai-chat' };
  return { unknown: 'neither a Claude Code transcript, an OpenAI chat log nor OTLP JSON traces' };
}
