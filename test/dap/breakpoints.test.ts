/** Breakpoints of every kind through a real DAP client against `ocdb dap`. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { afterEach, before, beforeEach, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { CheckpointSummary } from '../../src/store';
import { checkpointsOf, demoStore, startClient, type OcdbDebugClient } from './support/dapClient';

const RUN = 'demo-support-refund';

describe('DAP breakpoints', () => {
  let store: string;
  let cps: CheckpointSummary[];
  let dc: OcdbDebugClient;
  let transcript: string;
  before(() => {
    store = demoStore();
    cps = checkpointsOf(store, RUN);
  });
  beforeEach(async () => {
    dc = await startClient();
    await dc.launchAndStop({ runId: RUN, store });
    transcript = (await dc.topFrame()).source?.path ?? '';
  });
  afterEach(async () => {
    await dc.stop();
  });

  const cont = () => dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
  const topIndex = async () => Number(/^\[(\d+)\]/.exec(lineOf((await dc.topFrame()).line))?.[1]);
  const lineOf = (line: number) => fs.readFileSync(transcript, 'utf8').split('\n')[line - 1] ?? '';

  it('function breakpoint with a condition over args', async () => {
    const res = await dc.setFunctionBreakpointsRequest({
      breakpoints: [{ name: 'get_shipping_*', condition: 'args.trackingNumber != null' }, { name: 'teleport' }],
    });
    assert.equal(res.body.breakpoints[0]?.verified, true);
    assert.equal(res.body.breakpoints[1]?.verified, false);
    assert.match(res.body.breakpoints[1]?.message ?? '', /never calls a tool matching `teleport`/);
    const s = await cont();
    assert.equal(s.body.reason, 'function breakpoint');
    assert.deepEqual(s.body.hitBreakpointIds, [res.body.breakpoints[0]?.id]);
    const i = await topIndex();
    assert.equal(cps[i]?.toolName, 'get_shipping_events');
    assert.equal((await dc.evaluate('args.trackingNumber')).result, '"JD014600006251234567"');
  });

  it('source breakpoint on a tool-call line of the transcript, and unverified on a header line', async () => {
    const lines = fs.readFileSync(transcript, 'utf8').split('\n');
    const at = lines.findIndex((l) => /^\[\d+\] before_tool_call · send_email/.test(l)) + 1;
    const res = await dc.setBreakpointsRequest({
      source: { path: transcript },
      breakpoints: [{ line: at }, { line: 1 }],
    });
    assert.deepEqual(
      res.body.breakpoints.map((b) => b.verified),
      [true, false],
    );
    assert.match(res.body.breakpoints[1]?.message ?? '', /no checkpoint/);
    const s = await cont();
    assert.equal(s.body.reason, 'breakpoint');
    assert.equal((await dc.topFrame()).line, at);
    const locs = await dc.customRequest('breakpointLocations', { source: { path: transcript }, line: 1, endLine: 8 });
    const listed = (locs.body as DebugProtocol.BreakpointLocationsResponse['body']).breakpoints.map((b) => b.line);
    assert.ok(listed.length > 0 && listed.every((l) => lineOf(l).startsWith('[')));
  });

  it('hit count on a function breakpoint and log points on transcript lines', async () => {
    const lines = fs.readFileSync(transcript, 'utf8').split('\n');
    const lookups = lines.flatMap((l, i) => (/^\[\d+\] before_tool_call · lookup_/.test(l) ? [i + 1] : []));
    assert.equal(lookups.length, 2);
    await dc.setBreakpointsRequest({
      source: { path: transcript },
      breakpoints: lookups.map((line) => ({ line, logMessage: 'looking up {toolName} with {args}' })),
    });
    await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: '*', hitCondition: '4' }] });
    const output: string[] = [];
    dc.on('output', (e: DebugProtocol.OutputEvent) => output.push(e.body.output));
    const s = await cont();
    assert.equal(s.body.reason, 'function breakpoint');
    const calls = cps.filter((c) => c.boundary === 'before_tool_call');
    assert.equal(await topIndex(), calls[3]?.index, 'stops at the 4th tool call');
    assert.ok(
      output.some((o) => o.startsWith('looking up lookup_customer with {"email"')),
      output.join(''),
    );
    assert.ok(output.some((o) => o.startsWith('looking up lookup_order with')));
  });

  it('tool error exception filter, with exception info', async () => {
    await dc.setExceptionBreakpointsRequest({ filters: ['toolError'] });
    const s = await cont();
    assert.equal(s.body.reason, 'exception');
    assert.match(s.body.text ?? '', /get_shipping_events failed/);
    const info = await dc.exceptionInfoRequest({ threadId: 1 });
    assert.equal(info.body.exceptionId, 'toolError');
    assert.match(info.body.details?.stackTrace ?? '', /UpstreamTimeout/);
    const end = await cont();
    assert.equal(end.body.reason, 'step', 'no other failing call: runs to the end');
  });

  it('irreversible side effect filter stops before issue_refund', async () => {
    await dc.setExceptionBreakpointsRequest({ filters: [], filterOptions: [{ filterId: 'irreversibleSideEffect' }] });
    await cont();
    assert.equal(cps[await topIndex()]?.toolName, 'issue_refund');
  });

  it('data breakpoint on a runtime-context path, forwards and backwards', async () => {
    const scopes = await dc.scopesOfTop();
    const ctx = scopes.find((s) => s.name === 'Runtime Context');
    assert.ok(ctx);
    const task = (await dc.variablesRequest({ variablesReference: ctx.variablesReference })).body.variables.find(
      (v) => v.name === 'task',
    );
    assert.ok(task);
    const states = (await dc.variablesRequest({ variablesReference: task.variablesReference })).body.variables.find(
      (v) => v.name === 'stepStates',
    );
    assert.ok(states);
    const info = await dc.dataBreakpointInfoRequest({
      variablesReference: states.variablesReference,
      name: 'eligibility',
    });
    assert.equal(info.body.dataId, 'runtimeContext.task.stepStates.eligibility');
    const notCtx = await dc.dataBreakpointInfoRequest({
      variablesReference: scopes[0]?.variablesReference ?? 0,
      name: 'boundary',
    });
    assert.equal(notCtx.body.dataId, null);
    await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId as string }] });
    const s = await cont();
    assert.equal(s.body.reason, 'data breakpoint');
    assert.match(s.body.description ?? '', /runtimeContext\.task\.stepStates\.eligibility changed/);
    const first = await topIndex();
    const now = (await dc.evaluate('runtimeContext.task.stepStates.eligibility')).result;
    await dc.stepAndStop(() => dc.stepBackRequest({ threadId: 1 }));
    assert.notEqual((await dc.evaluate('runtimeContext.task.stepStates.eligibility')).result, now);
    await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
    assert.equal(await topIndex(), first);
    await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
    const back = await dc.stepAndStop(() => dc.reverseContinueRequest({ threadId: 1 }));
    assert.equal(back.body.reason, 'data breakpoint');
    assert.equal(await topIndex(), first);
  });
});
