/**
 * A cohort of support-desk runs for what-if across runs: variations of the demo's support conversations
 * (other customers, orders, amounts and dates), recorded through the SDK like the demo runs. Deterministic
 * for a count. The mix: refunds issued under KB-112 (some after a carrier timeout and a retry, some with a
 * currency conversion), refunds recorded before the agent kept its prompt template (a fixed system prompt),
 * refunds declined as out of the 30-day window, runs handled by an auditor who only documents, and
 * escalations to billing (some fail on the queue).
 */
import type { RunStore } from '../store';
import { playScript, type AgentScript, type ScriptCall, type ScriptStep } from './scriptedAgent';
import { SUPPORT_PROMPT_TEMPLATE, SUPPORT_TOOLS, supportContext } from './supportScripts';

/** The agent id of the cohort (the demo's support agent). */
export const COHORT_AGENT = 'support-desk';

const START = Date.UTC(2026, 10, 3, 8, 0, 0);

const FIRST = ['Dana', 'Marc', 'Aiko', 'Lena', 'Omar', 'Priya', 'Tomás', 'Zoe', 'Jonas', 'Mei', 'Sven', 'Fatima'];
const LAST = ['Kim', 'Olsen', 'Tanaka', 'Weber', 'Haddad', 'Rao', 'García', 'Novak', 'Berg', 'Chen', 'Lund', 'Diallo'];
const PRODUCTS = [
  { sku: 'ESP-900', name: 'Barista Pro 900 espresso machine', price: 449, damage: 'cracked water tank' },
  { sku: 'KTL-210', name: 'Glass kettle 1.7 l', price: 59.9, damage: 'shattered glass jug' },
  { sku: 'GRN-44', name: 'Burr grinder 44', price: 189, damage: 'bent hopper lid' },
  { sku: 'MLK-12', name: 'Milk frother 12', price: 79, damage: 'dented whisk housing' },
  { sku: 'TST-4', name: 'Four-slot toaster', price: 99, damage: 'cracked side panel' },
];

/** A small deterministic generator (mulberry32): the same count gives the same cohort. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type CohortKind = 'refund' | 'legacy_prompt' | 'declined' | 'auditor' | 'escalation';

/** The kind of the i-th run: the mix above, by a fixed share. */
function kindOf(r: number): CohortKind {
  if (r < 0.5) return 'refund';
  if (r < 0.62) return 'legacy_prompt';
  if (r < 0.8) return 'declined';
  if (r < 0.88) return 'auditor';
  return 'escalation';
}

