/**
 * A client that does not page (Emacs dap-mode asks stackTrace without `levels` and variables without `count` at
 * every stop), driven with Microsoft's DebugClient over the built `ocdb dap` at the end of a 600-checkpoint run: a
 * stop shows the newest 200 frames and a label counting the rest, and a long array comes as index ranges, so a step
 * costs what it shows, not what the run holds. A client that pages gets exactly what it asks for.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { recordLongRun } from '../bench/longRun';
import { checkpointsOf, startClient, type OcdbDebugClient } from './support/dapClient';

const CHECKPOINTS = 600;

describe('a DAP client that does not page', () => {
  let dc: OcdbDebugClient;
  let store: string;
  let runId: string;
  before(async () => {
    store = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-unpaged-')), 'runs.db');
    runId = recordLongRun(store, CHECKPOINTS);
    dc = await startClient();
    const last = checkpointsOf(store, runId).at(-1);
    assert.ok(last);
    await dc.launchAndStop({ runId, store, stopOnEntry: true, checkpointId: last.checkpointId });
  });
  after(async () => {
    await dc.stop();
  });

  const stack = async (args: Omit<DebugProtocol.StackTraceArguments, 'threadId'> = {}) =>
    (await dc.stackTraceRequest({ threadId: 1, ...args })).body;
  const messagesScope = async () => {
    const top = (await stack({ levels: 1 })).stackFrames[0];
    assert.ok(top);
    const scope = (await dc.scopesRequest({ frameId: top.id })).body.scopes.find((s) => s.name === 'Messages');
    assert.ok(scope);
    return scope;
  };
  const children = async (variablesReference: number, start?: number, count?: number) =>
    (await dc.variablesRequest({ variablesReference, start, count })).body.variables;

  it('stackTrace without levels: the newest 200 frames, then a label counting the checkpoints left out', async () => {
    const all = await stack();
    assert.equal(all.totalFrames, CHECKPOINTS);
    assert.equal(all.stackFrames.length, 201);
    assert.equal(all.stackFrames[0]?.name, 'end · agent_end');
    const label = all.stackFrames.at(-1);
    assert.equal(label?.presentationHint, 'label');
    assert.equal(label?.name, '… 400 earlier checkpoints not listed: step back to reach them');
    assert.ok(all.stackFrames.slice(0, 200).every((f) => f.presentationHint !== 'label' && f.line > 0));

    // asked from frame 500 on, the rest (100) fits: no label
    const tail = await stack({ startFrame: 500 });
    assert.equal(tail.stackFrames.length, 100);
    assert.equal(tail.stackFrames.at(-1)?.name, 'step 0 · before_model_call');
  });

  it('the label frame shows no scopes and is no checkpoint to evaluate at', async () => {
    const label = (await stack()).stackFrames.at(-1);
    assert.ok(label);
    assert.deepEqual((await dc.scopesRequest({ frameId: label.id })).body.scopes, []);
    await assert.rejects(
      dc.evaluateRequest({ expression: 'boundary', frameId: label.id, context: 'repl' }),
      /the label that counts the checkpoints not listed/,
    );
  });

  it('a client that pages gets the frames it asks for, every one of them', async () => {
    const page = await stack({ startFrame: 0, levels: 20 });
    assert.equal(page.stackFrames.length, 20);
    assert.ok(page.stackFrames.every((f) => f.presentationHint !== 'label'));
    const deep = await stack({ startFrame: 580, levels: 50 });
    assert.equal(deep.stackFrames.length, 20);
  });

  it('a long array asked for whole comes as index ranges of 100, which hold the items by their own index', async () => {
    const scope = await messagesScope();
    const count = scope.indexedVariables ?? 0;
    assert.equal(count, CHECKPOINTS - 1); // a message at every checkpoint but the end
    const ranges = await children(scope.variablesReference);
    assert.deepEqual(
      ranges.map((v) => v.name),
      ['[0 … 99]', '[100 … 199]', '[200 … 299]', '[300 … 399]', '[400 … 499]', '[500 … 598]'],
    );
    assert.ok(ranges.every((v) => v.presentationHint?.kind === 'virtual' && v.evaluateName === undefined));
    const last = ranges.at(-1);
    assert.ok(last);
    assert.equal(last.indexedVariables, 99);
    const items = await children(last.variablesReference);
    assert.equal(items.length, 99);
    assert.equal(items[0]?.name, '500');
    assert.equal(items[0]?.evaluateName, 'messages[500]');
    assert.match(items[0]?.value ?? '', /^user: message 500: lorem ipsum/);
    // the item's evaluate name reads the same message
    assert.match((await dc.evaluate('messages[500].content')).result, /^"message 500: /);
    // paged inside a range: start counts from the range's first item
    assert.deepEqual(
      (await children(last.variablesReference, 10, 3)).map((v) => v.name),
      ['510', '511', '512'],
    );
  });

  it('a client that pages the array gets its items, not ranges', async () => {
    const scope = await messagesScope();
    assert.deepEqual(
      (await children(scope.variablesReference, 250, 4)).map((v) => v.name),
      ['250', '251', '252', '253'],
    );
    const filtered = await dc.variablesRequest({ variablesReference: scope.variablesReference, filter: 'named' });
    assert.deepEqual(filtered.body.variables, []);
  });
});
