/**
 * Re-import of a Gemini CLI chat recording (JSON Lines) that grew, reading only its new lines: the run's import kept
 * where it stopped (`metadata.source.tail`, recordingResume.ts); fileTail.ts checks the file's first bytes and the
 * window before that end unchanged and gives the new complete lines; the records from the kept offset on are
 * replayed from the chat's kept state (chatRecords.ts) and their messages mapped from the store's last kept
 * checkpoint, written through the one writer — what a whole read of the recording continues the run with
 * (growth.ts), at the cost of the new lines. Anything it cannot prove the same answers `fallback` and the recording
 * is read whole: a file rewritten or shorter, a record that does not read, a message written again that was before
 * the kept place, a rewind or a `$set` of the messages, a change of the session's facts, a new tool or first model
 * (the run's context is made of the whole chat's), a call id used before. The whole-document chat file is written
 * anew each time and is always read whole. Reads files; writes only inside the store transaction it opens.
 */
import { statSync } from 'node:fs';
import { parseWith } from '../../model';
import type { RunStore } from '../../store';
import {
  CHECKED_BYTES,
  NeedsWholeRead,
  parsedTailLines,
  readGrownFile,
  sourceSchema,
  type ByteRange,
  type TailOutcome,
} from '../fileTail';
import { StreamedResume } from '../planDigest';
import type { ReaderOptions } from '../reader';
import { planEnd, type PlanOp } from '../runPlan';
import { HEAD_BYTES, geminiLinesHeadOf, headText } from '../sessions/sessionHead';
import { continuedSource, keptRun, reopenAtTail, writeContinued } from '../tailRun';
import { MessageSchema, geminiContext, mapChatMessage, time, type ChatMessage } from './chatMapper';
import { isGeminiChatHeader, replayChatRecords } from './chatRecords';
import { metaOf } from './importGeminiChat';
import { MessageIds, RecordingRecorder, RecordingTailSchema, type RecordingTail } from './recordingResume';

const SourceSchema = sourceSchema('gemini-cli', RecordingTailSchema);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A record the title is read from (sessions/sessionHead.ts `geminiLinesHeadOf`). */
const titleRecord = (v: Obj): boolean =>
  isObj(v.$set) || 'sessionId' in v || 'projectHash' in v || (v.type === 'user' && typeof v.id === 'string');

/**
 * Continues the run of recording `file` from the tail its last import kept, reading the file through `read`
 * (injectable: a test counts the bytes) — or says why the file must be read whole.
 */
