/**
 * The hostile-input suite: generated cases (a seeded PRNG, the same every
 * run) over every place data enters — `ocdb load` (store.loadRun of parsed
 * JSON text), the importers, the HTTP API, DAP launch arguments and launch
 * configurations, and the fork editor's webview messages. Each case must be
 * accepted, or refused with a clear, located error (an OcdbError whose
 * message names where: a file, `body`, a field path or a line); nothing
 * crashes (no TypeError / RangeError / 500), and a refusal leaves the store
 * unchanged. The counts are printed as test diagnostics.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAttachArgs, parseLaunchArgs } from '../../../src/debug/launchArgs';
import { writeDemoStore } from '../../../src/demo';
import { ForkService } from '../../../src/fork/forkService';
import { importPath } from '../../../src/importers';
import { OcdbError, isOcdbError, type DebugRun } from '../../../src/model';
import { startServer, type RunningServer } from '../../../src/server/httpServer';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { PageMessageSchema, parseMessage } from '../../../src/webview/protocol';
import { call } from '../server/httpClient';

/** mulberry32: a small seeded PRNG, so every run generates the same cases. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T,
  };
}

/** `depth` objects inside each other, as JSON text (JSON.stringify would recurse). */
const deepText = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

const HOSTILE_STRINGS = [
  '',
  '*',
  'read*',
  'a\nb',
  '[8] before_tool_call\n[9] agent_end',
  '\u0000',
  'tab\there',
  '\u2028',
  'r\ud800',
  '\udc00x',
  '[x](command:workbench.action.terminal.new)',
  '![](https://evil.example/b.png)',
  '<script>alert(1)</script>',
  '$(alert)',
  '../../etc/passwd',
  '%E0%A4%A',
  'x'.repeat(5000),
  '__proto__',
  'constructor',
  'Bearer sk-live-abcdefghijklmnop',
  '😀🔧',
  '   ',
];

/** Hostile values, as JSON text (some only text can carry: deep nesting, a __proto__ key). */
function hostileValueText(r: ReturnType<typeof prng>): string {
  switch (r.int(12)) {
    case 0:
      return JSON.stringify(r.pick(HOSTILE_STRINGS));
    case 1:
      return r.pick(['null', 'true', 'false', '0', '-1', '1e308', '-0', '3.5', '9007199254740993']);
    case 2:
      return r.pick(['[]', '{}', '[null]', '[[[]]]', '{"":""}']);
    case 3:
      return deepText(r.pick([300, 2000, 10_000]));
    case 4:
      return '{"__proto__":{"polluted":true}}';
    case 5:
      return JSON.stringify({ role: r.pick(['user', 'evil', '']), content: r.pick(HOSTILE_STRINGS) });
    case 6:
      return `[${Array.from({ length: 50 }, () => JSON.stringify(r.pick(HOSTILE_STRINGS))).join(',')}]`;
    case 7:
      return JSON.stringify({ toolName: r.pick(HOSTILE_STRINGS), args: {}, argsHash: 'zz' });
    case 8:
      return deepText(255);
    case 9:
      return JSON.stringify(r.pick(['running', 'completed', 'live', 'fork', 'before_tool_call', 'none']));
    case 10:
      return String(r.int(1000) - 500);
    default:
      return JSON.stringify({ nested: { x: r.pick(HOSTILE_STRINGS) } });
  }
}

/** A rejection is clear when it is an OcdbError saying where (a file / body / field path / line). */
function assertLocated(e: unknown, where: RegExp, label: string): asserts e is OcdbError {
  assert.ok(e instanceof OcdbError, `${label}: not an OcdbError: ${e instanceof Error ? e.stack : String(e)}`);
  assert.match(e.message, where, `${label}: the message does not say where: ${e.message.slice(0, 300)}`);
  assert.ok(e.message.length < 12_000, `${label}: an unreadable message`);
}

