/**
 * The customer-support agent of the demo store: a refund run of 9 ReAct steps
 * touching every side-effect level and replay policy (with a tool error and a
 * retry), an escalation run that fails, and an auditor fork of the refund.
 * Both refund runs write their case report as an artifact (`case-report.md`),
 * rendered from the role they act as: the auditor's says it issued nothing.
 */
import type { Message, RuntimeContextSnapshot } from '../model';
import type { AgentScript, ScriptArtifact, ToolSpec } from './scriptedAgent';

const DAY = Date.UTC(2026, 10, 2, 9, 14, 7);

export const SUPPORT_TOOLS: Record<string, ToolSpec> = {
  lookup_customer: { level: 'read_only', policy: 'reuse_result' },
  lookup_order: { level: 'read_only', policy: 'reuse_result' },
  get_shipping_events: { level: 'read_only', policy: 'reuse_result' },
  search_kb: { level: 'expensive_read', policy: 'reuse_result' },
  get_exchange_rate: { level: 'expensive_read', policy: 'mock_result' },
  format_currency: { level: 'none', policy: 're_execute' },
  issue_refund: { level: 'external_irreversible', policy: 'forbid_replay' },
  write_case_report: { level: 'write', policy: 'manual_confirm' },
  send_email: { level: 'external_irreversible', policy: 'manual_confirm' },
  escalate_to_human: { level: 'write', policy: 'manual_confirm' },
};

/**
 * The support agent renders its system prompt from the runtime context; the
 * template is kept in run metadata (`promptTemplate`) so a captured replay can
 * render it for a fork and report where a context patch changes the prompt.
 */
export const SUPPORT_PROMPT_TEMPLATE = [
  'You are Acme Store support (prompt {{promptVersion}}).',
  'You act as {{user.roleId}} with permissions {{user.permissions}}.',
  'Verify the customer and the order before any money moves.',
  'Refunds: damaged-in-transit items within 30 days get a full refund without return (KB-112).',
  'Only users with the refunds:issue permission may issue refunds; auditors document, never act.',
  'Always write a case report and email the customer a summary.',
].join('\n');

export function supportContext(overrides: Partial<RuntimeContextSnapshot> = {}): RuntimeContextSnapshot {
  return {
    user: {
      userId: 'agent-u-48213',
      roleId: 'support_agent',
      permissions: ['orders:read', 'refunds:issue', 'cases:write', 'email:send'],
    },
    conversation: { sessionId: 'sess-support-0192', summary: 'Customer reports a cracked water tank on delivery' },
    project: { projectId: 'acme-store-eu', region: 'eu-west-1', currency: 'EUR', channel: 'chat' },
    task: { taskId: 'task-77812', workflowId: 'refund-flow-v2', stepStates: { triage: 'started' } },
    tools: { availableTools: Object.keys(SUPPORT_TOOLS).filter((t) => t !== 'escalate_to_human') },
    model: { provider: 'openai', model: 'gpt-4.1-mini', promptVersion: 'support-v3' },
    ...overrides,
  };
}

/** The name of the case report artifact both refund runs write (compared by name). */
export const CASE_REPORT = 'case-report.md';

/**
 * The case report the support agent writes (run.artifact), from the context it acts in: who wrote it in which
 * role with which permissions, and what that role let it do.
 */
function caseReport(reportId: string, action: string[], next: string): ScriptArtifact {
  return {
    type: 'text/markdown',
    name: CASE_REPORT,
    metadata: { reportId, ticket: 'T-2026-11-0192', path: `reports/2026/11/${reportId}.md` },
    content: (ctx) =>
      [
        `# Case report ${reportId} · ticket T-2026-11-0192`,
        '',
        '- Customer: Dana Kim (C-5531, gold tier)',
        '- Order: A-10442 · Barista Pro 900 espresso machine · €449.00, paid by card ending 4242 (bills in USD)',
        `- Written by: ${ctx.user.userId} acting as ${ctx.user.roleId}`,
        `- Permissions: ${ctx.user.permissions.join(', ')}`,
        '',
        '## Finding',
        '',
        'The water tank arrived cracked. The carrier logged the parcel as damaged and repacked at the Leipzig hub on',
        '2026-10-26, two days before delivery. Damage in transit reported within 30 days: eligible for a full refund',
        'without return under KB-112.',
        '',
        '## Action',
        '',
        ...action,
        '',
        '## Next',
        '',
        next,
        '',
      ].join('\n'),
  };
}

