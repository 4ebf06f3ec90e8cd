/**
 * A long recorded run for export measurements: `checkpoints` checkpoints
 * through the SDK, the conversation growing by one ~300-character message at
 * each (so every checkpoint repeats the conversation so far, as real agents
 * do). `node --import tsx test/bench/longRun.ts <store> [checkpoints]`.
 */
import { openRecorder } from '../../src/recorder';
import { openRunStore } from '../../src/store';
import { testContext } from '../helpers/context';

export function recordLongRun(storePath: string, checkpoints: number, runId = 'long-run'): string {
  const store = openRunStore(storePath);
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, fork: false });
  const run = recorder.startRun({ agentId: 'long-agent', runId, runtimeContext: testContext() });
  const messages: { role: 'user' | 'assistant'; content: string }[] = [];
  for (let i = 0; i < checkpoints - 1; i++) {
    messages.push({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `message ${i}: ${'lorem ipsum dolor sit amet '.repeat(11)}`,
    });
    run.checkpoint(i % 2 === 0 ? 'before_model_call' : 'after_model_call', { messages: [...messages] });
  }
  run.end();
  recorder.close();
  store.close();
  return run.runId;
}

if (require.main === module) {
  const [file, count] = process.argv.slice(2);
  if (!file) throw new Error('usage: longRun.ts <store> [checkpoints]');
  recordLongRun(file, Number(count ?? 2001));
}
