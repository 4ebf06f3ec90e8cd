/**
 * The transcript of a run: a plain-text document with one line per
 * checkpoint (plus a run header and a separator per ReAct step), readable on
 * its own — roles, text excerpts, tool calls with args, results, errors,
 * usage. The debugger points stack frames at these lines and maps source
 * breakpoints back to checkpoints; the extension shows the same text as a
 * document (language `agent-transcript`). Pure: no I/O, no DAP, no vscode —
 * checkpoints come through the `load` callback.
 *
 * Line numbers in `TranscriptLine` are 0-based (like vscode.Position); the
 * debug session converts them for DAP clients.
 */
import { z } from 'zod';
import {
  canonicalJsonPrefix,
  checkpointHoldPlace,
  heldText,
  liveEditSummary,
  messageText,
  messageToolCalls,
  runStatusText,
  toolOutcomeOf,
  type Checkpoint,
  type LiveEditRecord,
  type Message,
  type RunMode,
  type ToolCallRecord,
  toolOwnMs,
} from '../model';
import type { CheckpointSummary, RunSummary } from '../store';

/**
 * How much of each message, argument and result a transcript line shows: the `agentTimeTravel.transcriptDetail`
 * setting and the `transcriptDetail` launch argument of the debugger, so both write the same text.
 */
export const TRANSCRIPT_DETAILS = ['compact', 'normal', 'full'] as const;
export const TranscriptDetailSchema = z.enum(TRANSCRIPT_DETAILS);
export type TranscriptDetail = z.infer<typeof TranscriptDetailSchema>;
export const DEFAULT_TRANSCRIPT_DETAIL: TranscriptDetail = 'normal';

/** The longest excerpt (characters) of a message, args or result at each detail level. */
export const EXCERPT_LENGTHS: Readonly<Record<TranscriptDetail, number>> = { compact: 60, normal: 100, full: 400 };

/** The line of one checkpoint in the transcript. */
export interface TranscriptLine {
  /** 0-based line number in `text`. */
  line: number;
  checkpointId: string;
  /** Position of the checkpoint in its run, 0-based. */
  checkpointIndex: number;
  boundary: CheckpointSummary['boundary'];
  stepIndex: number;
  toolCallId?: string;
  toolName?: string;
}

export interface Transcript {
  text: string;
  /** One entry per checkpoint, in run order (line numbers ascending). */
  lines: TranscriptLine[];
}

export interface TranscriptOptions {
  /** How long excerpts of messages, args and results are (EXCERPT_LENGTHS). Default `normal`. */
  detail?: TranscriptDetail;
  /** The run's tool ledger; when given, tool lines need no checkpoint load. */
  toolCalls?: readonly ToolCallRecord[];
  /**
   * The last message of a checkpoint without loading it whole (RunStore.getLastMessage); when given, model
   * turns and the end need no checkpoint load, so a 10,000-checkpoint run renders in milliseconds.
   */
  lastMessage?: (checkpointId: string) => Message | undefined;
  /** The run's live edits (RunStore.listLiveEdits): each marks the line of the checkpoint it was made at. */
  liveEdits?: readonly LiveEditRecord[];
  /** The run is an imported session whose file is still being written: the header says "live". */
  live?: boolean;
}

/** Renders `value` as one line of at most `max` characters. */
export function excerpt(value: unknown, max: number): string {
  // Only the beginning of the value is read and serialised: a result of megabytes costs its excerpt, not its size.
  // (Whitespace runs collapse to one space, so a longer beginning is read when the first one falls short.)
  for (let budget = Math.max(64, 2 * max); ; budget *= 4) {
    const { text: raw, complete } = beginning(value, budget);
    const text = raw.replace(/\s+/g, ' ').trim();
    if (text.length > max) return `${text.slice(0, Math.max(0, max - 1))}…`;
    if (complete) return text;
  }
}

/** The first `budget` characters (or more) of a value's text, and whether that is all of it. */
function beginning(value: unknown, budget: number): { text: string; complete: boolean } {
  if (typeof value === 'string') return { text: value.slice(0, budget), complete: value.length <= budget };
  if (value === undefined) return { text: 'undefined', complete: true };
  try {
    // canonical (sorted keys): the same value reads the same whether it came from the ledger or a checkpoint
    return canonicalJsonPrefix(value, budget);
  } catch {
    return { text: String(value), complete: true };
  }
}

function lastOfRole(messages: readonly Message[], role: Message['role']): Message | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === role) return messages[i];
  return undefined;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function usageText(s: CheckpointSummary): string {
  return s.usage
    ? ` · usage ${s.usage.inputTokens} in / ${s.usage.outputTokens} out${s.usage.captured ? ' (captured)' : ''}`
    : '';
}

/** What a cancellation says: its message (the name is always Cancelled). */
function cancelText(error: unknown): unknown {
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : error;
}

