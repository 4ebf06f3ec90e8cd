/**
 * The format registry: for every trace format, how its content is
 * recognised (`ocdb import` sniffs each file with these, in this order: the
 * most specific first) and the reader that maps it to RunPlans. Adding a
 * format is one entry here and its name in IMPORT_FORMATS (types.ts). No I/O
 * of its own.
 */
import { prepareClaudeCodeSession, readClaudeCodeSession } from './claudeCode/importSession';
import { importSessionTail } from './claudeCode/tailImport';
import { isCodexLine, readCodexRollout } from './codex/importCodexRollout';
import { importRolloutTail } from './codex/rolloutTail';
import type { ByteRange, TailOutcome } from './fileTail';
import type { RunStore } from '../store';
import { isGeminiChat, readGeminiChat } from './gemini/importGeminiChat';
import { importRecordingTail } from './gemini/recordingTail';
import type { PreparedRead, ReadPlans, ReaderOptions } from './reader';
import { readOpenAiChat } from './openai/importOpenAiChat';
import { isResponsesRecord, readOpenAiResponses } from './openai/importResponses';
import { isAgentsTrace, readAgentsTrace } from './openaiAgents/importAgentsTrace';
import { readOtlpTraces } from './otel/importOtlp';
import { readReplayTurns } from './replayTurns/importReplayTurns';
import type { ImportFormat } from './types';

/** What a recogniser sees: the first JSON value of the file when its first line parses, and the file's head text. */
export interface SniffInput {
  first: unknown;
  head: string;
}

export interface FormatSpec {
  format: ImportFormat;
  /** How the content is recognised, for the "format not recognised" message and the formats reference (media/docs/reference/formats.md). */
  recognisedBy: string;
  recognise: (input: SniffInput) => boolean;
  read: (file: string, options: ReaderOptions) => Promise<ReadPlans>;
  /**
   * Reads the file for its structure only, to map it once — what lets a new file's runs be written while they
   * are mapped (importFile `importStreamed`), so memory does not grow with the file. `read` is `prepare` + `build`.
   */
  prepare?: (file: string, options: ReaderOptions) => Promise<PreparedRead>;
  /**
   * The file grows while its producer runs (a session log): run ids come from the session, not the content, and
   * a re-import of the grown file continues its runs (growth.ts). The reader appends `ReaderOptions.idSuffix`
   * to its ids when given (a file whose runs cannot be continued is imported as new runs).
   */
  grows?: true;
  /**
   * A file that grows and was imported before: continues its run from where the last import stopped, reading only
   * the bytes after it (fileTail.ts) — or answers `fallback`, and the file is read whole.
   */
  tail?: (
    store: RunStore,
    file: string,
    options: ReaderOptions,
    read: ByteRange,
    onCheckpoint?: () => void,
  ) => Promise<TailOutcome>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const CLAUDE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'progress',
  'file-history-snapshot',
  'queue-operation',
]);

