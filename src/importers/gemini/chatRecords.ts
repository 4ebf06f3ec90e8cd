/**
 * The Gemini CLI's JSON Lines chat recording (`chats/session-*.jsonl`), replayed into the whole-document shape
 * `{ sessionId, projectHash, startTime, lastUpdated, messages }` the chat reader maps. The file is appended to and
 * never rewritten, so it is read from its first line in order:
 * - a header record (`sessionId`, `projectHash`, `startTime`, `kind`) is the session's metadata;
 * - a message record (an `id`) adds a message, or replaces the message with that id — the CLI writes a model
 *   message when the turn starts and again, under the same id, with its tool calls, results and tokens;
 * - `{ "$set": { … } }` merges into the metadata (`lastUpdated`, `summary`, …); a `$set` of `messages` replaces
 *   every message (the injected session context, a resumed history);
 * - `{ "$rewindTo": id }` drops that message and every one after it (all of them when the id is unknown).
 * A record of none of these shapes is skipped with the reason. Pure.
 */
import { z } from 'zod';
import { parseWith } from '../../model';

/** What a record is; each shape parses with zod where the file's data enters. */
const RewindRecord = z.looseObject({ $rewindTo: z.string() });
const SetRecord = z.looseObject({ $set: z.record(z.string(), z.unknown()) });
const MessageRecord = z.looseObject({ id: z.string().min(1), type: z.string().min(1) });
const HeaderRecord = z.looseObject({ sessionId: z.string().min(1) });

/** True for the header line of a JSON Lines chat recording (its first record). */
export function isGeminiChatHeader(v: unknown): boolean {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.sessionId === 'string' &&
    typeof o.projectHash === 'string' &&
    !('messages' in o) &&
    ('startTime' in o || 'kind' in o)
  );
}

export interface ReplayedChat {
  /** The session as one document: the metadata merged, the messages as the last record of each id left them. */
  doc: Record<string, unknown>;
  /** How many message records replaced an earlier copy of their message (a model turn written twice). */
  rewritten: number;
  rewinds: number;
  /** For each message, the index of its first and last record among those replayed. */
  spans: { first: number; last: number }[];
}

/**
 * Where a replay goes on from (gemini/recordingTail.ts): the metadata and the rewrites counted so far, and the ids
 * of the messages before, which no record may change or rewind any more (such a record throws: the file is read
 * whole).
 */
export interface ReplayStart {
  meta: Record<string, unknown>;
  rewritten: number;
  earlier: (id: string) => boolean;
}

/** Replays the records of one chat recording, in file order; `skip` hears a record of no known shape. */
export function replayChatRecords(
  records: readonly { value: unknown; where: string }[],
  skip: (where: string, error: unknown) => void,
  start?: ReplayStart,
): ReplayedChat {
  const meta: Record<string, unknown> = { ...start?.meta };
  let messages: Record<string, unknown>[] = [];
  let rewritten = start?.rewritten ?? 0;
  let rewinds = 0;
  let spans: { first: number; last: number }[] = [];
  for (const [index, { value, where }] of records.entries()) {
    try {
      const o = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
      if (start && ('$rewindTo' in o || (o.$set && typeof o.$set === 'object' && 'messages' in o.$set)))
        throw new Error(`${where}: a rewind of earlier messages`);
      if (start && typeof o.id === 'string' && start.earlier(o.id))
        throw new Error(`${where}: rewrites an earlier message`);
      if ('$rewindTo' in o) {
        const r = parseWith(RewindRecord, value, where);
        const at = messages.findIndex((m) => m.id === r.$rewindTo);
        messages = at < 0 ? [] : messages.slice(0, at);
        spans = at < 0 ? [] : spans.slice(0, at);
        rewinds++;
      } else if ('$set' in o) {
        const { $set } = parseWith(SetRecord, value, where);
        const { messages: all, ...rest } = $set;
        Object.assign(meta, rest);
        if (all !== undefined) {
          const list = parseWith(z.array(MessageRecord), all, `${where}: $set.messages`);
          messages = list.map((m) => ({ ...m }));
          spans = list.map(() => ({ first: index, last: index }));
        }
      } else if ('id' in o) {
        const m = parseWith(MessageRecord, value, where);
        const at = messages.findIndex((x) => x.id === m.id);
        if (at < 0) {
          messages.push({ ...m });
          spans.push({ first: index, last: index });
        } else {
          messages[at] = { ...m };
          (spans[at] as { last: number }).last = index;
          rewritten++;
        }
      } else if ('sessionId' in o) {
        Object.assign(meta, parseWith(HeaderRecord, value, where));
      } else {
        throw new Error(`${where}: not a Gemini chat record (no id, $set, $rewindTo or sessionId)`);
      }
    } catch (e) {
      skip(where, e);
    }
  }
  return { doc: { ...meta, messages }, rewritten, rewinds, spans };
}
