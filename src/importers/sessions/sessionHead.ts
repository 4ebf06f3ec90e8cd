/**
 * What the list of coding-agent sessions needs from a session file without
 * importing it: its id, the folder it was run in and a title a person can
 * tell apart from the others (the agent's own summary, else the first prompt
 * the user typed), read from the file's first bytes. Never throws on a
 * malformed file: a line that does not parse is passed over. No store, no
 * vscode.
 */
import { closeSync, readSync } from 'node:fs';
import { openRegularFile } from '../regularFile';

/** Bytes of a JSON Lines session read for its title (a Codex first line holds the instructions: tens of KiB). */
export const HEAD_BYTES = 512 * 1024;
/** A whole-document Gemini chat is parsed for its title only up to this size. */
const WHOLE_JSON_BYTES = 8 * 1024 * 1024;
const TITLE_CHARS = 120;

export interface SessionHead {
  sessionId?: string;
  /** The folder the agent ran in, as the file says (Claude Code `cwd`, Codex `session_meta.cwd`). */
  cwd?: string;
  /** Claude Code: the session a subagent file belongs to (`sessionId` of its lines). */
  parentSessionId?: string;
  /** True when every line read is a sidechain line (a Claude Code subagent transcript). */
  sidechain?: boolean;
  title?: string;
  /** Gemini: the sha256 of the project folder the chat belongs to. */
  projectHash?: string;
}

/** The first `max` bytes of `file` as text (cut at the last whole line when the file is longer). */
export function readHead(file: string, max = HEAD_BYTES): string {
  const fd = openRegularFile(file);
  try {
    const buf = Buffer.alloc(max);
    const n = readSync(fd, buf, 0, max, 0);
    return headText(buf.subarray(0, n), max);
  } finally {
    closeSync(fd);
  }
}

/** A file's first bytes (`bytes`, up to `max` of them) as `readHead` gives them. */
export function headText(bytes: Buffer, max = HEAD_BYTES): string {
  const text = bytes.toString('utf8');
  if (bytes.length < max) return text;
  const cut = text.lastIndexOf('\n');
  return cut >= 0 ? text.slice(0, cut) : text;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

function parseLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      const v: unknown = JSON.parse(t);
      if (isRecord(v)) out.push(v);
    } catch {
      // a line cut by the head's end, or not JSON: the title comes from the others
    }
  }
  return out;
}

