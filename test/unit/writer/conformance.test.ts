/**
 * The write path's conformance: one scripted run — model calls, two tool
 * calls in parallel, a tool error, a cancelled tool call, a change of the
 * runtime context, an artifact, and an end `failed` — recorded through the
 * SDK, through HTTP ingest (a real server on loopback) and through the
 * importers' write plan exports the same DebugRun once ids and times are
 * normalised. A cancelled call reads back as cancelled whichever way it came
 * in, a captured fork replays it as cancelled, and a fork the agent program
 * re-executes records the same ledger shapes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { writeRunPlan } from '../../../src/importers/writePlan';
import { RunPlanBuilder } from '../../../src/importers/runPlan';
import {
  toolOutcomeOf,
  type ArtifactRef,
  type DebugRun,
  type Message,
  type RuntimeContextSnapshot,
  type ToolCallRecord,
} from '../../../src/model';
import { openRecorder, type RunRecorder } from '../../../src/recorder';
import { renderTranscript } from '../../../src/replay/transcript';
import { startServer, type RunningServer } from '../../../src/server/httpServer';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';
import { call } from '../server/httpClient';

// ---- the script -------------------------------------------------------------------------------

const C0 = testContext({ tools: { availableTools: ['search', 'fetch', 'deploy'] } });
const C1: RuntimeContextSnapshot = { ...C0, user: { ...C0.user, roleId: 'auditor' } };
const SYSTEM = 'You are a careful research agent.';
const MODEL = { provider: 'openai', model: 'gpt-4o-mini' };
const USER: Message = { role: 'user', content: 'Find the outage report and deploy the fix.' };
const ARTIFACT: ArtifactRef = {
  artifactId: 'report-1',
  type: 'markdown',
  version: 1,
  contentHash: 'sha256:7f2c',
  storagePath: 'artifacts/report-1.md',
  createdAt: 1_700_000_000_000,
  metadata: { title: 'Outage report' },
};
const toolCall = (toolCallId: string, toolName: string, args: unknown) => ({
  type: 'tool_call',
  toolCallId,
  toolName,
  args,
});
const TURN1: Message = {
  role: 'assistant',
  content: [
    { type: 'text', text: 'Searching and fetching at once.' },
    toolCall('t-search', 'search', { q: 'outage' }),
    toolCall('t-fetch', 'fetch', { url: 'https://status.example/report' }),
  ],
};
const TURN2: Message = { role: 'assistant', content: [toolCall('t-deploy', 'deploy', { service: 'api' })] };
const TURN3: Message = { role: 'assistant', content: 'The report is attached; the deploy was cancelled.' };
const SEARCH_RESULT = { hits: ['incident-42'] };
const FETCH_ERROR = { name: 'Error', message: 'fetch timed out' };
const END_ERROR = { name: 'Error', message: 'budget exceeded' };
const usage = (i: number) => ({ inputTokens: 100 * i, outputTokens: 10 * i });

/** The script through the recorder SDK (also what the agent program runs when it executes a fork). */
async function viaSdk(run: RunRecorder): Promise<void> {
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, async () => SEARCH_RESULT);
  const fetch = run.tool('fetch', { sideEffectLevel: 'read_only' }, async (): Promise<unknown> => {
    throw Object.assign(new Error(FETCH_ERROR.message), { name: FETCH_ERROR.name });
  });
  run.checkpoint('before_prompt_build');
  await run.modelCall({}, async () => ({ message: TURN1, finishReason: 'tool_calls', usage: usage(1) }));
  const results = await Promise.allSettled([
    search({ q: 'outage' }, { toolCallId: 't-search' }),
    fetch({ url: 'https://status.example/report' }, { toolCallId: 't-fetch' }),
  ]);
  assert.equal(results[1]?.status, 'rejected');
  run.checkpoint('before_prompt_build', { runtimeContext: C1 });
  await run.modelCall({}, async () => ({ message: TURN2, finishReason: 'tool_calls', usage: usage(2) }));
  const deploy = run.beginTool('deploy', { service: 'api' }, { sideEffectLevel: 'write', toolCallId: 't-deploy' });
  run.finishTool(deploy, 'cancelled');
  run.checkpoint('before_prompt_build', { artifactRefs: [ARTIFACT] });
  await run.modelCall({}, async () => ({ message: TURN3, finishReason: 'stop', usage: usage(3) }));
  run.end({ status: 'failed', error: END_ERROR });
}

