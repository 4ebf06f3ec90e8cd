/**
 * The safety matrix of fork tool policies. Exhaustively over every policy x
 * every side-effect level x named / '*' / recorded x acknowledged or not (the
 * decision both runners share), and property-tested end to end: random policy
 * maps, acknowledgements and mocks over a recorded run whose tools cover every
 * level, executed by the agent's own code in agent-program mode with spies on
 * the real tool functions (manual_confirm always answered "allow once", the
 * most permissive user). Invariants: an external_irreversible tool never runs
 * unless named in toolPolicyMap and acknowledged; a write tool never runs
 * unacknowledged; a tool whose effective policy is forbid_replay is never called.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  REPLAY_POLICIES,
  SIDE_EFFECT_LEVELS,
  defaultReplayPolicy,
  isOcdbError,
  messageToolCalls,
  resolvePolicy,
  type ForkConfig,
  type ReplayPolicy,
  type SideEffectLevel,
} from '../../../src/model';
import { openRecorder, type Recorder } from '../../../src/recorder';
import { decideTool } from '../../../src/fork/toolDecision';
import { ForkService } from '../../../src/fork/forkService';
import { OpenAiChatModel } from '../../../src/fork/modelClient';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/agents/fakeModelServer';
import { tmpLocation } from '../../helpers/engines';

describe('policy decision matrix (exhaustive)', () => {
  for (const policy of REPLAY_POLICIES) {
    for (const level of SIDE_EFFECT_LEVELS) {
      for (const mapping of ['named', 'wildcard', 'recorded'] as const) {
        for (const acked of [false, true]) {
          it(`${policy} x ${level} x ${mapping} x ${acked ? 'acknowledged' : 'not acknowledged'}`, () => {
            const map: Record<string, ReplayPolicy> =
              mapping === 'named'
                ? { tool: policy, '*': 'reuse_result' }
                : mapping === 'wildcard'
                  ? { '*': policy }
                  : {};
            const recorded: ReplayPolicy = mapping === 'recorded' ? policy : 'reuse_result';
            const d = decideTool('tool', level, recorded, { toolPolicyMap: map }, acked ? ['tool'] : []);
            const runs = d.action === 'execute' || d.action === 'confirm';
            assert.equal(d.policy, policy);
            if (policy === 'forbid_replay') assert.equal(d.action, 'forbid');
            if (policy === 'reuse_result') assert.equal(d.action, 'reuse');
            if (policy === 'mock_result') assert.equal(d.action, 'mock');
            if (runs && level === 'external_irreversible') assert.ok(mapping === 'named' && acked);
            if (runs && level === 'write') assert.ok(acked);
            const executing = policy === 're_execute' || policy === 'manual_confirm';
            const mayRun =
              level === 'external_irreversible' ? mapping === 'named' && acked : level === 'write' ? acked : true;
            assert.equal(runs, executing && mayRun);
            assert.equal(d.action === 'refuse', executing && !mayRun);
          });
        }
      }
    }
  }
});

/** One tool per side-effect level, with the level's default recorded policy. */
const TOOLS: Record<string, SideEffectLevel> = {
  pure_calc: 'none',
  read_db: 'read_only',
  big_query: 'expensive_read',
  write_note: 'write',
  wire_money: 'external_irreversible',
};

/** Never recorded: only forks have it (the live agent lacks it), so only the call-time check can stop it. */
const UNRECORDED: Record<string, SideEffectLevel> = { launch_rocket: 'external_irreversible' };

let dir: string;
let store: SqlRunStore;
let server: FakeModelServer;
let sourceRunId: string;
let executed: Map<string, number>;