/** One line of title: markup the agent adds around commands removed, whitespace folded, cut at TITLE_CHARS. */
export function titleText(raw: string): string | undefined {
  const command = /<command-name>\s*([^<]+?)\s*<\/command-name>/.exec(raw);
  const args = /<command-args>\s*([^<]*?)\s*<\/command-args>/.exec(raw);
  let text = command ? `${command[1]}${args?.[1] ? ` ${args[1]}` : ''}` : raw;
  text = text
    .replace(/<[^>]{1,80}>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return undefined;
  return text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS - 1)}…` : text;
}

/** Text of a message content: a string, or the `text` of its text parts (tool results and images are not prompts). */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === 'tool_result' || part.type === 'function_call_output') return undefined;
    const t = str(part.text);
    if (t) texts.push(t);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** Text Claude Code and Codex put in a user turn that the user did not type. */
const NOT_TYPED = [
  /^\s*Caveat: The messages below were generated/,
  /^\s*<local-command-std(out|err)>/,
  /^\s*<environment_context>/,
  /^\s*<user_instructions>/,
  /^\s*# AGENTS\.md/,
  /^\s*<permissions instructions>/,
  /^\s*\[Request interrupted/,
];
const typed = (text: string | undefined): string | undefined =>
  text !== undefined && !NOT_TYPED.some((re) => re.test(text)) ? titleText(text) : undefined;

/** Claude Code: the newest `summary` line, else the first prompt of a non-meta user line. */
export function claudeHead(file: string): SessionHead {
  const head: SessionHead = {};
  let summary: string | undefined;
  let prompt: string | undefined;
  let sawMain = false;
  let sawSide = false;
  for (const line of parseLines(readHead(file))) {
    if (line.type === 'summary') summary = str(line.summary) ?? summary;
    if (line.type === 'custom-title') summary = str(line.customTitle) ?? summary;
    if (line.type !== 'user' && line.type !== 'assistant') continue;
    head.sessionId ??= str(line.sessionId);
    head.cwd ??= str(line.cwd);
    if (line.isSidechain === true) sawSide = true;
    else sawMain = true;
    if (prompt !== undefined || line.type !== 'user' || line.isMeta === true || !isRecord(line.message)) continue;
    prompt = typed(contentText(line.message.content));
  }
  if (sawSide && !sawMain) {
    head.sidechain = true;
    if (head.sessionId) head.parentSessionId = head.sessionId;
  }
  const title = summary !== undefined ? titleText(summary) : prompt;
  if (title) head.title = title;
  return head;
}

/** Codex: `session_meta` (id, cwd), the first `user_message` event, else the first user message item. */
export function codexHead(file: string): SessionHead {
  return codexHeadOf(readHead(file));
}

/** `codexHead` of a rollout's head as text (`readHead`). */
export function codexHeadOf(text: string): SessionHead {
  const head: SessionHead = {};
  let event: string | undefined;
  let item: string | undefined;
  for (const line of parseLines(text)) {
    const payload = isRecord(line.payload) ? line.payload : undefined;
    if (line.type === 'session_meta' && payload) {
      head.sessionId ??= str(payload.id);
      head.cwd ??= str(payload.cwd);
    } else if (line.type === 'event_msg' && payload?.type === 'user_message') {
      event ??= typed(str(payload.message));
    } else if (line.type === 'response_item' && payload?.type === 'message' && payload.role === 'user') {
      item ??= typed(contentText(payload.content));
    } else if (line.type === undefined && str(line.id) && 'instructions' in line) {
      head.sessionId ??= str(line.id); // the first line of a rollout written before session_meta
    }
    if (event !== undefined) break;
  }
  const title = event ?? item;
  if (title) head.title = title;
  return head;
}

function geminiMessages(doc: Record<string, unknown>, head: SessionHead): unknown[] {
  head.sessionId ??= str(doc.sessionId);
  head.projectHash ??= str(doc.projectHash);
  const summary = str(doc.summary);
  if (summary) head.title = titleText(summary);
  return Array.isArray(doc.messages) ? doc.messages : [];
}

function firstGeminiPrompt(messages: unknown[]): string | undefined {
  for (const m of messages) {
    if (!isRecord(m) || m.type !== 'user') continue;
    const text = typed(contentText(m.content));
    if (text) return text;
  }
  return undefined;
}

/** `geminiHead` of a JSON Lines recording's head as text (`readHead`). */
export function geminiLinesHeadOf(text: string): SessionHead {
  const head: SessionHead = {};
  const messages: unknown[] = [];
  for (const line of parseLines(text)) {
    if (isRecord(line.$set)) geminiMessages(line.$set, head);
    else if ('sessionId' in line || 'projectHash' in line) geminiMessages(line, head);
    else if (line.type !== undefined) messages.push(line);
  }
  head.title ??= firstGeminiPrompt(messages);
  return head;
}

/**
 * Gemini CLI: the chat's `summary`, else its first user message — a whole JSON document (`session-*.json`), or
 * the JSON Lines recording (a header record, message records, `$set` updates).
 */
export function geminiHead(file: string, bytes: number): SessionHead {
  const head: SessionHead = {};
  if (file.endsWith('.jsonl')) return geminiLinesHeadOf(readHead(file));
  if (bytes > WHOLE_JSON_BYTES) return head;
  try {
    const doc: unknown = JSON.parse(readHead(file, bytes + 1));
    if (isRecord(doc)) head.title ??= firstGeminiPrompt(geminiMessages(doc, head));
  } catch {
    // not one JSON document (being written): listed with the agent's name as title
  }
  return head;
}
