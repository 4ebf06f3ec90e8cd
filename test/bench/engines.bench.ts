/**
 * The two engines side by side, through the documented API: the SDK's append (a checkpoint adding one
 * message of ~300 B to a conversation that grows to 300 messages), a checkpoint view read cold (a store opened
 * anew: the list walk and the blobs from the database) and warm (the debugger's next step), and the tree page of
 * top-level runs. PostgreSQL is the server at OCDB_TEST_PG_URL (`eval "$(bash test/support/pgCluster.sh start)"`);
 * without it only SQLite is measured, and the bench says so. Figures are printed, never asserted.
 */
import { openRecorder } from '../../src/recorder';
import { openRunStore } from '../../src/store';
import { testContext } from '../helpers/context';
import { PG_URL, tmpLocation, type EngineName } from '../helpers/engines';
import { fmt, summarize, us } from './stats';

const APPENDS = 300;

function measure(engine: EngineName): Record<string, number> {
  const location = tmpLocation('runs.db', engine);
  const store = openRunStore(location);
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({ agentId: 'bench', runtimeContext: testContext() });
  const messages: { role: 'user' | 'assistant'; content: string }[] = [{ role: 'user', content: 'go' }];
  const appends: number[] = [];
  for (let i = 0; i < APPENDS; i++) {
    messages.push({ role: i % 2 ? 'user' : 'assistant', content: `turn ${i} ${'lorem ipsum '.repeat(25)}` });
    const t = process.hrtime.bigint();
    run.checkpoint('after_model_call', { messages: [...messages] });
    appends.push(us(t));
  }
  run.end();
  recorder.close();
  for (let i = 0; i < 50; i++) store.createRun({ runId: `root-${i}`, sessionId: 's', agentId: 'a', startedAt: i });
  const ids = store.listCheckpoints(run.runId).map((c) => c.checkpointId);
  store.close();
  const cold: number[] = [];
  const warm: number[] = [];
  const tree: number[] = [];
  for (let k = 0; k < 7; k++) {
    const reader = openRunStore(location, { create: false });
    let t = process.hrtime.bigint();
    const view = reader.getCheckpointView(ids[ids.length - 1 - k] as string);
    void view.messages.at(-1);
    cold.push(us(t));
    for (const id of ids.slice(100 + k * 20, 120 + k * 20)) {
      t = process.hrtime.bigint();
      void reader.getCheckpointView(id).messages.at(-1);
      warm.push(us(t));
    }
    t = process.hrtime.bigint();
    reader.listRuns({ parentRunId: null, limit: 50 });
    tree.push(us(t));
    reader.close();
  }
  const a = summarize(appends);
  return {
    appendP50: a.p50,
    appendP95: a.p95,
    coldViewP50: summarize(cold).p50,
    warmViewP50: summarize(warm).p50,
    treePageP50: summarize(tree).p50,
  };
}

export function run(): Promise<void> {
  const engines: EngineName[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  if (!PG_URL) process.stdout.write('PostgreSQL not measured: set OCDB_TEST_PG_URL (test/support/pgCluster.sh)\n');
  const results = new Map(engines.map((e) => [e, measure(e)]));
  const rows: [string, keyof ReturnType<typeof measure>][] = [
    [`append p50 (SDK, conversation to ${APPENDS} messages)`, 'appendP50'],
    ['append p95', 'appendP95'],
    [`checkpoint view, cold store (${APPENDS} messages), p50`, 'coldViewP50'],
    ['checkpoint view, warm (next step), p50', 'warmViewP50'],
    ['tree page (50 top-level runs), p50', 'treePageP50'],
  ];
  for (const [label, key] of rows) {
    const s = results.get('sqlite')?.[key] ?? 0;
    const p = results.get('postgres')?.[key];
    process.stdout.write(
      `${label.padEnd(56)} sqlite ${fmt(s / 1000, 3).padStart(8)} ms` +
        (p === undefined ? '\n' : `   postgres ${fmt(p / 1000, 3).padStart(8)} ms   (${fmt(p / s, 1)}x)\n`),
    );
  }
  return Promise.resolve();
}
