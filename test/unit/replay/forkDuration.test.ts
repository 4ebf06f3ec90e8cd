/**
 * A fork's time is its own: a fork made today of the demo's refund run (recorded on a fixed day weeks earlier)
 * compares with its parent by the time its steps took, in Compare with Parent and `ocdb diff`, not by the weeks
 * between the fork point and the fork's first own checkpoint.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT, type CliIo } from '../../../src/cli/cliCommand';
import { runCli } from '../../../src/cli/main';
import { writeDemoStore } from '../../../src/demo';
import { compareRuns } from '../../../src/replay/runComparison';
import { openRunStore } from '../../../src/store';

let dir: string;
let storePath: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-fork-time-'));
  storePath = path.join(dir, 'runs.db');
  const store = openRunStore(storePath);
  writeDemoStore(store);
  store.close();
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function ocdb(args: string[]) {
  const out: string[] = [];
  const io: CliIo = {
    out: (t) => out.push(t),
    err: (t) => out.push(t),
    isTty: false,
    env: { ...process.env, OCDB_MODEL_BASE_URL: '' },
    cwd: dir,
  };
  const code = await runCli([...args, '--store', storePath], io);
  return { code, out: out.join('\n') };
}

describe('a fork made today of an older run', () => {
  it('takes the time of its own steps, in the comparison and in ocdb diff', async () => {
    const parent = 'demo-support-refund';
    let store = openRunStore(storePath);
    // mid-step: the fork inherits step 5's first checkpoints and records the rest of the step itself
    const point = store.listCheckpoints(parent).find((c) => c.stepIndex === 5 && c.boundary === 'before_tool_call');
    assert.ok(point);
    store.close();
    const made = await ocdb(['fork', parent, String(point.index), '--policy', '*=reuse_result', '--run', '--json']);
    assert.equal(made.code, EXIT.ok, made.out);
    const forkId = (JSON.parse(made.out) as { runId: string }).runId;

    store = openRunStore(storePath);
    try {
      const own = store.listCheckpoints(forkId)[0];
      assert.ok(own);
      assert.ok(own.createdAt - point.createdAt > 86_400_000, 'the fork is made at least a day after its parent ran');
      const c = compareRuns(store, parent, forkId);
      // the inherited steps take the parent's time; the rest is the replay's own, which runs in well under a minute
      assert.ok(c.right.durationMs < c.left.durationMs + 60_000, `fork time ${c.right.durationMs} ms`);
      assert.ok(c.right.durationMs > 0);
      const step5 = c.steps.find((s) => s.stepIndex === 5);
      assert.ok(step5?.right && step5.left);
      assert.ok(step5.right.durationMs < step5.left.durationMs + 60_000, `step 5 ${step5.right.durationMs} ms`);
    } finally {
      store.close();
    }

    const diff = await ocdb(['diff', parent, forkId]);
    assert.equal(diff.code, EXIT.ok, diff.out);
    const time = /time: (\d+) ms → (\d+) ms/.exec(diff.out);
    assert.ok(time, diff.out);
    assert.ok(Number(time[2]) < Number(time[1]) + 60_000, time[0]);
  });
});
