/**
 * The `transcriptDetail` launch argument over DAP: a replay launched with `full` writes the transcript with
 * 400-character excerpts, and the lines its frames point at are the checkpoint lines of that file.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { afterEach, before, beforeEach, describe, it } from 'node:test';
import { frameName } from '../../src/debug/frames';
import { EXCERPT_LENGTHS } from '../../src/replay/transcript';
import type { CheckpointSummary } from '../../src/store';
import { checkpointsOf, demoStore, startClient, type OcdbDebugClient } from './support/dapClient';

const RUN = 'demo-support-refund';

describe('DAP transcript detail', () => {
  let store: string;
  let cps: CheckpointSummary[];
  let dc: OcdbDebugClient;
  before(() => {
    store = demoStore();
    cps = checkpointsOf(store, RUN);
  });
  beforeEach(async () => {
    dc = await startClient();
  });
  afterEach(async () => {
    await dc.stop();
  });

  it("launched with transcriptDetail 'full', the transcript has long excerpts and every frame points at its line", async () => {
    await dc.launchAndStop({ runId: RUN, store, transcriptDetail: 'full' });
    for (let i = 0; i < 12; i++) await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
    const { stackFrames } = await dc.frames(0);
    assert.equal(stackFrames.length, 13);
    const file = stackFrames[0]?.source?.path;
    assert.ok(file && fs.existsSync(file), 'the frames name the transcript file');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const user = /user: (.*)$/.exec(lines.find((l) => l.includes(' · user: ')) ?? '')?.[1] ?? '';
    assert.ok(
      user.length > EXCERPT_LENGTHS.normal && user.length <= EXCERPT_LENGTHS.full,
      `the user request is shown up to ${EXCERPT_LENGTHS.full} characters (${user.length}): ${user}`,
    );
    assert.ok(
      lines.some((l) => l.length > 2 * EXCERPT_LENGTHS.normal),
      'some line is longer than a normal transcript allows',
    );
    stackFrames.forEach((frame, depth) => {
      const index = 12 - depth;
      const cp = cps[index] as CheckpointSummary;
      assert.equal(frame.name, frameName(cp));
      const text = lines[frame.line - 1] ?? '';
      assert.ok(text.startsWith(`[${index}] ${cp.boundary}`), `frame ${depth} → line ${frame.line}: ${text}`);
    });
  });

  it('an unknown detail level is refused, naming the field', async () => {
    await dc.initializeRequest();
    await assert.rejects(
      dc.launchRequest({ runId: RUN, store, transcriptDetail: 'verbose' } as never),
      /transcriptDetail/,
    );
  });
});
