/**
 * A real session of another editor: Debian's Emacs with its dap-mode package (`emacs-nox elpa-dap-mode`, installed
 * by .ci/run) loads the dap-mode block of media/docs/debugger.md as it is and drives `ocdb dap` in batch mode with dap-mode's own
 * commands (test/dap/support/dapMode.el): launch, step forward and back, a breakpoint added in the transcript buffer,
 * evaluate, a run growing while it is replayed, disconnect, a long run's stop as dap-mode asks for it (every frame, a
 * scope unpaged), and an attach that stops a real agent process. Without Emacs and dap-mode this test fails: it is part
 * of the DAP layer, not an optional extra.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import type { Recorder } from '../../src/recorder';
import type { RunRecorder } from '../../src/recorder/runRecorder';
import { openRunStore } from '../../src/store';
import { recordLongRun } from '../bench/longRun';
import { ROOT, buildOnce, checkpointsOf } from './support/dapClient';
import { startAgent } from './support/liveAgent';
import { startLiveRun } from './support/liveRecording';

const DRIVER = path.join(ROOT, 'test', 'dap', 'support', 'dapMode.el');
const INSTALL =
  'Emacs and dap-mode are required for the DAP tests: apt-get install emacs-nox elpa-dap-mode (see .ci/run)';

/** True when a debugger is attached to the runs of `agentId` in `store`. */
function attachedIn(store: string, agentId: string): boolean {
  const s = openRunStore(store, { create: false });
  try {
    return s.liveAttachmentFor('', agentId, Date.now()) !== undefined;
  } finally {
    s.close();
  }
}

/** The dap-mode block of media/docs/debugger.md, exactly as a user would paste it. */
/** What Emacs printed that explains a failure: from the attach on (its DAP messages), else the last lines. */
function stderrOfInterest(stderr: string): string {
  const attach = stderr.indexOf('ocdb: attach begins');
  return attach >= 0 ? stderr.slice(attach, attach + 20000) : stderr.slice(-3000);
}

