/**
 * The stop protocol in the store (src/debug/README.md, "Live debugging"): attach / ask / answer / detach, lease expiry,
 * several attachments, the change feed, and the run's record of applied edits through export and load.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OcdbError, argsHash } from '../../../src/model';
import { RunWriter } from '../../../src/writer';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

const isCode = (code: string) => (e: unknown) => e instanceof OcdbError && e.code === code;

function runningRun(store: ReturnType<typeof tmpStore>, runId = 'r1', agentId = 'support-bot') {
  const writer = RunWriter.create(
    store,
    { runId, agentId, state: { runtimeContext: testContext() } },
    { now: () => 100 },
  );
  const cp = writer.checkpoint('before_prompt_build', { checkpointId: `${runId}#0` });
  return { writer, cp };
}

test('attach, ask, stop, resume with edits: the agent reads each state; the change feed bumps', () => {
  const store = tmpStore();
  const { cp } = runningRun(store);
  assert.equal(store.liveAttachmentFor('r1', 'support-bot', 1000), undefined, 'no debugger: nothing attached');
  const before = Date.now();
  const att = store.attachLive({ attachId: 'a1', runId: 'r1', client: 'VS Code', at: 1000, leaseMs: 5000 });
  // the lease is the store's (its clock, here this host's), not the 1000 the debugger said
  assert.ok(att.createdAt >= before && att.createdAt <= Date.now(), `created now: ${att.createdAt}`);
  assert.deepEqual(att, {
    attachId: 'a1',
    runId: 'r1',
    client: 'VS Code',
    createdAt: att.createdAt,
    leaseUntil: att.createdAt + 5000,
    state: 'active',
  });
  assert.equal(store.liveAttachmentFor('r1', 'other-agent', 1001)?.attachId, 'a1', 'named by its run');
  assert.equal(store.liveAttachmentFor('r2', 'support-bot', 1001), undefined, 'another run of another attachment');

  const seq = store.changeSeq();
  store.askLiveStop({
    stopId: 's1',
    attachId: 'a1',
    runId: 'r1',
    agentId: 'support-bot',
    checkpointId: cp.checkpointId,
    boundary: cp.boundary,
    askedAt: 1002,
  });
  assert.ok(store.changeSeq() > seq, 'asking bumps the change feed');
  assert.deepEqual(
    store.changesSince(seq).changedRuns.map((r) => r.runId),
    ['r1'],
  );
  assert.deepEqual(
    store.listLiveStops('a1', ['asking'], 1003).map((s) => s.stopId),
    ['s1'],
  );
  const stopped = store.answerLiveStop('s1', { state: 'stopped', reason: 'breakpoint' }, 1004);
  assert.equal(stopped.state, 'stopped');
  assert.equal(stopped.reason, 'breakpoint');
  assert.deepEqual(store.listLiveStops('a1', ['asking'], 1005), [], 'no longer asking');
  const edits = {
    runtimeContext: testContext({ user: { userId: 'u-2', roleId: 'admin', permissions: [] } }),
    editedBy: 'VS Code',
  };
  const seq2 = store.changeSeq();
  const resumed = store.answerLiveStop('s1', { state: 'resumed', edits }, 1006);
  assert.ok(store.changeSeq() > seq2, 'answering bumps the change feed');
  assert.equal(resumed.state, 'resumed');
  assert.deepEqual(resumed.edits, edits);
  assert.equal(resumed.answeredAt, 1006);
  assert.throws(() => store.answerLiveStop('s1', { state: 'resumed' }, 1007), isCode('InvalidInput'));
  assert.throws(() => store.getLiveStop('nope'), isCode('LiveStopNotFound'));
});

/** Polls (a state, not a time) until the stop reads `state` on the store's clock. */
async function untilStop(store: ReturnType<typeof tmpStore>, stopId: string, state: string): Promise<void> {
  while (store.getLiveStop(stopId).state !== state) await new Promise((resolve) => setTimeout(resolve, 5));
}

