/**
 * Re-import of a Codex rollout that grew, reading only its new lines: the run's import kept where it stopped
 * (`metadata.source.tail`, rolloutResume.ts); fileTail.ts checks the file's first bytes and the window before that
 * end unchanged and gives the new complete lines (a last line still being written is left for the next import);
 * the lines from the kept offset on are mapped again from the mapper's kept state and the store's last kept
 * checkpoint, and written through the one writer — what a whole read of the rollout continues the run with
 * (growth.ts), at the cost of the new lines. Anything it cannot prove the same answers `fallback` and the rollout is
 * read whole: a file rewritten or shorter, a line that does not read, a compaction, a first `session_meta` or model
 * (the run's context is made of them), the first message or reasoning items of a rollout read from its events, a
 * call id used before, a new line that may change the run's title. Reads files; writes only inside the store
 * transaction it opens.
 */
import { basename } from 'node:path';
import type { RunStore } from '../../store';
import {
  NeedsWholeRead,
  parsedTailLines,
  readGrownFile,
  sourceSchema,
  type ByteRange,
  type TailOutcome,
} from '../fileTail';
import { StreamedResume } from '../planDigest';
import type { ReaderOptions } from '../reader';
import { ResponseItems } from '../openai/responseItems';
import { planEnd, type PlanOp } from '../runPlan';
import { HEAD_BYTES, codexHeadOf, headText } from '../sessions/sessionHead';
import { continuedSource, keptRun, reopenAtTail, writeContinued } from '../tailRun';
import { RolloutMapper, isObj, itemTypeOf } from './rolloutMapper';
import { RolloutRecorder, RolloutTailSchema, type RolloutTail } from './rolloutResume';

const SourceSchema = sourceSchema('codex', RolloutTailSchema);

/** The session id Codex names a rollout by (`rollout-<time>-<id>.jsonl`), which its `session_meta` holds too. */
const ROLLOUT_ID = /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

type Obj = Record<string, unknown>;

/** A line of a title: what `codexHeadOf` reads a rollout's title from. */
const titleLine = (v: Obj): boolean =>
  v.type === 'session_meta' ||
  (v.type === 'event_msg' && isObj(v.payload) && v.payload.type === 'user_message') ||
  (v.type === 'response_item' && isObj(v.payload) && v.payload.type === 'message' && v.payload.role === 'user');

/**
 * Continues the run of rollout `file` from the tail its last import kept, reading the file through `read`
 * (injectable: a test counts the bytes) — or says why the file must be read whole.
 */
export async function importRolloutTail(
  store: RunStore,
  file: string,
  options: ReaderOptions,
  read: ByteRange,
  onCheckpoint?: () => void,
): Promise<TailOutcome> {
  const fallback = (why: string): TailOutcome => ({ kind: 'fallback', why });
  const id = ROLLOUT_ID.exec(basename(file))?.[1];
  if (id === undefined || options.idSuffix !== undefined) return fallback('not a rollout named by its session');
  const runId = `codex-${id}`;
  const found = keptRun(store, runId, file, SourceSchema);
  if (found.kind === 'fallback') return found;
  const { run, source } = found;
  const tail = source.tail as unknown as RolloutTail;
  const grown = await readGrownFile(file, source, tail, read);
  if (grown.kind === 'fallback') return grown;
  if (grown.kind === 'same') return { kind: 'same', runId, partialLine: grown.partialLine };
  const g = grown.file;

  // The lines mapped again (from the kept offset to the old end) and the new ones, parsed as the whole read does.
  const parsed = parsedTailLines(g, tail, file);
  if ('why' in parsed) return fallback(parsed.why);
  const lines: { lineNo: number; start: number; value: Obj }[] = [];
  let lastRecord = source.lines ?? 0;
  let titleMoves = false;
  for (const line of parsed.lines) {
    const value = line.value;
    if (!isObj(value)) return fallback(`line ${line.lineNo} is not a JSON object`);
    lines.push({ lineNo: line.lineNo, start: line.start, value });
    if (line.start < source.bytes) continue;
    lastRecord = line.lineNo;
    const type = itemTypeOf(value);
    if (value.type === 'compacted') return fallback('a compaction');
    if (value.type === 'session_meta' && !tail.facts.meta) return fallback("the rollout's first session_meta");
    if (value.type === 'turn_context' && !tail.facts.model && isObj(value.payload) && value.payload.model)
      return fallback("the rollout's first model");
    if (type === 'message' && tail.facts.fromEvents) return fallback('the first message item of a rollout of events');
    if (type === 'reasoning' && tail.facts.reasoningFromEvents)
      return fallback('the first reasoning item of a rollout of events');
    // the title is read from the file's first HEAD_BYTES (sessions/runTitles.ts)
    if (line.start + line.length < HEAD_BYTES && titleLine(value)) titleMoves = true;
  }
  let title: string | undefined;
  if (titleMoves) {
    const head = read(0, Math.min(g.size, HEAD_BYTES));
    if (!head) return fallback('the file is shorter');
    title = codexHeadOf(headText(head, HEAD_BYTES)).title;
  }

  const skip: ReaderOptions['skip'] = (record, e) => {
    throw new NeedsWholeRead(`line ${record.line ?? '?'} does not map (${e instanceof Error ? e.message : String(e)})`);
  };
  try {
    return store.transaction(() => {
      // a call id used again needs the whole ledger
      const { last, used, builder } = reopenAtTail(store, run, tail, tail.open);
      const recorder = new RolloutRecorder(builder, (op: PlanOp) => {
        if (op.op === 'beginTool' && used.has(op.call.toolCallId) && !tail.open.includes(op.call.toolCallId))
          throw new NeedsWholeRead(`call id ${op.call.toolCallId} used again`);
      });
      const env = { file, warnings: options.warnings, sideEffectOf: options.sideEffectOf };
      const items = new ResponseItems(builder, { ...env, unknownTypes: options.unknownTypes });
      const mapper = new RolloutMapper(
        builder,
        items,
        last.runtimeContext,
        tail.facts,
        { unknownTypes: options.unknownTypes, skip, file },
        tail.state,
      );
      for (const { lineNo, start, value } of lines) {
        recorder.before(start, lineNo, mapper);
        mapper.line(lineNo, value);
        recorder.after(mapper);
      }
      recorder.before(g.bytes, g.nextLine, mapper);
      items.flush();
      const open = builder.closeUnanswered('the rollout ends before its result');
      const { tail: _old, ...rest } = source;
      const metadata: Record<string, unknown> = {
        ...run.metadata,
        source: rest,
        tools: mapper.toolNames(),
        compactions: mapper.compactions,
        tokenCountEvents: mapper.tokenEvents,
        ...(title !== undefined ? { title } : {}),
      };
      const plan = builder.finish({
        sessionId: run.sessionId,
        agentId: run.agentId,
        mode: 'live',
        startedAt: run.startedAt,
        ...planEnd(open, 'the rollout'),
        metadata,
      });
      const kept = recorder.result({
        plan,
        resume: StreamedResume.from({ checkpoints: tail.keep, link: tail.link, marks: tail.marks }),
        facts: tail.facts,
        read: g.inMemory,
        bytes: g.bytes,
        sha: g.sha.state(),
      });
      metadata.source = continuedSource({ ...rest, lines: lastRecord }, g, kept);
      return writeContinued(store, run, plan, metadata, source.bytes, onCheckpoint);
    });
  } catch (e) {
    if (e instanceof NeedsWholeRead) return fallback(e.message);
    throw e;
  }
}