function toolLine(s: CheckpointSummary, call: ToolCallRecord | undefined, max: number): string {
  const name = call?.toolName ?? s.toolName ?? 'unknown tool';
  if (s.boundary === 'before_tool_call') {
    const effect = call ? ` · ${call.sideEffectLevel} · ${call.replayPolicy}` : '';
    return `${name}(${call ? excerpt(call.args, max) : ''})${effect}`;
  }
  if (!call) return `${name} finished`;
  const own = toolOwnMs(call);
  const held = call.heldMs ? ` (${heldText(`${Math.round(call.heldMs)} ms`)})` : '';
  const ms = own === undefined ? '' : ` · ${Math.round(own)} ms${held}`;
  if (toolOutcomeOf(call) === 'cancelled') return `${name} ⊘ cancelled: ${excerpt(cancelText(call.error), max)}${ms}`;
  if (call.error !== undefined) return `${name} ✗ error: ${excerpt(call.error, max)}${ms}`;
  return `${name} → ${excerpt(call.result, max)}${ms}`;
}

interface Sources {
  run: RunSummary;
  load: (checkpointId: string) => Checkpoint;
  last: (checkpointId: string) => Message | undefined;
  calls: ReadonlyMap<string, ToolCallRecord> | undefined;
  max: number;
}

/**
 * ` · user: …` when the newest message at `s` is one the user wrote (not a tool's result): what they typed shows
 * where the agent took it up, also in runs without a before_prompt_build (imported coding sessions).
 */
function typedText(s: CheckpointSummary, src: Sources): string {
  const newest = src.last(s.checkpointId);
  const text = newest?.role === 'user' ? messageText(newest).trim() : '';
  return text ? ` · user: ${excerpt(text, src.max)}` : '';
}

/**
 * The text after `[index] boundary · ` for one checkpoint. Loads a whole checkpoint only for the first line;
 * `previous` is the checkpoint before it (a model call right after the prompt build leaves the user's words to it).
 */
function describe(s: CheckpointSummary, src: Sources, first: boolean, previous?: CheckpointSummary): string {
  const { run, max } = src;
  switch (s.boundary) {
    case 'before_prompt_build': {
      if (!first) return `${plural(s.messageCount, 'message')}${typedText(s, src)}`;
      const user = lastOfRole(src.load(s.checkpointId).messages, 'user');
      return `${plural(s.messageCount, 'message')}${user ? ` · user: ${excerpt(messageText(user), max)}` : ''}`;
    }
    case 'before_model_call': {
      const prompt = s.promptVersion ? ` · prompt ${s.promptVersion}` : '';
      const built = previous?.boundary === 'before_prompt_build' && previous.stepIndex === s.stepIndex;
      return `${plural(s.messageCount, 'message')}${built ? '' : typedText(s, src)}${prompt}`;
    }
    case 'after_model_call': {
      const reply = src.last(s.checkpointId);
      const parts: string[] = [`finish ${s.finishReason ?? '?'}`];
      // a reply of white space alone (a turn that only calls tools) says nothing, not `assistant:  ·`
      const text = reply && reply.role === 'assistant' ? messageText(reply).trim() : '';
      if (text) parts.push(`assistant: ${excerpt(text, max)}`);
      const requested = reply && reply.role === 'assistant' ? messageToolCalls(reply) : [];
      for (const c of requested) parts.push(`→ ${c.toolName}(${excerpt(c.args, Math.floor(max / 2))})`);
      // a live debugger's stop before the model was called: not the model's time
      const held = s.heldMs ? ` · ${heldText(`${Math.round(s.heldMs)} ms`, checkpointHoldPlace(s.boundary))}` : '';
      return parts.join(' · ') + usageText(s) + held;
    }
    case 'before_tool_call':
    case 'after_tool_call': {
      let call = s.toolCallId ? src.calls?.get(s.toolCallId) : undefined;
      if (!call && s.toolCallId) {
        call = src.load(s.checkpointId).toolLedgerSnapshot.find((t) => t.toolCallId === s.toolCallId);
      }
      return toolLine(s, call, max);
    }
    case 'agent_end': {
      const lastMsg = src.last(s.checkpointId);
      const reply = lastMsg?.role === 'assistant' ? lastMsg : undefined;
      const status = runStatusText(run);
      const err = run.error !== undefined ? ` · error: ${excerpt(run.error, max)}` : '';
      const said = reply ? messageText(reply).trim() : '';
      const text = said ? ` · assistant: ${excerpt(said, max)}` : '';
      return `${status} · ${plural(s.messageCount, 'message')}${err}${text}`;
    }
    default: {
      const unreachable: never = s.boundary;
      return String(unreachable);
    }
  }
}

/**
 * The version of the transcript's text: a transcript file written at another one is rendered again
 * (debug/transcriptFiles.ts keys the file by it). Bump it with any change to what a line says.
 */
export const TRANSCRIPT_FORMAT = 3;

/** How the header names the way a run was made: a recorded run's mode `live` read as "still running". */
const MODE_TEXT: Record<RunMode, string> = { live: 'recorded', replay: 'replay', fork: 'fork' };