test('a lease that runs out lets the agent go on: open stops read expired; renewal keeps them open', async () => {
  const store = tmpStore();
  const { cp } = runningRun(store);
  // a debugger that says it is two minutes ahead gets a lease of the store's clock: 40 ms, not two minutes more
  store.attachLive({ attachId: 'a1', runId: 'r1', client: 'ocdb dap', at: Date.now() + 120_000, leaseMs: 40 });
  store.askLiveStop({
    stopId: 's1',
    attachId: 'a1',
    runId: 'r1',
    agentId: 'support-bot',
    checkpointId: cp.checkpointId,
    boundary: cp.boundary,
    askedAt: 10,
  });
  store.answerLiveStop('s1', { state: 'stopped', reason: 'step' }, 20);
  store.renewLiveLease('a1', Date.now() + 120_000, 60_000);
  assert.equal(store.getLiveStop('s1', 0).state, 'stopped', 'renewed: a minute from now on the store clock');
  store.attachLive({ attachId: 'a2', runId: 'r1', client: 'ocdb dap', at: 0, leaseMs: 40 });
  store.askLiveStop({
    stopId: 's3',
    attachId: 'a2',
    runId: 'r1',
    agentId: 'support-bot',
    checkpointId: cp.checkpointId,
    boundary: cp.boundary,
    askedAt: 10,
  });
  store.answerLiveStop('s3', { state: 'stopped', reason: 'step' }, 20);
  await untilStop(store, 's3', 'expired');
  assert.equal(store.liveAttachmentFor('r2', 'bot-b', Date.now() - 120_000), undefined);
  assert.deepEqual(
    store.listLiveStops('a2', ['expired']).map((x) => x.stopId),
    ['s3'],
    'listed as it reads',
  );
  assert.deepEqual(store.listLiveStops('a2', ['stopped']), []);
  assert.throws(() => store.answerLiveStop('s3', { state: 'resumed' }, 9001), isCode('InvalidInput'));
  // the agent marks it expired: a late renewal does not hold it again
  assert.equal(store.expireLiveStop('s3', 9002).state, 'expired');
  store.renewLiveLease('a2', 9003, 5000);
  assert.equal(store.getLiveStop('s3').state, 'expired');
  // an answer that came first is kept by expire
  store.askLiveStop({
    stopId: 's2',
    attachId: 'a1',
    runId: 'r1',
    agentId: 'support-bot',
    checkpointId: cp.checkpointId,
    boundary: cp.boundary,
    askedAt: 9005,
  });
  store.answerLiveStop('s2', { state: 'resumed' }, 9006);
  assert.equal(store.expireLiveStop('s2', 9007).state, 'resumed');
  assert.throws(() => store.renewLiveLease('a1', 0, 0), isCode('InvalidInput'));
  assert.throws(() => store.renewLiveLease('a1', 0, 600_000), isCode('InvalidInput'));
});

test('a debugger whose clock is behind still holds its agent: the lease is judged on the store clock', () => {
  const store = tmpStore();
  runningRun(store);
  store.attachLive({ attachId: 'a1', runId: 'r1', client: 'ocdb dap', at: Date.now() - 30_000, leaseMs: 5000 });
  store.renewLiveLease('a1', Date.now() - 30_000, 5000);
  assert.equal(store.liveAttachmentFor('r1', 'support-bot', Date.now())?.attachId, 'a1');
});

test('detach resumes every open stop with no edits; a detached attachment is not found by the check', () => {
  const store = tmpStore();
  const { cp } = runningRun(store);
  store.attachLive({ attachId: 'a1', agentId: 'support-bot', client: 'VS Code', at: 0, leaseMs: 5000 });
  for (const stopId of ['s1', 's2']) {
    store.askLiveStop({
      stopId,
      attachId: 'a1',
      runId: 'r1',
      agentId: 'support-bot',
      checkpointId: cp.checkpointId,
      boundary: cp.boundary,
      askedAt: 1,
    });
  }
  store.answerLiveStop('s2', { state: 'stopped', reason: 'pause' }, 2);
  store.detachLive('a1', 3);
  assert.deepEqual(
    store.listLiveStops('a1', undefined, 4).map((s) => [s.stopId, s.state, s.edits]),
    [
      ['s1', 'resumed', undefined],
      ['s2', 'resumed', undefined],
    ],
  );
  assert.equal(store.liveAttachmentFor('r1', 'support-bot', 4), undefined);
  assert.equal(store.getLiveAttachment('a1').state, 'detached');
  assert.throws(() => store.renewLiveLease('a1', 5, 5000), isCode('InvalidInput'));
});

test('several attachments: the newest naming the run or its agent wins; each lists only its own stops', () => {
  const store = tmpStore();
  runningRun(store, 'r1', 'bot-a');
  runningRun(store, 'r2', 'bot-b');
  store.attachLive({ attachId: 'by-agent', agentId: 'bot-a', client: 'VS Code', at: 0, leaseMs: 5000 });
  store.attachLive({ attachId: 'by-run', runId: 'r1', client: 'ocdb dap', at: 10, leaseMs: 5000 });
  store.attachLive({ attachId: 'other', agentId: 'bot-b', client: 'VS Code', at: 20, leaseMs: 5000 });
  assert.equal(store.liveAttachmentFor('r1', 'bot-a', 30)?.attachId, 'by-run');
  assert.equal(store.liveAttachmentFor('r2', 'bot-b', 30)?.attachId, 'other');
  assert.equal(store.liveAttachmentFor('r3', 'bot-a', 30)?.attachId, 'by-agent', 'a later run of the agent');
  store.detachLive('by-run', 40);
  assert.equal(store.liveAttachmentFor('r1', 'bot-a', 50)?.attachId, 'by-agent');
  store.askLiveStop({
    stopId: 's-b',
    attachId: 'other',
    runId: 'r2',
    agentId: 'bot-b',
    checkpointId: 'r2#0',
    boundary: 'before_prompt_build',
    askedAt: 60,
  });
  assert.deepEqual(store.listLiveStops('by-agent', ['asking'], 61), []);
  assert.equal(store.listLiveStops('other', ['asking'], 61).length, 1);
});