const ORDER = {
  orderId: 'A-10442',
  customerId: 'C-5531',
  status: 'delivered',
  deliveredAt: '2026-10-28T15:02:00Z',
  currency: 'EUR',
  total: 449.0,
  items: [{ sku: 'ESP-900', name: 'Barista Pro 900 espresso machine', qty: 1, unitPrice: 449.0 }],
  paymentMethod: { type: 'card', brand: 'visa', last4: '4242', billingCurrency: 'USD' },
};

export const refundScript: AgentScript = {
  runId: 'demo-support-refund',
  agentId: 'support-desk',
  startedAt: DAY,
  promptTemplate: SUPPORT_PROMPT_TEMPLATE,
  model: { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.2 },
  context: supportContext(),
  firstUserMessage:
    "Hi, my order A-10442 arrived with a cracked water tank — the machine leaks everywhere. I'd like a refund please. My email is dana.kim@example.com.",
  tools: SUPPORT_TOOLS,
  metadata: { channel: 'chat', ticket: 'T-2026-11-0192' },
  steps: [
    {
      say: "I'm sorry to hear that. Let me find your account and the order first.",
      calls: [
        {
          tool: 'lookup_customer',
          args: { email: 'dana.kim@example.com' },
          result: { customerId: 'C-5531', name: 'Dana Kim', tier: 'gold', customerSince: '2021-03-14', openCases: 0 },
          ms: 182,
        },
        { tool: 'lookup_order', args: { orderId: 'A-10442' }, result: ORDER, ms: 241 },
      ],
    },
    {
      context: { task: { stepStates: { triage: 'done', identify_customer: 'done' } } },
      say: 'The order is delivered and belongs to Dana. Checking the policy for items damaged on arrival.',
      calls: [
        {
          tool: 'search_kb',
          args: { query: 'damaged on arrival refund espresso machine', topK: 3 },
          result: {
            articles: [
              {
                id: 'KB-112',
                title: 'Damaged on arrival',
                snippet: 'Items damaged in transit and reported within 30 days get a full refund; no return needed.',
              },
              {
                id: 'KB-087',
                title: 'Returns for small appliances',
                snippet: 'Unused appliances may be returned within 14 days.',
              },
              { id: 'KB-140', title: 'Refund currency', snippet: 'Refunds are issued in the order currency.' },
            ],
          },
          ms: 1320,
        },
      ],
    },
    {
      say: 'KB-112 applies if the damage happened in transit. Let me confirm with the carrier events.',
      calls: [
        {
          tool: 'get_shipping_events',
          args: { orderId: 'A-10442', carrier: 'DHL' },
          error: { name: 'UpstreamTimeout', message: 'carrier API timed out after 10000 ms', code: 'ETIMEDOUT' },
          ms: 10004,
        },
      ],
    },
    {
      say: 'The carrier API timed out; trying once more with the tracking number.',
      calls: [
        {
          tool: 'get_shipping_events',
          args: { orderId: 'A-10442', carrier: 'DHL', trackingNumber: 'JD014600006251234567' },
          result: {
            events: [
              { at: '2026-10-26T08:10:00Z', where: 'Leipzig hub', what: 'parcel damaged, repacked' },
              { at: '2026-10-28T15:02:00Z', where: 'Berlin', what: 'delivered' },
            ],
          },
          ms: 655,
        },
      ],
    },
    {
      context: { task: { stepStates: { eligibility: 'eligible:KB-112' } } },
      say: 'Damage in transit is confirmed (Leipzig hub). Her card bills in USD; let me get the amount she will see.',
      calls: [
        {
          tool: 'get_exchange_rate',
          args: { from: 'EUR', to: 'USD', date: '2026-11-02' },
          result: { rate: 1.0842, asOf: '2026-11-02T09:00:00Z', source: 'ecb' },
          ms: 410,
        },
        {
          tool: 'format_currency',
          args: { amount: 486.81, currency: 'USD', locale: 'en-US' },
          result: '$486.81',
          ms: 2,
        },
      ],
    },
    {
      say: 'Eligible for a full refund under KB-112. Issuing €449.00 to the original card.',
      calls: [
        {
          tool: 'issue_refund',
          args: { orderId: 'A-10442', amount: 449.0, currency: 'EUR', reason: 'damaged_in_transit', policy: 'KB-112' },
          result: { refundId: 'RF-88213', status: 'issued', amount: 449.0, currency: 'EUR', eta: '3-5 business days' },
          ms: 930,
        },
      ],
    },
    {
      context: { task: { stepStates: { refund: 'issued:RF-88213' } }, project: { refundId: 'RF-88213' } },
      say: 'Refund RF-88213 is issued. Writing the case report.',
      calls: [
        {
          tool: 'write_case_report',
          args: {
            caseId: 'T-2026-11-0192',
            customerId: 'C-5531',
            orderId: 'A-10442',
            outcome: 'refunded',
            refundId: 'RF-88213',
            notes: 'Water tank cracked; carrier logged damage at Leipzig hub on 2026-10-26.',
          },
          result: { reportId: 'CR-2026-1104', path: 'reports/2026/11/CR-2026-1104.md', bytes: 1843 },
          ms: 377,
        },
      ],
      artifacts: [
        caseReport(
          'CR-2026-1104',
          [
            'Refund RF-88213 issued: €449.00 to the original card (about $486.81 at the ECB rate of 1.0842),',
            'expected in 3-5 business days. No return needed.',
          ],
          'Email the customer a summary of the refund. Case closed once it is sent.',
        ),
      ],
    },
    {
      context: { project: { reportId: 'CR-2026-1104' }, task: { stepStates: { report: 'written' } } },
      say: 'Emailing Dana a summary of the refund.',
      calls: [
        {
          tool: 'send_email',
          args: {
            to: 'dana.kim@example.com',
            subject: 'Your refund for order A-10442',
            template: 'refund_confirmation',
            vars: { name: 'Dana', amount: '€449.00', approxUsd: '$486.81', refundId: 'RF-88213' },
          },
          result: { messageId: '<20261102091939.RF-88213@mail.acme.example>', queued: true },
          ms: 288,
        },
      ],
    },
    {
      context: { task: { stepStates: { notify: 'sent', triage: 'closed' } } },
      say: "All done, Dana: I've refunded €449.00 (about $486.81 on your card) under our damaged-on-arrival policy — refund RF-88213, expect it in 3-5 business days. There's no need to send the machine back. A confirmation email is on its way. Anything else I can help with?",
    },
  ],
  end: { status: 'completed' },
};

