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
 * the run's metadata (chatMapper.ts maps each message). A recording's run id is its session's (a grown recording
 * continues its run) and its run keeps where a later import may take it up again (recordingResume.ts); a whole
 * document's carries its content hash. Reads the file; writes nothing.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { parseWith } from '../../model';
import type { ReadPlans, ReaderOptions } from '../reader';
import { fileRange } from '../fileTail';
import { readJsonRecords } from '../jsonRecords';
import { LineHashes } from '../lineHashes';
import { StreamedResume } from '../planDigest';
import { RunPlanBuilder, planEnd, type RunPlan } from '../runPlan';
import { isGeminiChatHeader, replayChatRecords, type ReplayedChat } from './chatRecords';
import { MessageSchema, geminiContext, mapChatMessage, time, type ChatMessage } from './chatMapper';
import { MessageIds, RecordingRecorder, type RecordingState } from './recordingResume';

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

interface ChatRecord {
  value: unknown;
  where: string;
  /** Where a JSON Lines record's line starts, and its number. */
  start?: number;
  lineNo?: number;
}

/** The chat's metadata a run is made of, after each record (what a kept tail takes up again). */
type Meta = RecordingState['meta'];

/** What lets a recording's run keep where its import stopped: its records, as replayed. */
interface RecordingFacts {
  records: ChatRecord[];
  replayed: ReplayedChat;
  /** The chat's metadata before record `r`, and the records before it that wrote a message again. */
  metaBefore: Meta[];
  rewritesBefore: number[];
}

/** The metadata and rewrites before each record of a recording (records that need the whole file: undefined). */
function recordingFacts(records: ChatRecord[], replayed: ReplayedChat): RecordingFacts | undefined {
  if (replayed.rewinds > 0) return undefined;
  const metaBefore: Meta[] = [];
  const rewritesBefore: number[] = [];
  const meta: Record<string, unknown> = {};
  const seen = new Set<string>();
  let rewrites = 0;
  for (const { value, start, lineNo } of records) {
    const o = (value ?? {}) as Record<string, unknown>;
    if (start === undefined || lineNo === undefined) return undefined;
    metaBefore.push(metaOf(meta));
    rewritesBefore.push(rewrites);
    if (typeof o.$set === 'object' && o.$set !== null) {
      if ('messages' in o.$set) return undefined;
      Object.assign(meta, o.$set);
    } else if (typeof o.id === 'string') {
      if (seen.has(o.id)) rewrites++;
      seen.add(o.id);
    } else Object.assign(meta, o);
  }
  return { records, replayed, metaBefore, rewritesBefore };
}

const strOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The metadata fields a run is made of. */
export function metaOf(meta: Record<string, unknown>): Meta {
  const out: Meta = { sessionId: strOf(meta.sessionId) ?? '' };
  for (const k of ['projectHash', 'startTime', 'lastUpdated'] as const) {
    const v = strOf(meta[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** A JSON Lines recording (its first record a header, not a whole document) as the one document it stands for. */
function wholeDocs(
  file: string,
  docs: ChatRecord[],
  options: ReaderOptions,
): { value: unknown; where: string; rewritten?: number; recording?: RecordingFacts }[] {
  if (!isGeminiChatHeader(docs[0]?.value)) return docs;
  let skipped = false;
  const replayed = replayChatRecords(docs, (where, e) => {
    skipped = true;
    const line = /: line (\d+)$/.exec(where);
    options.skip(line ? { file, line: Number(line[1]) } : { file, where }, e);
  });
  const recording = skipped ? undefined : recordingFacts(docs, replayed);
  return [{ value: replayed.doc, where: file, rewritten: replayed.rewritten, ...(recording ? { recording } : {}) }];
}

export async function readGeminiChat(file: string, options: ReaderOptions): Promise<ReadPlans> {
  const docs: ChatRecord[] = [];
  // a recording's text and bytes hashed in one pass, its state kept for the import that reads it grown; a document's
  // text hashed whole
  const hashes = await LineHashes.create();
  const docHash = createHash('sha256');
  let asLines = false;
  let bytes = 0;
  for await (const rec of readJsonRecords(file, {
    spread: true,
    signal: options.signal,
    warnings: options.warnings,
    onBytes: (b) => {
      bytes = b;
      options.onBytes?.(file, b);
    },
    onLine: (line) => {
      asLines = true;
      hashes.line(line);
    },
    onText: (t, b) => docHash.update(b ?? t),
    strict: options.strict,
    onSkip: (line, reason) => options.skip({ file, line }, new Error(reason)),
  })) {
    const lineNo = /^line (\d+)$/.exec(rec.where)?.[1];
    docs.push({
      value: rec.value,
      where: rec.where ? `${file}: ${rec.where}` : file,
      ...(rec.start !== undefined && lineNo !== undefined ? { start: rec.start, lineNo: Number(lineNo) } : {}),
    });
  }
  const digests = asLines ? hashes.digests() : undefined;
  const digest = (digests ? digests.text : docHash.digest('hex')).slice(0, 10);
  const plans: RunPlan[] = [];
  // a JSON Lines recording is appended to: its run is the session's, continued when the file grows (growth.ts);
  // a whole document is written again each time, so each content is a run of its own
  const recording = isGeminiChatHeader(docs[0]?.value);
  for (const doc of wholeDocs(file, docs, options)) {
    const session = parseWith(SessionSchema, doc.value, doc.where);
    const messages: ChatMessage[] = [];
    let skipped = false;
    session.messages.forEach((m, i) => {
      try {
        messages.push(parseWith(MessageSchema, m, `${doc.where}: messages[${i}]`));
      } catch (e) {
        skipped = true;
        options.skip({ file, where: `messages[${i}]` }, e);
      }
    });
    const model = messages.find((m) => m.model)?.model ?? 'unknown';
    const startedAt = time(session.startTime) ?? time(messages[0]?.timestamp) ?? 0;
    const suffix = recording ? options.idSuffix : digest;
    const runId = `gemini-${session.sessionId}${suffix !== undefined ? `-${suffix}` : ''}`;
    const ctx = geminiContext(session.sessionId, session.projectHash ?? undefined, model);
    const tools = new Set(messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.name)));
    ctx.tools.availableTools = [...tools].sort();
    const b = new RunPlanBuilder(runId, { messages: [], ledger: [], runtimeContext: ctx, at: startedAt });
    const notes: { type: string; content: unknown }[] = [];
    const facts = skipped ? undefined : doc.recording;
    const recorder = facts ? new RecordingRecorder(b) : undefined;
    let lastRecord = -1;
    messages.forEach((m, i) => {
      const span = facts?.replayed.spans[i];
      if (recorder && facts && span && i > 0) {
        const first = facts.records[span.first] as Required<ChatRecord>;
        const noteCount = notes.length;
        recorder.before(first.start, first.lineNo, lastRecord < span.first, () => ({
          ids: MessageIds.pack(messages.slice(0, i).map((x) => x.id ?? '')),
          notes: noteCount,
          tools: [...new Set(messages.slice(0, i).flatMap((x) => (x.toolCalls ?? []).map((c) => c.name)))].sort(),
          ...((x) => (x ? { model: x } : {}))(messages.slice(0, i).find((x) => x.model)?.model ?? undefined),
          meta: facts.metaBefore[span.first] as Meta,
          rewritten: facts.rewritesBefore[span.first] as number,
        }));
      }
      mapChatMessage(b, m, options, notes);
      if (span) lastRecord = Math.max(lastRecord, span.last);
    });
    const end = time(session.lastUpdated);
    const open = b.closeUnanswered('the chat ends before its result');
    const source: Record<string, unknown> = { format: 'gemini-cli', file, contentHash: digest };
    const plan = b.finish({
      sessionId: session.sessionId,
      agentId: 'gemini-cli',
      mode: 'live',
      startedAt,
      ...(end !== undefined ? { endedAt: Math.max(end, b.lastTimestamp) } : {}),
      ...planEnd(open, 'the chat'),
      metadata: {
        source,
        ...(doc.rewritten ? { rewrittenMessages: doc.rewritten } : {}),
        ...(session.projectHash ? { projectHash: session.projectHash } : {}),
        ...(notes.length > 0 ? { notes } : {}),
      },
    });
    if (recording && digests) {
      // the run's resume facts (growth.ts) from this one pass, and where a later import of the grown file goes on
      const kept = (recorder ?? new RecordingRecorder(b)).result({
        plan,
        resume: new StreamedResume(plan),
        read: fileRange(file),
        bytes,
        sha: hashes.state(),
      });
      plan.metadata.source = {
        ...source,
        bytes,
        sha256: digests.raw,
        resume: kept.resume,
        ...(kept.tail ? { tail: kept.tail } : {}),
      };
    }
    plans.push(plan);
  }
  return { plans, primaryRunId: plans[0]?.runId ?? `gemini-none-${digest}`, extraFiles: [] };
}
