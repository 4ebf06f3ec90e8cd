/**
 * Durability where it matters, for an agent recording local-first to a team store: a real child process records a
 * run (PostgreSQL behind the delay proxy, 10 ms each way) and reaches `beginTool` of a `write` tool. When that call
 * returns, another process (this test) reading the team store finds the run up to that checkpoint, still running
 * there (not crashed); at `end()` the ended run is there. With the server unreachable or hung, `beginTool` of the
 * write tool does not return normally: within the bounded wait it throws an error naming the run, the tool and where
 * the run is kept, and the tool does not run; with `onStoreError: 'disable'` the agent is told through `onError`
 * and goes on. The time a write tool's confirmation adds is printed (t.diagnostic) at 0 and 10 ms each way.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openRunStore } from '../../../src/store';
import { pgSchemaUrl } from '../../helpers/engines';
import { startDelayProxy, type DelayProxy } from '../../support/delayProxy';

const ROOT = join(__dirname, '..', '..', '..');
const home = mkdtempSync(join(tmpdir(), 'ocdb-durable-home-'));
let proxy: DelayProxy;
let direct: string;
let viaProxy: string;

before(async () => {
  direct = pgSchemaUrl();
  openRunStore(direct, { create: true }).close();
  const server = new URL(process.env.OCDB_TEST_PG_URL as string);
  proxy = await startDelayProxy({ host: server.hostname, port: Number(server.port) }, 10);
  viaProxy = proxy.urlFor(direct);
});

after(async () => {
  await proxy.close();
  rmSync(home, { recursive: true, force: true });
});

/**
 * The agent: a few checkpoints, then `tools` (each `read` or `write`, begun and finished), printing
 * `tool <i> <level> <ms beginTool took> <local checkpoint count> <runId>` after each begin and waiting for a line on
 * stdin before it finishes the tool; then `end`, `closed`. A thrown beginTool prints `threw <ms> <message>`.
 */
function agentScript(url: string, tools: string[], options: string): string {
  return `const { openRecorder } = require(${JSON.stringify(join(ROOT, 'src', 'recorder'))});
    const { testContext } = require(${JSON.stringify(join(ROOT, 'test', 'helpers', 'context'))});
    const readline = require('node:readline');
    const errors = [];
    const recorder = openRecorder({ store: ${JSON.stringify(url)}, fork: false, liveDebugging: false, ...${options},
      onError: (e) => { errors.push(e.message); console.log('onError ' + e.message); } });
    const run = recorder.startRun({ agentId: 'durable', runtimeContext: testContext() });
    run.checkpoint('before_prompt_build');
    run.checkpoint('before_model_call');
    run.checkpoint('after_model_call', { appendMessages: [{ role: 'assistant', content: 'sending it' }] });
    const tools = ${JSON.stringify(tools)};
    const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
    (async () => {
      for (let i = 0; i < tools.length; i++) {
        const level = tools[i];
        const t0 = performance.now();
        let id;
        try {
          id = run.beginTool(level === 'write' ? 'send_email' : 'search', { i }, { sideEffectLevel: level === 'write' ? 'write' : 'read_only' });
        } catch (e) {
          console.log('threw ' + Math.round(performance.now() - t0) + ' ' + e.message);
          recorder.close();
          process.stdin.destroy();
          return;
        }
        const ms = (performance.now() - t0).toFixed(1);
        console.log('tool ' + i + ' ' + level + ' ' + ms + ' ' + recorder.store.getRun(run.runId).checkpointCount + ' ' + run.runId);
        await lines.next();
        run.finishTool(id, 'success', { ok: i });
      }
      run.end();
      console.log('end ' + recorder.store.getRun(run.runId).checkpointCount);
      recorder.close();
      console.log('closed');
      process.stdin.destroy();
    })().catch((e) => { console.log('failed ' + e.message); process.exit(3); });`;
}

interface Agent {
  /** The next line the agent prints (its stderr in the failure when it ends first). */
  line(): Promise<string>;
  go(): void;
  exited: Promise<number | null>;
}

function startAgent(tools: string[], options = '{}'): Agent {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete env.OCDB_TEAM_STORE; // the default: local-first
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', agentScript(viaProxy, tools, options)], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffer = '';
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const l of lines) {
      const w = waiting.shift();
      if (w) w(l);
      else queue.push(l);
    }
  });
  // 'close', not 'exit': the child's stdout is drained by then, so no line it printed is taken for its end
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    line: () =>
      queue.length > 0
        ? Promise.resolve(queue.shift() as string)
        : Promise.race([
            new Promise<string>((resolve) => waiting.push(resolve)),
            exited.then((code) => {
              throw new Error(`the agent exited (${code}) before its next line: ${stderr}`);
            }),
          ]),
    go: () => child.stdin.write('go\n'),
    exited,
  };
}

