/** Replaying a run that is still being recorded: stepping past the end picks up what the recorder wrote since. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import type { Recorder } from '../../src/recorder';
import type { RunRecorder } from '../../src/recorder/runRecorder';
import { demoStore, startClient, type OcdbDebugClient } from './support/dapClient';
import { startLiveRun } from './support/liveRecording';

describe('a run still being recorded', () => {
  let dc: OcdbDebugClient;
  let recorder: Recorder;
  let run: RunRecorder;
  let store: string;
  before(async () => {
    store = demoStore();
    ({ recorder, run } = await startLiveRun(store, { runId: 'live-run', agentId: 'live-agent' }, 'Q3 report'));
    dc = await startClient();
  });
  after(async () => {
    await dc.stop();
    run.end();
    recorder.close();
  });

  it('stepping past the last checkpoint shows the checkpoints recorded since launch', async () => {
    await dc.launchAndStop({ runId: 'live-run', store });
    await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
    assert.equal((await dc.frames(0)).totalFrames, 3);
    assert.equal((await dc.topFrame()).name, 'step 0 · after_model_call');

    const search = run.tool('search', { sideEffectLevel: 'read_only' }, () => ({ hits: ['reports/q3.pdf'] }));
    await search({ q: 'Q3 report' }, { toolCallId: 'c1' });
    await setImmediate(); // the tool's result is in the store when the agent's turn ends (group commit)

    await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
    const top = await dc.topFrame();
    assert.equal(top.name, 'step 0 · before_tool_call · search');
    assert.equal((await dc.frames(0)).totalFrames, 4);
    const text = fs.readFileSync(top.source?.path ?? '', 'utf8');
    assert.match(text.split('\n')[top.line - 1] ?? '', /^\[3\] before_tool_call · search/);
    assert.match(text, /\[4\] after_tool_call · search → \{"hits":\["reports\/q3.pdf"\]\}/);
  });
});
