/**
 * Entries that keep where their line is instead of their content: a session is read twice — once for its tree
 * and facts (every line validated with zod there, entries.ts), once, while it is written, for the content of the
 * lines the runs take — so a transcript costs memory for its tree, not its text. The content read again is the
 * validated line's (the file is checked unchanged before the write commits: importFile), shaped as the
 * validating parse shaped it (a block's `type` first), without a second validation. Reads the file.
 */
import { sessionEntryOf } from './sessionRows';
import type { ContentBlock, Entry } from './entries';
import type { LineSource } from '../lineReader';

/** A block as `BlockSchema` (a loose object with `type`) returns it: `type` first, the other keys in order. */
function blockOf(raw: unknown): ContentBlock {
  const b = raw as ContentBlock;
  return Object.assign({ type: b.type }, b);
}

/** The last line read of each source: a mapper looks at an entry's content a few times in a row. */
const lastRead = new WeakMap<LineSource, { start: number; content: unknown }>();

function messageContent(source: LineSource, start: number, length: number, shape: (c: unknown) => unknown): unknown {
  const last = lastRead.get(source);
  if (last?.start === start) return last.content;
  const value = sessionEntryOf(JSON.parse(source.text(start, length))) as { message: { content: unknown } };
  const content = shape(value.message.content);
  lastRead.set(source, { start, content });
  return content;
}

const userContent = (c: unknown): string | ContentBlock[] =>
  typeof c === 'string' ? c : (c as unknown[]).map(blockOf);
const assistantBlocks = (c: unknown): ContentBlock[] =>
  typeof c === 'string' ? [{ type: 'text', text: c }] : (c as unknown[]).map(blockOf);

/**
 * Makes `entry`'s content (a user line's `content`, an assistant line's `blocks`) read from its line when asked;
 * entries of other kinds carry none. The line last read of a file is remembered (the same content again).
 */
export function lazyContent(entry: Entry, source: LineSource, start: number, length: number): void {
  if (entry.kind === 'user') {
    Object.defineProperty(entry, 'content', {
      enumerable: true,
      configurable: true,
      get: () => messageContent(source, start, length, userContent) as string | ContentBlock[],
    });
  } else if (entry.kind === 'assistant') {
    Object.defineProperty(entry, 'blocks', {
      enumerable: true,
      configurable: true,
      get: () => messageContent(source, start, length, assistantBlocks) as ContentBlock[],
    });
  }
}