async function matrixAgent(recorder: Recorder, url: string, withUnrecorded: boolean): Promise<string> {
  const run = recorder.startRun({
    agentId: 'matrix-agent',
    runtimeContext: {
      user: { userId: 'u', roleId: 'ops', permissions: [] },
      conversation: { sessionId: 's' },
      project: { projectId: 'p' },
      task: { taskId: 't', workflowId: 'w', stepStates: {} },
      tools: { availableTools: Object.keys(TOOLS) },
      model: { provider: 'openai', model: 'fake', promptVersion: 'v1' },
    },
    model: { provider: 'openai', model: 'fake' },
    messages: [{ role: 'user', content: 'do everything once' }],
  });
  const chat = new OpenAiChatModel({ baseUrl: url, retryBaseMs: 1 });
  const fns = Object.fromEntries(
    Object.entries({ ...TOOLS, ...(withUnrecorded ? UNRECORDED : {}) }).map(([name, level]) => [
      name,
      run.tool(name, { sideEffectLevel: level }, async (args: { n: number }) => {
        executed.set(name, (executed.get(name) ?? 0) + 1);
        return { name, n: args.n };
      }),
    ]),
  );
  try {
    for (let step = 0; step < 3; step++) {
      run.checkpoint('before_prompt_build');
      const { message } = await run.modelCall({ systemPrompt: 'ops agent' }, (messages) =>
        chat.complete({ systemPrompt: 'ops agent', messages, model: { provider: 'openai', model: 'fake' }, tools: [] }),
      );
      const calls = messageToolCalls(message);
      if (calls.length === 0) break;
      for (const c of calls)
        await fns[c.toolName]?.(c.args as { n: number }, { toolCallId: c.toolCallId }).catch(() => undefined);
    }
    run.end();
  } catch (e) {
    run.end({ error: e });
  }
  return run.runId;
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-matrix-'));
  store = openRunStore(tmpLocation());
  server = await startFakeModelServer((_req, i) =>
    i % 2 === 0
      ? {
          toolCalls: [...Object.keys(TOOLS), ...Object.keys(UNRECORDED)].map((name, k) => ({
            id: `t${i}-${k}`,
            name,
            args: { n: k },
          })),
        }
      : { content: 'all done' },
  );
  executed = new Map();
  const recorder = openRecorder({ runStore: store, fork: false, heartbeatMs: 0 });
  sourceRunId = await matrixAgent(recorder, server.url, false);
  recorder.close();
});
after(async () => {
  await server.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A small seeded PRNG (mulberry32) so a failing case can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('policy matrix end to end (property, agent-program mode)', () => {
  it('random policy maps never run an irreversible tool unless named and acknowledged, never call a forbidden one', async () => {
    const names = [...Object.keys(TOOLS), ...Object.keys(UNRECORDED)];
    const levelOf = (n: string) => TOOLS[n] ?? UNRECORDED[n];
    const from = store.listCheckpoints(sourceRunId)[0]?.checkpointId ?? '';
    let created = 0;
    let rejected = 0;
    const ranIrreversible: number[] = [];
    for (let seed = 1; seed <= 120; seed++) {
      const rnd = prng(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
      const map: Record<string, ReplayPolicy> = {};
      if (rnd() < 0.7) map['*'] = pick(REPLAY_POLICIES);
      for (const n of names) if (rnd() < 0.4) map[n] = pick(REPLAY_POLICIES);
      const ack = names.filter(() => rnd() < 0.5);
      if (rnd() < 0.3) ack.push('*');
      const mocks = Object.fromEntries(names.filter(() => rnd() < 0.7).map((n) => [n, { mocked: n }]));
      const config: ForkConfig = { sourceRunId, sourceCheckpointId: from, toolPolicyMap: map, toolMockResults: mocks };
      const effective = (n: string) =>
        resolvePolicy(
          n,
          store.listToolCalls(sourceRunId).find((t) => t.toolName === n)?.replayPolicy ??
            defaultReplayPolicy(levelOf(n) ?? 'none'),
          map,
        );

      executed = new Map();
      let fork;
      try {
        fork = new ForkService(store).create(config, ack);
        created++;
      } catch (e) {
        assert.ok(isOcdbError(e, 'ForkRejected'), `seed ${seed}: ${String(e)}`);
        rejected++;
        continue;
      }
      const answering = setInterval(() => {
        for (const c of store.listConfirmations({ forkRequestId: fork.forkRequestId, status: 'pending' })) {
          store.answerConfirmation(c.confirmationId, 'allow_once', Date.now());
        }
      }, 2);
      const recorder = openRecorder({
        runStore: store,
        fork: fork.forkRequestId,
        heartbeatMs: 0,
        forkMode: { confirmPollMs: 1 },
      });
      try {
        await matrixAgent(recorder, server.url, true);
      } finally {
        clearInterval(answering);
        recorder.close();
      }
      for (const n of names) {
        const ran = executed.get(n) ?? 0;
        const { policy, source } = effective(n);
        if (ran === 0) continue;
        assert.ok(policy === 're_execute' || policy === 'manual_confirm', `seed ${seed}: ${n} ran under ${policy}`);
        if (levelOf(n) === 'external_irreversible') {
          assert.ok(
            source === 'named' && ack.includes(n),
            `seed ${seed}: ${n} ran from ${source}, ack ${ack.join(',')}`,
          );
          ranIrreversible.push(seed);
        }
        if (levelOf(n) === 'write') assert.ok(ack.includes(n), `seed ${seed}: write_note ran unacknowledged`);
      }
      for (const n of names) {
        if (effective(n).policy === 'forbid_replay')
          assert.equal(executed.get(n) ?? 0, 0, `seed ${seed}: ${n} forbidden but called`);
      }
    }
    // The property must have been exercised both ways, not vacuously.
    assert.ok(created > 20 && rejected > 20, `created ${created}, rejected ${rejected}`);
    assert.ok(ranIrreversible.length > 0, 'some case named, acknowledged and re-ran the irreversible tool');
  });
});
