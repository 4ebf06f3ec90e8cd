import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CheckpointSchema,
  DebugRunSchema,
  ForkConfigSchema,
  OcdbError,
  RuntimeContextSnapshotSchema,
  ToolCallRecordSchema,
  argsHash,
  parseWith,
} from '../../../src/model';
import { testContext } from '../../helpers/context';

// Shapes exactly as the @ocdb/core README (shared/seeds/000_...) writes them.
const seedToolCall = {
  toolCallId: 'tc-1',
  toolName: 'save_report',
  args: { reportId: 'r-9', body: 'quarterly' },
  argsHash: argsHash({ reportId: 'r-9', body: 'quarterly' }),
  result: { ok: true },
  sideEffectLevel: 'write',
  replayPolicy: 'forbid_replay',
  startedAt: 1730000000000,
  endedAt: 1730000000420,
};
const seedCheckpoint = {
  checkpointId: 'cp-1',
  runId: 'run-1',
  boundary: 'after_model_call',
  stepIndex: 0,
  messages: [
    { role: 'user', content: 'make the report' },
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    { role: 'tool', content: { ok: true }, toolCallId: 'tc-1', toolName: 'save_report' },
  ],
  systemPrompt: 'You write reports.',
  model: { provider: 'openai', model: 'gpt-4.1', temperature: 0.3 },
  promptVersion: 'v2',
  runtimeContext: testContext({ project: { projectId: 'p', reportId: 'r-9', region: 'eu' } }),
  toolCallId: 'tc-1',
  toolLedgerSnapshot: [seedToolCall],
  artifactRefs: [
    {
      artifactId: 'a1',
      type: 'report',
      version: 2,
      contentHash: 'abc',
      storagePath: 'reports/r-9.md',
      createdAt: 1730000000500,
      metadata: {},
    },
  ],
  finishReason: 'tool_calls',
  usage: { inputTokens: 120, outputTokens: 30 },
  createdAt: 1730000000400,
};

test('the seed shapes parse unchanged, extra project keys kept', () => {
  const cp = CheckpointSchema.parse(seedCheckpoint);
  assert.deepEqual(cp, seedCheckpoint);
  assert.equal((cp.runtimeContext.project as Record<string, unknown>).region, 'eu');
  const run = DebugRunSchema.parse({
    runId: 'run-1',
    sessionId: 's',
    agentId: 'a',
    status: 'completed',
    mode: 'live',
    startedAt: 1,
    endedAt: 2,
    checkpoints: [seedCheckpoint],
    toolLedger: [seedToolCall],
    artifactRefs: [],
    metadata: { team: 'x' },
  });
  assert.equal(run.checkpoints.length, 1);
  const fork = ForkConfigSchema.parse({
    sourceRunId: 'run-1',
    sourceCheckpointId: 'cp-1',
    modelOverride: { mode: 'override', provider: 'anthropic', model: 'claude' },
    contextPatch: { user: { roleId: 'auditor' } },
    toolPolicyMap: { '*': 'reuse_result', save_report: 'forbid_replay' },
    toolMockResults: { search: [] },
    promptVersionOverride: 'v3',
  });
  assert.equal(fork.toolPolicyMap?.save_report, 'forbid_replay');
});

test('bad shapes are rejected with the path of the field', () => {
  const bad = { ...seedCheckpoint, messages: [...seedCheckpoint.messages, { role: 'robot', content: 'x' }] };
  assert.throws(
    () => parseWith(CheckpointSchema, bad, 'input.json'),
    (e: unknown) => {
      assert.ok(e instanceof OcdbError);
      assert.equal(e.code, 'InvalidInput');
      assert.equal(e.details.path, 'messages[3].role');
      assert.match(e.message, /^input\.json: messages\[3\]\.role: .*"robot"/);
      return true;
    },
  );
  const run = {
    runId: 'r',
    sessionId: 's',
    agentId: 'a',
    status: 'completed',
    mode: 'live',
    startedAt: 1,
    checkpoints: [seedCheckpoint, seedCheckpoint, seedCheckpoint, { ...seedCheckpoint, boundary: 'before_lunch' }],
    toolLedger: [],
    artifactRefs: [],
    metadata: {},
  };
  assert.throws(() => parseWith(DebugRunSchema, run), /checkpoints\[3\]\.boundary/);
  assert.throws(
    () => parseWith(ToolCallRecordSchema, { ...seedToolCall, sideEffectLevel: 'dangerous' }),
    /sideEffectLevel/,
  );
  assert.throws(() => parseWith(ToolCallRecordSchema, { ...seedToolCall, argsHash: 'XYZ' }), /argsHash/);
  const ctx = testContext();
  assert.throws(
    () => parseWith(RuntimeContextSnapshotSchema, { ...ctx, user: { ...ctx.user, permissions: 'all' } }),
    /user\.permissions/,
  );
});