const tally = new Map<string, { cases: number; accepted: number; rejected: number }>();
function count(area: string, outcome: 'accepted' | 'rejected'): void {
  const t = tally.get(area) ?? { cases: 0, accepted: 0, rejected: 0 };
  t.cases++;
  t[outcome]++;
  tally.set(area, t);
}

let dir: string;
let store: SqlRunStore;
let template: DebugRun;
const fingerprint = () => `${store.changeSeq()}/${store.listRuns().total}`;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-hostile-'));
  store = openRunStore(path.join(dir, 'runs.db'));
  writeDemoStore(store);
  template = store.exportRun('demo-support-refund');
  const at = template.checkpoints[3];
  assert.ok(at);
  // a live debugger's edit, so its fields are targets of `ocdb load` too
  template.liveEdits = [
    {
      stopId: 'stop-1',
      checkpointId: at.checkpointId,
      boundary: at.boundary,
      edits: { runtimeContext: at.runtimeContext, paths: ['runtimeContext'], editedBy: 'VS Code' },
      appliedAt: at.createdAt,
    },
  ];
});
after((t) => {
  let total = 0;
  const lines = [...tally].map(([area, c]) => {
    total += c.cases;
    return `${area}: ${c.cases} cases (${c.accepted} accepted, ${c.rejected} refused with a located error)`;
  });
  const summary = `hostile-input suite: ${total} cases, 0 crashes, store unchanged after every refusal — ${lines.join('; ')}`;
  console.log(summary);
  void t;
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** JSON text of a value for a label, short; a value too deep to stringify says so. */
function show(value: unknown, max = 100): string {
  try {
    return (JSON.stringify(value) ?? String(value)).slice(0, max);
  } catch {
    return '(too deep to show)';
  }
}

/** The template run renamed to `runId` (checkpoint ids too: they are unique across the store). */
function freshRunText(runId: string): string {
  const run = JSON.parse(JSON.stringify(template)) as DebugRun;
  run.runId = runId;
  for (const cp of run.checkpoints) {
    cp.runId = runId;
    cp.checkpointId = `${runId}#${cp.checkpointId}`;
  }
  for (const edit of run.liveEdits ?? []) edit.checkpointId = `${runId}#${edit.checkpointId}`;
  return JSON.stringify(run);
}

/** Replaces the JSON value at a key path (given as the text of a property) with `value` text. */
const LOAD_TARGETS: { name: string; edit: (run: Record<string, unknown>, v: string) => string }[] = [
  { name: 'runId', edit: (run, v) => put(run, ['runId'], v) },
  { name: 'agentId', edit: (run, v) => put(run, ['agentId'], v) },
  { name: 'sessionId', edit: (run, v) => put(run, ['sessionId'], v) },
  { name: 'status', edit: (run, v) => put(run, ['status'], v) },
  { name: 'mode', edit: (run, v) => put(run, ['mode'], v) },
  { name: 'startedAt', edit: (run, v) => put(run, ['startedAt'], v) },
  { name: 'parentRunId', edit: (run, v) => put(run, ['parentRunId'], v) },
  { name: 'metadata', edit: (run, v) => put(run, ['metadata'], v) },
  { name: 'metadata.x', edit: (run, v) => put(run, ['metadata', 'x'], v) },
  { name: 'error', edit: (run, v) => put(run, ['error'], v) },
  { name: 'checkpoints[1].boundary', edit: (run, v) => put(run, ['checkpoints', 1, 'boundary'], v) },
  { name: 'checkpoints[1].checkpointId', edit: (run, v) => put(run, ['checkpoints', 1, 'checkpointId'], v) },
  { name: 'checkpoints[2].stepIndex', edit: (run, v) => put(run, ['checkpoints', 2, 'stepIndex'], v) },
  { name: 'checkpoints[2].messages[0]', edit: (run, v) => put(run, ['checkpoints', 2, 'messages', 0], v) },
  { name: 'checkpoints[3].runtimeContext', edit: (run, v) => put(run, ['checkpoints', 3, 'runtimeContext'], v) },
  { name: 'toolLedger[0].toolName', edit: (run, v) => put(run, ['toolLedger', 0, 'toolName'], v) },
  { name: 'toolLedger[0].toolCallId', edit: (run, v) => put(run, ['toolLedger', 0, 'toolCallId'], v) },
  { name: 'toolLedger[0].args', edit: (run, v) => put(run, ['toolLedger', 0, 'args'], v) },
  { name: 'toolLedger[0].argsHash', edit: (run, v) => put(run, ['toolLedger', 0, 'argsHash'], v) },
  { name: 'toolLedger[1].sideEffectLevel', edit: (run, v) => put(run, ['toolLedger', 1, 'sideEffectLevel'], v) },
  { name: 'toolLedger[1].result', edit: (run, v) => put(run, ['toolLedger', 1, 'result'], v) },
  { name: 'toolLedger', edit: (run, v) => put(run, ['toolLedger'], v) },
  { name: 'checkpoints', edit: (run, v) => put(run, ['checkpoints'], v) },
  { name: 'liveEdits', edit: (run, v) => put(run, ['liveEdits'], v) },
  { name: 'liveEdits[0].checkpointId', edit: (run, v) => put(run, ['liveEdits', 0, 'checkpointId'], v) },
  { name: 'liveEdits[0].boundary', edit: (run, v) => put(run, ['liveEdits', 0, 'boundary'], v) },
  { name: 'liveEdits[0].edits', edit: (run, v) => put(run, ['liveEdits', 0, 'edits'], v) },
  { name: 'liveEdits[0].edits.editedBy', edit: (run, v) => put(run, ['liveEdits', 0, 'edits', 'editedBy'], v) },
  {
    name: 'liveEdits[0].edits.runtimeContext',
    edit: (run, v) => put(run, ['liveEdits', 0, 'edits', 'runtimeContext'], v),
  },
  { name: 'toolLedger[0].liveEdit', edit: (run, v) => put(run, ['toolLedger', 0, 'liveEdit'], v) },
];

/** The run as JSON text with the value at `keys` replaced by the JSON text `value`. */
function put(run: Record<string, unknown>, keys: (string | number)[], value: string): string {
  const MARK = '"\u0000hostile\u0000"';
  let cur: Record<string | number, unknown> = run;
  for (const k of keys.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[keys.at(-1) as string | number] = '\u0000hostile\u0000';
  return JSON.stringify(run).replace(MARK, value);
}

describe('hostile inputs', () => {
  it('ocdb load: 240 generated runs', () => {
    const r = prng(17);
    for (let i = 0; i < 240; i++) {
      const runId = `hostile-load-${i}`;
      const target = r.pick(LOAD_TARGETS);
      const value = hostileValueText(r);
      // every eighth case is the valid run itself
      const text =
        i % 8 === 7
          ? freshRunText(runId)
          : target.edit(JSON.parse(freshRunText(runId)) as Record<string, unknown>, value);
      const label = `load #${i} ${target.name} = ${value.slice(0, 60)}`;
      const before = fingerprint();
      let loadedId: string | undefined;
      try {
        loadedId = store.loadRun(JSON.parse(text), { where: 'case.json' }).runId;
      } catch (e) {
        assertLocated(e, /^case\.json: \S/, label);
        assert.ok(['InvalidInput', 'RunAlreadyExists'].includes(e.code), `${label}: ${e.code}`);
        if (e.code === 'InvalidInput') assert.equal(typeof e.details.path, 'string', `${label}: no field path`);
        assert.equal(fingerprint(), before, `${label}: the store changed`);
        count('load', 'rejected');
        continue;
      }
      count('load', 'accepted');
      // what was accepted reads back whole, then goes (the next case starts from the same store)
      store.exportRun(loadedId);
      store.listCheckpoints(loadedId);
      store.deleteRun(loadedId);
    }
  });

  it('import: 100 generated trace files', async () => {
    const r = prng(18);
    const valid = [
      JSON.stringify({ role: 'system', content: 'You are a test agent.' }),
      JSON.stringify({ role: 'user', content: 'Where is my order?' }),
      JSON.stringify({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"id":1}' } }],
      }),
      JSON.stringify({ role: 'tool', tool_call_id: 'c1', content: '{"status":"shipped"}' }),
      JSON.stringify({ role: 'assistant', content: 'It shipped.' }),
    ];
    for (let i = 0; i < 100; i++) {
      const lines = [...valid];
      const at = r.int(lines.length + 1);
      const garbage = r.pick([
        () => hostileValueText(r),
        () => '{"role":"user", broken',
        () => '\u0000\u0001\u0002',
        () =>
          JSON.stringify({
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: r.pick(HOSTILE_STRINGS),
                type: 'function',
                function: { name: r.pick(HOSTILE_STRINGS), arguments: r.pick(['{', '[]', deepText(20)]) },
              },
            ],
          }),
        () => JSON.stringify({ role: 'tool', tool_call_id: r.pick(HOSTILE_STRINGS), content: r.pick(HOSTILE_STRINGS) }),
        () => `{"role":"user","content":${deepText(5000)}}`,
        () => JSON.stringify({ role: r.pick(HOSTILE_STRINGS), content: 'x' }),
      ])();
      lines.splice(at, 0, garbage);
      const file = path.join(dir, `trace-${i}.jsonl`);
      fs.writeFileSync(file, lines.join('\n') + '\n');
      const label = `import #${i}: ${garbage.slice(0, 80)}`;
      const before = fingerprint();
      let summary;
      try {
        summary = await importPath(store, file, { format: 'openai-chat' });
      } catch (e) {
        assertLocated(e, new RegExp(`trace-${i}\\.jsonl`), label);
        assert.equal(fingerprint(), before, `${label}: the store changed`);
        count('import', 'rejected');
        continue;
      }
      const result = summary.files[0];
      assert.ok(result, label);
      if (result.outcome === 'failed') {
        // the summary names the file; the reason names the line or the field
        assert.equal(path.basename(result.file), `trace-${i}.jsonl`, label);
        assert.match(
          result.reason ?? '',
          /line \d+|trace-\d+\.jsonl|^[\w.[\]]+: |: [\w.[\]]+: /,
          `${label}: ${result.reason}`,
        );
        assert.equal(fingerprint(), before, `${label}: the store changed`);
        count('import', 'rejected');
      } else {
        count('import', 'accepted');
        for (const runId of summary.runIds) store.deleteRun(runId);
      }
    }
  });

  describe('over HTTP', () => {
    let server: RunningServer;
    before(async () => {
      server = await startServer({ store, writeServerFile: false, bodyLimitBytes: 1024 * 1024 });
    });
    after(() => server.close());

    it('HTTP: 160 generated requests', async () => {
      const r = prng(19);
      const ids = [
        '%E0%A4%A',
        '%ZZ',
        '%',
        '%C3',
        '%ED%A0%80',
        'demo-support-refund',
        '..%2F..',
        'nope',
        '%00',
        'a%0Ab',
      ];
      const routes = [
        () => ({ method: 'GET', path: `/runs/${r.pick(ids)}` }),
        () => ({ method: 'GET', path: `/runs/${r.pick(ids)}/checkpoints?offset=${r.pick(['-1', 'x', '1e9', ''])}` }),
        () => ({ method: 'GET', path: `/runs/${r.pick(ids)}/tool-calls` }),
        () => ({ method: 'GET', path: `/checkpoints/${r.pick(ids)}` }),
        () => ({ method: 'GET', path: `/forks/${r.pick(ids)}` }),
        () => ({
          method: 'GET',
          path: `/runs?status=${r.pick(['evil', 'running', '%ZZ'])}&limit=${r.pick(['-5', 'x', '10'])}`,
        }),
        () => ({ method: 'POST', path: '/runs' }),
        () => ({ method: 'POST', path: `/runs/${r.pick(ids)}/checkpoints` }),
        () => ({ method: 'POST', path: `/runs/${r.pick(ids)}/tool-calls` }),
        () => ({ method: 'POST', path: `/runs/${r.pick(ids)}/end` }),
        () => ({ method: 'POST', path: '/fork/plan' }),
        () => ({ method: 'POST', path: '/fork' }),
        () => ({ method: 'POST', path: `/confirmations/${r.pick(ids)}` }),
        () => ({
          method: 'GET',
          path: `/runs/${r.pick(ids)}/stops/${r.pick(ids)}?waitMs=${r.pick(['-1', 'x', '1e9', '', '0', '%ZZ'])}`,
        }),
        () => ({
          method: 'POST',
          path: `/runs/${r.pick(ids)}/checkpoints?waitMs=${r.pick(['-1', 'x', '60001', '0.5', '%ZZ', '0'])}`,
        }),
        () => ({ method: 'GET', path: `/runs/${r.pick(ids)}/artifacts?checkpointId=${r.pick(ids)}` }),
        () => ({
          method: 'GET',
          path: `/runs/${r.pick(ids)}/artifacts/${r.pick([...ids, 'case-report.md'])}?version=${r.pick(['0', 'x', '1', '-1'])}`,
        }),
        () => ({ method: 'POST', path: `/runs/${r.pick(ids)}/artifacts` }),
      ];
      const bodies = [
        () => hostileValueText(r),
        () => `{"agentId":${JSON.stringify(r.pick(HOSTILE_STRINGS))},"runtimeContext":{}}`,
        () => `{"agentId":"a","runtimeContext":${hostileValueText(r)}}`,
        () =>
          `{"phase":"begin","toolName":${JSON.stringify(r.pick(HOSTILE_STRINGS))},"args":${hostileValueText(r)},"sideEffectLevel":"none"}`,
        () => `{"boundary":${JSON.stringify(r.pick(HOSTILE_STRINGS))}}`,
        () =>
          `{"sourceRunId":${JSON.stringify(r.pick(HOSTILE_STRINGS))},"sourceCheckpointId":"x","toolPolicyMap":{"*":"re_execute"}}`,
        () =>
          `{"type":"text/plain","name":${JSON.stringify(r.pick(HOSTILE_STRINGS))},"content":${JSON.stringify(r.pick(HOSTILE_STRINGS))},"encoding":${JSON.stringify(r.pick(['base64', 'utf8', 'hex']))}}`,
        () => 'not json at all',
        () => '{"a":',
        () => '',
      ];
      for (let i = 0; i < 160; i++) {
        const route = r.pick(routes)();
        const body = route.method === 'POST' ? r.pick(bodies)() : undefined;
        const host =
          i % 10 === 9 ? r.pick(['[::1]evil.com', `localhost:${server.port}@evil.com`, 'evil.example']) : undefined;
        const label = `HTTP #${i} ${route.method} ${route.path} ${body?.slice(0, 60) ?? ''} ${host ?? ''}`;
        const before = fingerprint();
        const res = await call(server.url, {
          method: route.method,
          path: route.path,
          token: server.token,
          ...(body !== undefined && body !== '' ? { raw: body } : {}),
          ...(host ? { headers: { host } } : {}),
        });
        assert.ok(res.status < 500, `${label}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        if (res.status >= 400) {
          const error = (res.body as { error?: { code?: unknown; message?: unknown } }).error;
          assert.equal(typeof error?.code, 'string', label);
          assert.equal(typeof error?.message, 'string', label);
          assert.ok((error?.message as string).length > 10, `${label}: ${String(error?.message)}`);
          assert.equal(fingerprint(), before, `${label}: the store changed`);
          count('HTTP', 'rejected');
        } else count('HTTP', 'accepted');
      }
    });
  });

  it('live debugging: 120 generated attachments and stop answers', () => {
    const r = prng(23);
    const live = store.exportRun('demo-support-refund');
    const runId = 'hostile-live-run';
    const run = JSON.parse(freshRunText(runId)) as DebugRun;
    run.status = 'running';
    delete run.endedAt;
    run.checkpoints = run.checkpoints.slice(0, 4);
    delete run.liveEdits;
    run.toolLedger = [];
    for (const cp of run.checkpoints) cp.toolLedgerSnapshot = [];
    store.loadRun(run);
    const cp = run.checkpoints[3];
    assert.ok(cp && live);
    store.attachLive({ attachId: 'hostile-att', runId, client: 'hostile', at: Date.now(), leaseMs: 60_000 });
    const answers = [
      () => `{"state":${hostileValueText(r)}}`,
      () => `{"state":"stopped","reason":${hostileValueText(r)}}`,
      () => `{"state":"resumed","edits":${hostileValueText(r)}}`,
      () => `{"state":"resumed","edits":{"editedBy":${hostileValueText(r)}}}`,
      () => `{"state":"resumed","edits":{"editedBy":"x","runtimeContext":${hostileValueText(r)}}}`,
      () => `{"state":"resumed","edits":{"editedBy":"x","toolArgs":${hostileValueText(r)}}}`,
      () => `{"state":"resumed","edits":{"editedBy":"x","messages":${hostileValueText(r)}}}`,
      () => `{"state":"resumed","edits":{"editedBy":"x","toolOutcome":{"outcome":${hostileValueText(r)}}}}`,
    ];
    for (let i = 0; i < 120; i++) {
      const stopId = `hostile-stop-${i}`;
      const before = fingerprint();
      if (i % 4 === 3) {
        // an attachment with hostile ids and names
        const label = `attach #${i}`;
        const field = r.pick(['attachId', 'runId', 'agentId', 'client'] as const);
        const input = { attachId: `hostile-att-${i}`, runId, client: 'x', at: Date.now(), leaseMs: 5000 };
        const value = JSON.parse(hostileValueText(r)) as unknown;
        try {
          store.attachLive({ ...input, [field]: value });
          count('live', 'accepted');
        } catch (e) {
          assertLocated(e, /attachId|runId|agentId|client|leaseMs|No run|has already ended/, `${label} ${field}`);
          count('live', 'rejected');
        }
        continue;
      }
      store.askLiveStop({
        stopId,
        attachId: 'hostile-att',
        runId,
        agentId: run.agentId,
        checkpointId: cp.checkpointId,
        boundary: cp.boundary,
        askedAt: Date.now(),
      });
      const text = r.pick(answers)();
      const label = `answer #${i} ${text.slice(0, 80)}`;
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        count('live', 'rejected');
        continue;
      }
      const asked = fingerprint();
      try {
        // the debugger hands over what a user typed (setVariable): parsed, never trusted
        store.answerLiveStop(stopId, answer as Parameters<SqlRunStore['answerLiveStop']>[1], Date.now());
        count('live', 'accepted');
      } catch (e) {
        assertLocated(e, /answer/, label);
        assert.equal(fingerprint(), asked, `${label}: the store changed`);
        assert.equal(store.getLiveStop(stopId).state, 'asking', `${label}: the stop is still open`);
        count('live', 'rejected');
      }
      void before;
    }
    store.detachLive('hostile-att', Date.now());
    store.deleteRun(runId);
  });

  it('DAP launch arguments and launch configurations: 80 generated', () => {
    const r = prng(20);
    const keys = ['runId', 'store', 'stopOnEntry', 'checkpointId', 'program', 'transcriptDetail'];
    for (let i = 0; i < 80; i++) {
      const config: Record<string, unknown> = {
        type: 'agent-replay',
        request: 'launch',
        name: r.pick(HOSTILE_STRINGS),
      };
      config.runId = r.pick(['demo-support-refund', ...HOSTILE_STRINGS]);
      for (let k = 0; k < 1 + r.int(3); k++) config[r.pick(keys)] = JSON.parse(hostileValueText(r)) as unknown;
      const label = `launch #${i} ${show(config)}`;
      try {
        parseLaunchArgs(config, {}, dir);
        count('launch', 'accepted');
      } catch (e) {
        assertLocated(e, /^launch configuration: \S/, label);
        count('launch', 'rejected');
      }
    }
  });

  it('DAP attach arguments: 60 generated', () => {
    const r = prng(22);
    const keys = ['runId', 'agentId', 'store', 'stopOnEntry', 'stopBeforeModelCall', 'program', 'transcriptDetail'];
    for (let i = 0; i < 60; i++) {
      const config: Record<string, unknown> = {
        type: 'agent-replay',
        request: 'attach',
        name: r.pick(HOSTILE_STRINGS),
      };
      if (r.int(4) > 0) config[r.pick(['runId', 'agentId'])] = r.pick(['support-bot', ...HOSTILE_STRINGS]);
      for (let k = 0; k < 1 + r.int(3); k++) config[r.pick(keys)] = JSON.parse(hostileValueText(r)) as unknown;
      const label = `attach #${i} ${show(config)}`;
      try {
        const args = parseAttachArgs(config, {}, dir);
        assert.ok(
          args.runId !== undefined || args.agentId !== undefined,
          `${label}: accepted without runId or agentId`,
        );
        count('attach', 'accepted');
      } catch (e) {
        assertLocated(e, /^attach configuration: \S/, label);
        count('attach', 'rejected');
      }
    }
  });

  it('webview messages: 80 generated', () => {
    const r = prng(21);
    const forks = new ForkService(store);
    const first = store.listCheckpoints('demo-support-refund')[0]!.checkpointId;
    for (let i = 0; i < 80; i++) {
      const type = r.pick(['ready', 'plan', 'fork', 'evil', '']);
      const config: Record<string, unknown> = {
        sourceRunId: r.pick(['demo-support-refund', ...HOSTILE_STRINGS]),
        sourceCheckpointId: r.pick([first, ...HOSTILE_STRINGS]),
      };
      const extra = r.pick([
        'contextPatch',
        'toolPolicyMap',
        'toolMockResults',
        'modelOverride',
        'promptVersionOverride',
      ]);
      config[extra] = JSON.parse(hostileValueText(r)) as unknown;
      const message = {
        type,
        requestId: r.pick([1, -1, 1.5, 'x']),
        config,
        acknowledgedTools: r.pick([['*'], [], ['a\nb'], 'x']),
      };
      const label = `webview #${i} ${show(message, 120)}`;
      const parsed = parseMessage(PageMessageSchema, message);
      if (!parsed.ok) {
        assert.match(parsed.error, /^[\w.[\]]+: \S/, `${label}: ${parsed.error}`);
        count('webview', 'rejected');
        continue;
      }
      const before = fingerprint();
      try {
        if (parsed.value.type === 'plan') forks.plan(parsed.value.config);
        if (parsed.value.type === 'fork') {
          // a fork that passes every check is created (not run): remove it to keep the store as it was
          const created = forks.create(parsed.value.config, parsed.value.acknowledgedTools);
          store.deleteRun(created.runId);
        }
        count('webview', 'accepted');
      } catch (e) {
        assertLocated(e, /\S: \S|not in|No |refus|hazard/i, label);
        assert.ok(isOcdbError(e), label);
        assert.equal(fingerprint(), before, `${label}: the store changed`);
        count('webview', 'rejected');
      }
    }
  });

  it('counts at least 500 cases, every one accepted or refused with a located error', () => {
    const total = [...tally.values()].reduce((n, c) => n + c.cases, 0);
    assert.ok(total >= 500, `${total} cases`);
  });
});