/** The refund run's step 5 (issue_refund) starts at this checkpoint: the auditor fork starts here. */
export const AUDITOR_FORK_STEP = 5;

export function auditorForkScript(fromCheckpointId: string, messages: Message[]): AgentScript {
  return {
    runId: 'demo-support-refund-auditor',
    agentId: 'support-desk',
    startedAt: DAY + 3 * 3600_000,
    promptTemplate: SUPPORT_PROMPT_TEMPLATE,
    model: { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.2 },
    context: supportContext({
      user: { userId: 'agent-u-48213', roleId: 'auditor', permissions: ['orders:read', 'cases:write'] },
      task: {
        taskId: 'task-77812',
        workflowId: 'refund-flow-v2',
        stepStates: { triage: 'done', identify_customer: 'done', eligibility: 'eligible:KB-112' },
      },
    }),
    firstUserMessage: '',
    tools: SUPPORT_TOOLS,
    metadata: { channel: 'chat', ticket: 'T-2026-11-0192', forkReason: 'what if the user had been an auditor?' },
    fork: { parentRunId: 'demo-support-refund', fromCheckpointId, messages, stepIndex: AUDITOR_FORK_STEP },
    steps: [
      {
        say: 'The refund is eligible under KB-112, but my role is auditor without refunds:issue. I will document the case for a support agent instead of issuing it.',
        calls: [
          {
            tool: 'write_case_report',
            args: {
              caseId: 'T-2026-11-0192',
              customerId: 'C-5531',
              orderId: 'A-10442',
              outcome: 'refund_recommended',
              notes: 'Eligible under KB-112; auditor cannot issue refunds. Route to a support agent.',
            },
            result: { reportId: 'CR-2026-1107', path: 'reports/2026/11/CR-2026-1107.md', bytes: 1502 },
            ms: 362,
          },
        ],
        artifacts: [
          caseReport(
            'CR-2026-1107',
            [
              'No refund issued: the auditor role has no refunds:issue permission; auditors document, never act.',
              'A full refund of €449.00 under KB-112 is recommended.',
            ],
            'Route the case to a support agent with refunds:issue, who processes the refund today.',
          ),
        ],
      },
      {
        context: { project: { reportId: 'CR-2026-1107' } },
        say: "Thanks Dana. Your order qualifies for a full refund; I've documented the case (CR-2026-1107) and a colleague with refund rights will process it today.",
      },
    ],
    end: { status: 'completed' },
  };
}

