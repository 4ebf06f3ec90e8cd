/**
 * Entries that keep where their line is instead of their content: a session is read twice — once for its tree
 * and facts (every line validated with zod there, entries.ts), once, while it is written, for the content of the
 * lines the runs take — so a transcript costs memory for its tree, not its text. The content read again is the
 * validated line's (the file is checked unchanged before the write commits: importFile), shaped as the
 * validating parse shaped it (a block's `type` first), without a second validation. An entry kept so is an
 * object of one fixed shape with plain fields (its line's source, start and length among them) and the content
 * as a getter of its class, so a line costs a few dozen bytes beside its ids; the strings a line repeats from the
 * one before (its parent's uuid, its response's message and request ids, the model) are kept once. Reads the file.
 */
import { sessionEntryOf } from './sessionRows';
import type { AssistantEntry, ContentBlock, Entry, Usage4, UserEntry } from './entries';
import type { LineSource } from '../lineReader';

/** A block as `BlockSchema` (a loose object with `type`) returns it: `type` first, the other keys in order. */
function blockOf(raw: unknown): ContentBlock {
  const b = raw as ContentBlock;
  return Object.assign({ type: b.type }, b);
}

/** The last line read of each source: a mapper looks at an entry's content a few times in a row. */
const lastRead = new WeakMap<LineSource, { start: number; content: unknown }>();

/**
 * A line's top-level `toolUseResult` member, as Claude Code writes it: after `message`, and holding the tool's result
 * again (with the file's whole text for a Read, a patch for an Edit: two fifths of a transcript's bytes). Nothing
 * but the message is read again, so the line is parsed only up to there. The bytes can only be a key: inside a JSON
 * string a quote is escaped. If they are not the top level's (a tool's arguments with such a key), the cut line does
 * not parse, or has no message, and the whole line is read.
 */
const TOOL_USE_RESULT = Buffer.from(',"toolUseResult":');

/** The line's entry up to its `toolUseResult` (see TOOL_USE_RESULT), or undefined when that is not the line's message. */
function entryBeforeToolUseResult(source: LineSource, start: number, length: number): unknown {
  const head = source.textBefore(start, length, TOOL_USE_RESULT);
  if (head === undefined) return undefined;
  try {
    const value = JSON.parse(`${head}}`) as { message?: { content?: unknown } };
    return typeof value.message === 'object' && value.message !== null && 'content' in value.message
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}

function messageContent(source: LineSource, start: number, length: number, shape: (c: unknown) => unknown): unknown {
  const last = lastRead.get(source);
  if (last?.start === start) return last.content;
  const value = sessionEntryOf(
    entryBeforeToolUseResult(source, start, length) ?? JSON.parse(source.text(start, length)),
  ) as { message: { content: unknown } };
  const content = shape(value.message.content);
  lastRead.set(source, { start, content });
  return content;
}

const userContent = (c: unknown): string | ContentBlock[] =>
  typeof c === 'string' ? c : (c as unknown[]).map(blockOf);
const assistantBlocks = (c: unknown): ContentBlock[] =>
  typeof c === 'string' ? [{ type: 'text', text: c }] : (c as unknown[]).map(blockOf);

class LazyUserEntry implements UserEntry {
  readonly kind = 'user';
  lineNo: number;
  uuid: string;
  parent: string | undefined;
  at: number | undefined;
  sidechain: boolean;
  agentId: string | undefined;
  isCompactSummary: boolean;
  isMeta: boolean;
  subagentId: string | undefined;
  toolResults: string[] | undefined;
  constructor(
    e: UserEntry,
    private readonly source: LineSource,
    private readonly start: number,
    private readonly length: number,
  ) {
    this.lineNo = e.lineNo;
    this.uuid = e.uuid;
    this.parent = e.parent;
    this.at = e.at;
    this.sidechain = e.sidechain;
    this.agentId = e.agentId;
    this.isCompactSummary = e.isCompactSummary;
    this.isMeta = e.isMeta;
    this.subagentId = e.subagentId;
    this.toolResults = e.toolResults;
  }
  get content(): string | ContentBlock[] {
    return messageContent(this.source, this.start, this.length, userContent) as string | ContentBlock[];
  }
}

class LazyAssistantEntry implements AssistantEntry {
  readonly kind = 'assistant';
  lineNo: number;
  uuid: string;
  parent: string | undefined;
  at: number | undefined;
  sidechain: boolean;
  agentId: string | undefined;
  messageId: string | undefined;
  requestId: string | undefined;
  model: string | undefined;
  stopReason: string | undefined;
  usage: Usage4 | undefined;
  apiError: boolean;
  constructor(
    e: AssistantEntry,
    private readonly source: LineSource,
    private readonly start: number,
    private readonly length: number,
  ) {
    this.lineNo = e.lineNo;
    this.uuid = e.uuid;
    this.parent = e.parent;
    this.at = e.at;
    this.sidechain = e.sidechain;
    this.agentId = e.agentId;
    this.messageId = e.messageId;
    this.requestId = e.requestId;
    this.model = e.model;
    this.stopReason = e.stopReason;
    this.usage = e.usage;
    this.apiError = e.apiError;
  }
  get blocks(): ContentBlock[] {
    return messageContent(this.source, this.start, this.length, assistantBlocks) as ContentBlock[];
  }
}

/**
 * Keeps the strings entries repeat once: a line's parent is most often the line before it, the lines of one
 * response share its ids, and a session has a few models and agents.
 */
export class EntryStrings {
  private last: { uuid?: string; messageId?: string; requestId?: string } = {};
  private readonly few = new Map<string, string>();

  private once(s: string | undefined): string | undefined {
    if (s === undefined) return undefined;
    const had = this.few.get(s);
    if (had !== undefined) return had;
    if (this.few.size < 256) this.few.set(s, s);
    return s;
  }

  share<E extends Entry>(e: E): E {
    if (e.parent !== undefined && e.parent === this.last.uuid) e.parent = this.last.uuid;
    if (e.agentId !== undefined) e.agentId = this.once(e.agentId);
    if (e.kind === 'assistant') {
      if (e.messageId !== undefined && e.messageId === this.last.messageId) e.messageId = this.last.messageId;
      if (e.requestId !== undefined && e.requestId === this.last.requestId) e.requestId = this.last.requestId;
      e.model = this.once(e.model);
      this.last.messageId = e.messageId;
      this.last.requestId = e.requestId;
    }
    this.last.uuid = e.uuid;
    return e;
  }
}

/**
 * `entry` kept by where its line is: a user line's `content`, an assistant line's `blocks` read from the line when
 * asked (the line last read of a file is remembered: the same content again); entries of other kinds carry none
 * and are returned as they are.
 */
export function lazyEntry(entry: Entry, source: LineSource, start: number, length: number): Entry {
  if (entry.kind === 'user') return new LazyUserEntry(entry, source, start, length);
  if (entry.kind === 'assistant') return new LazyAssistantEntry(entry, source, start, length);
  return entry;
}
