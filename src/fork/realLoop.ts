/**
 * The real / override model loop of the built-in runner: a ReAct loop from
 * the fork's current state — answer the pending tool calls of the last
 * assistant turn by policy (cassette, mock; never the tool's code), then ask
 * the model (an OpenAI-compatible endpoint) for the next turn, until it
 * answers without tool calls or the turn limit is reached. Every step is
 * recorded live as checkpoints. No UI.
 */
import { OcdbError, messageToolCalls, type Message } from '../model';
import { findResponseDivergence, promptTemplateFor, renderTemplate } from './promptRender';
import { answerTool, checkAborted, toolFacts, toolMessage, type RunContext, type StepsOutcome } from './runContext';

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
  const toolNames = [
    ...new Set([...writer.state.runtimeContext.tools.availableTools, ...ctx.plan.tools.map((t) => t.toolName)]),
  ];
  let turns = 0;
  for (;;) {
    checkAborted(ctx.signal);
    const pending = pendingToolCalls(writer.state.messages);
    if (pending.length > 0) {
      const answered = pending.map((call) => {
        const facts = toolFacts(ctx, call.toolName);
        const { answer, policy } = answerTool(ctx, call.toolName, call.args, facts);
        if (!writer.begunHere(call.toolCallId)) {
          writer.beginTool(call.toolCallId, call.toolName, call.args, facts.level, policy);
        }
        writer.checkpoint('before_tool_call', {}, { toolCallId: call.toolCallId });
        return { call, answer };
      });
      for (const { call, answer } of answered) {
        writer.finishTool(call.toolCallId, answer.outcome, answer.value);
        writer.checkpoint(
          'after_tool_call',
          { messages: [...writer.state.messages, toolMessage(call.toolCallId, call.toolName, answer)] },
          { toolCallId: call.toolCallId },
        );
      }
      continue;
    }
    if (writer.state.messages.at(-1)?.role === 'assistant') return { status: 'completed' };
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
    if (!inStep) writer.checkpoint('before_prompt_build', { stepIndex: writer.state.stepIndex + 1 });
    const ctxNow = writer.state.runtimeContext;
    const template = promptTemplateFor(ctx.metadata, writer.state.promptVersion);
    const systemPrompt = template
      ? renderTemplate(template, ctxNow, writer.state.promptVersion)
      : writer.state.systemPrompt;
    if (writer.lastBoundary !== 'before_model_call') {
      writer.checkpoint('before_model_call', systemPrompt !== undefined ? { systemPrompt } : {});
    }
    const model = writer.state.model ?? { provider: ctxNow.model.provider, model: ctxNow.model.model };
    const result = await chat.complete(
      { systemPrompt, messages: writer.state.messages, model, tools: toolNames },
      ctx.signal,
    );
    const recorded = ctx.recordedTurns?.[turns];
    const recordedAnswer =
      recorded?.after && recorded.after.messages.length > recorded.before.messages.length
        ? recorded.after.messages.at(-1)
        : undefined;
    if (!ctx.responseDivergence && recorded && recordedAnswer) {
      const d = findResponseDivergence(result.message, recordedAnswer, {
        stepIndex: writer.state.stepIndex,
        sourceCheckpointIndex: recorded.beforeIndex,
        sourceCheckpointId: recorded.before.checkpointId,
        messageIndex: writer.state.messages.length,
      });
      if (d) ctx.responseDivergence = d;
    }
    turns++;
    writer.checkpoint(
      'after_model_call',
      { messages: [...writer.state.messages, result.message], ...(result.model ? { model: result.model } : {}) },
      {
        ...(result.finishReason !== undefined ? { finishReason: result.finishReason } : {}),
        ...(result.usage ? { usage: result.usage } : {}),
      },
    );
  }
}