function readmeSnippet(): string {
  const doc = fs.readFileSync(path.join(ROOT, 'media/docs/debugger.md'), 'utf8');
  const blocks = [...doc.matchAll(/```elisp\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const block = blocks.find((b) => b.includes('dap-register-debug-provider'));
  assert.ok(block, 'media/docs/debugger.md has a dap-mode (elisp) block');
  return block;
}

interface Check {
  check: string;
  value: unknown;
}
interface Frame {
  name: string;
  line: number;
  text: string;
}

describe('Emacs dap-mode drives ocdb dap', () => {
  let checks: Check[] = [];
  let stderr = '';
  let code: number | null = null;
  let recorder: Recorder;
  let run: RunRecorder;
  let agentExit: number | null | undefined;
  let agentLines: Record<string, unknown>[] = [];
  let agentStderr = '';
  let agentStarted = false;
  const byName = (name: string) => checks.find((c) => c.check === name)?.value;

  before(async () => {
    const emacs = spawnSync('emacs', ['--batch', '--eval', "(progn (package-initialize) (require 'dap-mode))"], {
      encoding: 'utf8',
    });
    assert.equal(emacs.error, undefined, `${INSTALL}: ${String(emacs.error)}`);
    assert.equal(emacs.status, 0, `${INSTALL}: ${emacs.stderr}`);

    buildOnce();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-emacs-'));
    const store = path.join(dir, '.ocdb', 'runs.db');
    const demo = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'demo', '--store', store], {
      encoding: 'utf8',
    });
    assert.equal(demo.status, 0, demo.stderr);
    const snippet = path.join(dir, 'readme-dap-mode.el');
    fs.writeFileSync(snippet, readmeSnippet());
    const growth = path.join(dir, 'grown');
    const growRequest = path.join(dir, 'grow-now');
    const attachReady = path.join(dir, 'attach-ready');
    const agentDone = path.join(dir, 'agent-done');

    ({ recorder, run } = await startLiveRun(store, { runId: 'emacs-live-run', agentId: 'live-agent' }));
    const longRun = recordLongRun(store, 600, 'emacs-long-run');
    const longEnd = checkpointsOf(store, longRun).at(-1)?.checkpointId ?? '';

    const env = {
      ...process.env,
      OCDB_STORE: '',
      OCDB_CLI: path.join(ROOT, 'dist', 'cli.js'),
      OCDB_README_SNIPPET: snippet,
      OCDB_GROWING_RUN: 'emacs-live-run',
      OCDB_GROWTH_FILE: growth,
      OCDB_GROW_REQUEST: growRequest,
      OCDB_LONG_RUN: longRun,
      OCDB_LONG_RUN_END: longEnd,
      OCDB_ATTACH_AGENT: 'emacs-order-bot',
      OCDB_ATTACH_READY: attachReady,
      OCDB_AGENT_DONE: agentDone,
    };
    const proc = spawn('emacs', ['--batch', '-l', DRIVER], { cwd: dir, env });
    let out = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        checks.push(JSON.parse(line) as Check);
      }
    });
    // the run grows while it is replayed: when the driver asks, record the tool call it stopped before
    const poll = setInterval(() => {
      if (!fs.existsSync(growRequest)) return;
      clearInterval(poll);
      const search = run.tool('search', { sideEffectLevel: 'read_only' }, () => ({ hits: ['q3.pdf'] }));
      // the driver steps once the file is there: after the agent's turn ended, when the tool result is committed
      void search({ q: 'Q3' }, { toolCallId: 'c1' })
        .then(() => setImmediate())
        .then(() => fs.writeFileSync(growth, 'grown'));
    }, 50);
    // "Attach to agent run": once Emacs is attached, a real agent process of that id runs (and is stopped)
    const attachPoll = setInterval(() => {
      // Emacs says when its session runs; the agent starts once the store holds the attachment (not before: a
      // quick agent would finish unattached)
      if (!fs.existsSync(attachReady) || !attachedIn(store, 'emacs-order-bot')) return;
      clearInterval(attachPoll);
      const agent = startAgent(store, { agentId: 'emacs-order-bot' });
      agentStarted = true;
      void agent.exited.then((c) => {
        agentExit = c;
        agentLines = agent.lines;
        agentStderr = agent.stderr;
        fs.writeFileSync(agentDone, String(c));
      });
    }, 50);
    const timer = setTimeout(() => proc.kill(), 120_000);
    code = await new Promise<number | null>((resolve) => proc.on('exit', (c) => resolve(c)));
    clearTimeout(timer);
    clearInterval(poll);
    clearInterval(attachPoll);
  });
  after(() => {
    run.end();
    recorder.close();
    checks = [];
  });

  // the attach part: whether the agent was started (Emacs attached in the store), how it ended, what it printed
  const why = () =>
    `checks: ${JSON.stringify(checks)}\nagent: ${agentStarted ? `started, exit ${String(agentExit)}, lines ${JSON.stringify(agentLines.slice(-5))}, stderr ${JSON.stringify(agentStderr.slice(-2000))}` : 'never started (no attachment seen in the store)'}\nstderr: ${stderrOfInterest(stderr)}`;

  it('the session ran to the end without an error', () => {
    assert.equal(byName('error'), undefined, why());
    assert.equal(code, 0, why());
  });
  it('the documented block registers "Replay agent run"', () => {
    assert.equal(byName('snippet-loaded'), true, why());
    assert.equal((byName('capabilities') as { stepBack: boolean } | undefined)?.stepBack, true, why());
  });
  it('launch stops on entry with point on the first checkpoint of the transcript', () => {
    const f = byName('entry') as Frame | undefined;
    assert.equal(f?.name, 'step 0 · before_prompt_build', why());
    assert.match(f?.text ?? '', /^\[0\] before_prompt_build/, why());
  });
  it('dap-next steps forward, stepBack steps back', () => {
    assert.match((byName('next') as Frame | undefined)?.text ?? '', /^\[1\] /, why());
    assert.match((byName('stepBack') as Frame | undefined)?.text ?? '', /^\[0\] before_prompt_build/, why());
  });
  it('a breakpoint added in the transcript buffer is verified and dap-continue stops on it', () => {
    const line = byName('breakpoint-set');
    const f = byName('breakpoint') as Frame | undefined;
    assert.equal(f?.line, line, why());
    assert.match(f?.text ?? '', /before_tool_call · send_email/, why());
  });
  it('evaluate answers at the stop; a bad expression is an error message, not a crash', () => {
    assert.equal(byName('evaluate'), '"send_email"', why());
    assert.match(String(byName('evaluate-error')), /\[\[\[/, why());
  });
  it('a run growing while it is replayed: the stop past the old end is on its line of the reread transcript', () => {
    const end = byName('growing-end') as Frame | undefined;
    assert.match(end?.text ?? '', /^\[2\] after_model_call/, why());
    const next = byName('growing-next') as Frame | undefined;
    assert.equal(next?.name, 'step 0 · before_tool_call · search', why());
    assert.match(next?.text ?? '', /^\[3\] before_tool_call · search/, why());
  });
  it("a long run's stop in dap-mode lists the newest 200 frames and a label, and Messages as index ranges", () => {
    assert.deepEqual(
      byName('long-frames'),
      {
        count: 201,
        first: 'end · agent_end',
        last: '… 400 earlier checkpoints not listed: step back to reach them',
      },
      why(),
    );
    assert.deepEqual(
      byName('long-messages'),
      ['[0 … 99]', '[100 … 199]', '[200 … 299]', '[300 … 399]', '[400 … 499]', '[500 … 598]'],
      why(),
    );
  });
  it('dap-disconnect ends the adapter', () => {
    assert.equal(byName('disconnected'), true, why());
  });
  it('"Attach to agent run" stops a real agent at its first boundary, with a Pending scope; dap-continue lets it finish', () => {
    const f = byName('attach-entry') as Frame | undefined;
    assert.equal(f?.name, 'step 0 · before_prompt_build', why());
    assert.match(f?.text ?? '', /^\[0\] before_prompt_build/, why());
    assert.equal(byName('attach-pending'), 'Pending', why());
    assert.equal(agentExit, 0, why());
    assert.ok(
      agentLines.some((l) => l.done === true),
      'the agent ran to its end',
    );
    assert.equal(byName('attach-disconnected'), true, why());
  });
});
