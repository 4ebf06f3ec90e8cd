/** A store that fails the test on any read of a tool call: what reading an imported run's stored files must not need. */
import assert from 'node:assert/strict';
import type { RunStore } from '../../src/store';

export function noCalls(store: RunStore): RunStore {
  const refused = new Set(['listToolCalls', 'listToolCallsView', 'getToolCall', 'listToolCallFacts', 'getCheckpoint']);
  return new Proxy(store, {
    get(target, key, receiver) {
      if (typeof key === 'string' && refused.has(key))
        return () => assert.fail(`reading the stored files called ${key}`);
      const v = Reflect.get(target, key, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
