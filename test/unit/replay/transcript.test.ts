import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkpointAtLine, lineOfCheckpoint, renderTranscript, type Transcript } from '../../../src/replay/transcript';
import type { SqlRunStore } from '../../../src/store';
import { openDemoStore } from './demoStore';

describe('renderTranscript', () => {
  let store: SqlRunStore;
  let t: Transcript;
  before(() => {
    store = openDemoStore();
    const run = store.getRun('demo-support-refund');
    t = renderTranscript(run, store.listCheckpoints(run.runId), (id) => store.getCheckpoint(id));
  });
  after(() => store.close());

  it('has one line per checkpoint, starting with [index] boundary', () => {
    const text = t.text.split('\n');
    assert.equal(t.lines.length, store.getRun('demo-support-refund').checkpointCount);
    for (const l of t.lines) assert.ok(text[l.line]?.startsWith(`[${l.checkpointIndex}] ${l.boundary}`), text[l.line]);
  });

  it('says a recorded run ended in its header, not "· live" (which reads as still running)', () => {
    const header = t.text.split('\n')[0] ?? '';
    assert.match(header, /· completed · recorded · \d+ checkpoints$/, header);
    assert.doesNotMatch(header, /\blive\b/, header);
  });

  it('maps checkpoints to lines and back; header and separator lines have no checkpoint', () => {
    for (const l of t.lines) {
      assert.equal(lineOfCheckpoint(t, l.checkpointId), l.line);
      assert.equal(checkpointAtLine(t, l.line)?.checkpointId, l.checkpointId);
    }
    assert.equal(checkpointAtLine(t, 0), undefined);
    assert.match(t.text.split('\n')[0] ?? '', /^# run demo-support-refund/);
    assert.ok(t.text.includes('── step 0 ──'));
  });

  it('reads on its own: the user request, tool calls with args, results, errors, usage', () => {
    assert.match(t.text, /user: Hi, my order A-10442/);
    assert.match(t.text, /before_tool_call · issue_refund\(\{.*"orderId":"A-10442".*\}\) · external_irreversible/);
    assert.match(t.text, /after_tool_call · get_shipping_events ✗ error: .*UpstreamTimeout/);
    assert.match(t.text, /after_model_call · finish tool_calls · .*usage \d+ in \/ \d+ out/);
    assert.match(t.text, /\[\d+\] agent_end · completed/);
    const longest = Math.max(...t.text.split('\n').map((l) => l.length));
    assert.ok(longest < 700, `lines stay readable (${longest} chars)`);
  });

  it('renders the same text from last messages alone (RunStore.getLastMessage) as from whole checkpoints', () => {
    const run = store.getRun('demo-support-refund');
    const cps = store.listCheckpoints(run.runId);
    const loaded: string[] = [];
    const cheap = renderTranscript(
      run,
      cps,
      (id) => {
        loaded.push(id);
        return store.getCheckpoint(id);
      },
      { toolCalls: store.listToolCalls(run.runId), lastMessage: (id) => store.getLastMessage(id) },
    );
    assert.equal(cheap.text, t.text);
    assert.deepEqual(loaded, [cps[0]?.checkpointId], 'only the first checkpoint is loaded whole');
  });

  it('a fork names its parent and fork point', () => {
    const run = store.getRun('demo-support-refund-auditor');
    const fork = renderTranscript(run, store.listCheckpoints(run.runId), (id) => store.getCheckpoint(id));
    assert.match(fork.text, /# forked from demo-support-refund @ demo-support-refund-cp029/);
  });
});
