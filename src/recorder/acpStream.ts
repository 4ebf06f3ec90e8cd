/**
 * open-agent-kernel's ACP stream (seed 002, §4.3 and §4.6) over one RunRecorder. `recordAcpStream(run, updates)`
 * takes the `AsyncIterable<AcpSessionUpdate>` that `session.send()` returns and yields every update unchanged
 * (the same object) while recording it:
 *
 *   agent_phase model_responding        opens a model call (before_model_call); tool_executing / idle /
 *                                       compacting close it (after_model_call with the turn's assistant message)
 *   agent_message_chunk                 its text merged into that assistant message (a call opens if none is)
 *   tool_call                           a tool_call part of the message; the call begins at its next update
 *   tool_confirm                        the call begins with replay policy manual_confirm, waiting for approval
 *   tool_call_update (final status)     the call finishes: completed -> success (result), failed -> error,
 *                                       cancelled / rejected -> cancelled
 *   ask_user                            a tool call `ask_user` (level none, manual_confirm) answered by its update
 *   log                                 a run event
 *
 * `recordApproval(run, { toolUseId, decision })` — pass it what you give `session.respondApproval` — records the
 * decision with the waiting call (a denial finishes it as cancelled). Run events (log lines, questions, approval
 * decisions) are kept in the runtime context under `events` from the next checkpoint on, so every checkpoint shows
 * what had happened by then. The state of a run's stream lives across `send()` calls (an approval ends one stream
 * and the resumed agent starts the next). A thin adapter over the RunRecorder; depends on model/ and the recorder.
 */
import { z } from 'zod';
import { OcdbError, SideEffectLevelSchema, formatPath, parseWith } from '../model';
import type { RunRecorder } from './runRecorder';
import { AcpRecording, type AcpRunEvent } from './acpRecording';
import { ToolJournalToolSchema } from './toolJournal';

export type { AcpRunEvent };

/** The seed's `AcpSessionUpdate` (§4.3), verbatim. */
export type AcpSessionUpdate =
  | { sessionUpdate: 'agent_message_chunk'; content: { type: 'text'; text: string } }
  | { sessionUpdate: 'tool_call'; toolCallId: string; title: string; input?: unknown }
  | { sessionUpdate: 'tool_call_update'; toolCallId: string; status: string; result?: unknown }
  | { sessionUpdate: 'tool_confirm'; toolCallId: string; toolName: string; input: Record<string, unknown> }
  | { sessionUpdate: 'ask_user'; toolCallId: string; questions: unknown[] }
  | {
      sessionUpdate: 'agent_phase';
      phase: 'preparing' | 'model_responding' | 'tool_executing' | 'compacting' | 'idle';
    }
  | { sessionUpdate: 'log'; level: 'info' | 'error' | 'success' | 'command'; message: string };

const UpdateSchema = z.discriminatedUnion('sessionUpdate', [
  z.looseObject({
    sessionUpdate: z.literal('agent_message_chunk'),
    content: z.looseObject({ type: z.string(), text: z.string().optional() }),
  }),
  z.looseObject({
    sessionUpdate: z.literal('tool_call'),
    toolCallId: z.string().min(1),
    title: z.string(),
    input: z.unknown().optional(),
  }),
  z.looseObject({
    sessionUpdate: z.literal('tool_call_update'),
    toolCallId: z.string().min(1),
    status: z.string(),
    result: z.unknown().optional(),
  }),
  z.looseObject({
    sessionUpdate: z.literal('tool_confirm'),
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
  }),
  z.looseObject({
    sessionUpdate: z.literal('ask_user'),
    toolCallId: z.string().min(1),
    questions: z.array(z.unknown()),
  }),
  z.looseObject({
    sessionUpdate: z.literal('agent_phase'),
    phase: z.enum(['preparing', 'model_responding', 'tool_executing', 'compacting', 'idle']),
  }),
  z.looseObject({
    sessionUpdate: z.literal('log'),
    level: z.enum(['info', 'error', 'success', 'command']),
    message: z.string(),
  }),
]);
type Update = z.infer<typeof UpdateSchema>;
const KNOWN = new Set(UpdateSchema.options.map((o) => o.shape.sessionUpdate.value));

