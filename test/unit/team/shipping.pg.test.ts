/**
 * A confirmation sends only what the team store lacks: a run recorded locally is shipped at each step, as a
 * local-first recorder confirms it before a `write` tool runs, and each shipment after the first costs two round
 * trips (counted at the driver: each request a pipelined batch), whatever the run's length and what the step added. The team store's copy is the
 * local run itself at every step (still running there) and at its end (the export, byte for byte). Through the
 * delay proxy at 10 ms each way, the time of a confirmation is printed (t.diagnostic).
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecorder } from '../../../src/recorder';
import { openRunStore, runExportChunks, type RunStore } from '../../../src/store';
import { RunShipping } from '../../../src/team/runShipping';
import { pgSchemaUrl } from '../../helpers/engines';
import { testContext } from '../../helpers/context';
import { startProxyThread, type ProxyThread } from '../../support/delayProxyThread';
import { driverRequests } from '../../helpers/pgRequests';

const PG = process.env.OCDB_TEST_PG_URL;
const dir = mkdtempSync(join(tmpdir(), 'ocdb-shipping-'));
let proxy: ProxyThread;

before(async () => {
  assert.ok(PG, 'OCDB_TEST_PG_URL names the test server (node test/run.mjs --postgres starts one)');
  const server = new URL(PG);
  // in a thread of its own: the synchronous store below parks this thread on every read
  proxy = await startProxyThread({ host: server.hostname, port: Number(server.port) });
});

after(async () => {
  await proxy?.close();
  rmSync(dir, { recursive: true, force: true });
});

function exportOf(store: RunStore, runId: string): string {
  return [...runExportChunks(store, runId)].join('');
}

/**
 * Records a run step by step into a local SQLite store and ships it after each step's `write` tool began, as a
 * confirmation does; answers what each shipment after the first cost (requests, ms) and the stores.
 */
function recordAndShip(localPath: string, target: RunStore, steps: number) {
  const recorder = openRecorder({ store: localPath, fork: false, liveDebugging: false, heartbeatMs: 0 });
  const local = recorder.store;
  const shipping = new RunShipping(local, target);
  const run = recorder.startRun({ agentId: 'shipping-test', runtimeContext: testContext() });
  const cost: { requests: number; ms: number; checkpoints: number }[] = [];
  const confirm = () => {
    const t0 = performance.now();
    const { value, requests } = driverRequests(() => shipping.ship([run.runId]));
    assert.deepEqual(value.copied, [run.runId]);
    cost.push({ requests, ms: performance.now() - t0, checkpoints: local.getRun(run.runId).checkpointCount });
  };
  const conversation: { role: 'user' | 'assistant'; content: string }[] = [{ role: 'user', content: 'mail them' }];
  run.checkpoint('before_prompt_build', { messages: [...conversation] });
  for (let i = 0; i < steps; i++) {
    run.checkpoint('before_model_call');
    conversation.push({ role: 'assistant', content: `step ${i}: sending mail ${'x'.repeat(200)}` });
    run.checkpoint('after_model_call', { messages: [...conversation] });
    const id = run.beginTool('send_email', { to: `user${i}@example.com` }, { sideEffectLevel: 'write' });
    confirm(); // what a local-first recorder confirms before the write tool runs
    run.finishTool(id, 'success', { sent: i });
    run.checkpoint('after_tool_call');
  }
  run.end();
  confirm(); // at the end
  return { recorder, local, runId: run.runId, cost };
}

test('after the first shipment, each confirmation sends two requests, and the team store holds the run as it is', () => {
  const target = openRunStore(pgSchemaUrl(), { create: true });
  const { recorder, local, runId, cost } = recordAndShip(join(dir, 'count.db'), target, 12);
  try {
    const [first, ...later] = cost;
    assert.ok(first && later.length === 12, 'a shipment per write tool and one at the end');
    assert.ok(
      (later.at(-2)?.checkpoints ?? 0) >= 40,
      `a run of a few dozen checkpoints (${later.at(-2)?.checkpoints})`,
    );
    // what a step records (4 checkpoints, a call begun, one finished) goes in two requests, whatever the run's length:
    // the run's state read with the transaction's locks, then every write with the COMMIT (a copy of the whole run
    // sent 43 requests at the first step and 288 at the twelfth; appending checkpoint by checkpoint, 13 to 16). The
    // first after the copy too: the copy kept where the run's lists end (it read them again, 3 to 4 requests).
    const sent = later.map((c) => c.requests).join(', ');
    assert.ok(
      later.every((c) => c.requests === 2),
      `each confirmation after the copy, the first and the end's too, sent 2 requests (${sent})`,
    );
    assert.equal(target.getRun(runId).status, 'completed');
    assert.equal(exportOf(target, runId), exportOf(local, runId), 'the team store holds the run as recorded');
  } finally {
    recorder.close();
    target.close();
  }
});

