/**
 * Every checkpoint an importer writes parses with the schema the store reads
 * it back with: the plan builder refuses, naming the part, a message or a
 * ledger record that would not read back (a message whose content is
 * undefined loses the key in JSON and the store's reader rejects it).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunPlanBuilder } from '../../../src/importers/runPlan';
import type { RuntimeContextSnapshot } from '../../../src/model';

const context: RuntimeContextSnapshot = {
  user: { userId: 'u', roleId: 'r', permissions: [] },
  conversation: { sessionId: 's' },
  project: { projectId: 'p' },
  task: { taskId: 't', workflowId: 'w', stepStates: {} },
  tools: { availableTools: [] },
  model: { provider: 'openai', model: 'gpt-4o', promptVersion: '' },
};

function builder(): RunPlanBuilder {
  return new RunPlanBuilder('run-1', { messages: [], ledger: [], runtimeContext: context, at: 0 });
}

describe('checkpoints that read back', () => {
  it('refuses a message whose content would be lost in JSON, naming its place', () => {
    const b = builder();
    b.addMessage({ role: 'user', content: 'hi' });
    assert.throws(
      () => b.addMessage({ role: 'assistant', content: undefined }),
      /messages\[1\] would not read back from the store: content: /,
    );
  });

  it('refuses a message of a role the store does not know', () => {
    assert.throws(() => builder().addMessage({ role: 'developer' as never, content: 'x' }), /messages\[0\].*role/);
  });

  it('refuses a context the store would reject', () => {
    assert.throws(
      () =>
        new RunPlanBuilder('r', { messages: [], ledger: [], runtimeContext: { ...context, user: 3 } as never, at: 0 }),
      /runtimeContext would not read back from the store: user/,
    );
  });

  it('accepts a whole tool call round trip', () => {
    const b = builder();
    b.addMessage({ role: 'user', content: 'go' });
    b.checkpoint('before_model_call');
    b.addMessage({ role: 'assistant', content: [{ type: 'tool_call', toolCallId: 'c1', toolName: 'ls', args: {} }] });
    b.checkpoint('after_model_call', { usage: { inputTokens: 3, outputTokens: 1 } });
    b.beginTool({ toolCallId: 'c1', toolName: 'ls', args: {}, sideEffectLevel: 'read_only', startedAt: 1 });
    b.finishTool('c1', { result: 'a.txt', endedAt: 2 });
    const plan = b.finish({
      sessionId: 's',
      agentId: 'a',
      mode: 'live',
      startedAt: 0,
      status: 'completed',
      metadata: {},
    });
    assert.equal(plan.checkpointCount, 5);
  });
});
