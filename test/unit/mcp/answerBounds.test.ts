/**
 * Every answer of the MCP server stays under its cap on a run of 20,000 checkpoints (arguments of 50,000
 * characters, results of 200,000), says it was truncated and where the next page starts, and the pages together
 * hold what the run holds. Each call's time is printed (the figures of the report; not asserted: the machine is
 * shared).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_MAX_ANSWER_CHARS, MIN_MAX_ANSWER_CHARS } from '../../../src/mcp/bounded';
import { openRunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';
import { ERROR_EVERY, writeLongRun } from './longRun';
import { connectClient, type Answer, type TestClient } from './mcpClient';

const STEPS = 5_000;
const CHECKPOINTS = STEPS * 4 + 1;
const storePath = join(tmpDir('ocdb-mcp-bounds-'), 'runs.db');

describe('MCP answers on a 20,000-checkpoint run', () => {
  let mcp: TestClient;
  let small: TestClient;

  before(async () => {
    const store = openRunStore(storePath);
    const started = Date.now();
    writeLongRun(store, 'long-run', STEPS);
    assert.equal(store.getRun('long-run').checkpointCount, CHECKPOINTS);
    process.stdout.write(`# wrote ${CHECKPOINTS} checkpoints in ${Date.now() - started} ms\n`);
    store.close();
    mcp = await connectClient({ storeLocation: storePath, env: {} });
    small = await connectClient({ storeLocation: storePath, env: {}, maxAnswerChars: MIN_MAX_ANSWER_CHARS });
  });
  after(async () => {
    await mcp.close();
    await small.close();
  });

  /** Calls a tool, asserts it answered under `cap`, prints its size and time. */
  async function bounded(
    client: TestClient,
    cap: number,
    name: string,
    args: Record<string, unknown>,
  ): Promise<Answer> {
    const started = process.hrtime.bigint();
    const a = await client.call(name, args);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    process.stdout.write(
      `# ${name} ${JSON.stringify(args).slice(0, 90)}: ${a.text.length} chars, ${ms.toFixed(0)} ms\n`,
    );
    assert.equal(a.isError, false, a.text.slice(0, 500));
    assert.ok(a.text.length <= cap, `${name}: ${a.text.length} characters > ${cap}`);
    return a;
  }

  const CALLS: [string, Record<string, unknown>][] = [
    ['find_runs', {}],
    ['run_summary', { runId: 'long-run' }],
    ['read_checkpoints', { runId: 'long-run', limit: 50, detail: 'state' }],
    ['read_checkpoints', { runId: 'long-run', offset: CHECKPOINTS - 50, limit: 50, detail: 'state' }],
    ['read_checkpoints', { runId: 'long-run', offset: 1, limit: 3, detail: 'state', expression: 'result' }],
    [
      'read_checkpoints',
      { runId: 'long-run', offset: 10_000, limit: 1, detail: 'state', messageOffset: 0, messageLimit: 50 },
    ],
    ['search_run', { runId: 'long-run', text: 'query', limit: 50 }],
    ['search_run', { runId: 'long-run', text: 'ppppp', in: ['tools'], scan: 4_000 }],
    ['search_run', { runId: 'long-run', expression: 'toolName == "fetch_page"', limit: 50 }],
    ['tool_calls', { runId: 'long-run', limit: 100 }],
    ['tool_calls', { runId: 'long-run', toolCallId: 'call-0' }],
    ['plan_fork', { runId: 'long-run', checkpoint: CHECKPOINTS - 2, contextPatch: { user: { roleId: 'x' } } }],
  ];

  it(`answers every tool under the default cap (${DEFAULT_MAX_ANSWER_CHARS} characters)`, async () => {
    for (const [name, args] of CALLS) await bounded(mcp, DEFAULT_MAX_ANSWER_CHARS, name, args);
    const resource = await mcp.client.readResource({ uri: 'ocdb://run/long-run' });
    assert.ok((resource.contents[0] as { text: string }).text.length <= DEFAULT_MAX_ANSWER_CHARS);
  });

  it(`answers every tool under a cap of ${MIN_MAX_ANSWER_CHARS} characters too`, async () => {
    for (const [name, args] of CALLS) {
      const a = await bounded(small, MIN_MAX_ANSWER_CHARS, name, args);
      assert.notEqual(a.json.note, undefined === a.json.note ? 'x' : a.json.note); // parsed, not cut mid-JSON
    }
  });

  it('says a page was truncated and where the next starts; the pages hold the whole ledger', async () => {
    const seen = new Set<string>();
    let offset = 0;
    let pages = 0;
    for (;;) {
      const a = await mcp.call('tool_calls', { runId: 'long-run', offset, limit: 100, outcome: 'error' });
      const calls = a.json.calls as { toolCallId: string; outcome: string }[];
      for (const c of calls) seen.add(c.toolCallId);
      pages++;
      const page = a.json.page as { nextOffset?: number };
      if (page.nextOffset === undefined) break;
      assert.equal(a.json.truncated, true);
      offset = page.nextOffset;
    }
    assert.equal(seen.size, STEPS / ERROR_EVERY);
    const all = await mcp.call('tool_calls', { runId: 'long-run', limit: 100 });
    assert.equal((all.json.page as { total: number }).total, STEPS);
    assert.equal(all.json.truncated, true);
    assert.match(all.json.hint as string, /offset \d+/);
    assert.ok(pages >= 1);
  });

  it('clips a 200,000-character result with a marker and says so', async () => {
    const a = await mcp.call('tool_calls', { runId: 'long-run', toolCallId: 'call-500' });
    const result = (a.json.call as { result: { page: string } }).result.page;
    assert.match(result, /^p+…\[\+\d+ chars\]$/);
    assert.equal(a.json.truncated, true);
    const chars = Number(/\+(\d+) chars/.exec(result)?.[1]);
    assert.equal(result.indexOf('…') + chars, 200_000);
  });

  it('searches the whole run in bounded windows', async () => {
    let offset = 0;
    const hits: number[] = [];
    for (let calls = 0; calls < 20; calls++) {
      const a = await mcp.call('search_run', {
        runId: 'long-run',
        text: 'timeout at',
        in: ['messages', 'tools'],
        scan: 5_000,
        offset,
      });
      assert.ok(a.text.length <= DEFAULT_MAX_ANSWER_CHARS);
      for (const h of a.json.hits as { checkpointIndex: number }[]) hits.push(h.checkpointIndex);
      if (a.json.nextOffset === undefined) break;
      offset = a.json.nextOffset as number;
    }
    // each failed call: its error in the ledger (at its before_tool_call) and the tool message that carried it
    assert.equal(hits.length, (STEPS / ERROR_EVERY) * 2);
    assert.deepEqual(hits.slice(0, 2), [(ERROR_EVERY - 1) * 4 + 2, (ERROR_EVERY - 1) * 4 + 3]);
  });

  it('forks the long run late and compares it with its source under the cap', async () => {
    const fork = await bounded(mcp, DEFAULT_MAX_ANSWER_CHARS, 'fork_run', {
      runId: 'long-run',
      checkpoint: CHECKPOINTS - 9,
    });
    assert.equal(fork.json.status, 'completed');
    await bounded(mcp, DEFAULT_MAX_ANSWER_CHARS, 'compare_runs', {
      leftRunId: 'long-run',
      rightRunId: fork.json.forkRunId,
      allSteps: true,
    });
  });
});
