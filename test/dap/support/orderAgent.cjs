// The README's recording example, changed only to run longer: a real agent process for the live DAP tests
// (test/dap/live*.test.ts). It records through the shipped SDK bundle (dist/recorder.js), waits for the file
// $AGENT_GO (when set) after its first checkpoint so a debugger can attach to the running run, and prints what
// its tool received, one JSON line per call, so a test can see the arguments the tool really ran with.
const fs = require('node:fs');
const path = require('node:path');
const { openRecorder } = require(path.join(__dirname, '..', '..', '..', 'dist', 'recorder.js'));

// writes to $OCDB_STORE; what the recorder could not do (a live check that failed) goes to stderr, for the tests
const recorder = openRecorder({ onError: (e) => console.error(`recorder: ${e.message}`) });
const run = recorder.startRun({
  agentId: process.env.AGENT_ID || 'support-bot',
  runtimeContext: {
    user: { userId: 'u-1', roleId: 'support_agent', permissions: ['orders:read'] },
    conversation: { sessionId: 'sess-1' },
    project: { projectId: 'shop' },
    task: { taskId: 't-1', workflowId: 'order-status', stepStates: {} },
    tools: { availableTools: ['lookup_order'] },
    model: { provider: 'openai', model: 'gpt-4.1-mini', promptVersion: 'v1' },
  },
  systemPrompt: 'You answer questions about orders.',
  messages: [{ role: 'user', content: 'Where is order A-1?' }],
});
console.log(JSON.stringify({ runId: run.runId }));
const lookupOrder = run.tool('lookup_order', { sideEffectLevel: 'read_only' }, async ({ orderId }) => {
  console.log(JSON.stringify({ tool: 'lookup_order', orderId }));
  if (orderId === 'FAIL') throw new Error(`no order ${orderId}`);
  return { orderId, status: 'shipped' };
});

async function waitForGo() {
  const go = process.env.AGENT_GO;
  if (!go) return;
  while (!fs.existsSync(go)) await new Promise((r) => setTimeout(r, 20));
}

(async () => {
  run.checkpoint('before_prompt_build');
  await waitForGo();
  await run.modelCall({}, async (messages, request) => {
    const systemPrompt = request.systemPrompt;
    console.log(JSON.stringify({ model: 'first', systemPrompt, firstMessage: messages[0]?.content ?? null }));
    return {
      message: {
        role: 'assistant',
        content: [{ type: 'tool_call', toolCallId: 'c1', toolName: 'lookup_order', args: { orderId: 'A-1' } }],
      },
      finishReason: 'tool_calls',
      usage: { inputTokens: 42, outputTokens: 9 },
    };
  });
  let said = 'It has shipped.';
  try {
    await lookupOrder({ orderId: process.env.ORDER_ID || 'A-1' }, { toolCallId: 'c1' });
  } catch (e) {
    said = `I could not find it (${e.message}).`;
  }
  await run.modelCall({}, async (messages, request) => {
    const systemPrompt = request.systemPrompt;
    console.log(JSON.stringify({ model: 'second', systemPrompt, firstMessage: messages[0]?.content ?? null }));
    return { message: { role: 'assistant', content: said }, finishReason: 'stop' };
  });
  run.end();
  recorder.close();
  console.log(JSON.stringify({ done: true }));
})();
