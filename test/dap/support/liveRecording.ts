/**
 * A run still being recorded, for the DAP tests that replay a growing run: started through the SDK with one prompt
 * build and one model call that asks for `search`, left open for the test to grow and end.
 */
import { openRecorder, type Recorder } from '../../../src/recorder';
import type { RunRecorder } from '../../../src/recorder/runRecorder';
import { testContext } from '../../helpers/context';

export async function startLiveRun(
  store: string,
  ids: { runId: string; agentId: string },
  query = 'Q3',
): Promise<{ recorder: Recorder; run: RunRecorder }> {
  const recorder = openRecorder({ store });
  const run = recorder.startRun({
    ...ids,
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'Find the Q3 report.' }],
  });
  run.checkpoint('before_prompt_build');
  await run.modelCall({}, () =>
    Promise.resolve({
      message: {
        role: 'assistant',
        content: [{ type: 'tool_call', toolCallId: 'c1', toolName: 'search', args: { q: query } }],
      },
      finishReason: 'tool_calls',
    }),
  );
  return { recorder, run };
}
