/**
 * outpost `ReplayTurn[]` (seed 003; the event shape is model/replayTurn.ts's) -> one RunPlan. A JSON array of
 * turns, `{ "turns": [...] }`, or JSON Lines of turns. Each turn is a ReAct step: the prompt as the user message,
 * each run of text / tool_use events one model call (its assistant message; a `usage` event closes it with that
 * usage), each tool_result the end of its tool call (success, error, cancelled). A recorded `failure` of the last
 * turn fails the run with it, `interrupted` cancels it — so a captured replay re-emits the events in order,
 * re-reports the usage without spending tokens and raises the failure again after them. What a run has no place
 * for (conversation, decisionEvents, handover, changes, resumedBy, other events) is kept in the run's metadata
 * `replayTurns[i]`, which the export reads back. Reads the file; writes nothing.
 */
import { basename, dirname } from 'node:path';
import { statSync } from 'node:fs';
import {
  REPLAY_TURN_EXTRAS,
  ReplayTurnSchema,
  parseWith,
  type ReplayTurn,
  type RuntimeContextSnapshot,
  type SideEffectLevel,
  type Usage,
} from '../../model';
import type { ReadPlans, ReaderOptions } from '../reader';
import { readRecordsWithDigest } from '../jsonRecords';
import { RunPlanBuilder } from '../runPlan';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function contextOf(file: string, runId: string, turns: readonly ReplayTurn[]): RuntimeContextSnapshot {
  const tools = new Set<string>();
  for (const t of turns)
    for (const e of t.events) if (e.type === 'tool_use' && typeof e.name === 'string') tools.add(e.name);
  return {
    user: { userId: 'unknown', roleId: 'user', permissions: [] },
    conversation: { sessionId: turns.find((t) => t.conversation)?.conversation ?? runId },
    project: { projectId: basename(dirname(file)) },
    task: { taskId: basename(file), workflowId: 'replay-turns', stepStates: {} },
    tools: { availableTools: [...tools].sort() },
    model: { provider: 'unknown', model: 'unknown', promptVersion: 'unknown' },
  };
}

/** A turn's failure as a run error: an object stays, anything else becomes its message. */
function errorOf(failure: unknown): unknown {
  return isRecord(failure) ? failure : { message: typeof failure === 'string' ? failure : JSON.stringify(failure) };
}

