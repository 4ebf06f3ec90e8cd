import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

test('a message the agent mutates in place between checkpoints is recorded as it was each time', () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({ agentId: 'streamer', runtimeContext: testContext() });
  const parts: unknown[] = [{ type: 'text', text: 'Hel' }];
  const streaming: Message = { role: 'assistant', content: parts };
  const messages: Message[] = [{ role: 'user', content: 'hi' }, streaming];
  run.checkpoint('before_model_call', { messages });
  parts.push({ type: 'text', text: 'lo' }); // a streaming agent appends to the same array
  run.checkpoint('after_model_call', { messages });
  (streaming as { content: unknown }).content = 'Hello, done';
  run.checkpoint('after_model_call', { messages });
  run.end();
  recorder.close();
  const cps = store.listCheckpoints(run.runId).map((c) => store.getCheckpoint(c.checkpointId));
  assert.deepEqual(cps[0]?.messages[1]?.content, [{ type: 'text', text: 'Hel' }]);
  assert.deepEqual(cps[1]?.messages[1]?.content, [
    { type: 'text', text: 'Hel' },
    { type: 'text', text: 'lo' },
  ]);
  assert.equal(cps[2]?.messages[1]?.content, 'Hello, done');
});
