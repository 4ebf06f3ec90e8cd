/**
 * The transcript of an imported coding session reads as the conversation it was: what the user typed shows as a
 * `user:` line where the agent took it up (Claude Code sessions have no before_prompt_build checkpoint), a turn that
 * only calls tools shows no empty `assistant:` text, and a recorded SDK run says its user's request once.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { RunView } from '../../../src/replay/runView';
import { FIXTURES, REAL_FILE, tempStore, type TempStore } from '../importers/helpers';
import { openDemoStore } from './demoStore';

const transcriptOf = (t: TempStore, runId: string) => new RunView(t.store, runId).transcript().text;

describe('the transcript of an imported Claude Code session', () => {
  let t: TempStore;
  before(async () => {
    t = tempStore();
    await importPath(t.store, REAL_FILE, {});
    await importPath(
      t.store,
      path.join(FIXTURES, 'claude-code-real', 'compaction', 'dag_compact_after_rewind.jsonl'),
      {},
    );
  });
  after(() => t.close());

  it('shows what the user typed, at the model call that took it up', () => {
    const text = transcriptOf(t, 'cc-4d5611e5-241a-462a-8d15-5122611a9569');
    assert.match(
      text,
      /^\[0\] before_model_call · 1 message · user: Work on bead spotter-dov\. Run bd show spotter-dov/m,
      text,
    );
    // each prompt of a session typed over several turns, and none at a model call after a tool's result
    const turns = transcriptOf(t, 'cc-s1');
    for (const typed of ['Start', 'Second attempt', 'Keep going']) {
      assert.match(turns, new RegExp(`before_model_call · \\d+ messages? · user: ${typed} ·`), turns);
    }
    assert.doesNotMatch(
      text,
      /^\[6\] before_model_call .*user:/m,
      'after tool results the newest message is no prompt',
    );
  });

  it('leaves out the text of a turn that only calls tools: no `assistant:  ·`', () => {
    const text = transcriptOf(t, 'cc-4d5611e5-241a-462a-8d15-5122611a9569');
    assert.match(text, /^\[1\] after_model_call · finish tool_use · → Bash\(/m, text);
    assert.doesNotMatch(text, /assistant:\s*·|assistant:\s*$/m, text);
  });
});

describe('the transcript of a recorded run', () => {
  it('says the user request once, at the prompt build, not again at the model call after it', () => {
    const store = openDemoStore();
    try {
      const text = new RunView(store, 'demo-support-refund').transcript().text;
      assert.equal(text.match(/user: Hi, my order A-10442/g)?.length, 1, text);
    } finally {
      store.close();
    }
  });
});
