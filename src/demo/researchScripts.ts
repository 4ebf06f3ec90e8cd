/**
 * The research agent of the demo store: a retrieval run where one fetch fails
 * and one model turn stops for length, and a run whose process died mid-way
 * (left `running`, shown as crashed).
 */
import type { RuntimeContextSnapshot } from '../model';
import type { AgentScript, ToolSpec } from './scriptedAgent';

const DAY = Date.UTC(2026, 10, 3, 14, 2, 51);

const TOOLS: Record<string, ToolSpec> = {
  web_search: { level: 'expensive_read', policy: 'reuse_result' },
  fetch_url: { level: 'expensive_read', policy: 'reuse_result' },
  extract_quotes: { level: 'none', policy: 're_execute' },
  save_note: { level: 'write', policy: 'manual_confirm' },
};

function context(sessionId: string, taskId: string): RuntimeContextSnapshot {
  return {
    user: { userId: 'u-ines-ferreira', roleId: 'researcher', permissions: ['web:read', 'notes:write'] },
    conversation: { sessionId },
    project: { projectId: 'storage-engines-survey', notebook: 'notes/sqlite-concurrency.md' },
    task: { taskId, workflowId: 'deep-research-v1', stepStates: { plan: 'ready' } },
    tools: { availableTools: Object.keys(TOOLS) },
    model: { provider: 'anthropic', model: 'claude-sonnet-4-5', promptVersion: 'research-v7' },
  };
}

const SYSTEM_PROMPT =
  'You are a careful research assistant (research-v7). Search, read primary sources, quote them, and save a note with citations. Never invent a source.';

export const researchScript: AgentScript = {
  runId: 'demo-research-rag',
  agentId: 'research-scout',
  startedAt: DAY,
  systemPrompt: SYSTEM_PROMPT,
  model: { provider: 'anthropic', model: 'claude-sonnet-4-5', temperature: 0 },
  context: context('sess-research-4411', 'task-r-301'),
  firstUserMessage:
    'How does SQLite WAL mode change concurrency compared with the rollback journal? I need quotes from primary sources for my survey.',
  tools: TOOLS,
  steps: [
    {
      say: 'Searching for primary sources on WAL and rollback-journal concurrency.',
      calls: [
        {
          tool: 'web_search',
          args: { q: 'sqlite write-ahead logging concurrency readers writers', n: 5 },
          result: {
            results: [
              { url: 'https://sqlite.org/wal.html', title: 'Write-Ahead Logging' },
              { url: 'https://sqlite.org/lockingv3.html', title: 'File Locking And Concurrency In SQLite Version 3' },
              { url: 'https://sqlite.org/isolation.html', title: 'Isolation In SQLite' },
            ],
          },
          ms: 1620,
        },
      ],
    },
    {
      context: { task: { stepStates: { plan: 'done', search: 'done' } } },
      say: 'Reading the WAL page and the locking page in parallel.',
      calls: [
        {
          tool: 'fetch_url',
          args: { url: 'https://sqlite.org/wal.html' },
          result: {
            status: 200,
            text: 'WAL provides more concurrency as readers do not block writers and a writer does not block readers. Reading and writing can proceed concurrently.',
          },
          ms: 840,
        },
        {
          tool: 'fetch_url',
          args: { url: 'https://sqlite.org/lockingv3.html' },
          error: {
            name: 'HttpError',
            message: 'GET https://sqlite.org/lockingv3.html -> 503 Service Unavailable',
            code: 'HTTP_503',
          },
          ms: 3020,
        },
      ],
    },
    {
      say: 'The locking page failed with 503; the isolation page covers the same ground.',
      calls: [
        {
          tool: 'fetch_url',
          args: { url: 'https://sqlite.org/isolation.html' },
          result: {
            status: 200,
            text: 'In rollback mode a writer excludes readers while it commits; in WAL mode readers see a snapshot and do not block the writer.',
          },
          ms: 910,
        },
      ],
    },
    {
      say: 'Drafting the comparison. WAL: readers and the single writer proceed concurrently because readers use a snapshot of the WAL index; the rollback journal takes a PENDING then EXCLUSIVE lock so readers are shut out while a writer commits, and checkpoints fold the WAL back into the database file, which',
      finishReason: 'length',
      modelMs: 4200,
    },
    {
      say: 'That draft ran past the output limit; extracting exact quotes first so the note stays short.',
      calls: [
        {
          tool: 'extract_quotes',
          args: { sources: ['https://sqlite.org/wal.html', 'https://sqlite.org/isolation.html'], maxQuotes: 2 },
          result: [
            {
              source: 'https://sqlite.org/wal.html',
              quote: 'readers do not block writers and a writer does not block readers',
            },
            {
              source: 'https://sqlite.org/isolation.html',
              quote: 'in WAL mode readers see a snapshot and do not block the writer',
            },
          ],
          ms: 12,
        },
      ],
    },
    {
      say: 'Saving the note with both citations.',
      calls: [
        {
          tool: 'save_note',
          args: {
            path: 'notes/sqlite-concurrency.md',
            section: 'WAL vs rollback journal',
            body: '- WAL: "readers do not block writers and a writer does not block readers" (sqlite.org/wal.html)\n- Rollback: writer excludes readers during commit (sqlite.org/isolation.html)',
          },
          result: { saved: true, revision: 14 },
          ms: 64,
        },
      ],
    },
    {
      context: { task: { stepStates: { note: 'saved:r14' } } },
      say: 'Summary: with WAL, one writer and many readers run at the same time — readers work from a snapshot — while the rollback journal makes readers wait during a commit. Both quotes are saved in notes/sqlite-concurrency.md (rev 14). The locking page was unavailable (503), so I cited the isolation page instead.',
    },
  ],
  end: { status: 'completed' },
};

export function crashedScript(deadPid: number): AgentScript {
  return {
    runId: 'demo-research-crashed',
    agentId: 'research-scout',
    startedAt: DAY + 2 * 3600_000,
    systemPrompt: SYSTEM_PROMPT,
    model: { provider: 'anthropic', model: 'claude-sonnet-4-5', temperature: 0 },
    context: context('sess-research-4420', 'task-r-309'),
    firstUserMessage: 'Collect benchmark numbers for LMDB vs SQLite on small random reads.',
    tools: TOOLS,
    ownerPid: deadPid,
    steps: [
      {
        say: 'Searching for published LMDB vs SQLite read benchmarks.',
        calls: [
          {
            tool: 'web_search',
            args: { q: 'LMDB vs SQLite random read benchmark', n: 5 },
            result: { results: [{ url: 'http://www.lmdb.tech/bench/microbench/', title: 'LMDB microbenchmarks' }] },
            ms: 1490,
          },
        ],
      },
      {
        say: 'Fetching the microbenchmark page.',
        calls: [
          {
            tool: 'fetch_url',
            args: { url: 'http://www.lmdb.tech/bench/microbench/' },
            result: { status: 200, text: '(64 KB of benchmark tables)' },
            ms: 2230,
          },
        ],
      },
    ],
    end: 'crash',
  };
}
