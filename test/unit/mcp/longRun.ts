/**
 * A long run for the MCP server's bounds: `steps` ReAct steps of four checkpoints each (model call, its answer,
 * a tool call, its result) written through the one RunWriter in one transaction, the conversation growing at every
 * answer and result; some arguments of 50,000 characters, some results of 200,000, a failed call every 1,000
 * steps, two tools. What a day-long agent session leaves.
 */
import { RunWriter } from '../../../src/writer';
import type { RunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';

export const LONG_ARGS_EVERY = 997;
export const LONG_RESULT_EVERY = 500;
export const ERROR_EVERY = 1_000;

export function writeLongRun(store: RunStore, runId: string, steps: number): void {
  let t = Date.UTC(2026, 10, 5, 9);
  const now = () => (t += 250);
  store.transaction(() => {
    const writer = RunWriter.create(
      store,
      {
        runId,
        agentId: 'long-agent',
        startedAt: t,
        metadata: { purpose: 'bounds' },
        state: {
          runtimeContext: testContext(),
          systemPrompt: `You are a research agent. ${'Follow the house rules. '.repeat(200)}`,
          messages: [{ role: 'user', content: `Find everything about the topic. ${'context '.repeat(60)}` }],
        },
      },
      { now },
    );
    for (let i = 0; i < steps; i++) {
      const toolName = i % 2 === 0 ? 'fetch_page' : 'search';
      const toolCallId = `call-${i}`;
      writer.checkpoint('before_model_call', {});
      writer.checkpoint('after_model_call', {
        appendMessages: [
          {
            role: 'assistant',
            content: [
              { type: 'text', text: `Step ${i}: looking further. ${'reasoning '.repeat(25)}` },
              { type: 'tool_call', toolCallId, toolName, args: { q: `query ${i}` } },
            ],
          },
        ],
        usage: { inputTokens: 1_000 + i, outputTokens: 40 },
        finishReason: 'tool_calls',
      });
      const args = { q: `query ${i}`, ...(i % LONG_ARGS_EVERY === 0 ? { body: 'a'.repeat(50_000) } : {}) };
      writer.beginTool({ toolCallId, toolName, args, sideEffectLevel: 'read_only' });
      if (i % ERROR_EVERY === ERROR_EVERY - 1) writer.finishTool(toolCallId, 'error', { message: `timeout at ${i}` });
      else {
        const result =
          i % LONG_RESULT_EVERY === 0 ? { page: 'p'.repeat(200_000) } : { hits: [`doc-${i}`, `doc-${i + 1}`] };
        writer.finishTool(toolCallId, 'success', result);
      }
    }
    writer.end({ status: 'completed' });
    writer.dispose();
  });
}