function claudeCode({ first, head }: SniffInput): boolean {
  if (isObj(first)) {
    // A stored Claude Agent SDK session row (open-agent-kernel's oak_session_entries): the entry under `entry`.
    if ('entry' in first && 'sessionId' in first && !('type' in first)) return true;
    return (
      typeof first.type === 'string' &&
      CLAUDE_TYPES.has(first.type) &&
      ('uuid' in first || 'sessionId' in first || 'leafUuid' in first || 'messageId' in first)
    );
  }
  if (first !== undefined) return false;
  if (/"parentUuid"\s*:/.test(head) && /"sessionId"\s*:/.test(head)) return true;
  // A first line longer than the head (a big snapshot or tool result) still starts like a transcript line.
  return /^\{"(type|parentUuid|leafUuid|messageId)":/.test(head) && /"(sessionId|leafUuid|messageId|uuid)":/.test(head);
}

/** outpost's ReplayTurn[] (seed 003): turns with `prompt` and `events`, as `ocdb export --format replay-turns` writes. */
function replayTurns({ first, head }: SniffInput): boolean {
  if (Array.isArray(first)) {
    const f = first[0] as unknown;
    return isObj(f) && 'prompt' in f && 'events' in f;
  }
  if (isObj(first)) return 'prompt' in first && 'events' in first && 'usage' in first;
  return /^\[?\s*\{\s*"prompt"\s*:/.test(head) && /"events"\s*:/.test(head);
}

function openAiChat({ first, head }: SniffInput): boolean {
  if (Array.isArray(first)) {
    const f = first[0] as unknown;
    return isObj(f) && ('role' in f || 'messages' in f || 'request' in f);
  }
  if (isObj(first))
    return 'messages' in first || 'request' in first || 'response' in first || 'choices' in first || 'role' in first;
  return /"role"\s*:\s*"(user|assistant|system|tool)"/.test(head);
}

/** Every format, in sniffing order. */
export const FORMAT_SPECS: readonly FormatSpec[] = [
  {
    format: 'claude-code',
    recognisedBy:
      'JSON Lines whose lines have a Claude Code `type` (user, assistant, system, summary, ...) and `uuid` / `sessionId`; or stored session rows `{ sessionId, entry }` (open-agent-kernel)',
    recognise: claudeCode,
    read: readClaudeCodeSession,
    prepare: prepareClaudeCodeSession,
    grows: true,
    tail: importSessionTail,
  },
  {
    format: 'codex',
    recognisedBy:
      'JSON Lines of `{ timestamp, type: session_meta | turn_context | response_item | event_msg, payload }` (Codex CLI rollouts)',
    recognise: ({ first }) => isCodexLine(first),
    read: readCodexRollout,
    grows: true,
    tail: importRolloutTail,
  },
  {
    format: 'gemini-cli',
    recognisedBy:
      'a JSON document `{ sessionId, projectHash, startTime, messages: [{ type: user | gemini, ... }] }`, or JSON Lines opening with `{ sessionId, projectHash, startTime }` (Gemini CLI chats)',
    recognise: ({ first, head }) =>
      first !== undefined ? isGeminiChat(first) : /"projectHash"\s*:/.test(head) && /"messages"\s*:/.test(head),
    read: readGeminiChat,
    grows: true,
    tail: importRecordingTail,
  },
  {
    format: 'openai-agents',
    recognisedBy:
      'OpenAI Agents SDK trace exports: `{ data: [...] }` or lines of `object: "trace"` / `"trace.span"` with `span_data`',
    recognise: ({ first, head }) =>
      first !== undefined ? isAgentsTrace(first) : /"object"\s*:\s*"trace\.span"/.test(head),
    read: readAgentsTrace,
  },
  {
    format: 'openai-responses',
    recognisedBy:
      'OpenAI Responses API objects (`object: "response"` with `output` items), alone or as `{ request, response }`',
    recognise: ({ first, head }) =>
      first !== undefined
        ? isResponsesRecord(first)
        : /"object"\s*:\s*"response"/.test(head) && /"output"\s*:/.test(head),
    read: readOpenAiResponses,
  },
  {
    format: 'otel',
    recognisedBy: 'OTLP JSON export requests (`resourceSpans`, `resourceLogs`)',
    recognise: ({ first, head }) =>
      isObj(first) ? 'resourceSpans' in first || 'resourceLogs' in first : /"resource(Spans|Logs)"\s*:/.test(head),
    read: readOtlpTraces,
  },
  {
    format: 'replay-turns',
    recognisedBy:
      'outpost ReplayTurn JSON: an array of `{ prompt, events, usage, ... }` turns (ocdb export --format replay-turns)',
    recognise: replayTurns,
    read: readReplayTurns,
  },
  {
    format: 'openai-chat',
    recognisedBy:
      'OpenAI chat logs: message arrays, `{ request, response }` pairs, chat.completion(.chunk) objects, messages one a line (Vercel AI SDK parts too)',
    recognise: openAiChat,
    read: readOpenAiChat,
  },
];

export function formatSpec(format: ImportFormat): FormatSpec {
  const spec = FORMAT_SPECS.find((s) => s.format === format);
  if (!spec) throw new Error(`no reader registered for format ${format}`);
  return spec;
}
