/**
 * Re-import of a Claude Code session file that grew, reading only its new lines: the run's import kept where it
 * stopped (`metadata.source.tail`, sessionTail.ts); this checks the file's first bytes and the window before that
 * end unchanged, reads from the window on, parses the new complete lines (a last line still being written is left
 * for the next import), takes the mapper and the run up again from the kept state and the store's last kept
 * checkpoint, and writes the rest through the one writer — what a whole read of the file continues the run with
 * (growth.ts), at the cost of the new lines. Anything it cannot prove the same — a file rewritten or shorter, a
 * line that does not parse, a rewind, a sidechain line, a sub-agent file that moved, session facts that changed
 * the run's context, a Task call — answers `fallback`, and the file is read whole as before. Reads files; writes
 * only inside the store transaction it opens.
 */
import { basename } from 'node:path';
import { z } from 'zod';
import { assertJsonDepth, type RuntimeContextSnapshot } from '../../model';
import type { RunStore } from '../../store';
import {
  FileTailSchema,
  NeedsWholeRead,
  readGrownFile,
  sourceSchema,
  type ByteRange,
  type TailOutcome,
} from '../fileTail';
import { StreamedResume } from '../planDigest';
import { planEnd, type PlanOp } from '../runPlan';
import { storeRebuiltFilesOf } from '../rebuiltFiles';
import { HEAD_BYTES } from '../sessions/sessionHead';
import { continuedSource, continuedWriter, keptRun, reopenAtTail } from '../tailRun';
import { splitBranches } from './branches';
import { parseTranscriptLine, type AssistantEntry, type Entry, type UserEntry } from './entries';
import { sessionContext, type SessionReadOptions } from './importSession';
import { SessionMapper } from './sessionMapper';
import { sessionEntryOf } from './sessionRows';
import { TailRecorder, sessionFacts, subagentStats, type SessionTail } from './sessionTail';
import { subagentFiles } from './subagentFiles';

export type { TailOutcome } from '../fileTail';

const TailSchema = FileTailSchema.extend({
  pending: z
    .object({
      messageId: z.string().optional(),
      requestId: z.string().optional(),
      lines: z.array(z.tuple([z.number(), z.number(), z.number()])),
    })
    .optional(),
  deferred: z.array(z.tuple([z.number(), z.number(), z.number()])),
  open: z.array(z.tuple([z.string(), z.array(z.string())])),
  compactions: z.number().int().nonnegative(),
  apiError: z.string().optional(),
  facts: z.looseObject({
    models: z.array(z.string()),
    toolNames: z.array(z.string()),
    summaries: z.array(z.looseObject({ summary: z.string() })),
  }),
  subagents: z.array(z.tuple([z.string(), z.number(), z.number()])),
});

const SourceSchema = sourceSchema('claude-code', TailSchema);

const TASK_TOOLS = new Set(['Task', 'Agent']);

/** A line of `buf` parsed as the whole read parses it; undefined when it holds no entry (or does not parse). */
function parsedEntry(
  text: string,
  lineNo: number,
  file: string,
  facts: Parameters<typeof parseTranscriptLine>[3],
  counts?: Record<string, number>,
): { entry?: Entry; type?: unknown } {
  const value = sessionEntryOf(JSON.parse(text) as unknown);
  assertJsonDepth(value, `${file}: line ${lineNo}`);
  const parsed = parseTranscriptLine(value, lineNo, `${file}: line ${lineNo}`, facts);
  if (parsed.skipped && counts) counts[parsed.skipped] = (counts[parsed.skipped] ?? 0) + 1;
  return { ...(parsed.entry ? { entry: parsed.entry } : {}), type: (value as { type?: unknown } | null)?.type };
}

const isCompaction = (e: Entry): boolean =>
  (e.kind === 'system' && e.subtype === 'compact_boundary') || (e.kind === 'user' && e.isCompactSummary);

/**
 * Continues the run of session `file` from the tail its last import kept, reading the file through `read`
 * (injectable: a test counts the bytes) — or says why the file must be read whole.
 */
