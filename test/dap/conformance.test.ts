/**
 * The adapter by the letter of the DAP specification, through a real DAP client (DebugClient) against `ocdb dap`:
 * every request it answers with valid, missing and invalid arguments, stale ids, requests it does not implement,
 * the order of events (initialized, each stopped reason, terminated), disconnect and terminate, two launches on one
 * connection, a run growing while it is replayed, a long continue cancelled or paused, and a message that is not
 * JSON. Each `it` is one check of the sweep.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DAP_ERROR_IDS } from '../../src/debug/dapErrors';
import { CAPABILITIES } from '../../src/debug/capabilities';
import { openRecorder, type Recorder } from '../../src/recorder';
import type { RunRecorder } from '../../src/recorder/runRecorder';
import type { CheckpointSummary } from '../../src/store';
import { testContext } from '../helpers/context';
import { checkpointsOf, demoStore, startClient, type OcdbDebugClient } from './support/dapClient';
import { startLiveRun } from './support/liveRecording';
import { openRunStore } from '../../src/store';

const RUN = 'demo-support-refund';
const INIT = { adapterID: 'agent-replay', pathFormat: 'path', linesStartAt1: true, columnsStartAt1: true };
const KNOWN_IDS = new Set(Object.values(DAP_ERROR_IDS));

interface ErrorBody {
  error?: { id: number; format: string; showUser?: boolean };
}

/** Asserts a failed response: a known error id, a message matching `message`, no JS TypeError text. */
function assertError(r: DebugProtocol.Response, message: RegExp, id = DAP_ERROR_IDS.InvalidInput): ErrorBody {
  assert.equal(r.success, false, `${r.command} should fail: ${JSON.stringify(r.body)}`);
  const body = r.body as ErrorBody;
  assert.ok(body.error, `${r.command}: an error body`);
  assert.ok(KNOWN_IDS.has(body.error.id), `${r.command}: error id ${body.error.id} is in DAP_ERROR_IDS`);
  assert.equal(body.error.id, id, `${r.command}: error id`);
  assert.match(r.message ?? '', message);
  assert.doesNotMatch(r.message ?? '', /Cannot read properties|undefined \(reading|is not a function|TypeError/);
  return body;
}

describe('DAP conformance', () => {
  let store: string;
  let cps: CheckpointSummary[];
  let dc: OcdbDebugClient;
  before(() => {
    store = demoStore();
    cps = checkpointsOf(store, RUN);
  });

  describe('initialize', () => {
    beforeEach(async () => (dc = await startClient()));
    afterEach(async () => dc.stop());

    it('without pathFormat succeeds (path is the default)', async () => {
      const r = await dc.raw('initialize', { adapterID: 'agent-replay' });
      assert.equal(r.success, true, r.message);
    });
    it('answers every capability the adapter implements, exception filter options included', async () => {
      const r = await dc.raw('initialize', INIT);
      assert.deepEqual(r.body, JSON.parse(JSON.stringify(CAPABILITIES)));
      const caps = r.body as DebugProtocol.Capabilities;
      assert.equal(caps.supportsExceptionFilterOptions, true);
      assert.deepEqual(caps.completionTriggerCharacters, ['.', '[', '"']);
      assert.ok(caps.exceptionBreakpointFilters?.every((f) => f.supportsCondition));
    });
    it('pathFormat uri is refused naming the argument', async () => {
      assertError(await dc.raw('initialize', { adapterID: 'x', pathFormat: 'uri' }), /argument pathFormat is invalid/);
    });
    it('without adapterID is refused naming it', async () => {
      assertError(await dc.raw('initialize', { pathFormat: 'path' }), /initialize: argument adapterID is required/);
    });
    it('a launch of a run that is not there is RunNotFound (id 1001), shown to the user', async () => {
      await dc.raw('initialize', INIT);
      const body = assertError(
        await dc.raw('launch', { runId: 'no-such-run', store }),
        /no-such-run/,
        DAP_ERROR_IDS.RunNotFound,
      );
      assert.equal(body.error?.showUser, true);
    });
    it('a launch without runId names runId', async () => {
      await dc.raw('initialize', INIT);
      assertError(await dc.raw('launch', { store }), /runId/);
    });
    it('a request before launch is a clear error', async () => {
      await dc.raw('initialize', INIT);
      assertError(await dc.raw('scopes', { frameId: 1 }), /No run is loaded yet/);
    });
  });

  describe('attach (a running agent; test/dap/liveAttach.test.ts runs real agents)', () => {
    let recorder: Recorder;
    let run: RunRecorder;
    before(async () => {
      // recorded before the attach: an agent in this process would block (synchronously) at a stop
      ({ recorder, run } = await startLiveRun(store, { runId: 'attach-run', agentId: 'attach-agent' }));
    });
    after(() => {
      run.end();
      recorder.close();
    });
    beforeEach(async () => (dc = await startClient()));
    afterEach(async () => dc.stop());
    const attachment = () => {
      const s = openRunStore(store, { create: false });
      try {
        return s.liveAttachmentFor('attach-run', 'attach-agent', Date.now());
      } finally {
        s.close();
      }
    };

    it('initialize, attach, initialized, configurationDone; the run is thread 1; no stop until its agent asks', async () => {
      assert.equal((await dc.raw('initialize', { ...INIT, clientName: 'conformance' })).success, true);
      const initialized = dc.waitForEvent('initialized');
      const r = await dc.raw('attach', { runId: 'attach-run', store });
      assert.equal(r.success, true, r.message);
      await initialized;
      assert.equal((await dc.raw('configurationDone')).success, true);
      const threads = (await dc.threadsRequest()).body.threads;
      assert.deepEqual(threads, [{ id: 1, name: 'run attach-run (attach-agent)' }]);
      assert.deepEqual(attachment()?.client, 'conformance', 'the store holds the attachment, named by the client');
      const frames = await dc.stackTraceRequest({ threadId: 1 });
      assert.deepEqual(frames.body, { stackFrames: [], totalFrames: 0 }, 'a running agent has no frames');
      assertError(await dc.raw('next', { threadId: 1 }), /attach-run \(thread 1\) is running: send pause first/);
      assertError(await dc.raw('stepBack', { threadId: 1 }), /is running: send pause first/);
      assertError(
        await dc.raw('stackTrace', { threadId: 7 }),
        /threadId 7 is not a thread of this session: its threads are 1/,
      );
      const fb = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'not_called_yet' }] });
      assert.deepEqual(
        fb.body.breakpoints.map((b) => b.verified),
        [true],
        'a live run may still call any tool',
      );
      const other = path.join(path.dirname(store), 'transcripts', `${RUN}.transcript`);
      const bps = await dc.setBreakpointsRequest({ source: { path: other }, breakpoints: [{ line: 3 }] });
      assert.equal(bps.body.breakpoints[0]?.verified, false);
      assert.match(bps.body.breakpoints[0]?.message ?? '', /Run demo-support-refund is not attached to this session/);
      const names = dc.events.map((e) => e.event).filter((n) => n !== 'output' && n !== 'loadedSource');
      assert.deepEqual(names, ['initialized', 'thread'], 'the thread started; nothing stopped');
    });

    it('disconnect detaches at once; terminate lets the agent go too (it is never killed)', async () => {
      await dc.raw('initialize', INIT);
      await dc.raw('attach', { runId: 'attach-run', store });
      assert.ok(attachment(), 'attached');
      assert.equal((await dc.raw('terminate')).success, true);
      assert.equal(attachment(), undefined, 'terminate detached');
      const other = await startClient();
      try {
        await other.raw('initialize', INIT);
        await other.raw('attach', { agentId: 'attach-agent', store });
        assert.ok(attachment(), 'attached by agent id');
        assert.deepEqual((await other.threadsRequest()).body.threads, [], 'no run of it has asked yet');
        assert.equal((await other.raw('disconnect', {})).success, true);
        assert.equal(attachment(), undefined, 'disconnect detached');
      } finally {
        await other.stop();
      }
    });

    it('attach arguments are checked: neither runId nor agentId, an unknown run, a store that is not there', async () => {
      await dc.raw('initialize', INIT);
      assertError(await dc.raw('attach', { store }), /attach needs runId \(a running run\) or agentId/);
      assertError(
        await dc.raw('attach', { store, runId: RUN }),
        /run demo-support-refund is not running \(it ended completed\)/,
        DAP_ERROR_IDS.RunNotRunning,
      );
      assertError(await dc.raw('attach', { store, agentId: '' }), /agentId must not be empty/);
      assertError(await dc.raw('attach', { store, runId: 'nope' }), /nope/, DAP_ERROR_IDS.RunNotFound);
      // a running run needs its store (the next runs of an agent may make theirs: firstAttach.test.ts)
      assertError(
        await dc.raw('attach', { store: `${store}.missing`, runId: 'r-1' }),
        /missing/,
        DAP_ERROR_IDS.StoreUnavailable,
      );
    });
  });

  describe('requests not implemented answer an error, not an empty success', () => {
    before(async () => {
      dc = await startClient();
      await dc.launchAndStop({ runId: RUN, store });
    });
    after(async () => dc.stop());
    const refused: [string, unknown, RegExp][] = [
      ['restart', {}, /restart is not supported/],
      ['terminateThreads', { threadIds: [1] }, /terminateThreads is not supported/],
      ['readMemory', { memoryReference: '0', count: 1 }, /readMemory is not supported/],
      ['writeMemory', { memoryReference: '0', data: '' }, /writeMemory is not supported/],
      ['disassemble', { memoryReference: '0', instructionCount: 1 }, /disassemble is not supported/],
      ['setInstructionBreakpoints', { breakpoints: [] }, /setInstructionBreakpoints is not supported/],
      ['modules', {}, /modules is not supported/],
      ['noSuchRequest', {}, /Unknown request noSuchRequest/],
    ];
    for (const [command, args, message] of refused) {
      it(command, async () => {
        assertError(await dc.raw(command, args), message);
      });
    }
  });

  describe('arguments', () => {
    let transcript: string;
    before(async () => {
      dc = await startClient();
      await dc.launchAndStop({ runId: RUN, store });
      transcript = (await dc.topFrame()).source?.path ?? '';
    });
    after(async () => dc.stop());

    const missing: [string, Record<string, unknown>, string][] = [
      ['setBreakpoints', {}, 'source'],
      ['breakpointLocations', { source: {} }, 'line'],
      ['setFunctionBreakpoints', {}, 'breakpoints'],
      ['setExceptionBreakpoints', {}, 'filters'],
      ['setExceptionBreakpoints', { filters: [], filterOptions: [{}] }, 'filterOptions[0].filterId'],
      ['dataBreakpointInfo', {}, 'name'],
      ['setDataBreakpoints', {}, 'breakpoints'],
      ['exceptionInfo', {}, 'threadId'],
      ['continue', {}, 'threadId'],
      ['next', {}, 'threadId'],
      ['stepIn', {}, 'threadId'],
      ['stepOut', {}, 'threadId'],
      ['stepBack', {}, 'threadId'],
      ['reverseContinue', {}, 'threadId'],
      ['pause', {}, 'threadId'],
      ['goto', { threadId: 1 }, 'targetId'],
      ['gotoTargets', { line: 1 }, 'source'],
      ['restartFrame', {}, 'frameId'],
      ['stackTrace', {}, 'threadId'],
      ['scopes', {}, 'frameId'],
      ['variables', {}, 'variablesReference'],
      ['setVariable', { variablesReference: 1, value: '1' }, 'name'],
      ['setExpression', { value: '1' }, 'expression'],
      ['source', {}, 'sourceReference'],
      ['evaluate', {}, 'expression'],
      ['completions', { column: 1 }, 'text'],
      ['stepInTargets', {}, 'frameId'],
    ];
    for (const [command, args, name] of missing) {
      it(`${command} without ${name}`, async () => {
        const esc = name.replace(/[[\].]/g, '\\$&');
        assertError(await dc.raw(command, args), new RegExp(`^${command}: argument ${esc} is required\\.$`));
      });
    }

    const invalid: [string, Record<string, unknown>, string][] = [
      ['stackTrace', { threadId: 'one' }, 'threadId'],
      ['stackTrace', { threadId: 1, levels: -1 }, 'levels'],
      ['variables', { variablesReference: 1.5 }, 'variablesReference'],
      ['evaluate', { expression: 5 }, 'expression'],
      ['setBreakpoints', { source: { path: 'x' }, breakpoints: [{ line: 'x' }] }, 'breakpoints[0].line'],
      ['setFunctionBreakpoints', { breakpoints: [{ name: 3 }] }, 'breakpoints[0].name'],
      ['goto', { threadId: 1, targetId: 'nine' }, 'targetId'],
      ['completions', { text: 'x', column: 'end' }, 'column'],
    ];
    for (const [command, args, name] of invalid) {
      it(`${command} with an invalid ${name}`, async () => {
        const esc = name.replace(/[[\].]/g, '\\$&');
        assertError(await dc.raw(command, args), new RegExp(`^${command}: argument ${esc} is invalid`));
      });
    }

    it('arguments that are not an object', async () => {
      assertError(await dc.raw('scopes', [1]), /scopes: the arguments must be an object/);
    });
    it('goto to a target that is not there names the target id it was sent', async () => {
      const r = await dc.raw('goto', { threadId: 1, targetId: 9999 });
      assertError(
        r,
        /goto: targetId 9999 is not a goto target of run demo-support-refund \(targets are 1 to \d+/,
        1004,
      );
    });
    it('setBreakpoints in a file that is not a transcript', async () => {
      assertError(
        await dc.raw('setBreakpoints', { source: { path: '/tmp/x.py' }, breakpoints: [{ line: 1 }] }),
        /is not a run transcript/,
      );
    });
    it('breakpointLocations with a line answers the checkpoint lines', async () => {
      const r = await dc.raw('breakpointLocations', { source: { path: transcript }, line: 1, endLine: 10 });
      assert.equal(r.success, true);
      assert.ok((r.body as DebugProtocol.BreakpointLocationsResponse['body']).breakpoints.length > 0);
    });
    it('an unknown exception filter is an error naming it', async () => {
      assertError(await dc.raw('setExceptionBreakpoints', { filters: ['nope'] }), /Unknown exception filter nope/);
    });
    it('threads answers one thread', async () => {
      const r = await dc.raw('threads');
      assert.deepEqual((r.body as DebugProtocol.ThreadsResponse['body']).threads, [{ id: 1, name: `run ${RUN}` }]);
    });
  });

  describe('stale and unknown ids', () => {
    let oldFrame: number;
    let oldRef: number;
    before(async () => {
      dc = await startClient();
      await dc.launchAndStop({ runId: RUN, store });
      oldFrame = (await dc.topFrame()).id;
      oldRef = (await dc.scopesOfTop())[0]?.variablesReference ?? 0;
      await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
    });
    after(async () => dc.stop());

    it('scopes with a frameId of an earlier stop', async () => {
      assertError(await dc.raw('scopes', { frameId: oldFrame }), /frameId \d+ is not a frame of this stop/);
    });
    it('evaluate with a frameId of an earlier stop', async () => {
      assertError(await dc.raw('evaluate', { expression: 'boundary', frameId: oldFrame }), /not a frame of this stop/);
    });
    it('restartFrame with a frameId of an earlier stop', async () => {
      assertError(await dc.raw('restartFrame', { frameId: oldFrame }), /not a frame of this stop/);
    });
    it('variables with a reference of an earlier stop', async () => {
      assertError(
        await dc.raw('variables', { variablesReference: oldRef }),
        /variablesReference \d+ is not a variable of this stop/,
      );
    });
    it('variables with a reference never handed out', async () => {
      assertError(await dc.raw('variables', { variablesReference: 987654 }), /not a variable of this stop/);
    });
    it('setVariable with an unknown reference', async () => {
      assertError(
        await dc.raw('setVariable', { variablesReference: 987654, name: 'x', value: '1' }),
        /not a variable of this stop/,
      );
    });
    it('stackTrace of a thread that does not exist', async () => {
      assertError(await dc.raw('stackTrace', { threadId: 2 }), /threadId 2 is not a thread of this session/);
    });
    it('next on a thread that does not exist', async () => {
      assertError(await dc.raw('next', { threadId: 7 }), /threadId 7 is not a thread/);
    });
    it('exceptionInfo of a thread that does not exist', async () => {
      assertError(await dc.raw('exceptionInfo', { threadId: 3 }), /threadId 3 is not a thread/);
    });
    it('the current frame still answers', async () => {
      const scopes = await dc.scopesOfTop();
      assert.equal(scopes.length, 5);
    });
  });

  describe('silent and shown errors', () => {
    before(async () => {
      dc = await startClient();
      await dc.launchAndStop({ runId: RUN, store });
    });
    after(async () => dc.stop());
    for (const context of ['hover', 'watch', 'repl', 'clipboard', 'variables', undefined]) {
      it(`a failed evaluate in context ${context ?? '(none)'} is silent`, async () => {
        const frameId = (await dc.topFrame()).id;
        const expression = context === 'hover' ? 'before_tool_call' : 'runtimeContext.[[[';
        const body = assertError(await dc.raw('evaluate', { expression, frameId, context }), /./);
        assert.equal(body.error?.showUser, false);
      });
    }
    it('a failed completions, variables and stackTrace are silent', async () => {
      for (const [command, args] of [
        ['completions', { text: 'x', column: 1, frameId: 999999 }],
        ['variables', { variablesReference: 999999 }],
        ['stackTrace', { threadId: 9 }],
      ] as const) {
        assert.equal((assertError(await dc.raw(command, args), /./).error?.showUser ?? false) as boolean, false);
      }
    });
    it('a failed edit the user typed is shown', async () => {
      const scopes = await dc.scopesOfTop();
      const ref = scopes.find((s) => s.name === 'Messages')?.variablesReference ?? 0;
      const body = assertError(
        await dc.raw('setVariable', { variablesReference: ref, name: '0', value: '1' }),
        /not in the Runtime Context/,
      );
      assert.equal(body.error?.showUser, true);
    });
  });

  describe('event order and stopped reasons', () => {
    let transcript: string;
    beforeEach(async () => (dc = await startClient()));
    afterEach(async () => dc.stop());

    const reasons = () =>
      dc.events.filter((e) => e.event === 'stopped').map((e) => (e as DebugProtocol.StoppedEvent).body.reason);

    it('initialize, launch, initialized, configurationDone, stopped(entry)', async () => {
      const init = await dc.raw('initialize', INIT);
      assert.equal(init.success, true);
      assert.equal(dc.events.length, 0, 'no event before launch');
      const launched = dc.waitForEvent('initialized');
      const r = await dc.raw('launch', { runId: RUN, store });
      assert.equal(r.success, true);
      await launched;
      assert.ok(!dc.events.some((e) => e.event === 'stopped'), 'no stop before configurationDone');
      const stopped = dc.waitForEvent('stopped');
      await dc.raw('configurationDone');
      assert.equal(((await stopped) as DebugProtocol.StoppedEvent).body.reason, 'entry');
      const names = dc.events.map((e) => e.event).filter((n) => n !== 'output' && n !== 'loadedSource');
      assert.deepEqual(names, ['initialized', 'stopped']);
    });

    it('each stop reason: step, breakpoint, function breakpoint, data breakpoint, exception, goto, restart, pause', async () => {
      await dc.launchAndStop({ runId: RUN, store });
      transcript = (await dc.topFrame()).source?.path ?? '';
      await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
      const lines = fs.readFileSync(transcript, 'utf8').split('\n');
      const at = lines.findIndex((l) => /^\[\d+\] before_tool_call · send_email/.test(l)) + 1;
      await dc.setBreakpointsRequest({ source: { path: transcript }, breakpoints: [{ line: at }] });
      await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
      await dc.setBreakpointsRequest({ source: { path: transcript }, breakpoints: [] });
      await dc.stepAndStop(() => dc.raw('goto', { threadId: 1, targetId: 1 }));
      await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'lookup_order' }] });
      await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
      await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
      await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: 'runtimeContext.task.stepStates.eligibility' }] });
      await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
      await dc.setDataBreakpointsRequest({ breakpoints: [] });
      await dc.stepAndStop(() => dc.raw('goto', { threadId: 1, targetId: 1 }));
      await dc.setExceptionBreakpointsRequest({ filters: ['toolError'] });
      await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
      const bottom = (await dc.frames(0)).stackFrames.at(-1);
      await dc.stepAndStop(() => dc.raw('restartFrame', { frameId: bottom?.id }));
      await dc.stepAndStop(() => dc.raw('pause', { threadId: 1 }));
      assert.deepEqual(reasons(), [
        'entry',
        'step',
        'breakpoint',
        'goto',
        'function breakpoint',
        'data breakpoint',
        'goto',
        'exception',
        'restart',
        'pause',
      ]);
    });

    it('terminate answers, then terminated; disconnect ends the adapter', async () => {
      await dc.launchAndStop({ runId: RUN, store });
      const terminated = dc.waitForEvent('terminated');
      const r = await dc.raw('terminate');
      assert.equal(r.success, true);
      await terminated;
      const d = await dc.raw('disconnect', { terminateDebuggee: true });
      assert.equal(d.success, true);
      assert.equal(await dc.exited, 0);
    });

    it('a stopped event every time the client asks for a move, even at the end of the run', async () => {
      await dc.launchAndStop({ runId: RUN, store });
      await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
      const again = await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
      assert.match(again.body.description ?? '', /agent_end/);
      const start = await dc.stepAndStop(() => dc.reverseContinueRequest({ threadId: 1 }));
      assert.equal(start.body.description, 'Reached the first checkpoint');
    });

    it('two launches on one connection: the second replaces the run and stops again', async () => {
      await dc.launchAndStop({ runId: RUN, store });
      const runs = checkpointsOf(store, 'demo-research-rag');
      const initialized = dc.waitForEvent('initialized');
      const r = await dc.raw('launch', { runId: 'demo-research-rag', store });
      assert.equal(r.success, true, r.message);
      await initialized;
      const stopped = dc.waitForEvent('stopped');
      await dc.raw('configurationDone');
      assert.equal(((await stopped) as DebugProtocol.StoppedEvent).body.reason, 'entry');
      const t = await dc.frames(0);
      assert.equal(t.totalFrames, 1);
      assert.match(t.stackFrames[0]?.source?.path ?? '', /demo-research-rag\.transcript$/);
      assert.ok(runs.length > 0);
      const end = await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
      assert.equal((await dc.frames(0)).totalFrames, runs.length, end.body.description);
    });
  });

  describe('lines and columns as the client counts them', () => {
    afterEach(async () => dc.stop());
    it('a client counting from 0 gets column 0 and lines one lower', async () => {
      dc = await startClient();
      await dc.raw('initialize', { adapterID: 'x', linesStartAt1: false, columnsStartAt1: false });
      await Promise.all([dc.raw('launch', { runId: RUN, store }), dc.waitForEvent('initialized')]);
      await Promise.all([dc.raw('configurationDone'), dc.waitForEvent('stopped')]);
      const top = await dc.topFrame();
      assert.equal(top.column, 0);
      const text = fs.readFileSync(top.source?.path ?? '', 'utf8').split('\n');
      assert.match(text[top.line] ?? '', /^\[0\] before_prompt_build/);
    });
    it('a client counting from 1 gets column 1', async () => {
      dc = await startClient();
      await dc.launchAndStop({ runId: RUN, store });
      assert.equal((await dc.topFrame()).column, 1);
    });
  });

  describe('completions, setExpression, stepInTargets, loadedSources, filter conditions', () => {
    let transcript: string;
    beforeEach(async () => {
      dc = await startClient();
      await dc.launchAndStop({ runId: RUN, store });
      transcript = (await dc.topFrame()).source?.path ?? '';
    });
    afterEach(async () => dc.stop());
    const complete = async (text: string, column = text.length + 1) => {
      const frameId = (await dc.topFrame()).id;
      const r = await dc.raw('completions', { text, column, frameId });
      assert.equal(r.success, true, r.message);
      return (r.body as DebugProtocol.CompletionsResponse['body']).targets;
    };

    it('completions: the state fields and functions at the top level', async () => {
      const labels = (await complete('run')).map((t) => t.label);
      assert.deepEqual(labels, ['runId', 'runtimeContext']);
      assert.ok((await complete('con')).some((t) => t.label === 'contains()' && t.type === 'function'));
    });
    it('completions: the keys after a dot, replacing the partial word', async () => {
      const targets = await complete('runtimeContext.us');
      assert.deepEqual(
        targets.map((t) => [t.label, t.start, t.length]),
        [['user', 16, 2]],
      );
      assert.ok((await complete('runtimeContext.user.')).some((t) => t.label === 'roleId'));
    });
    it('completions: tool names inside tool("', async () => {
      const labels = (await complete('tool("look')).map((t) => t.label);
      assert.deepEqual(labels, ['lookup_customer', 'lookup_order']);
    });
    it('completions: indexes after [', async () => {
      const labels = (await complete('messages[')).map((t) => t.label);
      assert.ok(labels.includes('0]') && labels.includes('-1]'), labels.join(' '));
    });
    it('setExpression on a runtime-context path stages the edit as setVariable does', async () => {
      const frameId = (await dc.topFrame()).id;
      const r = await dc.raw('setExpression', {
        expression: 'runtimeContext.user.roleId',
        value: '"auditor"',
        frameId,
      });
      assert.equal(r.success, true, r.message);
      assert.equal((r.body as { value: string }).value, '"auditor"');
      const staged = await dc.customRequest('stagedContextPatch', {});
      assert.deepEqual((staged.body as { contextPatch: unknown }).contextPatch, { user: { roleId: 'auditor' } });
      const user = await dc.child(await dc.scope('Runtime Context'), 'user');
      assert.equal(user.find((v) => v.name === 'roleId')?.value, '"auditor"', 'the Variables view shows the edit');
    });
    it('setExpression on anything else is an error', async () => {
      assertError(
        await dc.raw('setExpression', { expression: 'messages[0]', value: '1' }),
        /not a path in the runtime context/,
      );
    });
    it('stepInTargets: the tool calls of the current step; stepIn into one', async () => {
      const idx = cps.findIndex(
        (c) =>
          c.boundary === 'before_model_call' &&
          cps.some((d) => d.stepIndex === c.stepIndex && d.boundary === 'before_tool_call'),
      );
      await dc.stepAndStop(() => dc.raw('goto', { threadId: 1, targetId: idx + 1 }));
      const frameId = (await dc.topFrame()).id;
      const r = await dc.raw('stepInTargets', { frameId });
      const targets = (r.body as DebugProtocol.StepInTargetsResponse['body']).targets;
      assert.ok(targets.length > 0);
      const last = targets.at(-1);
      const s = await dc.stepAndStop(() => dc.raw('stepIn', { threadId: 1, targetId: last?.id }));
      assert.equal(s.body.reason, 'step');
      const top = await dc.topFrame();
      assert.match(top.name, /before_tool_call/);
      assertError(await dc.raw('stepIn', { threadId: 1, targetId: 99999 }), /not a step-in target/);
    });
    it('loadedSources: the transcript of the run', async () => {
      const r = await dc.raw('loadedSources');
      const sources = (r.body as DebugProtocol.LoadedSourcesResponse['body']).sources;
      assert.deepEqual(
        sources.map((s) => s.path),
        [transcript],
      );
      assert.ok(dc.events.some((e) => e.event === 'loadedSource' && (e.body as { reason: string }).reason === 'new'));
    });
    it('an exception filter option with a condition stops only where it holds', async () => {
      await dc.setExceptionBreakpointsRequest({
        filters: [],
        filterOptions: [{ filterId: 'irreversibleSideEffect', condition: 'toolName == "send_email"' }],
      });
      await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
      assert.match((await dc.topFrame()).name, /send_email/);
    });
    it('an exception filter condition that does not parse is an error', async () => {
      assertError(
        await dc.raw('setExceptionBreakpoints', {
          filters: [],
          filterOptions: [{ filterId: 'toolError', condition: 'a ==' }],
        }),
        /filterOptions condition of toolError/,
      );
    });
  });

  describe('a long continue', () => {
    let recorder: Recorder;
    before(() => {
      recorder = openRecorder({ store });
      const run = recorder.startRun({
        runId: 'long-run',
        agentId: 'a',
        runtimeContext: testContext(),
        messages: [{ role: 'user', content: 'go' }],
      });
      for (let i = 0; i < 1500; i++) run.checkpoint(i % 2 ? 'before_prompt_build' : 'before_model_call');
      run.end();
    });
    after(() => recorder.close());
    beforeEach(async () => {
      dc = await startClient();
      await dc.launchAndStop({ runId: 'long-run', store });
      // a data breakpoint that never hits: every checkpoint is read
      await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: 'runtimeContext.user.roleId' }] });
    });
    afterEach(async () => dc.stop());

    it('cancel answers the continue `cancelled` and stops (pause) where it got to', async () => {
      const seq = dc.nextSeq;
      const stopped = dc.waitForEvent('stopped');
      const cont = dc.raw('continue', { threadId: 1 });
      const cancel = await dc.raw('cancel', { requestId: seq });
      assert.equal(cancel.success, true);
      const r = await cont;
      assert.equal(r.success, false);
      assert.equal(r.message, 'cancelled');
      const s = (await stopped) as DebugProtocol.StoppedEvent;
      assert.equal(s.body.reason, 'pause');
      assert.ok(((await dc.frames(0)).totalFrames ?? 0) < 1500);
    });
    it('pause during a continue stops it (pause); other requests meanwhile are refused', async () => {
      const stopped = dc.waitForEvent('stopped');
      const cont = dc.raw('continue', { threadId: 1 });
      const busy = dc.raw('next', { threadId: 1 });
      const pause = await dc.raw('pause', { threadId: 1 });
      assert.equal(pause.success, true);
      assertError(await busy, /running a continue; send pause/);
      assert.equal((await cont).success, true);
      assert.equal(((await stopped) as DebugProtocol.StoppedEvent).body.reason, 'pause');
    });
  });

  describe('a run growing while it is replayed', () => {
    let recorder: Recorder;
    let run: RunRecorder;
    before(async () => {
      ({ recorder, run } = await startLiveRun(store, { runId: 'growing-run', agentId: 'a' }));
      dc = await startClient();
    });
    after(async () => {
      await dc.stop();
      run.end();
      recorder.close();
    });

    it('the live transcript carries a sourceReference; a grown run gets a new one, loadedSource(changed) before the stop, and the stop is inside the new text', async () => {
      await dc.launchAndStop({ runId: 'growing-run', store });
      await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
      const before = await dc.topFrame();
      const ref1 = before.source?.sourceReference ?? 0;
      assert.ok(ref1 > 0, 'a live run is served by reference');
      assert.ok(before.source?.path, 'and by path');

      const search = run.tool('search', { sideEffectLevel: 'read_only' }, () => ({ hits: ['q3.pdf'] }));
      await search({ q: 'Q3' }, { toolCallId: 'c1' });
      dc.events.length = 0;
      await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
      const order = dc.events.map((e) => e.event);
      assert.ok(
        order.indexOf('loadedSource') >= 0 && order.indexOf('loadedSource') < order.indexOf('stopped'),
        order.join(),
      );
      const changed = dc.events.find((e) => e.event === 'loadedSource') as DebugProtocol.LoadedSourceEvent;
      assert.equal(changed.body.reason, 'changed');
      const top = await dc.topFrame();
      const ref2 = top.source?.sourceReference ?? 0;
      assert.ok(ref2 > 0 && ref2 !== ref1, `new reference ${ref2} after ${ref1}`);
      const content = (await dc.sourceRequest({ source: top.source, sourceReference: ref2 })).body.content;
      const lines = content.split('\n');
      assert.ok(top.line <= lines.length, `line ${top.line} within ${lines.length} lines`);
      assert.match(lines[top.line - 1] ?? '', /^\[3\] before_tool_call · search/);
    });
  });

  describe('the connection', () => {
    afterEach(async () => dc.stop());
    it('a message whose body is not JSON is reported and the session goes on', async () => {
      dc = await startClient();
      const body = '{not json';
      dc.writeRaw(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      const r = await dc.raw('threads');
      assert.equal(r.success, true);
      assert.ok(dc.events.some((e) => e.event === 'output' && /could not be read/.test(JSON.stringify(e.body))));
      assert.match(dc.stderr, /ocdb dap: ignored a message that could not be read/);
    });
  });
});
