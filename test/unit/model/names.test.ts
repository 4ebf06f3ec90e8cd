/**
 * Tool names and ids: the policy wildcard `'*'` never names a tool (so a tool
 * recorded as `*` cannot be unlocked by `--policy '*=re_execute' --ack '*'`),
 * and no writer accepts a tool name with `*` or a control character, or an id
 * that is not one line of well-formed Unicode.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DebugRunSchema,
  hazardOf,
  isOcdbError,
  openHazards,
  resolvePolicy,
  toolNameProblem,
  idProblem,
} from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

test("the '*' key is the wildcard, never the name of a tool called `*`", () => {
  const resolved = resolvePolicy('*', 'forbid_replay', { '*': 're_execute' });
  assert.equal(resolved.source, 'wildcard');
  const hazard = hazardOf('*', 'external_irreversible', resolved);
  assert.ok(hazard);
  assert.equal(hazard.unlockable, false, 'the wildcard cannot unlock an external_irreversible tool');
  assert.deepEqual(openHazards([hazard], ['*']), [hazard], "--ack '*' acknowledges nothing");
  // a write tool is not acknowledged by '*' either
  const write = hazardOf('send', 'write', resolvePolicy('send', 'manual_confirm', { '*': 're_execute' }));
  assert.ok(write);
  assert.equal(openHazards([write], ['*']).length, 1);
  assert.equal(openHazards([write], ['send']).length, 0);
});

test('tool names exclude * and control characters; ids are one line of well-formed Unicode', () => {
  for (const bad of ['*', 'read*', 'a\nb', 'tab\there', '\u2028', 'x\u0085', '']) {
    assert.ok(toolNameProblem(bad), JSON.stringify(bad));
  }
  for (const bad of ['run\n[8] agent_end', 'r\ud800', '\udc00x', 'a\u0000', '', 'x'.repeat(600)]) {
    assert.ok(idProblem(bad), JSON.stringify(bad));
  }
  for (const good of ['search_kb', 'mcp__github__create_issue', 'Bash', 'ツール', 'emoji 🔧']) {
    assert.equal(toolNameProblem(good), undefined, good);
    assert.equal(idProblem(good), undefined, good);
  }
});

test('the SDK refuses such names with a located InvalidInput and goes on recording', async () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  assert.throws(
    () => recorder.startRun({ agentId: 'bot\n[8] before_tool_call', runtimeContext: testContext() }),
    (e) =>
      isOcdbError(e, 'InvalidInput') && /agentId: agentId ".*" contains the control character U\+000A/.test(e.message),
  );
  assert.throws(
    () => recorder.startRun({ agentId: 'bot', runId: 'r\ud800', runtimeContext: testContext() }),
    (e) => isOcdbError(e, 'InvalidInput') && /runId: .* lone surrogate/.test(e.message),
  );
  const run = recorder.startRun({ agentId: 'bot', runtimeContext: testContext() });
  assert.throws(
    () => run.beginTool('*', {}, { sideEffectLevel: 'external_irreversible' }),
    (e) => isOcdbError(e, 'InvalidInput') && /toolName: tool name "\*" contains '\*'/.test(e.message),
  );
  const id = run.beginTool('send_email', {}, { sideEffectLevel: 'external_irreversible' });
  run.finishTool(id, 'success', { ok: true });
  run.end();
  recorder.close();
  assert.deepEqual(
    store.listToolCalls(run.runId).map((c) => c.toolName),
    ['send_email'],
  );
});

test('a loaded run names the field of a bad id or tool name', () => {
  const r = DebugRunSchema.safeParse({
    runId: 'ok',
    sessionId: '',
    agentId: 'a',
    status: 'completed',
    mode: 'live',
    startedAt: 0,
    checkpoints: [],
    toolLedger: [
      {
        toolCallId: 't',
        toolName: 'x\ny',
        args: {},
        argsHash: '0123456789abcdef',
        sideEffectLevel: 'none',
        replayPolicy: 'reuse_result',
        startedAt: 0,
      },
    ],
    artifactRefs: [],
    metadata: {},
  });
  assert.equal(r.success, false);
  assert.deepEqual(r.error?.issues[0]?.path, ['toolLedger', 0, 'toolName']);
});