export async function importRecordingTail(
  store: RunStore,
  file: string,
  options: ReaderOptions,
  read: ByteRange,
  onCheckpoint?: () => void,
): Promise<TailOutcome> {
  const fallback = (why: string): TailOutcome => ({ kind: 'fallback', why });
  if (!file.endsWith('.jsonl') || options.idSuffix !== undefined) return fallback('not a chat recording');
  // the run is the session's: its id is in the recording's first record, the header
  const first = read(0, Math.min(CHECKED_BYTES, statSync(file).size));
  const firstLine = first?.subarray(0, Math.max(0, first.indexOf(0x0a))).toString('utf8');
  let header: unknown;
  try {
    header = firstLine ? JSON.parse(firstLine) : undefined;
  } catch {
    return fallback('no header record in its first 4 KiB');
  }
  if (!isGeminiChatHeader(header)) return fallback('no header record in its first 4 KiB');
  const runId = `gemini-${String((header as Obj).sessionId)}`;
  const found = keptRun(store, runId, file, SourceSchema);
  if (found.kind === 'fallback') return found;
  const { run, source } = found;
  const tail = source.tail as unknown as RecordingTail;
  const kept = tail.state;
  const grown = await readGrownFile(file, source, tail, read);
  if (grown.kind === 'fallback') return grown;
  if (grown.kind === 'same') return { kind: 'same', runId, partialLine: grown.partialLine };
  const g = grown.file;

  // The records from the kept place to the old end and the new ones, replayed from the chat's state there.
  const records: { value: unknown; where: string }[] = [];
  const starts: { start: number; lineNo: number }[] = [];
  let titleMoves = false;
  const parsed = parsedTailLines(g, tail, file);
  if ('why' in parsed) return fallback(parsed.why);
  for (const line of parsed.lines) {
    const value = line.value;
    records.push({ value, where: `${file}: line ${line.lineNo}` });
    starts.push({ start: line.start, lineNo: line.lineNo });
    // the title is read from the file's first HEAD_BYTES (sessions/runTitles.ts)
    if (line.start >= source.bytes && line.start + line.length < HEAD_BYTES && isObj(value) && titleRecord(value))
      titleMoves = true;
  }
  const earlier = MessageIds.has(kept.ids);
  let replayed;
  try {
    replayed = replayChatRecords(
      records,
      (where, e) => {
        throw new NeedsWholeRead(`${where.slice(file.length + 2)}: ${e instanceof Error ? e.message : String(e)}`);
      },
      { meta: { ...kept.meta }, rewritten: kept.rewritten, earlier },
    );
  } catch (e) {
    if (e instanceof NeedsWholeRead) return fallback(e.message);
    throw e;
  }
  const meta = metaOf(replayed.doc);
  const { lastUpdated: _a, ...now } = meta;
  const { lastUpdated: _b, ...before } = kept.meta;
  if (JSON.stringify(now) !== JSON.stringify(before)) return fallback("the session's facts changed");
  const messages: ChatMessage[] = [];
  for (const [i, m] of (replayed.doc.messages as unknown[]).entries()) {
    try {
      messages.push(parseWith(MessageSchema, m, `${file}: messages[${i}]`));
    } catch (e) {
      return fallback(e instanceof Error ? e.message : String(e));
    }
  }
  // the run's context is made of the whole chat: its tools and its first model must be those it has
  const model = kept.model ?? messages.find((m) => m.model)?.model ?? 'unknown';
  const ctx = geminiContext(kept.meta.sessionId, kept.meta.projectHash, model);
  ctx.tools.availableTools = [
    ...new Set([...kept.tools, ...messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.name))]),
  ].sort();
  let title: string | undefined;
  if (titleMoves) {
    const head = read(0, Math.min(g.size, HEAD_BYTES));
    if (!head) return fallback('the file is shorter');
    title = geminiLinesHeadOf(headText(head, HEAD_BYTES)).title;
  }

  try {
    return store.transaction(() => {
      const { last, used, builder: b } = reopenAtTail(store, run, tail, kept.open);
      if (JSON.stringify(last.runtimeContext) !== JSON.stringify(ctx))
        throw new NeedsWholeRead("the new messages change the run's context (a new tool or first model)");
      const recorder = new RecordingRecorder(b, (op: PlanOp) => {
        if (op.op === 'beginTool' && used.has(op.call.toolCallId) && !kept.open.includes(op.call.toolCallId))
          throw new NeedsWholeRead(`call id ${op.call.toolCallId} used again`);
      });
      const oldNotes = Array.isArray(run.metadata.notes) ? (run.metadata.notes as unknown[]).slice(0, kept.notes) : [];
      if (oldNotes.length !== kept.notes) throw new NeedsWholeRead("the run's notes are not those kept");
      const notes = [...oldNotes] as { type: string; content: unknown }[];
      // the messages before each one, and the last record of any, as the whole read follows them
      const metaBefore: ReturnType<typeof metaOf>[] = [];
      const rewritesBefore: number[] = [];
      {
        const m: Obj = { ...kept.meta };
        const seen = new Set<string>();
        let rewrites = kept.rewritten;
        for (const { value } of records) {
          metaBefore.push(metaOf(m));
          rewritesBefore.push(rewrites);
          const o = (value ?? {}) as Obj;
          if (isObj(o.$set)) Object.assign(m, o.$set);
          else if (typeof o.id === 'string') {
            if (seen.has(o.id)) rewrites++;
            seen.add(o.id);
          } else Object.assign(m, o);
        }
      }
      let lastRecord = -1;
      const ids = MessageIds.pack;
      messages.forEach((m, i) => {
        const span = replayed.spans[i];
        if (span) {
          const at = starts[span.first] as { start: number; lineNo: number };
          const noteCount = notes.length;
          recorder.before(at.start, at.lineNo, lastRecord < span.first, () => ({
            ids: Buffer.concat([
              Buffer.from(kept.ids, 'base64'),
              Buffer.from(ids(messages.slice(0, i).map((x) => x.id ?? '')), 'base64'),
            ]).toString('base64'),
            notes: noteCount,
            tools: [
              ...new Set([
                ...kept.tools,
                ...messages.slice(0, i).flatMap((x) => (x.toolCalls ?? []).map((c) => c.name)),
              ]),
            ].sort(),
            ...((x) => (x ? { model: x } : {}))(kept.model ?? messages.slice(0, i).find((x) => x.model)?.model),
            meta: metaBefore[span.first] as ReturnType<typeof metaOf>,
            rewritten: rewritesBefore[span.first] as number,
            open: [],
          }));
        }
        mapChatMessage(b, m, options, notes);
        if (span) lastRecord = Math.max(lastRecord, span.last);
      });
      const end = time(meta.lastUpdated);
      const open = b.closeUnanswered('the chat ends before its result');
      const { tail: _old, ...rest } = source;
      const { notes: _n, rewrittenMessages: _r, ...others } = run.metadata;
      const metadata: Record<string, unknown> = {
        ...others,
        source: rest,
        ...(replayed.rewritten ? { rewrittenMessages: replayed.rewritten } : {}),
        ...(notes.length > 0 ? { notes } : {}),
        ...(title !== undefined ? { title } : {}),
      };
      const plan = b.finish({
        sessionId: run.sessionId,
        agentId: run.agentId,
        mode: 'live',
        startedAt: run.startedAt,
        ...(end !== undefined ? { endedAt: Math.max(end, b.lastTimestamp) } : {}),
        ...planEnd(open, 'the chat'),
        metadata,
      });
      const next = recorder.result({
        plan,
        resume: StreamedResume.from({ checkpoints: tail.keep, link: tail.link, marks: tail.marks }),
        read: g.inMemory,
        bytes: g.bytes,
        sha: g.sha.state(),
      });
      metadata.source = continuedSource(rest, g, next);
      return writeContinued(store, run, plan, metadata, source.bytes, onCheckpoint);
    });
  } catch (e) {
    if (e instanceof NeedsWholeRead) return fallback(e.message);
    throw e;
  }
}
