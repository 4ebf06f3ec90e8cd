/**
 * Child process of nodeSqliteDriver.test.ts, run under the Node of a VS Code release: records the whole demo
 * (support, research and coding agents; a fork, tool errors, failed/cancelled/crashed runs) into a store opened with
 * `node:sqlite` — forced with `forced`, or as the store picks by itself with `default` — reads it back and prints one
 * JSON line for the parent to check.
 * Usage: node --import tsx nodeSqliteDriverChild.ts <store> forced|default
 */
import { writeDemoStore } from '../../../src/demo';
import { openRunStore } from '../../../src/store';

const [file, how] = process.argv.slice(2);
if (!file || (how !== 'forced' && how !== 'default')) {
  throw new Error('usage: nodeSqliteDriverChild.ts <store> forced|default');
}
const store = openRunStore(file, how === 'forced' ? { driver: 'node:sqlite' } : {});
try {
  const written = writeDemoStore(store);
  const { runs } = store.listRuns({ limit: 100 });
  const exports = Object.fromEntries(written.map((id) => [id, store.exportRun(id)]));
  const firstToolCall = store.listCheckpoints('demo-support-refund').find((c) => c.boundary === 'before_tool_call');
  process.stdout.write(
    JSON.stringify({
      node: process.version,
      driver: store.driverName,
      integrity: store.integrityCheck(),
      written,
      runs: runs.map((r) => ({ runId: r.runId, status: r.status, crashed: r.crashed, checkpoints: r.checkpointCount })),
      exports,
      firstToolCall: firstToolCall && store.getCheckpoint(firstToolCall.checkpointId),
    }) + '\n',
  );
} finally {
  store.close();
}
