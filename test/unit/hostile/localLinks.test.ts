/**
 * Hostile `.ocdb/` folders: a store folder that came with a repository may hold links where the debugger writes
 * (a transcript, its key, the transcripts folder itself, `server.json`). Nothing is ever written through a link:
 * the file a link points at (a stand-in for `~/.bashrc`) keeps its bytes, and no file the debugger writes holds a
 * run id a shell would run.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ReplayController } from '../../../src/debug/replayController';
import { transcriptPath, writeRunTranscript } from '../../../src/debug/transcriptFiles';
import { TranscriptSources } from '../../../src/debug/transcriptSources';
import { RunView } from '../../../src/replay/runView';
import { serverFilePath, writeServerFile } from '../../../src/server/serverFile';
import { openRunStore, type RunStore } from '../../../src/store';
import { writeDemoStore } from '../../../src/demo';

const RUN = 'demo-support-refund';
const VICTIM_TEXT = '# the user own shell start-up file\nexport PATH=$HOME/bin:$PATH\n';

describe('hostile .ocdb folders: links where the debugger writes', () => {
  let dir: string;
  let ocdb: string;
  let storePath: string;
  let store: RunStore;
  let victim: string;
  const cases: string[] = [];

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'att-links-'));
    ocdb = path.join(dir, '.ocdb');
    fs.mkdirSync(ocdb);
    storePath = path.join(ocdb, 'runs.db');
    store = openRunStore(storePath, { create: true });
    writeDemoStore(store);
    victim = path.join(dir, 'bashrc');
  });
  after(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`# hostile links: ${cases.length} cases, 0 written through — ${cases.join('; ')}`);
  });

  function freshVictim(): void {
    fs.rmSync(path.join(ocdb, 'transcripts'), { recursive: true, force: true });
    fs.writeFileSync(victim, VICTIM_TEXT);
  }

  /** What the debug adapter does when a session opens the run: its transcript file, or undefined (read-only view). */
  function adapterWrites(): string | undefined {
    const ctl = ReplayController.open({ runId: RUN, store: storePath });
    try {
      return new TranscriptSources(
        ctl.args.storePath,
        (p) => p,
        (p) => p,
      ).sourceOf(ctl.view).path;
    } finally {
      ctl.close();
    }
  }

  it('a link at the transcript file is replaced, never written through', () => {
    freshVictim();
    const file = transcriptPath(storePath, RUN);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.symlinkSync(victim, file);
    assert.equal(adapterWrites(), file);
    assert.equal(fs.readFileSync(victim, 'utf8'), VICTIM_TEXT, 'the linked file keeps its bytes');
    assert.ok(fs.lstatSync(file).isFile(), 'the transcript is a file of its own');
    cases.push('transcript link');
  });

  it('a link at the key file is replaced, and the key holds no run id', () => {
    freshVictim();
    const file = transcriptPath(storePath, RUN);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.symlinkSync(victim, `${file}.key`);
    assert.equal(writeRunTranscript(storePath, new RunView(store, RUN)), file);
    assert.equal(fs.readFileSync(victim, 'utf8'), VICTIM_TEXT);
    const key = fs.readFileSync(`${file}.key`, 'utf8');
    assert.ok(!key.includes(RUN), `the key names no run: ${key}`);
    assert.match(key, /^[0-9a-f]{64}\n$/);
    cases.push('key link');
  });

  it('a link at the transcripts folder: nothing written there, the session falls back to a read-only view', () => {
    freshVictim();
    const elsewhere = path.join(dir, 'home');
    fs.rmSync(elsewhere, { recursive: true, force: true });
    fs.mkdirSync(elsewhere);
    fs.symlinkSync(elsewhere, path.join(ocdb, 'transcripts'));
    assert.equal(adapterWrites(), undefined, 'no file path: a sourceReference instead');
    assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing written where the link points');
    cases.push('folder link');
  });

  it('a link planted at the temporary name the writer once used is left alone', () => {
    freshVictim();
    const file = transcriptPath(storePath, RUN);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.symlinkSync(victim, `${file}.${process.pid}.tmp`);
    assert.equal(writeRunTranscript(storePath, new RunView(store, RUN)), file);
    assert.equal(fs.readFileSync(victim, 'utf8'), VICTIM_TEXT);
    cases.push('temporary-name link');
  });

  it('a link at server.json: the server file is created as a file of its own, mode 0600', () => {
    freshVictim();
    const file = serverFilePath(storePath);
    fs.rmSync(file, { force: true });
    fs.symlinkSync(victim, file);
    writeServerFile(storePath, { url: 'http://127.0.0.1:1/', token: 'x'.repeat(32), pid: process.pid });
    assert.equal(fs.readFileSync(victim, 'utf8'), VICTIM_TEXT);
    const stat = fs.lstatSync(file);
    assert.ok(stat.isFile());
    assert.equal(stat.mode & 0o777, 0o600);
    fs.rmSync(file);
    cases.push('server.json link');
  });
});