test('attach refuses an ended run, neither run nor agent, a bad id and a duplicate', () => {
  const store = tmpStore();
  const { writer } = runningRun(store);
  assert.throws(() => store.attachLive({ attachId: 'a', client: 'x', at: 0, leaseMs: 5000 }), isCode('InvalidInput'));
  assert.throws(
    () => store.attachLive({ attachId: 'bad\nid', runId: 'r1', client: 'x', at: 0, leaseMs: 5000 }),
    isCode('InvalidInput'),
  );
  store.attachLive({ attachId: 'a', runId: 'r1', client: 'x', at: 0, leaseMs: 5000 });
  assert.throws(
    () => store.attachLive({ attachId: 'a', runId: 'r1', client: 'x', at: 0, leaseMs: 5000 }),
    isCode('InvalidInput'),
  );
  writer.end();
  assert.throws(
    () => store.attachLive({ attachId: 'b', runId: 'r1', client: 'x', at: 0, leaseMs: 5000 }),
    isCode('RunNotRunning'),
  );
  assert.throws(
    () => store.attachLive({ attachId: 'c', runId: 'nope', client: 'x', at: 0, leaseMs: 5000 }),
    isCode('RunNotFound'),
  );
});

test('an applied edit: the ledger record runs with the edited args; export and load carry the record', () => {
  const store = tmpStore();
  const { writer } = runningRun(store);
  const begun = writer.beginTool(
    { toolCallId: 't1', toolName: 'lookup_order', args: { orderId: 'A-1' }, sideEffectLevel: 'read_only' },
    { checkpoint: { checkpointId: 'r1#1' } },
  );
  const edits = { toolArgs: { orderId: 'B-2' }, paths: ['args.orderId'], editedBy: 'VS Code' };
  const revised = store.recordLiveEdit(
    'r1',
    { stopId: 's1', checkpointId: 'r1#1', boundary: 'before_tool_call', toolCallId: 't1', edits, appliedAt: 200 },
    {
      toolCallId: 't1',
      args: edits.toolArgs,
      liveEdit: { stopId: 's1', editedBy: 'VS Code', at: 200, originalArgsHash: begun.record.argsHash },
    },
  );
  assert.deepEqual(revised?.args, { orderId: 'B-2' });
  assert.equal(revised?.argsHash, argsHash({ orderId: 'B-2' }));
  assert.equal(revised?.liveEdit?.originalArgsHash, argsHash({ orderId: 'A-1' }));
  const exported = store.exportRun('r1');
  assert.equal(exported.liveEdits?.length, 1);
  assert.deepEqual(exported.liveEdits?.[0]?.edits, edits);
  assert.deepEqual(exported.toolLedger[0]?.liveEdit?.editedBy, 'VS Code');
  assert.deepEqual(
    store.getCheckpoint('r1#1').toolLedgerSnapshot[0]?.args,
    { orderId: 'A-1' },
    'the checkpoint before the edit keeps what the agent asked with',
  );

  const other = tmpStore();
  other.loadRun(exported);
  assert.deepEqual(other.exportRun('r1'), exported, 'load then export gives the same run');
  const broken = structuredClone(exported);
  broken.runId = 'r9';
  for (const cp of broken.checkpoints) cp.runId = 'r9';
  broken.checkpoints = broken.checkpoints.map((cp) => ({ ...cp, checkpointId: cp.checkpointId.replace('r1', 'r9') }));
  assert.throws(
    () => other.loadRun(broken, { where: 'x.json' }),
    (e: unknown) => isCode('InvalidInput')(e) && /liveEdits\[0\]\.checkpointId/.test((e as Error).message),
  );
  assert.equal(other.hasRun('r9'), false, 'nothing written');
  // a run without edits exports no liveEdits key (the conformance of SDK, HTTP and plan exports is unchanged)
  runningRun(other, 'r2');
  assert.equal('liveEdits' in other.exportRun('r2'), false);
});
