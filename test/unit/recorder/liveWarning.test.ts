/**
 * An agent whose live-debugging check fails goes on without the debugger (it must never hang), but not silently:
 * with no `onError` the recorder gives one process warning (its code LIVE_WARNING_CODE), however many checks fail;
 * with `onError` the error goes there and no warning is given.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OcdbError } from '../../../src/model';
import { LIVE_WARNING_CODE, openRecorder } from '../../../src/recorder';
import { openRunStore, type RunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';

/** An in-memory store whose live-debugging check fails, as a store that cannot be read does. */
function storeWithFailingLiveCheck(): RunStore {
  const store = openRunStore(':memory:');
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'liveAttachmentFor')
        return () => {
          throw new Error('database is locked');
        };
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The process warnings of `code` given while `body` runs (they are emitted on the next tick). */
async function warningsDuring(code: string, body: () => void): Promise<Error[]> {
  const seen: Error[] = [];
  const listen = (w: Error & { code?: string }) => {
    if (w.code === code) seen.push(w);
  };
  process.on('warning', listen);
  try {
    body();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listen);
  }
  return seen;
}

test('a failed live check with no onError: the agent goes on, and one process warning says why', async () => {
  const store = storeWithFailingLiveCheck();
  const recorder = openRecorder({ runStore: store });
  try {
    const warnings = await warningsDuring(LIVE_WARNING_CODE, () => {
      const run = recorder.startRun({ agentId: 'a', runtimeContext: testContext() });
      run.checkpoint('before_prompt_build');
      run.checkpoint('before_model_call');
      run.end();
    });
    assert.equal(warnings.length, 1, 'one warning however many checks failed');
    assert.match(String(warnings[0]?.message), /Live debugging went on without the debugger: .*database is locked/);
    assert.equal(store.listRuns().total, 1, 'the run was recorded all the same');
  } finally {
    recorder.close();
    store.close();
  }
});

test('a failed live check with onError: the error goes there, and no warning is given', async () => {
  const store = storeWithFailingLiveCheck();
  const errors: OcdbError[] = [];
  const recorder = openRecorder({ runStore: store, onError: (e) => errors.push(e) });
  try {
    const warnings = await warningsDuring(LIVE_WARNING_CODE, () => {
      const run = recorder.startRun({ agentId: 'a', runtimeContext: testContext() });
      run.checkpoint('before_prompt_build');
      run.end();
    });
    assert.equal(warnings.length, 0);
    assert.ok(errors.length >= 1, 'onError heard of it');
    assert.equal(errors[0]?.code, 'StoreUnavailable');
    assert.match(errors[0]?.message ?? '', /Live debugging went on without the debugger/);
  } finally {
    recorder.close();
    store.close();
  }
});