function teamRun(runId: string) {
  const store = openRunStore(direct, { create: false });
  try {
    if (!store.hasRun(runId)) return undefined;
    const run = store.getRun(runId);
    const last = store.getCheckpointAt(runId, run.checkpointCount - 1);
    return { run, last };
  } finally {
    store.close();
  }
}

test('after beginTool of a write tool returns, another process finds the run up to that checkpoint in the team store', async () => {
  proxy.setMode('forward');
  proxy.setDelay(10);
  const agent = startAgent(['read', 'write', 'write']);
  // a read tool: nothing waited for, the team store does not hold the run yet
  const read = (await agent.line()).split(' ');
  assert.equal(read[2], 'read');
  const runId = read[5] as string;
  assert.equal(teamRun(runId), undefined, 'a read tool does not ship the run');
  agent.go();
  for (let i = 1; i <= 2; i++) {
    const [kind, , level, , count] = (await agent.line()).split(' ');
    assert.equal(kind, 'tool');
    assert.equal(level, 'write');
    const there = teamRun(runId);
    assert.ok(there, `the run is in the team store once beginTool of write tool ${i} returned`);
    assert.equal(there.run.checkpointCount, Number(count), 'with every checkpoint recorded so far');
    assert.equal(there.last.boundary, 'before_tool_call');
    assert.equal(there.last.toolCallId !== undefined, true);
    assert.equal(there.run.status, 'running');
    assert.equal(there.run.crashed, false, 'read as running there, not crashed');
    agent.go();
  }
  const end = await agent.line();
  assert.match(end, /^end \d+$/);
  const ended = teamRun(runId);
  assert.equal(ended?.run.status, 'completed', 'run.end() returned once the ended run was in the team store');
  assert.equal(ended?.run.checkpointCount, Number(end.split(' ')[1]));
  assert.equal(await agent.line(), 'closed');
  assert.equal(await agent.exited, 0);
});

test('with the host unreachable, beginTool of a write tool throws a clear error within the bound, and the tool does not run', async () => {
  proxy.setMode('down');
  try {
    const agent = startAgent(['write'], '{ shipTimeoutMs: 5000 }');
    const line = await agent.line();
    const m = /^threw (\d+) (.*)$/.exec(line);
    assert.ok(m, `beginTool threw: ${line}`);
    assert.ok(Number(m[1]) < 5000 + 2000, `it gave up within the bound (${m[1]} ms)`);
    assert.match(m[2] as string, /not confirmed in the team store .* before send_email \(write\) ran: /);
    assert.match(m[2] as string, /kept in .*cache\.db and ship when the store is reachable again/);
    assert.doesNotMatch(m[2] as string, /ocdb-test-/, 'no password in the message');
    await agent.exited;
  } finally {
    proxy.setMode('forward');
  }
});

test('with the server hung, the wait is bounded; onStoreError "disable" tells onError and the agent goes on', async () => {
  proxy.setMode('hang');
  try {
    const agent = startAgent(['write'], "{ shipTimeoutMs: 1500, onStoreError: 'disable' }");
    const first = await agent.line();
    assert.match(first, /^onError .*not confirmed in the team store .* before send_email \(write\) ran: /);
    const tool = (await agent.line()).split(' ');
    assert.equal(tool[0], 'tool', 'the agent went on to its tool');
    assert.ok(Number(tool[3]) < 1500 + 5000, `beginTool returned after a bounded wait (${tool[3]} ms)`);
    proxy.setMode('forward');
    agent.go();
    // it ends and closes, whether or not the server answered again within the short bound (said either way)
    for (let line = await agent.line(); line !== 'closed'; line = await agent.line())
      assert.match(line, /^(end \d+|onError .*not confirmed in the team store .*)$/);
    assert.equal(await agent.exited, 0);
  } finally {
    proxy.setMode('forward');
  }
});

test('the time a write tool waits for its confirmation, at 0 and 10 ms each way', async (t) => {
  for (const delay of [0, 10]) {
    proxy.setDelay(delay);
    const tools = ['read', 'write', 'read', 'write', 'read', 'write', 'read', 'write'];
    const agent = startAgent(tools);
    const times: Record<string, number[]> = { read: [], write: [] };
    for (let i = 0; i < tools.length; i++) {
      const [, , level, ms] = (await agent.line()).split(' ');
      times[level as string]?.push(Number(ms));
      agent.go();
    }
    assert.match(await agent.line(), /^end /);
    await agent.exited;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    // the first write tool also starts the copies' thread and its connection: shown apart
    const [firstWrite, ...laterWrites] = times.write as number[];
    t.diagnostic(
      `${delay} ms each way: beginTool of a read tool ${median(times.read as number[]).toFixed(1)} ms (median); of a write tool ${firstWrite} ms the first, ${median(laterWrites).toFixed(1)} ms (median of the next ${laterWrites.length})`,
    );
    assert.ok(laterWrites.every((ms) => ms > 0));
  }
  proxy.setDelay(10);
});