export async function importSessionTail(
  store: RunStore,
  file: string,
  options: SessionReadOptions,
  read: ByteRange,
  onCheckpoint?: () => void,
): Promise<TailOutcome> {
  const fallback = (why: string): TailOutcome => ({ kind: 'fallback', why });
  const name = basename(file, '.jsonl');
  if (/^agent-/.test(name)) return fallback('a sub-agent file');
  const runId = `cc-${name}`;
  const found = keptRun(store, runId, file, SourceSchema);
  if (found.kind === 'fallback') return found;
  const { run, source } = found;
  const tail = source.tail as unknown as SessionTail;
  const subs = subagentFiles(file);
  if (JSON.stringify(subagentStats(subs)) !== JSON.stringify(tail.subagents))
    return fallback('a sub-agent file changed');
  // The bytes before the kept end (the file's first ones and the window before it) checked, the new lines read.
  const grown = await readGrownFile(file, source, tail, read);
  if (grown.kind === 'fallback') return grown;
  if (grown.kind === 'same') return { kind: 'same', runId, partialLine: grown.partialLine };
  const { window, sha } = grown.file;

  // The new complete lines.
  const facts = sessionFacts(tail.facts);
  const positions = new Map<Entry, { start: number; length: number }>();
  const fresh: Entry[] = [];
  const counts: Record<string, number> = {};
  let lastRecord = source.lines ?? 0;
  for (const { start, bytes, lineNo } of grown.file.fresh) {
    const text = bytes.toString('utf8');
    if (text.trim() === '') continue;
    lastRecord = lineNo;
    let parsed;
    try {
      parsed = parsedEntry(text, lineNo, file, facts, counts);
    } catch (e) {
      return fallback(`line ${lineNo} does not read (${e instanceof Error ? e.message : String(e)})`);
    }
    if (parsed.type === 'custom-title') return fallback('a new title line');
    if (!parsed.entry) continue;
    if (parsed.entry.sidechain) return fallback('a sidechain line');
    if (isCompaction(parsed.entry)) return fallback('a compaction');
    if (parsed.entry.kind === 'user' && parsed.entry.subagentId) return fallback('a result that names a sub-agent');
    positions.set(parsed.entry, { start, length: bytes.length });
    fresh.push(parsed.entry);
  }

  // The old lines of the window, from its first whole one: what the new lines may hang from, the lines the mapper
  // held, and the run's lines from the kept offset on, which are mapped again.
  const wf = tail.window.from;
  const scratch = sessionFacts(tail.facts);
  const held = [...(tail.pending?.lines ?? []), ...tail.deferred];
  const minStart = Math.min(tail.at, ...held.map((l) => l[0]));
  let p = wf === 0 || wf === minStart ? wf : wf + window.indexOf(0x0a) + 1;
  let n = tail.atLine;
  for (let q = p; q < tail.at; q++) if (window[q - wf] === 0x0a) n--;
  const byStart = new Map<number, Entry>();
  const windowEntries: Entry[] = [];
  for (; p < source.bytes; n++) {
    const nl = window.indexOf(0x0a, p - wf) + wf;
    try {
      const { entry } = parsedEntry(window.subarray(p - wf, nl - wf).toString('utf8'), n, file, scratch);
      if (entry && !entry.sidechain) {
        positions.set(entry, { start: p, length: nl - p });
        byStart.set(p, entry);
        windowEntries.push(entry);
      }
    } catch {
      // a line the whole read skipped (and reported) too
    }
    p = nl + 1;
  }
  const heldAs = (l: [number, number, number], kind: Entry['kind']): Entry | undefined => {
    const e = byStart.get(l[0]);
    return e?.kind === kind && e.lineNo === l[2] ? e : undefined;
  };
  const pending = (tail.pending?.lines ?? []).map((l) => heldAs(l, 'assistant'));
  const deferred = tail.deferred.map((l) => heldAs(l, 'user'));
  if (pending.includes(undefined) || deferred.includes(undefined)) {
    return fallback('the lines held do not read as they did');
  }
  const again = windowEntries.filter((e) => e.lineNo >= tail.atLine);

  // The new lines must hang from the window's lines and stay in the run: no rewind, nothing else moved.
  const known = new Set(windowEntries.map((e) => e.uuid));
  for (const e of fresh) {
    if (e.parent === undefined || !known.has(e.parent)) return fallback(`line ${e.lineNo} hangs from an older line`);
    known.add(e.uuid);
  }
  const all = [...windowEntries, ...fresh];
  let cycle = false;
  const branches = splitBranches(all, () => (cycle = true));
  if (cycle || branches.length !== 1 || branches[0]?.entries.length !== all.length) {
    return fallback('the new lines leave the run (a rewind)');
  }

  // Session facts the run's context is made of must not have moved (a whole read rewrites every checkpoint's).
  const taskId = facts.sessionId ?? name;
  const before = sessionFacts(tail.facts);
  if (JSON.stringify(sessionContext(facts, taskId)) !== JSON.stringify(sessionContext(before, taskId))) {
    return fallback("the session's facts changed the run's context");
  }
  if (facts.version !== before.version) return fallback('a new Claude Code version');
  if (typeof run.metadata.title !== 'string' && source.bytes < HEAD_BYTES) return fallback('the run has no title yet');

  const newBytes = grown.file.bytes;
  const lines = again.length === 0 && fresh.length === 0 ? (source.lines ?? 0) : lastRecord;
  try {
    return store.transaction(() => {
      const beforeCount = run.checkpointCount;
      // the ids the run used (a repeated tool_use id gets a suffix) and the calls still open
      const { last, used, builder } = reopenAtTail(
        store,
        run,
        tail,
        tail.open.flatMap(([, ids]) => ids),
      );
      const out = continuedWriter(store, run, onCheckpoint);
      builder.forgetFinished();
      const resume = StreamedResume.from({ checkpoints: tail.keep, link: tail.link, marks: tail.marks });
      builder.observe((op: PlanOp) => {
        if (op.op === 'beginTool' && TASK_TOOLS.has(op.call.toolName)) throw new NeedsWholeRead('a Task call');
        resume.op(op);
      });
      builder.streamTo((op) => out.op(op));
      const context: RuntimeContextSnapshot = last.runtimeContext;
      const mapper = SessionMapper.resume(
        builder,
        { file, warnings: options.warnings, sideEffectOf: options.sideEffectOf },
        context,
        (id) => used.has(id),
        {
          ...(tail.pending
            ? {
                pending: {
                  ...(tail.pending.messageId !== undefined ? { messageId: tail.pending.messageId } : {}),
                  ...(tail.pending.requestId !== undefined ? { requestId: tail.pending.requestId } : {}),
                  entries: pending as AssistantEntry[],
                },
              }
            : {}),
          deferred: deferred as UserEntry[],
          open: tail.open,
          compactions: tail.compactions,
          ...(tail.apiError !== undefined ? { apiError: tail.apiError } : {}),
        },
      );
      const recorder = new TailRecorder((e) => positions.get(e), 0, resume);
      const end = { at: newBytes, atLine: grown.file.nextLine };
      for (const entry of [...again, ...fresh]) {
        recorder.boundary(mapper, entry, end);
        mapper.add(entry);
      }
      recorder.boundary(mapper, undefined, end);
      mapper.flush();
      const open = builder.closeUnanswered('the transcript ends before its result');
      const apiError = mapper.apiError;
      const kept = recorder.result({
        read: grown.file.inMemory,
        bytes: newBytes,
        facts,
        sha: sha.state(),
        subagentFiles: subs,
      });
      const { tail: _old, ...rest } = source;
      const metadata: Record<string, unknown> = {
        ...run.metadata,
        compactions: mapper.compactions,
        source: continuedSource({ ...rest, lines }, grown.file, {
          resume: resume.result(),
          ...(kept ? { tail: kept } : {}),
        }),
      };
      const plan = builder.finish({
        sessionId: run.sessionId,
        agentId: run.agentId,
        mode: 'live',
        startedAt: run.startedAt,
        ...planEnd(open, 'the transcript', apiError ? { message: apiError } : undefined),
        metadata,
      });
      if (plan.error === undefined) delete plan.error;
      const summary = out.close(plan, metadata);
      storeRebuiltFilesOf(store, [runId]);
      for (const [type, n] of Object.entries(counts))
        options.unknownTypes[type] = (options.unknownTypes[type] ?? 0) + n;
      return {
        kind: 'continued' as const,
        summary,
        appended: summary.checkpointCount - beforeCount,
        readFrom: source.bytes,
      };
    });
  } catch (e) {
    if (e instanceof NeedsWholeRead) return fallback(e.message);
    throw e;
  }
}
