/**
 * Live debugging over HTTP ingest: a checkpoint or tool-begin request of a run under a debugger waits
 * at most `waitMs`, answers 202 with the stop and a retry URL while stopped, and the retry answers the edits once
 * resumed (applied to the run once, however often it is asked); a run without a debugger answers as before with
 * `edits: null`. The live-debugging page's Python loop stops before its tool and runs it with the edited args.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { argsHash } from '../../../src/model';
import { startServer, type RunningServer } from '../../../src/server/httpServer';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { TestDebugger } from '../../fixtures/liveDebugger';
import { testContext } from '../../helpers/context';
import { call } from './httpClient';

let dir: string;
let store: SqlRunStore;
/** The debugger's own connection to the store file (another process would have one). */
let debuggerStore: SqlRunStore;
let server: RunningServer;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-live-http-'));
  store = openRunStore(path.join(dir, 'runs.db'));
  debuggerStore = openRunStore(path.join(dir, 'runs.db'));
  server = await startServer({ store });
});
after(async () => {
  await server.close();
  debuggerStore.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const send = (p: string, body?: unknown) => call(server.url, { path: p, token: server.token, body });

async function newRun(runId: string): Promise<void> {
  const res = await send('/runs', { runId, agentId: 'http-agent', runtimeContext: testContext() });
  assert.equal(res.status, 201, JSON.stringify(res.body));
}

describe('HTTP ingest under a live debugger', () => {
  it('answers as before, with edits null, when no debugger is attached', async () => {
    await newRun('plain');
    const res = await send('/runs/plain/checkpoints', { boundary: 'before_prompt_build' });
    assert.equal(res.status, 201);
    const body = res.body as Record<string, unknown>;
    assert.equal(body.edits, null);
    assert.equal(body.boundary, 'before_prompt_build');
  });

  it('a stopped checkpoint request gets 202; the retry waits and finally answers the edits, applied once', async () => {
    await newRun('held');
    const dbg = new TestDebugger(debuggerStore, 'http-a1', { runId: 'held' });
    try {
      const holding = (async () => dbg.hold(await dbg.nextStop(), 'breakpoint'))();
      const t0 = Date.now();
      const first = await send('/runs/held/checkpoints?waitMs=200', { boundary: 'before_prompt_build' });
      assert.ok(Date.now() - t0 >= 150, 'it waited before answering 202');
      const stop = await holding;
      assert.equal(first.status, 202, JSON.stringify(first.body));
      const body = first.body as { stopped: Record<string, unknown>; retry: string; checkpointId: string };
      assert.deepEqual(body.stopped, { stopId: stop.stopId, checkpointId: stop.checkpointId, reason: 'breakpoint' });
      assert.equal(body.checkpointId, stop.checkpointId, 'the 202 still says what was written');
      assert.equal(body.retry, `/runs/held/stops/${encodeURIComponent(stop.stopId)}?waitMs=25000`);
      const retryAt = body.retry.replace('waitMs=25000', 'waitMs=50');

      const again = await send(retryAt);
      assert.equal(again.status, 202, 'still stopped');
      const edited = testContext({ user: { userId: 'u-1', roleId: 'auditor', permissions: [] } });
      setTimeout(() => dbg.resume(stop, { runtimeContext: edited, editedBy: 'VS Code' }), 100);
      const resumed = await send(body.retry.replace('waitMs=25000', 'waitMs=5000'));
      assert.equal(resumed.status, 200);
      assert.deepEqual(resumed.body, { resumed: { edits: { runtimeContext: edited, editedBy: 'VS Code' } } });
      const twice = await send(retryAt);
      assert.deepEqual(twice.body, resumed.body, 'asking again answers the same');
      assert.equal(store.listLiveEdits('held').length, 1, 'applied once');

      dbg.detach();
      const next = await send('/runs/held/checkpoints', { boundary: 'before_model_call' });
      assert.equal(next.status, 201);
      const cp = store.getCheckpoint(String((next.body as { checkpointId: string }).checkpointId));
      assert.equal(cp.runtimeContext.user.roleId, 'auditor', 'the next checkpoint carries the edited context');
    } finally {
      dbg.kill();
    }
  });

  it('a tool-begin resumed within waitMs answers 201 with the edits; the ledger runs with the edited args', async () => {
    await newRun('tool');
    await send('/runs/tool/checkpoints', { boundary: 'before_prompt_build' });
    const dbg = new TestDebugger(debuggerStore, 'http-a2', { agentId: 'http-agent' });
    try {
      void (async () => {
        const stop = await dbg.nextStop();
        dbg.resume(stop, { toolArgs: { q: 'edited' }, paths: ['args.q'], editedBy: 'ocdb dap' });
      })();
      const res = await send('/runs/tool/tool-calls', {
        phase: 'begin',
        toolCallId: 't1',
        toolName: 'search',
        args: { q: 'asked' },
        sideEffectLevel: 'read_only',
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const body = res.body as { toolCallId: string; edits: Record<string, unknown> };
      assert.equal(body.toolCallId, 't1');
      assert.deepEqual(body.edits, { toolArgs: { q: 'edited' }, paths: ['args.q'], editedBy: 'ocdb dap' });
      const record = store.getToolCall('tool', 't1');
      assert.deepEqual(record.args, { q: 'edited' });
      assert.equal(record.argsHash, argsHash({ q: 'edited' }));
      assert.equal(record.liveEdit?.editedBy, 'ocdb dap');
    } finally {
      dbg.detach();
    }
  });

  it('refuses a bad waitMs, an unknown stop and a stop of another run (located errors, nothing written)', async () => {
    await newRun('bad');
    const before = store.getRun('bad').checkpointCount;
    for (const q of ['waitMs=-1', 'waitMs=60001', 'waitMs=abc', 'waitMs=1.5']) {
      const res = await send(`/runs/bad/checkpoints?${q}`, { boundary: 'before_prompt_build' });
      assert.equal(res.status, 400, q);
      assert.equal((res.body as { error: { path: string } }).error.path, 'waitMs', q);
    }
    assert.equal(store.getRun('bad').checkpointCount, before, 'a refused request writes nothing');
    const unknown = await send('/runs/bad/stops/nope');
    assert.equal(unknown.status, 404);
    assert.equal((unknown.body as { error: { code: string } }).error.code, 'LiveStopNotFound');
    const [someStop] = debuggerStore.listLiveStops('http-a1');
    assert.ok(someStop);
    const foreign = await send(`/runs/bad/stops/${encodeURIComponent(someStop.stopId)}`);
    assert.equal(foreign.status, 404, 'a stop of another run');
  });

  it("the live-debugging page's Python loop stops before its tool and runs it with the edited args", async () => {
    assert.equal(spawnSync('python3', ['--version']).status, 0, 'python3 is needed for this test');
    const script = path.join(__dirname, '../../fixtures/agents/live_agent.py');
    const doc = fs.readFileSync(path.join(__dirname, '../../../media/docs/live-debugging.md'), 'utf8');
    const code = fs
      .readFileSync(script, 'utf8')
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n')
      .trim();
    assert.ok(
      doc.includes(code),
      'media/docs/live-debugging.md shows test/fixtures/agents/live_agent.py as it is tested',
    );

    const dbg = new TestDebugger(debuggerStore, 'http-py', { agentId: 'python-agent' });
    const child = spawn('python3', [script, store.path], { env: { ...process.env, OCDB_WAIT_MS: '100' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      for (;;) {
        const stop = await Promise.race([
          dbg.nextStop(),
          exited.then((code) => Promise.reject(new Error(`the agent exited (${code}): ${stderr}`))),
        ]);
        if (stop.boundary !== 'before_tool_call') {
          dbg.resume(stop);
          continue;
        }
        dbg.hold(stop);
        await new Promise((resolve) => setTimeout(resolve, 400)); // longer than waitMs: the agent gets 202s
        assert.equal(stdout.includes('"tool"'), false, 'held before the tool');
        dbg.resume(stop, { toolArgs: { city: 'Bergen' }, paths: ['args.city'], editedBy: 'VS Code' });
        break;
      }
      const done = new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          for (const stop of debuggerStore.listLiveStops('http-py', ['asking'])) dbg.resume(stop);
          if (child.exitCode !== null) {
            clearInterval(poll);
            resolve();
          }
        }, 5);
      });
      assert.equal(await exited, 0, stderr);
      await done;
      const events = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(
        events.filter((e) => e.event === 'tool').map((e) => e.city),
        ['Bergen'],
      );
      const runId = String(events.find((e) => e.event === 'done')?.runId);
      const record = store.getToolCall(runId, 'call-1');
      assert.deepEqual(record.args, { city: 'Bergen' });
      assert.deepEqual(record.result, { city: 'Bergen', tempC: 4, sky: 'overcast' });
      assert.equal(store.listLiveEdits(runId)[0]?.edits.editedBy, 'VS Code');
      assert.equal(store.getRun(runId).status, 'completed');
    } finally {
      dbg.kill();
      child.kill();
    }
  });
});
