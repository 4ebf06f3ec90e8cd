/**
 * Debug Adapter benchmark (issue 3): a generated run of 10,000 checkpoints
 * (2,000 ReAct steps of prompt, model call, tool call; the conversation grows
 * to 4,000 messages) recorded through the recorder SDK into a real store.
 * Measures, through @vscode/debugadapter-testsupport's DebugClient talking to
 * an in-process AgentReplaySession over streams:
 *   - launch -> first stopped (store open, run read, transcript rendered and written),
 *   - one step: next -> stopped -> stackTrace (20 frames) -> scopes -> variables
 *     of every scope (arrays paged at 100 like VS Code),
 * p50 / p95, beside the floor: reading the same checkpoint straight from the store.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { AgentReplaySession } from '../../src/debug/agentReplaySession';
import { openRecorder } from '../../src/recorder';
import { openRunStore } from '../../src/store';
import { testContext } from '../helpers/context';
import { fmt, summarize, us } from './stats';

const STEPS = 2000; // 5 checkpoints per step
const LAUNCHES = 5;
const STEP_SAMPLES = 200;
const RUN = 'bench-10k';

export async function record(file: string): Promise<number> {
  let clock = Date.parse('2026-11-01T00:00:00Z');
  const recorder = openRecorder({ store: file, now: () => (clock += 7), heartbeatMs: 0 });
  const run = recorder.startRun({
    runId: RUN,
    agentId: 'bench-agent',
    runtimeContext: testContext(),
    systemPrompt: 'You are a research agent. Use the search tool, then answer.',
    messages: [{ role: 'user', content: 'Survey the literature on replay debugging for LLM agents.' }],
  });
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (args: { q: string }) => ({
    hits: [`doc-${args.q.length}`, 'doc-b'],
    took: 12,
  }));
  for (let step = 0; step < STEPS; step++) {
    run.checkpoint('before_prompt_build');
    const id = `call-${step}`;
    await run.modelCall({}, () =>
      Promise.resolve({
        message: {
          role: 'assistant',
          content: [
            {
              type: 'text',
              text: `Step ${step}: searching for the next angle on replay debugging (${'x'.repeat(80)}).`,
            },
            { type: 'tool_call', toolCallId: id, toolName: 'search', args: { q: `query ${step}` } },
          ],
        },
        finishReason: 'tool_calls',
        usage: { inputTokens: 500 + step, outputTokens: 40 },
      }),
    );
    await search({ q: `query ${step}` }, { toolCallId: id });
  }
  run.end();
  recorder.close();
  return checkpointCount(file);
}

function checkpointCount(file: string): number {
  const store = openRunStore(file, { create: false });
  const n = store.getRun(RUN).checkpointCount;
  store.close();
  return n;
}

/** DebugClient over in-memory streams (connect is protected in the typings). */
class StreamClient extends DebugClient {
  constructor() {
    super('node', 'unused', 'agent-replay');
  }
  connectTo(readable: PassThrough, writable: PassThrough): void {
    this.connect(readable, writable);
  }
}

function inProcessClient(): { dc: DebugClient; session: AgentReplaySession } {
  const toAdapter = new PassThrough();
  const fromAdapter = new PassThrough();
  const session = new AgentReplaySession();
  session.setRunAsServer(true); // never exit the process on disconnect
  session.start(toAdapter, fromAdapter);
  const dc = new StreamClient();
  dc.connectTo(fromAdapter, toAdapter);
  dc.defaultTimeout = 120_000;
  return { dc, session };
}

/** Launch -> first stopped, and -> first stackTrace answered (the editor shows the frame: transcript rendered). */
async function launch(dc: DebugClient, args: Record<string, unknown>): Promise<{ stopped: number; shown: number }> {
  await dc.initializeRequest();
  const t = process.hrtime.bigint();
  await Promise.all([
    dc.waitForEvent('stopped'),
    dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
    dc.launchRequest(args as never),
  ]);
  const stopped = us(t);
  await dc.stackTraceRequest({ threadId: 1, startFrame: 0, levels: 20 });
  return { stopped, shown: us(t) };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-dap-'));
  try {
    // DAP_BENCH_STORE=<file> keeps the generated run between bench runs (generation takes a minute or two)
    const file = process.env.DAP_BENCH_STORE ?? join(dir, 'runs.db');
    const t0 = process.hrtime.bigint();
    const count = existsSync(file) ? checkpointCount(file) : await record(file);
    process.stdout.write(`generated run: ${count} checkpoints in ${fmt(us(t0) / 1e6)} s\n`);

    const stopped: number[] = [];
    const shown: number[] = [];
    for (let i = 0; i < LAUNCHES; i++) {
      const { dc } = inProcessClient();
      const r = await launch(dc, { runId: RUN, store: file });
      stopped.push(r.stopped);
      shown.push(r.shown);
      await dc.disconnectRequest({});
    }
    const l = summarize(stopped);
    const f0 = summarize(shown);
    process.stdout.write(
      `launch -> first stopped: p50 ${fmt(l.p50 / 1000)} ms, p95 ${fmt(l.p95 / 1000)} ms (n=${LAUNCHES})\n`,
    );
    process.stdout.write(
      `launch -> first stackTrace answered (transcript of ${count} lines rendered and written): p50 ${fmt(f0.p50 / 1000)} ms, p95 ${fmt(f0.p95 / 1000)} ms\n`,
    );

    const start = Math.floor(count / 2);
    const store = openRunStore(file, { create: false });
    const startId = store.getCheckpointAt(RUN, start).checkpointId;
    const { dc } = inProcessClient();
    await launch(dc, { runId: RUN, store: file, checkpointId: startId });
    const steps: number[] = [];
    for (let i = 0; i < STEP_SAMPLES; i++) {
      const t = process.hrtime.bigint();
      // listen first: in-process streams may deliver the stopped event before nextRequest() returns
      await Promise.all([dc.waitForEvent('stopped'), dc.nextRequest({ threadId: 1 })]);
      const frames = await dc.stackTraceRequest({ threadId: 1, startFrame: 0, levels: 20 });
      const top = frames.body.stackFrames[0];
      if (!top || frames.body.stackFrames.length !== 20) throw new Error('expected 20 frames');
      const scopes = await dc.scopesRequest({ frameId: top.id });
      for (const s of scopes.body.scopes) {
        const paged = s.indexedVariables !== undefined ? { start: 0, count: 100 } : {};
        await dc.variablesRequest({ variablesReference: s.variablesReference, ...paged });
      }
      steps.push(us(t));
    }
    await dc.disconnectRequest({});
    const floor: number[] = [];
    for (let i = 0; i < STEP_SAMPLES; i++) {
      const t = process.hrtime.bigint();
      store.getCheckpointAt(RUN, start + 1 + i);
      floor.push(us(t));
    }
    store.close();
    const s = summarize(steps);
    const f = summarize(floor);
    process.stdout.write(
      `one step (next, stopped, stackTrace 20, scopes, variables of 5 scopes): p50 ${fmt(s.p50 / 1000, 2)} ms, p95 ${fmt(s.p95 / 1000, 2)} ms (n=${STEP_SAMPLES}, from checkpoint ${start}, ~${Math.round(start * 0.4)} messages)\n`,
    );
    process.stdout.write(
      `floor (store.getCheckpointAt of the same checkpoints): p50 ${fmt(f.p50 / 1000, 2)} ms, p95 ${fmt(f.p95 / 1000, 2)} ms\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