export async function readReplayTurns(file: string, options: ReaderOptions): Promise<ReadPlans> {
  const turns: ReplayTurn[] = [];
  const add = (value: unknown, where: string) => {
    if (isRecord(value) && Array.isArray(value.turns) && !('prompt' in value)) {
      value.turns.forEach((t, i) => turns.push(parseWith(ReplayTurnSchema, t, `${where}.turns[${i}]`)));
    } else turns.push(parseWith(ReplayTurnSchema, value, where));
  };
  const digest = (await readRecordsWithDigest(file, options, add)).slice(0, 12);
  const runId = `rt-${digest}`;
  if (turns.length === 0) return { plans: [], primaryRunId: runId, extraFiles: [] };
  let clock = Math.floor(statSync(file).mtimeMs);
  const tick = () => ++clock;
  const builder = new RunPlanBuilder(runId, {
    messages: [],
    ledger: [],
    runtimeContext: contextOf(file, runId, turns),
    at: clock,
  });
  const warn = (message: string) => options.warnings.push({ file, message });
  const extras: Record<string, unknown>[] = [];

  turns.forEach((turn, t) => {
    const where = `turn ${t + 1}`;
    const extra: Record<string, unknown> = {};
    for (const key of REPLAY_TURN_EXTRAS) if (turn[key] !== undefined) extra[key] = turn[key];
    const isLast = t === turns.length - 1;
    if (!isLast && turn.failure !== undefined) {
      extra.failure = turn.failure;
      warn(`${where} records a failure but is not the last turn; kept in the run's metadata, not raised by a replay`);
    }
    if (!isLast && turn.interrupted === true) extra.interrupted = true;
    const hasUsageEvents = turn.events.some((e) => e.type === 'usage');
    const lastOutput = turn.events.findLastIndex((e) => e.type === 'text' || e.type === 'tool_use');
    const hasText = turn.events.some((e) => e.type === 'text');

    builder.addMessage({ role: 'user', content: turn.prompt });
    builder.checkpoint('before_prompt_build', { at: tick() });
    let parts: Record<string, unknown>[] = [];
    let calls: { id: string; name: string; input: unknown; level: SideEffectLevel }[] = [];
    let open = false;
    let carriesTurnUsage = false;
    const startCall = () => {
      if (open) return;
      builder.checkpoint('before_model_call', { at: tick() });
      open = true;
    };
    const flush = (usage?: Usage) => {
      if (!open) return;
      const only = parts[0];
      const content = parts.length === 1 && only?.type === 'text' ? (only.text as string) : parts;
      builder.addMessage({ role: 'assistant', content });
      const recorded = usage ?? (carriesTurnUsage && !hasUsageEvents ? turn.usage : undefined);
      builder.checkpoint('after_model_call', {
        at: tick(),
        finishReason: calls.length > 0 ? 'tool_calls' : 'stop',
        ...(recorded ? { usage: { inputTokens: recorded.inputTokens, outputTokens: recorded.outputTokens } } : {}),
      });
      for (const c of calls) {
        builder.beginTool({
          toolCallId: c.id,
          toolName: c.name,
          args: c.input,
          sideEffectLevel: c.level,
          startedAt: tick(),
        });
      }
      parts = [];
      calls = [];
      open = false;
      carriesTurnUsage = false;
    };
    let resultText: string | undefined;
    const others: unknown[] = [];
    turn.events.forEach((event, i) => {
      switch (event.type) {
        case 'text':
          startCall();
          parts.push({ type: 'text', text: String(event.text) });
          break;
        case 'tool_use': {
          startCall();
          const id = String(event.id);
          const name = String(event.name);
          if (builder.hasTool(id) || calls.some((c) => c.id === id)) {
            warn(`${where}: events[${i}] asks for tool call ${id} again; the repeat was skipped`);
            break;
          }
          parts.push({ type: 'tool_call', toolCallId: id, toolName: name, args: event.input });
          const level = typeof event.sideEffectLevel === 'string' ? event.sideEffectLevel : undefined;
          calls.push({ id, name, input: event.input, level: (level as SideEffectLevel) ?? options.sideEffectOf(name) });
          break;
        }
        case 'usage':
          if (open) flush({ inputTokens: Number(event.inputTokens), outputTokens: Number(event.outputTokens) });
          else warn(`${where}: events[${i}] (usage) follows no model output; counted in the turn's usage only`);
          break;
        case 'tool_result': {
          flush();
          const id = String(event.id);
          const record = builder.tool(id);
          if (record?.endedAt !== undefined) {
            warn(`${where}: events[${i}] answers tool call ${id} a second time; skipped`);
            break;
          }
          if (!record) {
            const name = typeof event.name === 'string' ? event.name : 'unknown';
            builder.beginTool({
              toolCallId: id,
              toolName: name,
              args: undefined,
              sideEffectLevel: options.sideEffectOf(name),
              startedAt: tick(),
            });
          }
          const status = event.status as 'success' | 'error' | 'cancelled';
          builder.finishTool(id, {
            outcome: status,
            ...(status === 'success' ? { result: event.output } : { error: event.output ?? { message: status } }),
            endedAt: tick(),
          });
          break;
        }
        case 'result':
          resultText = String(event.text);
          break;
        default:
          others.push(event);
      }
      if (i === lastOutput) carriesTurnUsage = true;
    });
    if (!hasText && (resultText ?? turn.text) !== '') {
      startCall();
      parts.push({ type: 'text', text: resultText ?? turn.text });
      carriesTurnUsage = true;
    }
    flush();
    for (const r of builder.openTools()) {
      builder.finishTool(r.toolCallId, {
        outcome: 'cancelled',
        error: { message: `${where} ended before tool call ${r.toolCallId} (${r.toolName}) finished` },
        endedAt: tick(),
      });
    }
    const texts = turn.events.filter((e) => e.type === 'text').map((e) => String(e.text));
    if (hasText && turn.text !== texts.join('\n')) extra.text = turn.text;
    if (others.length > 0) {
      extra.otherEvents = others;
      warn(`${where}: ${others.length} event(s) of a type this tool does not replay were kept in the run's metadata`);
    }
    extras.push(extra);
  });

  const last = turns.at(-1) as ReplayTurn;
  const status = last.failure !== undefined ? 'failed' : last.interrupted === true ? 'cancelled' : 'completed';
  const plan = builder.finish({
    sessionId: contextOf(file, runId, turns).conversation.sessionId,
    agentId: 'replay-turns',
    mode: 'live',
    startedAt: Math.floor(statSync(file).mtimeMs),
    status,
    ...(last.failure !== undefined ? { error: errorOf(last.failure) } : {}),
    metadata: { source: { format: 'replay-turns', file, contentHash: digest }, replayTurns: extras },
  });
  return { plans: [plan], primaryRunId: runId, extraFiles: [] };
}