export const AcpStreamOptionsSchema = z.object({
  /** The user's input of this `send()`: recorded as the user message that opens the turn. */
  prompt: z.union([z.string(), z.array(z.unknown())]).optional(),
  /** Per tool name (a tool_call's title, a tool_confirm's toolName) or glob: side-effect level and policy. */
  tools: z.record(z.string().min(1), ToolJournalToolSchema).optional(),
  /** The level of a tool no entry matches (default `write`). */
  defaultSideEffectLevel: SideEffectLevelSchema.optional(),
});
export type AcpStreamOptions = z.input<typeof AcpStreamOptionsSchema>;

/** What `recordApproval` takes: the options of the seed's `respondApproval({ toolUseId, decision })`. */
export const AcpApprovalSchema = z.looseObject({ toolUseId: z.string().min(1), decision: z.unknown() });

function parseUpdate(value: unknown, index: number): Update | undefined {
  const head = z.looseObject({ sessionUpdate: z.string() }).safeParse(value);
  if (head.success && !KNOWN.has(head.data.sessionUpdate as Update['sessionUpdate'])) return undefined;
  const parsed = UpdateSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const kind = head.success ? ` (${head.data.sessionUpdate})` : '';
  throw new OcdbError(
    'InvalidInput',
    `recordAcpStream: update ${index}${kind}: ${issue ? `${formatPath(issue.path) || '(root)'}: ${issue.message}` : 'invalid'}`,
    { path: `updates[${index}]${issue && issue.path.length > 0 ? `.${formatPath(issue.path)}` : ''}` },
  );
}

/**
 * Yields every update of `updates` unchanged while recording it into `run` (see the file header). Updates of a
 * kind the seed does not list are passed through and not recorded.
 */
export async function* recordAcpStream<U extends AcpSessionUpdate | { sessionUpdate: string }>(
  run: RunRecorder,
  updates: AsyncIterable<U>,
  options: AcpStreamOptions = {},
): AsyncGenerator<U, void, undefined> {
  const opts = parseWith(AcpStreamOptionsSchema, options, 'recordAcpStream(options)');
  const rec = new AcpRecording(run, {
    ...(opts.tools ? { tools: opts.tools } : {}),
    ...(opts.defaultSideEffectLevel ? { fallback: opts.defaultSideEffectLevel } : {}),
  });
  if (opts.prompt !== undefined) rec.prompt(opts.prompt);
  let index = 0;
  for await (const raw of updates) {
    const update = parseUpdate(raw, index++);
    if (update) record(rec, update);
    yield raw;
  }
  rec.endOfStream();
}

function record(rec: AcpRecording, u: Update): void {
  const at = Date.now();
  switch (u.sessionUpdate) {
    case 'agent_phase':
      if (u.phase === 'model_responding') rec.openModel();
      else if (u.phase !== 'preparing') rec.closeModel();
      return;
    case 'agent_message_chunk':
      if (typeof u.content.text === 'string') rec.appendText(u.content.text);
      else rec.openModel();
      return;
    case 'tool_call':
      rec.toolCall(u.toolCallId, u.title, u.input);
      return;
    case 'tool_confirm':
      rec.confirm(u.toolCallId, u.toolName, u.input, at);
      return;
    case 'ask_user':
      rec.askUser(u.toolCallId, u.questions, at);
      return;
    case 'tool_call_update':
      rec.update(u.toolCallId, u.status, u.result, Object.hasOwn(u, 'result'));
      return;
    case 'log':
      rec.event({ type: 'log', level: u.level, message: u.message, at });
      return;
    default: {
      const unreachable: never = u;
      throw new Error(`unknown update ${String(unreachable)}`);
    }
  }
}

/**
 * Records the decision given to `session.respondApproval(approval)` with the tool_confirm call it answers (a
 * denial finishes the call as cancelled) and returns `approval` unchanged:
 * `await session.respondApproval(recordApproval(run, { toolUseId, decision }))`.
 */
export function recordApproval<A extends { toolUseId: string; decision: unknown }>(run: RunRecorder, approval: A): A {
  const data = AcpApprovalSchema.safeParse(approval);
  if (!data.success) {
    const issue = data.error.issues[0];
    throw new OcdbError(
      'InvalidInput',
      `recordApproval: ${issue ? `${formatPath(issue.path) || '(root)'}: ${issue.message}` : 'invalid'}`,
      { path: issue ? formatPath(issue.path) : '' },
    );
  }
  new AcpRecording(run).approval(data.data.toolUseId, data.data.decision, Date.now());
  return approval;
}
