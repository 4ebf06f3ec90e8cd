/**
 * The template runs of scale.bench.ts: a handful of realistic runs recorded through the documented SDK (model
 * calls with ~1 KB answers, `search` / `fetch` tool calls with ~1 KB results, one failing tool, a run that ends in
 * error) plus forks of two of them made through the fork engine (`ForkService` + the built-in runner), in a
 * temporary SQLite store, then exported (`RunStore.exportRun`). A family is a root run and its forks; the seeder
 * (scaleSeed.ts) multiplies families under new run ids.
 *
 * The template run ids are unique tokens (`tplrun<k>x`), written into the user message and into every tool result,
 * so a copy made by replacing the token carries its own id in its content: copies share no message or result blob
 * (as distinct real runs would not), while tool arguments — whose argsHash the store checks — stay free of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForkService } from '../../src/fork/forkService';
import { runFork } from '../../src/fork/runner';
import { openRecorder } from '../../src/recorder';
import { openRunStore, type RunStore } from '../../src/store';
import { testContext } from '../helpers/context';
import { assistantMessage, toolResult, words } from './record.bench';

/** One family: its runs' exports as JSON text (parents first), the ids to replace, and its checkpoint count. */
export interface TemplateFamily {
  /** Template run ids in the texts, parents first (roots `tplrun<k>x`, forks the fork engine's ids). */
  runIds: string[];
  /** exportRun of each run, JSON text, parents first. */
  texts: string[];
  checkpoints: number;
}

/** The template clock's origin: copies shift every time by their own offset from here. */
export const TEMPLATE_T0 = Date.parse('2026-01-01T00:00:00Z');

const SYSTEM = 'You are a research agent. Plan, use the tools (search, fetch), cite what you read, then answer.';

function answer(step: number, runId: string, call?: { name: string; args: unknown; id: string }) {
  return {
    role: 'assistant' as const,
    content: [
      { type: 'text', text: `Step ${step} for ${runId}: ${words(step + runId.length, 110)}` },
      ...(call ? [{ type: 'tool_call', toolCallId: call.id, toolName: call.name, args: call.args }] : []),
    ],
  };
}

/** Records template run `k` of `steps` tool steps (`failAt`: that step's tool throws; `error`: the run fails). */
async function recordTemplate(
  store: RunStore,
  k: number,
  steps: number,
  clock: { t: number },
  opts: { failAt?: number; error?: boolean } = {},
): Promise<string> {
  const runId = `tplrun${k}x`;
  const recorder = openRecorder({ runStore: store, now: () => (clock.t += 13), heartbeatMs: 0, fork: false });
  const run = recorder.startRun({
    runId,
    agentId: `agent-${k % 5}`,
    runtimeContext: testContext({ conversation: { sessionId: `sess-${k}` } }),
    systemPrompt: SYSTEM,
    model: { provider: 'openai', model: 'gpt-4.1-mini' },
    messages: [
      { role: 'user', content: `Task of ${runId}: survey the literature on replay debugging, ${words(k, 20)}` },
    ],
  });
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (args: { q: string; page: number }) => {
    if (opts.failAt !== undefined && args.page === opts.failAt) throw new Error(`search backend timed out (${runId})`);
    return {
      source: runId,
      hits: Array.from({ length: 4 }, (_, h) => ({
        id: `doc-${args.page}-${h}`,
        snippet: words(args.page * 4 + h, 30),
      })),
    };
  });
  const fetchDoc = run.tool('fetch', { sideEffectLevel: 'read_only' }, (args: { url: string }) => ({
    source: runId,
    url: args.url,
    text: words(args.url.length * 31, 140),
  }));
  for (let step = 0; step < steps; step++) {
    const useFetch = step % 3 === 2;
    const id = `call-${step}`;
    const name = useFetch ? 'fetch' : 'search';
    const args = useFetch
      ? { url: `https://example.org/paper/${step}` }
      : { q: `replay debugging ${step}`, page: step };
    await run.modelCall({}, () =>
      Promise.resolve({
        message: answer(step, runId, { name, args, id }),
        finishReason: 'tool_calls',
        usage: { inputTokens: 600 + 300 * step, outputTokens: 80 },
      }),
    );
    try {
      if (useFetch) await fetchDoc(args as { url: string }, { toolCallId: id });
      else await search(args as { q: string; page: number }, { toolCallId: id });
    } catch {
      // recorded as the call's error; the agent goes on
    }
  }
  await run.modelCall({}, () =>
    Promise.resolve({
      message: answer(steps, runId),
      finishReason: 'stop',
      usage: { inputTokens: 600 + 300 * steps, outputTokens: 200 },
    }),
  );
  run.end(opts.error ? { status: 'failed', error: { name: 'AgentError', message: 'answer failed review' } } : {});
  recorder.close();
  return runId;
}

