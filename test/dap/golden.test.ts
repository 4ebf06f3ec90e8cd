/**
 * Golden transcripts of stackTrace / scopes / variables for one demo run at
 * four stops (entry, six steps in, the issue_refund breakpoint, agent_end),
 * with volatile ids (frame ids, variable references, breakpoint ids, temp
 * paths) normalised. Re-record with UPDATE_GOLDEN=1.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { demoStore, startClient, type OcdbDebugClient } from './support/dapClient';

const RUN = 'demo-support-refund';
const GOLDEN = path.join(__dirname, 'golden', `${RUN}.json`);

/** Variables of a scope, one level of children expanded, long lists cut to their first items. */
async function dumpVariables(dc: OcdbDebugClient, ref: number, depth: number): Promise<unknown[]> {
  const vars = (await dc.variablesRequest({ variablesReference: ref, start: 0, count: 8 })).body.variables;
  const out: unknown[] = [];
  for (const v of vars) {
    const entry: Record<string, unknown> = { name: v.name, value: v.value };
    if (v.evaluateName) entry.evaluateName = v.evaluateName;
    if (v.indexedVariables) entry.indexed = v.indexedVariables;
    if (v.namedVariables) entry.named = v.namedVariables;
    if (v.variablesReference && depth > 0) entry.children = await dumpVariables(dc, v.variablesReference, depth - 1);
    out.push(entry);
  }
  return out;
}

async function snapshot(dc: OcdbDebugClient, label: string, stop: DebugProtocol.StoppedEvent, store: string) {
  const frames = await dc.frames(5);
  const top = frames.stackFrames[0] as DebugProtocol.StackFrame;
  const scopes = (await dc.scopesRequest({ frameId: top.id })).body.scopes;
  const scopeDump: Record<string, unknown> = {};
  for (const s of scopes) {
    scopeDump[s.name] = {
      indexed: s.indexedVariables,
      named: s.namedVariables,
      variables: await dumpVariables(dc, s.variablesReference, s.name === 'Checkpoint' ? 0 : 1),
    };
  }
  const dir = path.dirname(store);
  return {
    label,
    stopped: { reason: stop.body.reason, description: stop.body.description },
    totalFrames: frames.totalFrames,
    frames: frames.stackFrames.map((f) => ({
      name: f.name,
      line: f.line,
      source: f.source?.path?.replace(dir, '<store dir>'),
    })),
    scopes: scopeDump,
  };
}

describe('golden DAP transcript', () => {
  let dc: OcdbDebugClient;
  let store: string;
  before(async () => {
    store = demoStore();
    dc = await startClient();
  });
  after(async () => {
    await dc.stop();
  });

  it(`stackTrace / scopes / variables of ${RUN} match test/dap/golden`, async () => {
    const stops: unknown[] = [];
    const entry = await dc.launchAndStop({ runId: RUN, store });
    stops.push(await snapshot(dc, 'entry', entry, store));
    let s = entry;
    for (let i = 0; i < 6; i++) s = await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
    stops.push(await snapshot(dc, 'six steps in', s, store));
    await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'issue_refund' }] });
    s = await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
    stops.push(await snapshot(dc, 'issue_refund breakpoint', s, store));
    await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
    s = await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
    stops.push(await snapshot(dc, 'agent_end', s, store));

    const text = `${JSON.stringify(stops, null, 2)}\n`;
    if (process.env.UPDATE_GOLDEN === '1' || !fs.existsSync(GOLDEN)) {
      fs.writeFileSync(GOLDEN, text);
      if (process.env.UPDATE_GOLDEN !== '1') assert.fail(`recorded a new golden file ${GOLDEN}; check it and re-run`);
    }
    assert.deepEqual(JSON.parse(text), JSON.parse(fs.readFileSync(GOLDEN, 'utf8')));
  });
});