export const escalationScript: AgentScript = {
  runId: 'demo-support-escalation',
  agentId: 'support-desk',
  startedAt: DAY + 47 * 60_000,
  promptTemplate: SUPPORT_PROMPT_TEMPLATE,
  model: { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.2 },
  context: supportContext({
    conversation: { sessionId: 'sess-support-0207', summary: 'Customer disputes a double charge' },
    task: { taskId: 'task-77845', workflowId: 'billing-dispute-v1', stepStates: {} },
    tools: { availableTools: ['lookup_customer', 'lookup_order', 'search_kb', 'escalate_to_human'] },
  }),
  firstUserMessage:
    'You charged me twice for order B-20991!! I want my money back now. — Marc (marc.olsen@example.org)',
  tools: SUPPORT_TOOLS,
  metadata: { channel: 'email', ticket: 'T-2026-11-0207' },
  steps: [
    {
      say: 'Let me look into the charges on your order.',
      calls: [
        {
          tool: 'lookup_customer',
          args: { email: 'marc.olsen@example.org' },
          result: {
            customerId: 'C-9120',
            name: 'Marc Olsen',
            tier: 'standard',
            customerSince: '2024-06-01',
            openCases: 2,
          },
          ms: 170,
        },
        {
          tool: 'lookup_order',
          args: { orderId: 'B-20991' },
          error: { name: 'NotFound', message: 'order B-20991 not found in region eu-west-1', code: 'ORDER_NOT_FOUND' },
          ms: 96,
        },
      ],
    },
    {
      say: 'The order is not in this region. Checking the billing-dispute guidance.',
      calls: [
        {
          tool: 'search_kb',
          args: { query: 'double charge order not found other region', topK: 2 },
          result: {
            articles: [
              { id: 'KB-203', title: 'Cross-region orders', snippet: 'Escalate to billing with both transaction ids.' },
            ],
          },
          ms: 1104,
        },
      ],
    },
    {
      say: 'This needs the billing team. Escalating with the details.',
      calls: [
        {
          tool: 'escalate_to_human',
          args: { queue: 'billing', customerId: 'C-9120', orderId: 'B-20991', reason: 'double_charge_cross_region' },
          error: {
            name: 'QueueUnavailable',
            message: 'escalation queue rejected the ticket: HTTP 503',
            code: 'E_QUEUE_503',
          },
          ms: 2011,
        },
      ],
    },
  ],
  end: {
    status: 'failed',
    error: {
      name: 'ToolError',
      message: 'escalate_to_human failed twice: escalation queue rejected the ticket: HTTP 503',
      tool: 'escalate_to_human',
    },
  },
};
