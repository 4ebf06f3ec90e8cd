/**
 * outpost's `ReplayTurn` (seed 003), field for field, and the reading of a recorded run as `ReplayTurn[]`
 * (`ocdb export --format replay-turns`, `replayTurnsOf` of the SDK). The seed leaves `AgentEvent` open; the
 * events this project writes and reads are:
 *
 *   { type: 'text', text }                                  text the agent returned (one per assistant text part)
 *   { type: 'tool_use', id, name, input, sideEffectLevel? } a tool call the model asked for (its level when known)
 *   { type: 'tool_result', id, name, status, output }      its outcome: status success | error | cancelled,
 *                                                          output the result or the stored error
 *   { type: 'usage', inputTokens, outputTokens }           the usage of one model call
 *   { type: 'result', text }                               the text the turn returned to the dispatch (import only)
 *
 * No execution phases, prompts or summaries (the seed's rule). A turn is a user message and everything up to the
 * next one. Pure: no I/O.
 */
import { z } from 'zod';
import type { DebugRun, RunStatus } from './run';
import type { Message, Usage } from './checkpoint';
import { messageText, messageToolCalls } from './messageParts';
import { SideEffectLevelSchema, toolOutcomeOf, TOOL_OUTCOMES, type ToolCallRecord } from './toolCall';

export const ReplayUsageSchema = z.looseObject({ inputTokens: z.number(), outputTokens: z.number() });

export const ReplayTextEventSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
export const ReplayToolUseEventSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
  sideEffectLevel: SideEffectLevelSchema.optional(),
});
export const ReplayToolResultEventSchema = z.looseObject({
  type: z.literal('tool_result'),
  id: z.string().min(1),
  name: z.string().optional(),
  status: z.enum(TOOL_OUTCOMES),
  output: z.unknown(),
});
export const ReplayUsageEventSchema = z.looseObject({
  type: z.literal('usage'),
  inputTokens: z.number(),
  outputTokens: z.number(),
});
export const ReplayResultEventSchema = z.looseObject({ type: z.literal('result'), text: z.string() });

/** An event of a turn: one of the shapes above, or any other `{ type }` (kept, not replayed). */
export const ReplayAgentEventSchema = z.union([
  ReplayTextEventSchema,
  ReplayToolUseEventSchema,
  ReplayToolResultEventSchema,
  ReplayUsageEventSchema,
  ReplayResultEventSchema,
  z.looseObject({ type: z.string().min(1) }),
]);
export type ReplayAgentEvent =
  | z.infer<typeof ReplayTextEventSchema>
  | z.infer<typeof ReplayToolUseEventSchema>
  | z.infer<typeof ReplayToolResultEventSchema>
  | z.infer<typeof ReplayUsageEventSchema>
  | z.infer<typeof ReplayResultEventSchema>
  | { type: string; [key: string]: unknown };

/** The seed's `ReplayTurn` (readonly fields; the types it names but does not spell out are kept open). */
export const ReplayTurnSchema = z.object({
  prompt: z.string(),
  events: z.array(ReplayAgentEventSchema),
  decisionEvents: z.array(z.unknown()).optional(),
  text: z.string(),
  usage: ReplayUsageSchema,
  conversation: z.string().optional(),
  failure: z.unknown().optional(),
  handover: z.unknown().optional(),
  changes: z.unknown().optional(),
  resumedBy: z.array(z.string()).optional(),
  interrupted: z.boolean().optional(),
});
export type ReplayTurn = z.infer<typeof ReplayTurnSchema>;
export const ReplayTurnsSchema = z.array(ReplayTurnSchema);

/** The fields of a turn the run keeps in its metadata (`replayTurns[i]`), since a run has no place for them. */
export const REPLAY_TURN_EXTRAS = ['decisionEvents', 'handover', 'changes', 'resumedBy', 'conversation'] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function eventsOfAssistant(message: Message, ledger: ReadonlyMap<string, ToolCallRecord>): ReplayAgentEvent[] {
  const events: ReplayAgentEvent[] = [];
  if (typeof message.content === 'string') {
    if (message.content !== '') events.push({ type: 'text', text: message.content });
  } else if (Array.isArray(message.content)) {
    for (const part of message.content) {
      if (!isRecord(part)) continue;
      if (part.type === 'text' && typeof part.text === 'string') events.push({ type: 'text', text: part.text });
    }
  } else if (message.content !== undefined && message.content !== null) {
    events.push({ type: 'text', text: messageText(message) });
  }
  for (const call of messageToolCalls(message)) {
    const level = ledger.get(call.toolCallId)?.sideEffectLevel;
    events.push({
      type: 'tool_use',
      id: call.toolCallId,
      name: call.toolName,
      input: call.args,
      ...(level ? { sideEffectLevel: level } : {}),
    });
  }
  return events;
}

