/**
 * MCP `run_timeline` says where a live debugger held the agent, apart from the durations it lists: a run whose
 * tool call was held 240 ms at its stop and whose agent was held 75 ms at a model call's stop tells both (the
 * calls' and the checkpoints' `heldMs`), and a run nothing held says nothing of holds.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openRunStore } from '../../../src/store';
import { RunWriter } from '../../../src/writer/runWriter';
import { testContext } from '../../helpers/context';
import { tmpDir } from '../../helpers/tmp';
import { MARKS_RUN, writeMarksRun } from '../store/marksRun';
import { connectClient, type TestClient } from './mcpClient';

const storePath = join(tmpDir('ocdb-mcp-holds-'), 'runs.db');

describe('MCP run_timeline and a live debugger’s holds', () => {
  let mcp: TestClient;

  before(async () => {
    const store = openRunStore(storePath);
    writeMarksRun(store);
    const plain = RunWriter.create(store, {
      runId: 'never-held',
      agentId: 'a',
      state: { runtimeContext: testContext() },
    });
    plain.checkpoint('before_model_call');
    plain.checkpoint('after_model_call');
    plain.end();
    store.close();
    mcp = await connectClient({ storeLocation: storePath, env: {}, cwd: process.cwd() });
  });
  after(() => mcp.close());

  it('lists the holds beside the duration they are part of', async () => {
    const a = await mcp.call('run_timeline', { runId: MARKS_RUN });
    assert.equal(a.isError, false, a.text);
    const [lane] = a.json.runs as Record<string, unknown>[];
    assert.ok(typeof lane?.durationMs === 'number' && lane.durationMs > 315);
    assert.deepEqual(lane?.heldByDebuggerMs, { total: 315, beforeToolCalls: 240, atOtherStops: 75 });
  });

  it('says nothing of holds for a run nothing held', async () => {
    const a = await mcp.call('run_timeline', { runId: 'never-held' });
    assert.equal(a.isError, false, a.text);
    const [lane] = a.json.runs as Record<string, unknown>[];
    assert.equal(lane?.heldByDebuggerMs, undefined);
    assert.equal(typeof lane?.durationMs, 'number');
  });
});