test('a run shipped part way by another thread is continued, not copied again', () => {
  const schema = pgSchemaUrl();
  const target = openRunStore(schema, { create: true });
  const recorder = openRecorder({ store: join(dir, 'resume.db'), fork: false, liveDebugging: false, heartbeatMs: 0 });
  try {
    const run = recorder.startRun({ agentId: 'shipping-test', runtimeContext: testContext() });
    run.checkpoint('before_model_call');
    const id = run.beginTool('send_email', { to: 'a@example.com' }, { sideEffectLevel: 'write' });
    new RunShipping(recorder.store, target).ship([run.runId]); // an earlier thread (replaced since)
    run.finishTool(id, 'success', { sent: true });
    run.checkpoint('after_tool_call');
    run.end();
    const { value } = driverRequests(() => new RunShipping(recorder.store, target).ship([run.runId]));
    assert.deepEqual(value.copied, [run.runId]);
    assert.equal(exportOf(target, run.runId), exportOf(recorder.store, run.runId));
  } finally {
    recorder.close();
    target.close();
  }
});

test('a list node another run holds already: the continuation is written again, carefully, and holds the run as recorded', () => {
  const target = openRunStore(pgSchemaUrl(), { create: true });
  const recorder = openRecorder({ store: join(dir, 'shared.db'), fork: false, liveDebugging: false, heartbeatMs: 0 });
  const asked = { role: 'user' as const, content: 'mail them' };
  const answered = { role: 'assistant' as const, content: 'sent to the three of them' };
  try {
    // another run, in the team store first, whose conversation the run below grows into: the node (asked, answered)
    // is there when the run's continuation adds it under the same node (asked)
    const other = recorder.startRun({ agentId: 'shipping-test', runtimeContext: testContext() });
    other.checkpoint('before_prompt_build', { messages: [asked, answered] });
    other.end();
    new RunShipping(recorder.store, target).ship([other.runId]);
    const run = recorder.startRun({ agentId: 'shipping-test', runtimeContext: testContext() });
    run.checkpoint('before_prompt_build', { messages: [asked] });
    const shipping = new RunShipping(recorder.store, target);
    shipping.ship([run.runId]);
    run.checkpoint('after_model_call', { messages: [asked, answered] });
    const { value, requests } = driverRequests(() => shipping.ship([run.runId]));
    assert.deepEqual(value.copied, [run.runId]);
    assert.ok(requests > 2, `the first attempt failed whole and was written again (${requests} requests)`);
    run.end();
    assert.deepEqual(shipping.ship([run.runId]).copied, [run.runId]);
    for (const id of [run.runId, other.runId]) {
      assert.equal(exportOf(target, id), exportOf(recorder.store, id), `the team store holds ${id} as recorded`);
    }
  } finally {
    recorder.close();
    target.close();
  }
});

test('the time of a confirmation at 10 ms each way (a run of a few dozen checkpoints)', async (t) => {
  const schema = pgSchemaUrl();
  openRunStore(schema, { create: true }).close();
  await proxy.setDelay(10);
  const target = openRunStore(proxy.urlFor(schema), { create: false });
  const { recorder, cost } = recordAndShip(join(dir, 'timed.db'), target, 12);
  try {
    const [first, ...later] = cost;
    const ms = later.map((c) => c.ms).sort((a, b) => a - b);
    const median = ms[Math.floor(ms.length / 2)] ?? 0;
    t.diagnostic(
      `10 ms each way: first shipment ${first?.ms.toFixed(0)} ms (${first?.requests} requests); a confirmation ${median.toFixed(0)} ms median, ${ms.at(-1)?.toFixed(0)} ms max (${later.map((c) => c.requests).join(', ')} requests; run up to ${later.at(-1)?.checkpoints} checkpoints)`,
    );
    // through the proxy too, what is new only, in the same two requests
    const sent = later.map((c) => c.requests).join(', ');
    assert.ok(
      later.every((c) => c.requests === 2),
      `through the proxy too, each confirmation after the copy sent 2 requests (${sent})`,
    );
  } finally {
    recorder.close();
    target.close();
    await proxy.setDelay(0);
  }
});
