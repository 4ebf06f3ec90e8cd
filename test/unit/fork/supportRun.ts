/**
 * A realistic recorded fixture for fork tests: a support agent resolving a
 * refund over several ReAct steps, recorded through the real recorder SDK
 * into a real SQLite store. Read tools, an expensive read, a failing tool, a
 * write and two external_irreversible tools; the system prompt is rendered
 * from a template over the runtime context (kept in run metadata), so a
 * context patch changes the prompt.
 */
import { openRecorder } from '../../../src/recorder';
import type { Message, RuntimeContextSnapshot, SideEffectLevel } from '../../../src/model';
import type { RunStore } from '../../../src/store';

export const SUPPORT_TEMPLATE =
  'You are the support agent of Acme. The user {{user.userId}} has the role {{user.roleId}} ' +
  'with permissions {{user.permissions}}. Prompt {{model.promptVersion}}. Resolve the ticket with the tools.';

export function supportContext(): RuntimeContextSnapshot {
  return {
    user: { userId: 'u-1042', roleId: 'agent', permissions: ['refund:issue', 'email:send'] },
    conversation: { sessionId: 'sess-77', summary: 'customer asks for a refund of a damaged kettle' },
    project: { projectId: 'acme-support', reportId: 'case-5521', region: 'eu' },
    task: { taskId: 'ticket-5521', workflowId: 'refund-v2', stepStates: {} },
    tools: {
      availableTools: [
        'lookup_customer',
        'lookup_order',
        'search_kb',
        'get_exchange_rate',
        'issue_refund',
        'write_case_report',
        'send_email',
      ],
    },
    model: { provider: 'openai', model: 'gpt-4o-mini', promptVersion: 'v3' },
  };
}

/** Renders `{{path}}` over the context like the fixture agent does (the runner's promptRender must agree). */
export function renderSupportPrompt(ctx: RuntimeContextSnapshot): string {
  return SUPPORT_TEMPLATE.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_m, path: string) => {
    let cur: unknown = ctx;
    for (const key of path.split('.')) cur = (cur as Record<string, unknown> | undefined)?.[key];
    return typeof cur === 'string' ? cur : JSON.stringify(cur);
  });
}

interface PlannedCall {
  tool: string;
  args: Record<string, unknown>;
  level: SideEffectLevel;
  result?: unknown;
  error?: string;
}

/** The script: each step is one assistant turn with its tool calls; the last turn answers. */
export const SUPPORT_STEPS: PlannedCall[][] = [
  [
    {
      tool: 'lookup_customer',
      args: { email: 'dana@example.com' },
      level: 'read_only',
      result: { id: 'c-9', tier: 'gold' },
    },
  ],
  [
    {
      tool: 'lookup_order',
      args: { customerId: 'c-9', orderId: 'o-311' },
      level: 'read_only',
      result: { total: 89.9, currency: 'EUR', item: 'kettle' },
    },
    {
      tool: 'search_kb',
      args: { query: 'damaged on arrival refund' },
      level: 'expensive_read',
      result: [{ doc: 'kb-12', title: 'Damaged goods' }],
    },
  ],
  [{ tool: 'get_exchange_rate', args: { from: 'EUR', to: 'USD' }, level: 'read_only', error: 'rate service timeout' }],
  [
    {
      tool: 'get_exchange_rate',
      args: { from: 'EUR', to: 'USD', retry: true },
      level: 'read_only',
      result: { rate: 1.08 },
    },
  ],
  [
    {
      tool: 'issue_refund',
      args: { orderId: 'o-311', amount: 89.9 },
      level: 'external_irreversible',
      result: { refundId: 'r-77', status: 'issued' },
    },
  ],
  [
    {
      tool: 'write_case_report',
      args: { caseId: 'case-5521', outcome: 'refunded' },
      level: 'write',
      result: { saved: true },
    },
  ],
  [
    {
      tool: 'send_email',
      args: { to: 'dana@example.com', template: 'refund_issued' },
      level: 'external_irreversible',
      result: { messageId: 'm-1' },
    },
  ],
  [],
];

let counter = 0;
/** Records the support run into `store` (ids prefixed by `runId`); returns the run id. */
export async function recordSupportRun(store: RunStore, runId = 'support-refund'): Promise<string> {
  let clock = 1_760_000_000_000 + counter++ * 1_000_000;
  let n = 0;
  const recorder = openRecorder({
    runStore: store,
    now: () => (clock += 7),
    newId: (kind) => `${runId}-${kind}-${n++}`,
    heartbeatMs: 0,
  });
  const ctx = supportContext();
  const run = recorder.startRun({
    runId,
    agentId: 'support-bot',
    runtimeContext: ctx,
    systemPrompt: renderSupportPrompt(ctx),
    model: { provider: 'openai', model: 'gpt-4o-mini', temperature: 0 },
    messages: [{ role: 'user', content: 'My kettle arrived broken, order o-311. I want my money back.' }],
    metadata: { promptTemplate: SUPPORT_TEMPLATE },
  });
  const tools = new Map<string, (args: Record<string, unknown>, o?: { toolCallId?: string }) => Promise<unknown>>();
  for (const step of SUPPORT_STEPS) {
    for (const call of step) {
      if (tools.has(call.tool)) continue;
      tools.set(
        call.tool,
        run.tool(call.tool, { sideEffectLevel: call.level }, async (args: Record<string, unknown>) => {
          const planned = SUPPORT_STEPS.flat().find(
            (c) => c.tool === call.tool && JSON.stringify(c.args) === JSON.stringify(args),
          );
          if (planned?.error) throw new Error(planned.error);
          return planned?.result;
        }),
      );
    }
  }
  let turn = 0;
  for (const step of SUPPORT_STEPS) {
    run.checkpoint('before_prompt_build');
    const calls = step.map((c, i) => ({
      type: 'tool_call',
      toolCallId: `${runId}-call-${turn}-${i}`,
      toolName: c.tool,
      args: c.args,
    }));
    const text =
      calls.length > 0
        ? `Step ${turn}: calling ${step.map((c) => c.tool).join(', ')}.`
        : 'Your refund of 89.90 EUR is issued.';
    const message: Message = { role: 'assistant', content: [{ type: 'text', text }, ...calls] };
    await run.modelCall({ systemPrompt: renderSupportPrompt(ctx) }, async () => ({
      message,
      finishReason: calls.length > 0 ? 'tool_calls' : 'stop',
      usage: { inputTokens: 400 + turn * 120, outputTokens: 40 + turn },
    }));
    for (const [i, call] of step.entries()) {
      try {
        await tools.get(call.tool)?.(call.args, { toolCallId: `${runId}-call-${turn}-${i}` });
      } catch {
        // recorded as a tool error; the agent goes on
      }
    }
    turn++;
  }
  run.end();
  recorder.close();
  return runId;
}