function toolResultEvent(message: Message, record: ToolCallRecord | undefined): ReplayAgentEvent {
  const id = message.toolCallId ?? record?.toolCallId ?? 'unknown';
  const name = message.toolName ?? record?.toolName;
  if (record && record.endedAt !== undefined) {
    const status = toolOutcomeOf(record);
    return {
      type: 'tool_result',
      id,
      ...(name ? { name } : {}),
      status,
      output: status === 'success' ? record.result : record.error,
    };
  }
  const content = message.content;
  const failed = isRecord(content) && Object.keys(content).length === 1 && 'error' in content;
  return {
    type: 'tool_result',
    id,
    ...(name ? { name } : {}),
    status: failed ? 'error' : 'success',
    output: failed ? content.error : content,
  };
}

/** The turns of a recorded run (see the file header for the event shape). */
export function replayTurnsOf(run: DebugRun): ReplayTurn[] {
  const last = run.checkpoints.at(-1);
  const messages = last?.messages ?? [];
  const ledger = new Map(run.toolLedger.map((r) => [r.toolCallId, r]));
  for (const cp of run.checkpoints) {
    for (const r of cp.toolLedgerSnapshot) if (!ledger.has(r.toolCallId)) ledger.set(r.toolCallId, r);
  }
  // The usage of each model call, by the index of the assistant message it answered with.
  const usageAt = new Map<number, Usage>();
  for (const cp of run.checkpoints) {
    if (cp.boundary === 'after_model_call' && cp.usage && cp.messages.length > 0) {
      usageAt.set(cp.messages.length - 1, cp.usage);
    }
  }
  const extras = Array.isArray(run.metadata.replayTurns) ? (run.metadata.replayTurns as unknown[]) : [];
  const turns: ReplayTurn[] = [];
  let current: { prompt: string; events: ReplayAgentEvent[] } | undefined;
  const close = () => {
    if (!current) return;
    const texts = current.events.filter((e) => e.type === 'text').map((e) => String(e.text));
    const usage = current.events
      .filter((e) => e.type === 'usage')
      .reduce(
        (sum, e) => ({
          inputTokens: sum.inputTokens + Number(e.inputTokens),
          outputTokens: sum.outputTokens + Number(e.outputTokens),
        }),
        { inputTokens: 0, outputTokens: 0 },
      );
    const turn: ReplayTurn = {
      prompt: current.prompt,
      events: current.events,
      text: texts.join('\n'),
      usage,
      conversation: run.sessionId,
    };
    const extra = extras[turns.length];
    if (isRecord(extra)) {
      for (const key of REPLAY_TURN_EXTRAS) if (extra[key] !== undefined) Object.assign(turn, { [key]: extra[key] });
      if (typeof extra.text === 'string') turn.text = extra.text;
      if (Array.isArray(extra.otherEvents)) turn.events.push(...(extra.otherEvents as ReplayAgentEvent[]));
      if (extra.failure !== undefined) turn.failure = extra.failure;
      if (extra.interrupted === true) turn.interrupted = true;
    }
    turns.push(turn);
    current = undefined;
  };
  messages.forEach((message, index) => {
    switch (message.role) {
      case 'user':
        close();
        current = { prompt: messageText(message), events: [] };
        return;
      case 'assistant': {
        current ??= { prompt: '', events: [] };
        current.events.push(...eventsOfAssistant(message, ledger));
        const usage = usageAt.get(index);
        if (usage) {
          current.events.push({ type: 'usage', inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
        }
        return;
      }
      case 'tool':
        current ??= { prompt: '', events: [] };
        current.events.push(toolResultEvent(message, message.toolCallId ? ledger.get(message.toolCallId) : undefined));
        return;
      case 'system':
        return;
      default: {
        const unreachable: never = message.role;
        throw new Error(`unknown role ${String(unreachable)}`);
      }
    }
  });
  close();
  const final = turns.at(-1);
  if (final) endOfRun(final, run.status, run.error);
  return turns;
}

/** The last turn carries how the run ended: a recorded failure, or `interrupted` for a cancelled run. */
function endOfRun(turn: ReplayTurn, status: RunStatus, error: unknown): void {
  if (status === 'failed' && turn.failure === undefined) turn.failure = error ?? { message: 'the run failed' };
  if (status === 'cancelled') turn.interrupted = true;
}
