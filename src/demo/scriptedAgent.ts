/**
 * Plays a scripted ReAct episode through the recorder SDK, so the demo store
 * is recorded exactly the way a real agent records (same code path, same
 * checkpoints). Deterministic: a fixed clock and ids derived from the run id.
 * Depends on the recorder and model only.
 */
import { renderTemplate } from '../fork/promptRender';
import { deepMerge, messageText, type Message, type ModelConfig, type RuntimeContextSnapshot } from '../model';
import { Recorder, type RunRecorder } from '../recorder';
import type { ReplayPolicy, RunEndStatus, SideEffectLevel } from '../model';
import type { RunStore } from '../store';

export interface ScriptCall {
  tool: string;
  args: unknown;
  result?: unknown;
  /** The tool throws this (recorded as the call's error). */
  error?: { name: string; message: string; code?: string };
  /** The user stopped the run while this call was running. */
  cancelled?: boolean;
  ms: number;
}

/** An artifact the agent writes after a step's tool calls, its text rendered from the runtime context of the step. */
export interface ScriptArtifact {
  type: string;
  name: string;
  content: (context: RuntimeContextSnapshot) => string;
  metadata?: Record<string, unknown>;
}

export interface ScriptStep {
  /** A user message that arrives before this step. */
  user?: string;
  /** Assistant text of this step's model turn. */
  say: string;
  calls?: ScriptCall[];
  finishReason?: string;
  /** Artifacts recorded after the step's tool calls (run.artifact: the next checkpoint carries them). */
  artifacts?: ScriptArtifact[];
  /** Deep-merged into the runtime context at the start of the step. */
  context?: Record<string, unknown>;
  modelMs?: number;
}

export interface ToolSpec {
  level: SideEffectLevel;
  policy: ReplayPolicy;
}

export interface AgentScript {
  runId: string;
  agentId: string;
  startedAt: number;
  /** A fixed system prompt, or */
  systemPrompt?: string;
  /** a template rendered from the runtime context at every step (kept in run metadata as `promptTemplate`). */
  promptTemplate?: string;
  model: ModelConfig;
  context: RuntimeContextSnapshot;
  firstUserMessage: string;
  tools: Record<string, ToolSpec>;
  steps: ScriptStep[];
  end: { status: RunEndStatus; error?: unknown } | 'crash';
  metadata?: Record<string, unknown>;
  /** For forks: start from these messages at this step index. */
  fork?: { parentRunId: string; fromCheckpointId: string; messages: Message[]; stepIndex: number };
  /** For the crashed demo run: the (dead) process recorded as owner. */
  ownerPid?: number;
}

/** Rough token estimate used for the demo's usage figures (about 4 characters a token). */
function tokens(text: string): number {
  return Math.max(1, Math.round(text.length / 4));
}

export function playScript(store: RunStore, script: AgentScript): string {
  let clock = script.startedAt;
  const counters = { checkpoint: 0, toolCall: 0 };
  const short = script.runId.replace(/^demo-/, '');
  const recorder = new Recorder({
    runStore: store,
    heartbeatMs: 0,
    now: () => clock,
    newId: (kind) => {
      if (kind === 'run') return script.runId;
      counters[kind]++;
      // a checkpoint's id holds its index, as every view numbers it (`[37]` is `…-cp037`)
      return kind === 'checkpoint'
        ? `${script.runId}-cp${String(counters.checkpoint - 1).padStart(3, '0')}`
        : `call_${short}_${String(counters.toolCall).padStart(2, '0')}`;
    },
    ownerPid: script.ownerPid,
  });
  const advance = (ms: number) => {
    clock += ms;
  };
  let context = script.context;
  const promptFor = (ctx: RuntimeContextSnapshot): string =>
    script.promptTemplate !== undefined
      ? renderTemplate(script.promptTemplate, ctx, ctx.model.promptVersion)
      : (script.systemPrompt ?? '');
  const run: RunRecorder = recorder.startRun({
    runId: script.runId,
    agentId: script.agentId,
    sessionId: context.conversation.sessionId,
    runtimeContext: context,
    systemPrompt: promptFor(context),
    model: script.model,
    promptVersion: context.model.promptVersion,
    metadata: {
      demo: true,
      ...script.metadata,
      ...(script.promptTemplate !== undefined ? { promptTemplate: script.promptTemplate } : {}),
    },
    messages: script.fork ? script.fork.messages : [{ role: 'user', content: script.firstUserMessage }],
    mode: script.fork ? 'fork' : 'live',
    parentRunId: script.fork?.parentRunId,
    forkFromCheckpointId: script.fork?.fromCheckpointId,
  });
  let first = true;
  for (const step of script.steps) {
    if (step.context) context = deepMerge(context, step.context) as RuntimeContextSnapshot;
    const messages = step.user ? [...run.messages, { role: 'user' as const, content: step.user }] : undefined;
    advance(120);
    run.checkpoint('before_prompt_build', {
      runtimeContext: context,
      systemPrompt: promptFor(context),
      messages,
      stepIndex: first && script.fork ? script.fork.stepIndex : undefined,
    });
    first = false;
    advance(15);
    const calls = step.calls ?? [];
    const content: unknown[] = [{ type: 'text', text: step.say }];
    calls.forEach((c, i) =>
      content.push({
        type: 'tool_call',
        toolCallId: `call_${short}_${String(counters.toolCall + i + 1).padStart(2, '0')}`,
        toolName: c.tool,
        args: c.args,
      }),
    );
    const promptChars = run.messages.map((m) => messageText(m)).join('\n').length + promptFor(context).length;
    run.checkpoint('before_model_call', {});
    advance(step.modelMs ?? 900 + 37 * calls.length + (step.say.length % 400));
    run.checkpoint('after_model_call', {
      messages: [...run.messages, { role: 'assistant', content }],
      finishReason: step.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
      usage: { inputTokens: tokens('x'.repeat(promptChars)), outputTokens: tokens(JSON.stringify(content)) },
    });
    const opened: { id: string; call: ScriptCall }[] = [];
    for (const call of calls) {
      const spec = script.tools[call.tool];
      if (!spec) throw new Error(`demo script ${script.runId}: tool ${call.tool} has no spec`);
      advance(4);
      opened.push({
        id: run.beginTool(call.tool, call.args, { sideEffectLevel: spec.level, replayPolicy: spec.policy }),
        call,
      });
    }
    for (const { id, call } of opened) {
      advance(call.ms);
      if (call.cancelled) run.finishTool(id, 'cancelled', { name: 'Cancelled', message: 'stopped by the user' });
      else if (call.error) run.finishTool(id, 'error', call.error);
      else run.finishTool(id, 'success', call.result);
    }
    // artifacts take no time on the demo's clock: the runs' timings stay what they were before they had any
    for (const artifact of step.artifacts ?? []) {
      run.artifact({
        type: artifact.type,
        name: artifact.name,
        content: artifact.content(context),
        ...(artifact.metadata ? { metadata: artifact.metadata } : {}),
      });
    }
  }
  advance(40);
  if (script.end !== 'crash') {
    run.end({ status: script.end.status, error: script.end.error });
  } else {
    run.dispose();
  }
  recorder.close();
  return script.runId;
}