/** The script of the i-th run of the cohort. */
export function cohortScript(i: number): AgentScript & { kind: CohortKind } {
  const rnd = random(0x5eed + i * 7919);
  const kind = kindOf(rnd());
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
  const first = pick(FIRST);
  const last = pick(LAST);
  const email = `${first.toLowerCase().replace(/[^a-z]/g, '')}.${last.toLowerCase().replace(/[^a-z]/g, '')}${i}@example.com`;
  const product = pick(PRODUCTS);
  const qty = rnd() < 0.2 ? 2 : 1;
  const amount = Math.round(product.price * qty * 100) / 100;
  const id = String(i).padStart(4, '0');
  const orderId = `A-${20000 + i}`;
  const customerId = `C-${7000 + i}`;
  const caseId = `T-2026-11-${id}`;
  const daysAgo = kind === 'declined' ? 35 + Math.floor(rnd() * 40) : 1 + Math.floor(rnd() * 20);
  const startedAt = START + i * 17 * 60_000;
  const deliveredAt = new Date(startedAt - daysAgo * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const usd = rnd() < 0.4;
  const retry = rnd() < 0.3;
  const ms = (base: number) => Math.round(base * (0.6 + rnd() * 0.8));
  const order = {
    orderId,
    customerId,
    status: 'delivered',
    deliveredAt,
    currency: 'EUR',
    total: amount,
    items: [{ sku: product.sku, name: product.name, qty, unitPrice: product.price }],
    paymentMethod: {
      type: 'card',
      brand: 'visa',
      last4: String(1000 + ((i * 37) % 9000)),
      billingCurrency: usd ? 'USD' : 'EUR',
    },
  };
  const identify: ScriptStep = {
    say: "I'm sorry to hear that. Let me find your account and the order first.",
    calls: [
      {
        tool: 'lookup_customer',
        args: { email },
        result: { customerId, name: `${first} ${last}`, tier: pick(['standard', 'silver', 'gold']), openCases: 0 },
        ms: ms(180),
      },
      { tool: 'lookup_order', args: { orderId }, result: order, ms: ms(240) },
    ],
  };
  const policy: ScriptStep = {
    context: { task: { stepStates: { triage: 'done', identify_customer: 'done' } } },
    say: `The order belongs to ${first}. Checking the policy for items damaged on arrival.`,
    calls: [
      {
        tool: 'search_kb',
        args: { query: `damaged on arrival refund ${product.name}`, topK: 3 },
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
          ],
        },
        ms: ms(1300),
      },
    ],
  };
  const shipping: ScriptStep[] = [
    ...(retry
      ? [
          {
            say: 'KB-112 applies if the damage happened in transit. Let me confirm with the carrier events.',
            calls: [
              {
                tool: 'get_shipping_events',
                args: { orderId, carrier: 'DHL' },
                error: { name: 'UpstreamTimeout', message: 'carrier API timed out after 10000 ms', code: 'ETIMEDOUT' },
                ms: 10004,
              },
            ],
          },
        ]
      : []),
    {
      say: retry
        ? 'The carrier API timed out; trying once more with the tracking number.'
        : 'Confirming the damage with the carrier events.',
      calls: [
        {
          tool: 'get_shipping_events',
          args: { orderId, carrier: 'DHL', ...(retry ? { trackingNumber: `JD0146000062${id}` } : {}) },
          result: {
            events: [
              {
                at: deliveredAt,
                where: pick(['Leipzig hub', 'Kassel hub', 'Berlin']),
                what: 'parcel damaged, repacked',
              },
            ],
          },
          ms: ms(650),
        },
      ],
    },
  ];
  const refundCalls: ScriptCall[] = [
    ...(usd
      ? [
          {
            tool: 'get_exchange_rate',
            args: { from: 'EUR', to: 'USD', date: '2026-11-03' },
            result: { rate: 1.0842, source: 'ecb' },
            ms: ms(400),
          },
          {
            tool: 'format_currency',
            args: { amount: Math.round(amount * 108.42) / 100, currency: 'USD', locale: 'en-US' },
            result: `$${(Math.round(amount * 108.42) / 100).toFixed(2)}`,
            ms: 2,
          },
        ]
      : []),
  ];
  const refundId = `RF-${90000 + i}`;
  const refund: ScriptStep[] = [
    ...(refundCalls.length > 0
      ? [
          {
            context: { task: { stepStates: { eligibility: 'eligible:KB-112' } } },
            say: 'Damage in transit confirmed; her card bills in USD, getting the amount she will see.',
            calls: refundCalls,
          },
        ]
      : []),
    {
      say: `Eligible for a full refund under KB-112. Issuing €${amount.toFixed(2)} to the original card.`,
      calls: [
        {
          tool: 'issue_refund',
          args: { orderId, amount, currency: 'EUR', reason: 'damaged_in_transit', policy: 'KB-112' },
          result: { refundId, status: 'issued', amount, currency: 'EUR', eta: '3-5 business days' },
          ms: ms(930),
        },
      ],
    },
  ];
  const report = (outcome: string, notes: string): ScriptStep => ({
    context: { task: { stepStates: { report: 'writing' } } },
    say: 'Writing the case report.',
    calls: [
      {
        tool: 'write_case_report',
        args: { caseId, customerId, orderId, outcome, ...(outcome === 'refunded' ? { refundId } : {}), notes },
        result: { reportId: `CR-2026-${id}`, path: `reports/2026/11/CR-2026-${id}.md` },
        ms: ms(370),
      },
    ],
  });
  const email_ = (template: string): ScriptStep => ({
    say: `Emailing ${first} a summary.`,
    calls: [
      {
        tool: 'send_email',
        args: {
          to: email,
          subject: `Your order ${orderId}`,
          template,
          vars: { name: first, amount: `€${amount.toFixed(2)}` },
        },
        result: { messageId: `<2026110${i}.${id}@mail.acme.example>`, queued: true },
        ms: ms(290),
      },
    ],
  });
  const base = {
    runId: `cohort-support-${id}`,
    agentId: COHORT_AGENT,
    startedAt,
    model: { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.2 },
    firstUserMessage: `Hi, my order ${orderId} (${product.name}) arrived with a ${product.damage}. I'd like a refund please. My email is ${email}.`,
    tools: SUPPORT_TOOLS,
    metadata: { channel: pick(['chat', 'email']), ticket: caseId, cohort: kind },
  };
  const ctx = (over: Parameters<typeof supportContext>[0] = {}) =>
    supportContext({
      conversation: { sessionId: `sess-cohort-${id}`, summary: `${product.damage} on ${orderId}` },
      task: { taskId: `task-${80000 + i}`, workflowId: 'refund-flow-v2', stepStates: { triage: 'started' } },
      ...over,
    });
  const done = (say: string): ScriptStep => ({ context: { task: { stepStates: { triage: 'closed' } } }, say });
  switch (kind) {
    case 'refund':
    case 'legacy_prompt':
      return {
        ...base,
        kind,
        ...(kind === 'refund'
          ? { promptTemplate: SUPPORT_PROMPT_TEMPLATE }
          : {
              systemPrompt:
                'You are Acme Store support. Verify the customer and the order, follow the knowledge base, refund damaged-in-transit items within 30 days, write a case report and email the customer.',
            }),
        context: ctx(),
        steps: [
          identify,
          policy,
          ...shipping,
          ...refund,
          report('refunded', `${product.damage}; damage in transit confirmed.`),
          email_('refund_confirmation'),
          done(`All done, ${first}: refund ${refundId} of €${amount.toFixed(2)} is on its way (3-5 business days).`),
        ],
        end: { status: 'completed' },
      };
    case 'declined':
    case 'auditor':
      return {
        ...base,
        kind,
        promptTemplate: SUPPORT_PROMPT_TEMPLATE,
        context:
          kind === 'auditor'
            ? ctx({ user: { userId: 'agent-u-51002', roleId: 'auditor', permissions: ['orders:read', 'cases:write'] } })
            : ctx(),
        steps: [
          identify,
          policy,
          kind === 'declined'
            ? { say: `The order was delivered ${daysAgo} days ago, past the 30-day window of KB-112: no refund.` }
            : {
                say: 'Eligible under KB-112, but my role is auditor without refunds:issue: I document the case for a support agent.',
              },
          report(
            kind === 'declined' ? 'declined' : 'refund_recommended',
            kind === 'declined' ? `Reported after ${daysAgo} days.` : 'Auditor cannot issue refunds.',
          ),
          email_(kind === 'declined' ? 'refund_declined' : 'case_documented'),
          done(
            kind === 'declined'
              ? `Sorry ${first}, the order is past the 30-day window.`
              : `Thanks ${first}, a colleague will process the refund today.`,
          ),
        ],
        end: { status: 'completed' },
      };
    case 'escalation': {
      const fails = rnd() < 0.5;
      return {
        ...base,
        kind,
        promptTemplate: SUPPORT_PROMPT_TEMPLATE,
        context: ctx({ task: { taskId: `task-${80000 + i}`, workflowId: 'billing-dispute-v1', stepStates: {} } }),
        firstUserMessage: `You charged me twice for order ${orderId}! — ${first} (${email})`,
        steps: [
          identify,
          {
            say: 'This needs the billing team. Escalating with the details.',
            calls: [
              {
                tool: 'escalate_to_human',
                args: { queue: 'billing', customerId, orderId, reason: 'double_charge' },
                ...(fails
                  ? {
                      error: {
                        name: 'QueueUnavailable',
                        message: 'escalation queue rejected the ticket: HTTP 503',
                        code: 'E_QUEUE_503',
                      },
                    }
                  : { result: { ticketId: `BL-${i}`, queued: true } }),
                ms: ms(2000),
              },
            ],
          },
          ...(fails ? [] : [done(`Escalated to billing (BL-${i}); they reply within a day.`)]),
        ],
        end: fails
          ? {
              status: 'failed',
              error: { name: 'ToolError', message: 'escalate_to_human failed: HTTP 503', tool: 'escalate_to_human' },
            }
          : { status: 'completed' },
      };
    }
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown cohort kind ${String(unreachable)}`);
    }
  }
}

/** Records `count` cohort runs into `store` (replacing earlier ones of the same ids); returns their ids. */
export function writeSupportCohort(store: RunStore, count: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const script = cohortScript(i);
    if (store.hasRun(script.runId)) store.deleteRun(script.runId);
    ids.push(playScript(store, script));
  }
  return ids;
}
