/**
 * `ocdb load` refuses bad runs with a located error and writes nothing: an
 * argsHash that does not match its args, a control character in a tool name
 * or agent id, a lone surrogate in a run id, a run that is its own parent or
 * whose parent is missing, a `__proto__` key, duplicate tool call and
 * checkpoint ids (never a raw SQLite UNIQUE error).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { isOcdbError, type DebugRun } from '../../../src/model';
import { tmpStore } from '../../helpers/tmp';

const source = tmpStore('source.db');
writeDemoStore(source);
/** The demo run under another run id, its checkpoint ids unchanged. */
const base = (): DebugRun => {
  const run = JSON.parse(JSON.stringify(source.exportRun('demo-support-refund'))) as DebugRun;
  run.runId = 'loaded';
  for (const cp of run.checkpoints) cp.runId = 'loaded';
  return run;
};
/** The demo run under a new id: its checkpoints renamed too (checkpoint ids are unique across a store). */
const fresh = (runId = 'loaded'): DebugRun => {
  const run = base();
  run.runId = runId;
  for (const cp of run.checkpoints) {
    cp.runId = runId;
    cp.checkpointId = `${runId}#${cp.checkpointId}`;
  }
  return run;
};

const CASES: { name: string; make: () => unknown; path: RegExp; message: RegExp }[] = [
  {
    name: 'argsHash that does not match its args',
    make: () => {
      const run = fresh();
      run.toolLedger[0]!.argsHash = 'ffffffffffffffff';
      return run;
    },
    path: /^toolLedger\[0\]\.argsHash$/,
    message: /is not the hash of this call's args/,
  },
  {
    name: 'a newline in a tool name',
    make: () => {
      const run = fresh();
      run.toolLedger[0]!.toolName = 'lookup\n[8] agent_end';
      return run;
    },
    path: /^toolLedger\[0\]\.toolName$/,
    message: /control character U\+000A/,
  },
  {
    name: 'a newline in the agent id',
    make: () => ({ ...fresh(), agentId: 'bot\nfake line' }),
    path: /^agentId$/,
    message: /control character/,
  },
  {
    name: 'a lone surrogate in the run id',
    make: () => fresh('r\ud800'),
    path: /^runId$/,
    message: /lone surrogate/,
  },
  {
    name: 'a run that is its own parent',
    make: () => ({ ...fresh(), parentRunId: 'loaded', forkFromCheckpointId: 'x' }),
    path: /^parentRunId$/,
    message: /cannot be its own parent/,
  },
  {
    name: 'a missing parent',
    make: () => ({ ...fresh(), parentRunId: 'nowhere', forkFromCheckpointId: 'x' }),
    path: /^parentRunId$/,
    message: /parent run nowhere is not in this store/,
  },
  {
    name: 'a __proto__ key',
    make: () => {
      // the run's own metadata: the last one in the text (artifact refs before it have metadata too)
      const text = JSON.stringify(fresh());
      const at = text.lastIndexOf('"metadata":{') + '"metadata":{'.length;
      return JSON.parse(`${text.slice(0, at)}"__proto__":{"x":1},${text.slice(at)}`);
    },
    path: /^metadata\.__proto__$/,
    message: /"__proto__" is not allowed/,
  },
  {
    name: 'a duplicate toolCallId',
    make: () => {
      const run = fresh();
      run.toolLedger[1]!.toolCallId = run.toolLedger[0]!.toolCallId;
      return run;
    },
    path: /^toolLedger\[1\]\.toolCallId$/,
    message: /already the id of toolLedger\[0\]/,
  },
  {
    name: 'a duplicate checkpointId',
    make: () => {
      const run = fresh();
      run.checkpoints[2]!.checkpointId = run.checkpoints[0]!.checkpointId;
      return run;
    },
    path: /^checkpoints\[2\]\.checkpointId$/,
    message: /already the id of checkpoints\[0\]/,
  },
  {
    name: 'a checkpoint id of another run in the store',
    make: () => base(),
    path: /^checkpoints\[0\]\.checkpointId$/,
    message: /already a checkpoint of run demo-support-refund/,
  },
];

test('each bad run is refused with the field path, and the store is unchanged', () => {
  const store = tmpStore();
  writeDemoStore(store);
  const before = store.changeSeq();
  const runs = store.listRuns().total;
  for (const c of CASES) {
    assert.throws(
      () => store.loadRun(c.make(), { where: 'run.json' }),
      (e) => {
        assert.ok(isOcdbError(e, 'InvalidInput'), `${c.name}: ${String(e)}`);
        assert.match(String(e.details.path), c.path, c.name);
        assert.match(e.message, /^run\.json: /, c.name);
        assert.match(e.message, c.message, c.name);
        return true;
      },
    );
    assert.equal(store.changeSeq(), before, `${c.name}: the store changed`);
    assert.equal(store.listRuns().total, runs);
  }
  // and the good run loads
  assert.equal(store.loadRun(fresh()).runId, 'loaded');
});

test('a parent that comes later in the same batch is fine; a parent cycle is not', () => {
  const store = tmpStore();
  const parent = fresh('p');
  const child = { ...fresh('c'), parentRunId: 'p', forkFromCheckpointId: parent.checkpoints[0]!.checkpointId };
  const batch = new Map([
    ['c', { parentRunId: 'p' }],
    ['p', {}],
  ]);
  store.transaction(() => {
    store.loadRun(child, { batch });
    store.loadRun(parent, { batch });
  });
  assert.equal(store.getRun('c').parentRunId, 'p');
  const cycle = new Map([
    ['x', { parentRunId: 'y' }],
    ['y', { parentRunId: 'x' }],
  ]);
  assert.throws(
    () => store.loadRun({ ...fresh('x'), parentRunId: 'y' }, { batch: cycle }),
    (e) => isOcdbError(e, 'InvalidInput') && /form a cycle/.test(e.message),
  );
});