/**
 * The transcript's layout — its header, a separator per ReAct step, one line per checkpoint — with each checkpoint
 * line's text from `body` (absent: the lines alone, no text). The one place line numbers come from, so the lines a
 * session points its frames at without rendering (transcriptLines) are those of the rendered text.
 */
function layout(
  run: RunSummary,
  checkpoints: readonly CheckpointSummary[],
  liveEditCount: number,
  body?: (s: CheckpointSummary, i: number) => string,
  live = false,
): Transcript {
  const out: string[] = [];
  const lines: TranscriptLine[] = [];
  // a session file still being written: its run goes on as the file grows
  const status = live ? `live: its file is still being written (${runStatusText(run)} so far)` : runStatusText(run);
  out.push(
    `# run ${run.runId} · agent ${run.agentId} · ${status} · ${MODE_TEXT[run.mode]} · ${run.checkpointCount} checkpoint${run.checkpointCount === 1 ? '' : 's'}`,
  );
  if (run.parentRunId) out.push(`# forked from ${run.parentRunId} @ ${run.forkFromCheckpointId ?? '?'}`);
  out.push(
    `# ${plural(run.stepCount, 'step')} · ${plural(run.toolCallCount, 'tool call')} (${plural(run.toolErrorCount, 'error')}) · tokens ${run.inputTokens} in / ${run.outputTokens} out`,
  );
  if (liveEditCount > 0) out.push(`# ${plural(liveEditCount, 'live edit')} by a debugger while it ran (marked ✎)`);
  let step: number | undefined;
  checkpoints.forEach((s, i) => {
    if (s.stepIndex !== step) {
      step = s.stepIndex;
      out.push('');
      out.push(s.boundary === 'agent_end' || s.stepIndex < 0 ? '── end ──' : `── step ${s.stepIndex} ──`);
    }
    const line: TranscriptLine = {
      line: out.length,
      checkpointId: s.checkpointId,
      checkpointIndex: s.index,
      boundary: s.boundary,
      stepIndex: s.stepIndex,
    };
    if (s.toolCallId) line.toolCallId = s.toolCallId;
    if (s.toolName) line.toolName = s.toolName;
    lines.push(line);
    out.push(body ? `[${s.index}] ${s.boundary} · ${body(s, i)}` : '');
  });
  return { text: body ? out.join('\n') + '\n' : '', lines };
}

/**
 * The checkpoint lines of `run`'s transcript without rendering it (no message, argument or result read): what a
 * debug session points its frames and source breakpoints at while the text is the file a session wrote before.
 */
export function transcriptLines(
  run: RunSummary,
  checkpoints: readonly CheckpointSummary[],
  liveEditCount: number,
): TranscriptLine[] {
  return layout(run, checkpoints, liveEditCount).lines;
}

/**
 * Renders the transcript of `run`. `checkpoints` are the run's summaries in
 * order; `load` fetches a full checkpoint when a line needs its messages.
 */
export function renderTranscript(
  run: RunSummary,
  checkpoints: readonly CheckpointSummary[],
  load: (checkpointId: string) => Checkpoint,
  options: TranscriptOptions = {},
): Transcript {
  const src: Sources = {
    run,
    load,
    last: options.lastMessage ?? ((id) => load(id).messages.at(-1)),
    calls: options.toolCalls ? new Map(options.toolCalls.map((t) => [t.toolCallId, t])) : undefined,
    max: EXCERPT_LENGTHS[options.detail ?? DEFAULT_TRANSCRIPT_DETAIL],
  };
  const edits = new Map<string, string[]>();
  for (const e of options.liveEdits ?? []) {
    edits.set(e.checkpointId, [...(edits.get(e.checkpointId) ?? []), `✎ ${liveEditSummary(e.edits)}`]);
  }
  return layout(
    run,
    checkpoints,
    options.liveEdits?.length ?? 0,
    (s, i) => {
      const marks = edits.get(s.checkpointId);
      const edited = marks ? ` · ${marks.map((m) => excerpt(m, src.max * 2)).join(' · ')}` : '';
      return `${describe(s, src, i === 0, checkpoints[i - 1])}${edited}`;
    },
    options.live === true,
  );
}

/** The 0-based line of `checkpointId`, or undefined when the transcript has none. */
export function lineOfCheckpoint(transcript: Pick<Transcript, 'lines'>, checkpointId: string): number | undefined {
  return transcript.lines.find((l) => l.checkpointId === checkpointId)?.line;
}

/** The checkpoint line at 0-based `line` exactly, or undefined (header, separator, blank). */
export function checkpointAtLine(transcript: Pick<Transcript, 'lines'>, line: number): TranscriptLine | undefined {
  // lines are ascending: binary search
  let lo = 0;
  let hi = transcript.lines.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const l = transcript.lines[mid] as TranscriptLine;
    if (l.line === line) return l;
    if (l.line < line) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}
