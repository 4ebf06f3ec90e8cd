/**
 * The real / override model loop of the built-in runner: a ReAct loop from
 * the fork's current state — answer the pending tool calls of the last
 * assistant turn by policy (cassette, mock; never the tool's code), then ask
 * the model (an OpenAI-compatible endpoint) for the next turn, until it
 * answers without tool calls or the turn limit is reached. Every step is
 * recorded live as checkpoints. No UI.
 */
import { OcdbError, messageToolCalls, type Message } from '../model';
import { extendList } from '../store';
import { findResponseDivergence } from './divergence';
import { promptTemplateFor, renderTemplate } from './promptRender';
import { recordedAnswer, turnLocation } from './modelTurns';
import { answerTool, checkAborted, contextNow, type RunContext, type StepsOutcome } from './runContext';

/** Tool calls of the last assistant message that have no tool message yet. */
export function pendingToolCalls(messages: readonly Message[]) {
  const lastAssistant = messages.findLastIndex((m) => m.role === 'assistant');
  if (lastAssistant < 0) return [];
  const answered = new Set(
    messages
      .slice(lastAssistant + 1)
      .filter((m) => m.role === 'tool')
      .map((m) => m.toolCallId),
  );
  return messageToolCalls(messages[lastAssistant] as Message).filter((c) => !answered.has(c.toolCallId));
}

export async function realLoop(ctx: RunContext): Promise<StepsOutcome> {
  const { writer } = ctx;
  const chat = ctx.chatModel;
  if (!chat) {
    throw new OcdbError(
      'ModelEndpointError',
      'This fork uses a real model but no model endpoint is configured: set the endpoint (base URL, model, API key variable) in the settings or with --base-url.',
      {},
    );
  }
  const messagesNow = () => writer.state?.messages ?? [];
  const toolNames = [...new Set([...contextNow(ctx).tools.availableTools, ...ctx.plan.tools.map((t) => t.toolName)])];
  let turns = 0;
  for (;;) {
    checkAborted(ctx.signal);
    const pending = pendingToolCalls(messagesNow());
    if (pending.length > 0) {
      const answered = pending.map((call) => {
        const facts = ctx.gate.facts(call.toolName);
        const { answer, policy } = answerTool(ctx, call.toolName, call.args, facts);
        const checkpoint = { toolCallId: call.toolCallId };
        if (writer.begunHere(call.toolCallId)) writer.checkpoint('before_tool_call', checkpoint);
        else {
          writer.beginTool(
            {
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              args: call.args,
              sideEffectLevel: facts.level,
              replayPolicy: policy,
            },
            { checkpoint },
          );
        }
        return { call, answer };
      });
      for (const { call, answer } of answered) writer.finishTool(call.toolCallId, answer.outcome, answer.value);
      continue;
    }
    if (messagesNow().at(-1)?.role === 'assistant') return { status: 'completed' };
    if (turns >= ctx.maxModelTurns) {
      return {
        status: 'failed',
        error: {
          code: 'max_turns',
          message: `The model took ${turns} turns without a final answer; the fork stops there (raise maxModelTurns to go further).`,
        },
      };
    }
    const inStep = writer.lastBoundary === 'before_prompt_build' || writer.lastBoundary === 'before_model_call';
    if (!inStep) writer.checkpoint('before_prompt_build');
    const ctxNow = contextNow(ctx);
    const promptVersion = writer.state?.promptVersion;
    const template = promptTemplateFor(ctx.metadata, promptVersion);
    const systemPrompt = template ? renderTemplate(template, ctxNow, promptVersion) : writer.state?.systemPrompt;
    if (writer.lastBoundary !== 'before_model_call') {
      writer.checkpoint('before_model_call', systemPrompt !== undefined ? { systemPrompt } : {});
    }
    const model = writer.state?.model ?? { provider: ctxNow.model.provider, model: ctxNow.model.model };
    const result = await chat.complete({ systemPrompt, messages: messagesNow(), model, tools: toolNames }, ctx.signal);
    const recorded = ctx.recordedTurns?.[turns];
    const recordedMessage = recorded ? recordedAnswer(recorded) : undefined;
    if (!ctx.responseDivergence && recorded && recordedMessage) {
      const d = findResponseDivergence(result.message, recordedMessage, {
        ...turnLocation(recorded),
        stepIndex: writer.stepIndex,
        messageIndex: messagesNow().length,
      });
      if (d) ctx.responseDivergence = d;
    }
    turns++;
    writer.checkpoint('after_model_call', {
      messages: extendList(messagesNow(), [result.message]),
      ...(result.model ? { model: result.model } : {}),
      ...(result.finishReason !== undefined ? { finishReason: result.finishReason } : {}),
      ...(result.usage ? { usage: result.usage } : {}),
    });
  }
}
