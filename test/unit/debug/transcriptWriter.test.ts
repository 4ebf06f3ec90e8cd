/**
 * One transcript writer: the file the debug session writes for a run at a detail level (launch argument
 * `transcriptDetail`) is byte-identical to the one the extension's path writes (RunView at the setting's level +
 * writeRunTranscript), and the levels differ only in excerpt length, never in line numbers.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { ReplayController } from '../../../src/debug/replayController';
import { transcriptPath, writeRunTranscript } from '../../../src/debug/transcriptFiles';
import { TranscriptSources } from '../../../src/debug/transcriptSources';
import { RunView } from '../../../src/replay/runView';
import { EXCERPT_LENGTHS, TRANSCRIPT_DETAILS, type TranscriptDetail } from '../../../src/replay/transcript';
import { openRecorder } from '../../../src/recorder';
import type { RunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { openDemoStore } from '../extension/demoStore';

const RUN = 'demo-support-refund';

describe('one transcript writer', () => {
  let demo: ReturnType<typeof openDemoStore>;
  let store: RunStore;
  let storePath: string;
  before(() => {
    demo = openDemoStore();
    store = demo.store;
    storePath = path.join(demo.dir, 'runs.db');
  });
  after(() => demo.cleanup());

  /** What the debug session writes when launched with `detail`. */
  function writtenByAdapter(detail: TranscriptDetail): string {
    const ctl = ReplayController.open({ runId: RUN, store: storePath, transcriptDetail: detail });
    try {
      const sources = new TranscriptSources(
        ctl.args.storePath,
        (p) => p,
        (p) => p,
      );
      const file = sources.sourceOf(ctl.view).path;
      assert.ok(file, 'the session serves the transcript as a file');
      return fs.readFileSync(file, 'utf8');
    } finally {
      ctl.close();
    }
  }

  /** What the extension writes with the `transcriptDetail` setting at `detail` (TranscriptService.ensureFile). */
  function writtenByExtension(detail: TranscriptDetail): string {
    const file = writeRunTranscript(storePath, new RunView(store, RUN, { detail }));
    assert.ok(file);
    return fs.readFileSync(file, 'utf8');
  }

  it('the same run at the same detail level is the same bytes whoever writes it, and neither rewrites the other', () => {
    const file = transcriptPath(storePath, RUN);
    for (const detail of TRANSCRIPT_DETAILS) {
      fs.rmSync(file, { force: true });
      const byExtension = writtenByExtension(detail);
      const mtime = fs.statSync(file).mtimeMs;
      const byAdapter = writtenByAdapter(detail);
      assert.equal(byAdapter, byExtension, `${detail}: adapter and extension write the same text`);
      assert.equal(fs.statSync(file).mtimeMs, mtime, `${detail}: F5 does not rewrite the open transcript`);
    }
  });

  it('the levels differ in excerpt length only: same lines, the user request cut at 60 / 100 / 400 characters', () => {
    const texts = TRANSCRIPT_DETAILS.map((d) => writtenByAdapter(d).split('\n'));
    const [compact, normal, full] = texts as [string[], string[], string[]];
    assert.equal(compact.length, full.length, 'one line per checkpoint at every level');
    for (let i = 0; i < full.length; i++) {
      assert.equal(compact[i]?.slice(0, 3), full[i]?.slice(0, 3), `line ${i} is the same checkpoint`);
    }
    const userExcerpt = (lines: string[]) => /user: (.*)$/.exec(lines.find((l) => l.includes('user: ')) ?? '')?.[1];
    assert.equal(userExcerpt(compact)?.length, EXCERPT_LENGTHS.compact);
    assert.equal(userExcerpt(normal)?.length, EXCERPT_LENGTHS.normal);
    const whole = userExcerpt(full) ?? '';
    assert.ok(whole.length > EXCERPT_LENGTHS.normal && whole.length <= EXCERPT_LENGTHS.full, whole);
  });

  /** A view of `runId` at `detail` that counts its renderings. */
  function countingView(runId: string, detail: TranscriptDetail = 'normal'): { view: RunView; renders: () => number } {
    const view = new RunView(store, runId, { detail });
    let renders = 0;
    const render = view.transcript.bind(view);
    view.transcript = () => (renders++, render());
    return { view, renders: () => renders };
  }

  it('a session that finds the transcript written from the same run renders nothing; a run that grew is rendered again', async () => {
    const file = transcriptPath(storePath, RUN);
    fs.rmSync(file, { force: true });
    const first = countingView(RUN);
    assert.equal(writeRunTranscript(storePath, first.view), file);
    assert.equal(first.renders(), 1);
    const text = fs.readFileSync(file, 'utf8');

    const again = countingView(RUN);
    assert.equal(writeRunTranscript(storePath, again.view), file);
    assert.equal(again.renders(), 0, 'the file written from the same run is the transcript');
    assert.equal(fs.readFileSync(file, 'utf8'), text);
    assert.deepEqual(again.view.lines(), first.view.transcript().lines, 'frames point at the lines of the text');
    assert.equal(again.renders(), 0);

    const full = countingView(RUN, 'full');
    writeRunTranscript(storePath, full.view);
    assert.equal(full.renders(), 1, 'another detail level is rendered');

    // a run still being recorded: each checkpoint moves it on
    const recorder = openRecorder({ store: storePath, heartbeatMs: 0 });
    const live = recorder.startRun({
      runId: 'growing',
      agentId: 'transcripts',
      runtimeContext: testContext(),
      messages: [{ role: 'user', content: 'go' }],
    });
    try {
      // a model's answer is in the store when the agent's turn ends (group commit: RecorderOptions.groupCommit)
      await live.modelCall({}, () => Promise.resolve({ message: { role: 'assistant', content: 'step one' } }));
      await setImmediate();
      writeRunTranscript(storePath, countingView('growing').view);
      await live.modelCall({}, () => Promise.resolve({ message: { role: 'assistant', content: 'step two' } }));
      await setImmediate();
      const grown = countingView('growing');
      const grownFile = writeRunTranscript(storePath, grown.view);
      assert.equal(grown.renders(), 1, 'the run grew: rendered again');
      assert.match(fs.readFileSync(grownFile ?? '', 'utf8'), /assistant: step two/);
    } finally {
      live.end();
      recorder.close();
    }
  });

  it("every demo run's lines without rendering are those of its rendered transcript", () => {
    for (const run of store.listRuns().runs) {
      const view = new RunView(store, run.runId);
      const lines = view.lines();
      assert.deepEqual(lines, new RunView(store, run.runId).transcript().lines, run.runId);
    }
  });
});
