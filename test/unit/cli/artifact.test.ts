/**
 * Artifacts on the command line (the built `ocdb`, real processes): `ocdb show` lists them, `ocdb artifact`
 * prints a text one, saves a PNG with -o byte for byte, pipes binary but never prints it to a terminal, picks
 * the version a checkpoint carries, and says which artifacts there are when the name is wrong; `ocdb diff`
 * names the changed case report of the demo's auditor fork; export then load into a fresh store carries the
 * contents, so the loaded run's artifacts open.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpDir } from '../../helpers/tmp';

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const PNG = readFileSync(join(ROOT, 'media', 'screenshot.png'));

function ocdb(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'buffer' });
  return { code: r.status, out: r.stdout.toString('utf8'), bytes: r.stdout, err: r.stderr.toString('utf8') };
}

const dir = tmpDir();
const store = join(dir, 'd.db');
const freshDirs = [tmpDir(), tmpDir(), tmpDir()];

before(() => {
  assert.equal(ocdb(['demo', '--store', store]).code, 0);
  // a run with a PNG and two versions of a text artifact, recorded through the SDK
  const db = openRunStore(store);
  let t = 5000;
  const recorder = openRecorder({ runStore: db, heartbeatMs: 0, now: () => (t += 10) });
  const run = recorder.startRun({ runId: 'with-png', agentId: 'charts', runtimeContext: testContext() });
  run.artifact({ type: 'text/plain', name: 'notes.txt', content: 'first draft\n' });
  run.checkpoint('before_prompt_build');
  run.artifact({ type: 'text/plain', name: 'notes.txt', content: 'final notes\n' });
  run.artifact({ type: 'image/png', name: 'chart.png', content: PNG, metadata: { width: 1280 } });
  run.end();
  recorder.close();
  db.close();
});

describe('ocdb and artifacts', () => {
  it('ocdb show lists the case report of the demo refund; --json has every version', () => {
    const show = ocdb(['show', 'demo-support-refund', '--store', store]);
    assert.equal(show.code, 0, show.err);
    assert.match(show.out, /Artifacts\nNAME +VERSION +TYPE +SIZE +HASH +CREATED\n/);
    assert.match(show.out, /case-report\.md +v1 +text\/markdown +\d+ B +[0-9a-f]{12} +2026-11-02/);
    const json = JSON.parse(ocdb(['show', 'with-png', '--json', '--store', store]).out) as {
      artifacts: { artifactId: string; version: number }[];
    };
    assert.deepEqual(
      json.artifacts.map((a) => `${a.artifactId}@${a.version}`),
      ['notes.txt@1', 'notes.txt@2', 'chart.png@1'],
    );
    const text = ocdb(['show', 'with-png', '--store', store]).out;
    assert.match(text, /notes\.txt +v2 +text\/plain +12 B/, 'the text lists the newest of each name');
    assert.doesNotMatch(text, /notes\.txt +v1/);
  });

  it('ocdb artifact prints a text artifact; --checkpoint picks the version that checkpoint carries', () => {
    const report = ocdb(['artifact', 'demo-support-refund', 'case-report.md', '--store', store]);
    assert.equal(report.code, 0, report.err);
    assert.match(report.out, /^# Case report CR-2026-1104 · ticket T-2026-11-0192\n/);
    assert.match(report.out, /acting as support_agent/);
    assert.match(report.out, /Refund RF-88213 issued/);
    assert.equal(ocdb(['artifact', 'with-png', 'notes.txt', '--store', store]).out, 'final notes\n');
    assert.equal(ocdb(['artifact', 'with-png', 'notes.txt', '--version', '1', '--store', store]).out, 'first draft\n');
    const first = ocdb(['artifact', 'with-png', 'notes.txt', '--checkpoint', 'with-png#0', '--store', store]);
    const cps = JSON.parse(ocdb(['show', 'with-png', '--json', '--store', store]).out) as {
      checkpoints: { checkpointId: string }[];
    };
    const firstId = cps.checkpoints[0]!.checkpointId;
    const atFirst = ocdb(['artifact', 'with-png', 'notes.txt', '--checkpoint', firstId, '--store', store]);
    assert.equal(atFirst.out, 'first draft\n', 'the first checkpoint carries the first draft');
    assert.equal(first.code, 3, 'an unknown checkpoint is not found');
    const list = ocdb(['artifact', 'with-png', '--store', store]);
    assert.match(list.out, /chart\.png +v1 +image\/png +\d+\.\d KB/);
  });

  it('ocdb artifact -o writes a PNG byte for byte; binary goes down a pipe as it is', () => {
    const out = join(dir, 'chart.png');
    const saved = ocdb(['artifact', 'with-png', 'chart.png', '-o', out, '--store', store]);
    assert.equal(saved.code, 0, saved.err);
    assert.match(saved.err, /wrote chart\.png v1 \(\d+\.\d KB\) to /);
    assert.ok(readFileSync(out).equals(PNG));
    const piped = ocdb(['artifact', 'with-png', 'chart.png', '--store', store]);
    assert.equal(piped.code, 0, piped.err);
    assert.ok(piped.bytes.equals(PNG), 'stdout (a pipe here) gets the bytes');
  });

  it('a wrong name says which artifacts the run has (exit 3); a bad version is a usage error', () => {
    const wrong = ocdb(['artifact', 'with-png', 'chart.jpg', '--store', store]);
    assert.equal(wrong.code, 3);
    assert.match(wrong.err, /ocdb artifact: Run with-png has no artifact chart\.jpg; it has notes\.txt, chart\.png\./);
    const bad = ocdb(['artifact', 'with-png', 'notes.txt', '--version', 'two', '--store', store]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--version: expected a whole number from 1 \(got two\)/);
    assert.equal(ocdb(['artifact', 'nope', 'x', '--store', store]).code, 3);
  });

  it('ocdb diff names the changed case report of the auditor fork, with sizes', () => {
    const diff = ocdb(['diff', 'demo-support-refund', 'demo-support-refund-auditor', '--store', store]);
    assert.equal(diff.code, 0, diff.err);
    assert.match(diff.out, /Artifacts that differ:\n {2}case-report\.md: changed \(v1 \d+ B → v1 \d+ B\)/);
    const json = JSON.parse(
      ocdb(['diff', 'demo-support-refund', 'demo-support-refund-auditor', '--json', '--store', store]).out,
    ) as { artifacts: { name: string; change: string; left?: { size?: number }; right?: { size?: number } }[] };
    assert.equal(json.artifacts.length, 1);
    assert.equal(json.artifacts[0]!.change, 'changed');
    assert.ok((json.artifacts[0]!.left?.size ?? 0) > 500 && (json.artifacts[0]!.right?.size ?? 0) > 500);
    // two unrelated runs: the other's artifacts are added or removed
    const unrelated = JSON.parse(
      ocdb(['diff', 'with-png', 'demo-support-escalation', '--json', '--store', store]).out,
    ) as { artifacts: { name: string; change: string }[] };
    assert.deepEqual(
      unrelated.artifacts.map((a) => `${a.name}:${a.change}`),
      ['notes.txt:removed', 'chart.png:removed'],
    );
  });

  it('export then load into a fresh store carries the contents: the loaded artifacts open', () => {
    const file = join(dir, 'with-png.json');
    assert.equal(ocdb(['export', 'with-png', '--out', file, '--store', store]).code, 0);
    const exported = JSON.parse(readFileSync(file, 'utf8')) as {
      artifactContents: Record<string, { encoding: string; data: string }>;
    };
    const encodings = Object.values(exported.artifactContents)
      .map((c) => c.encoding)
      .sort();
    assert.deepEqual(encodings, ['base64', 'utf8', 'utf8'], 'text as it is, the PNG in base64');
    const fresh = join(freshDirs[0]!, 'fresh.db');
    const load = ocdb(['load', file, '--store', fresh]);
    assert.equal(load.code, 0, load.err);
    const out = join(dir, 'loaded.png');
    assert.equal(ocdb(['artifact', 'with-png', 'chart.png', '-o', out, '--store', fresh]).code, 0);
    assert.ok(readFileSync(out).equals(PNG));
    assert.equal(ocdb(['artifact', 'with-png', 'notes.txt', '--version', '1', '--store', fresh]).out, 'first draft\n');
    // export of the loaded run is the same file
    const again = join(dir, 'again.json');
    ocdb(['export', 'with-png', '--out', again, '--store', fresh]);
    assert.equal(readFileSync(again, 'utf8'), readFileSync(file, 'utf8'));
  });

  it('ocdb load refuses contents that do not match their hash, and loads nothing', () => {
    const file = join(dir, 'tampered.json');
    assert.equal(ocdb(['export', 'with-png', '--out', file, '--store', store]).code, 0);
    const run = JSON.parse(readFileSync(file, 'utf8')) as {
      artifactContents: Record<string, { encoding: string; data: string }>;
    };
    const text = Object.entries(run.artifactContents).find(([, c]) => c.data === 'final notes\n');
    assert.ok(text);
    text[1].data = 'forged notes\n';
    const tampered = join(dir, 'tampered2.json');
    writeFileSync(tampered, JSON.stringify(run));
    const fresh = join(freshDirs[1]!, 'fresh.db');
    const load = ocdb(['load', tampered, '--store', fresh]);
    assert.equal(load.code, 2, load.err);
    assert.match(
      load.err,
      new RegExp(`artifactContents\\.${text[0]}: the content's hash is [0-9a-f]{32}, not ${text[0]}`),
    );
    assert.equal(ocdb(['show', 'with-png', '--store', fresh]).code, 3, 'nothing was loaded');
  });
});