/** A captured replay fork of `source` from its checkpoint `at`, run to its end by the built-in runner; its run id (the fork engine's, unique, a token as good as ours). */
async function forkOf(store: RunStore, source: string, at: number): Promise<string> {
  const from = store.listCheckpoints(source, { offset: at, limit: 1 })[0]?.checkpointId;
  if (!from) throw new Error(`template ${source} has no checkpoint ${at}`);
  const created = new ForkService(store).createReplay(source, { fromCheckpointId: from, captured: true });
  await runFork(store, created.forkRequestId);
  return created.runId;
}

/**
 * Records the template families and exports them. `perRun` is the checkpoints per run the copies should average:
 * the step counts are chosen around it (a tool step is four checkpoints, start and end add a few).
 */
export async function recordTemplates(perRun: number): Promise<TemplateFamily[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-scale-tpl-'));
  try {
    const store = openRunStore(join(dir, 'templates.db'));
    const clock = { t: TEMPLATE_T0 };
    // a run of s tool steps has 4s + 3 checkpoints (two per model call, two per tool call, the end)
    const base = Math.max(1, Math.round((perRun - 3) / 4));
    const plans = [
      { steps: base, forkAt: undefined, opts: {} },
      { steps: base, forkAt: undefined, opts: { failAt: 0 } },
      { steps: base + 1, forkAt: 5, opts: {} },
      { steps: base, forkAt: undefined, opts: { error: true } },
      { steps: Math.max(1, base - 1), forkAt: 3, opts: {} },
    ];
    const families: TemplateFamily[] = [];
    for (const [k, plan] of plans.entries()) {
      const root = await recordTemplate(store, k, plan.steps, clock, plan.opts);
      const runIds = [root];
      if (plan.forkAt !== undefined) runIds.push(await forkOf(store, root, plan.forkAt));
      families.push({
        runIds,
        texts: runIds.map((id) => JSON.stringify(store.exportRun(id))),
        checkpoints: runIds.reduce((n, id) => n + store.getRun(id).checkpointCount, 0),
      });
    }
    store.close();
    return families;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The long run the debugger steps through: `checkpoints` checkpoints through the SDK (a model call and a search per step, ~1 KB each), the conversation growing all along. */
export async function recordLongRun(location: string, runId: string, checkpoints: number): Promise<void> {
  let clock = TEMPLATE_T0 - 3_600_000;
  const recorder = openRecorder({ store: location, now: () => (clock += 7), heartbeatMs: 0, fork: false });
  const run = recorder.startRun({
    runId,
    agentId: 'long-agent',
    runtimeContext: testContext(),
    systemPrompt: SYSTEM,
    messages: [{ role: 'user', content: 'Survey the literature on replay debugging for LLM agents, exhaustively.' }],
  });
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (args: { q: string; step: number }) =>
    toolResult(args.step),
  );
  for (let step = 0; step < Math.max(1, Math.floor((checkpoints - 1) / 4)); step++) {
    await run.modelCall({}, () =>
      Promise.resolve({
        message: assistantMessage(step),
        finishReason: 'tool_calls',
        usage: { inputTokens: 500 + step, outputTokens: 40 },
      }),
    );
    await search({ q: `query ${step}`, step }, { toolCallId: `call-${step}` });
  }
  run.end();
  recorder.close();
}