/** The same script as plain HTTP calls, the way an agent in another language records. */
async function viaHttp(server: RunningServer, runId: string): Promise<void> {
  const post = async (p: string, body: unknown) => {
    const res = await call(server.url, { path: p, token: server.token, body });
    assert.ok(res.status === 200 || res.status === 201, `${p}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { checkpoint?: { checkpointId: string } };
  };
  const cp = (body: unknown) => post(`/runs/${runId}/checkpoints`, body);
  const tool = (body: unknown) => post(`/runs/${runId}/tool-calls`, body);
  await post('/runs', {
    runId,
    agentId: 'conformance',
    runtimeContext: C0,
    systemPrompt: SYSTEM,
    model: MODEL,
    messages: [USER],
  });
  let messages: Message[] = [USER];
  await cp({ boundary: 'before_prompt_build' });
  await cp({ boundary: 'before_model_call' });
  messages = [...messages, TURN1];
  await cp({ boundary: 'after_model_call', messages, finishReason: 'tool_calls', usage: usage(1) });
  await tool({
    phase: 'begin',
    toolCallId: 't-search',
    toolName: 'search',
    args: { q: 'outage' },
    sideEffectLevel: 'read_only',
  });
  const fetchArgs = { url: 'https://status.example/report' };
  await tool({
    phase: 'begin',
    toolCallId: 't-fetch',
    toolName: 'fetch',
    args: fetchArgs,
    sideEffectLevel: 'read_only',
  });
  await tool({ phase: 'finish', toolCallId: 't-search', outcome: 'success', result: SEARCH_RESULT });
  await tool({ phase: 'finish', toolCallId: 't-fetch', outcome: 'error', error: FETCH_ERROR });
  await cp({ boundary: 'before_prompt_build', runtimeContext: C1 });
  await cp({ boundary: 'before_model_call' });
  messages = [...messages, { role: 'tool', toolCallId: 't-search', toolName: 'search', content: SEARCH_RESULT }];
  messages = [...messages, { role: 'tool', toolCallId: 't-fetch', toolName: 'fetch', content: { error: FETCH_ERROR } }];
  await cp({
    boundary: 'after_model_call',
    messages: [...messages, TURN2],
    finishReason: 'tool_calls',
    usage: usage(2),
  });
  await tool({
    phase: 'begin',
    toolCallId: 't-deploy',
    toolName: 'deploy',
    args: { service: 'api' },
    sideEffectLevel: 'write',
  });
  const cancelled = await tool({ phase: 'finish', toolCallId: 't-deploy', outcome: 'cancelled' });
  // The conversation as the server keeps it (with the tool message it appended), as a client may read it back.
  const read = await call(server.url, {
    path: `/checkpoints/${cancelled.checkpoint?.checkpointId}`,
    token: server.token,
  });
  const now = (read.body as { messages: Message[] }).messages;
  await cp({ boundary: 'before_prompt_build', artifactRefs: [ARTIFACT] });
  await cp({ boundary: 'before_model_call' });
  await cp({ boundary: 'after_model_call', messages: [...now, TURN3], finishReason: 'stop', usage: usage(3) });
  await post(`/runs/${runId}/end`, { status: 'failed', error: END_ERROR });
}

/** The same script as an importer's plan (what a transcript mapper builds), written by writeRunPlan. */
function viaPlan(runId: string): void {
  const b = new RunPlanBuilder(runId, {
    messages: [USER],
    ledger: [],
    runtimeContext: C0,
    systemPrompt: SYSTEM,
    model: MODEL,
    at: 1,
  });
  b.checkpoint('before_prompt_build');
  b.checkpoint('before_model_call');
  b.addMessage(TURN1);
  b.checkpoint('after_model_call', { finishReason: 'tool_calls', usage: usage(1) });
  b.beginTool({
    toolCallId: 't-search',
    toolName: 'search',
    args: { q: 'outage' },
    sideEffectLevel: 'read_only',
    startedAt: 2,
  });
  const fetchArgs = { url: 'https://status.example/report' };
  b.beginTool({
    toolCallId: 't-fetch',
    toolName: 'fetch',
    args: fetchArgs,
    sideEffectLevel: 'read_only',
    startedAt: 2,
  });
  b.finishTool('t-search', { result: SEARCH_RESULT, endedAt: 3 });
  b.finishTool('t-fetch', { error: FETCH_ERROR, endedAt: 3 });
  b.setContext(C1);
  b.checkpoint('before_prompt_build');
  b.checkpoint('before_model_call');
  b.addMessage(TURN2);
  b.checkpoint('after_model_call', { finishReason: 'tool_calls', usage: usage(2) });
  b.beginTool({
    toolCallId: 't-deploy',
    toolName: 'deploy',
    args: { service: 'api' },
    sideEffectLevel: 'write',
    startedAt: 4,
  });
  b.finishTool('t-deploy', { outcome: 'cancelled', endedAt: 5 });
  b.setArtifacts([ARTIFACT]);
  b.checkpoint('before_prompt_build');
  b.checkpoint('before_model_call');
  b.addMessage(TURN3);
  b.checkpoint('after_model_call', { finishReason: 'stop', usage: usage(3) });
  const plan = b.finish({
    sessionId: C0.conversation.sessionId,
    agentId: 'conformance',
    mode: 'live',
    startedAt: 1,
    metadata: {},
    status: 'failed',
    error: END_ERROR,
  });
  store.transaction(() => writeRunPlan(store, plan));
}

// ---- normalisation ------------------------------------------------------------------------------

const TIMES = new Set(['createdAt', 'startedAt', 'endedAt']);

/** The export with the run id, checkpoint ids (by position) and times (other than the artifact's) replaced. */
function normalise(run: DebugRun): unknown {
  const ids = new Map(run.checkpoints.map((c, i) => [c.checkpointId, `cp${i}`]));
  const walk = (v: unknown, key: string, inArtifact: boolean): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, '', inArtifact));
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k, inArtifact || k === 'artifactRefs')]));
    }
    if (key === 'runId') return 'RUN';
    if (key === 'checkpointId' && typeof v === 'string') return ids.get(v) ?? v;
    if (TIMES.has(key) && !inArtifact) return 0;
    return v;
  };
  return walk(run, '', false);
}

/** What a ledger says about each call, without ids and times. */
const shapes = (ledger: readonly ToolCallRecord[]) =>
  ledger.map((r) => ({
    toolName: r.toolName,
    args: r.args,
    argsHash: r.argsHash,
    outcome: toolOutcomeOf(r),
    result: r.result,
    error: r.error,
    sideEffectLevel: r.sideEffectLevel,
  }));

// ---- tests ----------------------------------------------------------------------------------------

const store = tmpStore();

describe('the write path: one scripted run recorded three ways', () => {
  let server: RunningServer;
  const exports = new Map<string, DebugRun>();

  before(async () => {
    server = await startServer({ store, writeServerFile: false });
    let n = 0;
    const recorder = openRecorder({ runStore: store, heartbeatMs: 0, fork: false, newId: (k) => `sdk-${k}-${n++}` });
    await viaSdk(
      recorder.startRun({
        runId: 'sdk',
        agentId: 'conformance',
        runtimeContext: C0,
        systemPrompt: SYSTEM,
        model: MODEL,
        messages: [USER],
      }),
    );
    recorder.close();
    await viaHttp(server, 'http');
    viaPlan('plan');
    for (const id of ['sdk', 'http', 'plan']) exports.set(id, store.exportRun(id));
  });
  after(async () => {
    await server.close();
  });

  it('gives identical exports through the SDK, HTTP ingest and the importer write plan', () => {
    const sdk = normalise(exports.get('sdk') as DebugRun);
    assert.deepEqual(normalise(exports.get('http') as DebugRun), sdk, 'HTTP ingest differs from the SDK');
    assert.deepEqual(normalise(exports.get('plan') as DebugRun), sdk, 'the importer write plan differs from the SDK');
  });

  it('records what the script did: steps, parallel calls, the error, the cancellation, the context, the artifact, the end', () => {
    for (const [id, run] of exports) {
      assert.equal(run.status, 'failed', id);
      assert.deepEqual(run.error, END_ERROR, id);
      assert.deepEqual(
        run.checkpoints.map((c) => `${c.stepIndex}:${c.boundary}${c.toolCallId ? `:${c.toolCallId}` : ''}`),
        [
          '0:before_prompt_build',
          '0:before_model_call',
          '0:after_model_call',
          '0:before_tool_call:t-search',
          '0:before_tool_call:t-fetch',
          '0:after_tool_call:t-search',
          '0:after_tool_call:t-fetch',
          '1:before_prompt_build',
          '1:before_model_call',
          '1:after_model_call',
          '1:before_tool_call:t-deploy',
          '1:after_tool_call:t-deploy',
          '2:before_prompt_build',
          '2:before_model_call',
          '2:after_model_call',
          '-1:agent_end',
        ],
        id,
      );
      const byId = new Map(run.toolLedger.map((r) => [r.toolCallId, r]));
      assert.deepEqual(
        run.toolLedger.map((r) => [r.toolCallId, toolOutcomeOf(r)]),
        [
          ['t-search', 'success'],
          ['t-fetch', 'error'],
          ['t-deploy', 'cancelled'],
        ],
        id,
      );
      assert.deepEqual(byId.get('t-deploy')?.error, { name: 'Cancelled', message: 'cancelled' }, id);
      const end = run.checkpoints.at(-1);
      assert.equal(end?.runtimeContext.user.roleId, 'auditor', `${id}: the context change carries to the end`);
      assert.deepEqual(end?.artifactRefs, [ARTIFACT], `${id}: the artifact carries to the end`);
      const toolMessages = end?.messages.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m.content]);
      assert.deepEqual(
        toolMessages,
        [
          ['t-search', SEARCH_RESULT],
          ['t-fetch', { error: FETCH_ERROR }],
          ['t-deploy', { error: { name: 'Cancelled', message: 'cancelled' } }],
        ],
        id,
      );
      assert.equal(
        store.getRun(id).toolErrorCount,
        1,
        `${id}: the error counts as a tool error, the cancellation does not`,
      );
      const transcript = renderTranscript(store.getRun(id), store.listCheckpoints(id), (c) => store.getCheckpoint(c), {
        toolCalls: store.listToolCalls(id),
      });
      const lines = transcript.text.split('\n');
      assert.ok(
        lines.some((l) => /^\[11\] after_tool_call · deploy ⊘ cancelled: cancelled/.test(l)),
        `${id}: ${transcript.text}`,
      );
      assert.ok(
        lines.some((l) => /^\[6\] after_tool_call · fetch ✗ error: .*fetch timed out/.test(l)),
        id,
      );
    }
  });

  it('replays the cancelled call as cancelled in a captured fork, whichever way it was recorded', async () => {
    for (const id of ['sdk', 'http', 'plan']) {
      const source = exports.get(id) as DebugRun;
      const created = new ForkService(store).create({
        sourceRunId: id,
        sourceCheckpointId: source.checkpoints[0]?.checkpointId ?? '',
        toolPolicyMap: { '*': 'reuse_result' },
      });
      const outcome = await runFork(store, created.forkRequestId);
      assert.equal(outcome.failure, undefined, `${id}: ${JSON.stringify(outcome.failure)}`);
      const fork = store.exportRun(created.runId);
      assert.deepEqual(shapes(fork.toolLedger), shapes(source.toolLedger), id);
      assert.equal(
        toolOutcomeOf(fork.toolLedger.find((r) => r.toolName === 'deploy') ?? { error: undefined }),
        'cancelled',
      );
    }
  });

  it('records the same ledger shapes when the agent program re-executes every tool of a fork', async () => {
    const source = exports.get('sdk') as DebugRun;
    const created = new ForkService(store).create(
      {
        sourceRunId: 'sdk',
        sourceCheckpointId: source.checkpoints[0]?.checkpointId ?? '',
        toolPolicyMap: { '*': 're_execute' },
      },
      ['deploy'],
    );
    await runFork(store, created.forkRequestId, { agentProgram: true });
    const recorder = openRecorder({ runStore: store, heartbeatMs: 0, fork: created.forkRequestId });
    const run = recorder.startRun({ agentId: 'conformance', runtimeContext: C0 });
    assert.equal(run.isFork, true);
    await viaSdk(run);
    recorder.close();
    const fork = store.exportRun(created.runId);
    assert.deepEqual(shapes(fork.toolLedger), shapes(source.toolLedger));
    assert.equal(fork.status, 'failed', 'the script ends its run failed');
    assert.equal(store.getForkRequest(created.forkRequestId).status, 'completed', 'the fork itself ran to its end');
  });
});
