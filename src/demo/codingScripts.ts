/** The coding agent of the demo store: a bug-fix run that edits a file and re-runs tests, and a run the user cancelled. */
import type { RuntimeContextSnapshot } from '../model';
import type { AgentScript, ToolSpec } from './scriptedAgent';

const DAY = Date.UTC(2026, 10, 4, 10, 30, 0);

const TOOLS: Record<string, ToolSpec> = {
  run_tests: { level: 'expensive_read', policy: 're_execute' },
  grep: { level: 'read_only', policy: 'reuse_result' },
  read_file: { level: 'read_only', policy: 'reuse_result' },
  edit_file: { level: 'write', policy: 'manual_confirm' },
};

function context(sessionId: string, taskId: string): RuntimeContextSnapshot {
  return {
    user: { userId: 'u-sam-okafor', roleId: 'developer', permissions: ['repo:read', 'repo:write', 'ci:run'] },
    conversation: { sessionId },
    project: { projectId: 'invoice-service', repo: 'git@example.com:acme/invoice-service.git', branch: 'fix/rounding' },
    task: { taskId, workflowId: 'code-fix-v2', stepStates: {} },
    tools: { availableTools: Object.keys(TOOLS) },
    model: { provider: 'openai', model: 'gpt-5-codex', promptVersion: 'coder-v4' },
  };
}

const SYSTEM_PROMPT =
  'You are a coding agent (coder-v4). Reproduce the failure, find the cause, make the smallest fix, and prove it with the tests. Ask before editing files.';

const FAILING = {
  exitCode: 1,
  passed: 41,
  failed: 1,
  output:
    'FAIL src/totals.test.ts > invoice totals > rounds VAT per line\n  expected 119.01 to be 119.00\n  at src/totals.test.ts:27:31',
};

export const codingScript: AgentScript = {
  runId: 'demo-coding-fix',
  agentId: 'code-fixer',
  startedAt: DAY,
  systemPrompt: SYSTEM_PROMPT,
  model: { provider: 'openai', model: 'gpt-5-codex' },
  context: context('sess-code-1183', 'task-c-552'),
  firstUserMessage: 'CI is red on invoice-service: the VAT rounding test fails. Please fix it.',
  tools: TOOLS,
  steps: [
    {
      say: 'Reproducing the failure first.',
      calls: [{ tool: 'run_tests', args: { filter: 'totals' }, result: FAILING, ms: 6400 }],
    },
    {
      context: { task: { stepStates: { reproduce: 'done' } } },
      say: 'The VAT total is off by a cent. Finding where VAT is rounded.',
      calls: [
        {
          tool: 'grep',
          args: { pattern: 'Math.round|toFixed', path: 'src' },
          result: {
            matches: [{ file: 'src/totals.ts', line: 18, text: 'const vat = Math.round(sum * rate * 100) / 100;' }],
          },
          ms: 48,
        },
      ],
    },
    {
      say: 'VAT is rounded once on the sum; the test expects per-line rounding. Reading the file.',
      calls: [
        {
          tool: 'read_file',
          args: { path: 'src/totals.ts' },
          result: {
            path: 'src/totals.ts',
            text: 'export function totals(lines: Line[], rate: number) {\n  const sum = lines.reduce((s, l) => s + l.net, 0);\n  const vat = Math.round(sum * rate * 100) / 100;\n  return { net: sum, vat, gross: sum + vat };\n}\n',
          },
          ms: 9,
        },
      ],
    },
    {
      context: { task: { stepStates: { diagnose: 'vat rounded on sum, not per line' } } },
      say: 'Rounding VAT per line, as the invoicing rules require.',
      calls: [
        {
          tool: 'edit_file',
          args: {
            path: 'src/totals.ts',
            find: 'const vat = Math.round(sum * rate * 100) / 100;',
            replace: 'const vat = lines.reduce((s, l) => s + Math.round(l.net * rate * 100) / 100, 0);',
          },
          result: {
            applied: true,
            diff: '@@ -3 +3 @@\n-  const vat = Math.round(sum * rate * 100) / 100;\n+  const vat = lines.reduce((s, l) => s + Math.round(l.net * rate * 100) / 100, 0);',
          },
          ms: 21,
        },
      ],
    },
    {
      say: 'Re-running the tests.',
      calls: [
        {
          tool: 'run_tests',
          args: { filter: 'totals' },
          result: { exitCode: 0, passed: 42, failed: 0, output: 'PASS 42 tests' },
          ms: 6100,
        },
      ],
    },
    {
      context: { task: { stepStates: { fix: 'done', verify: 'green' } } },
      say: 'Fixed: src/totals.ts now rounds VAT per line (the invoicing rule the test encodes). All 42 tests pass.',
    },
  ],
  end: { status: 'completed' },
};

export const cancelledScript: AgentScript = {
  runId: 'demo-coding-cancelled',
  agentId: 'code-fixer',
  startedAt: DAY + 95 * 60_000,
  systemPrompt: SYSTEM_PROMPT,
  model: { provider: 'openai', model: 'gpt-5-codex' },
  context: context('sess-code-1190', 'task-c-560'),
  firstUserMessage: 'Rename Invoice.total to Invoice.grossTotal everywhere.',
  tools: TOOLS,
  steps: [
    {
      say: 'Finding every use of Invoice.total.',
      calls: [
        {
          tool: 'grep',
          args: { pattern: '\\.total\\b', path: '.' },
          result: { matches: 212, files: 37, note: 'includes generated clients under gen/' },
          ms: 310,
        },
      ],
    },
    {
      say: '212 matches in 37 files, including generated code. Running the full test suite before touching anything.',
      calls: [{ tool: 'run_tests', args: { filter: '' }, cancelled: true, ms: 45_000 }],
    },
  ],
  end: { status: 'cancelled', error: { name: 'Cancelled', message: 'run cancelled by the user during run_tests' } },
};
