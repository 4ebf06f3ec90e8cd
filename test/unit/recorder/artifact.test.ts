import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_ARTIFACT_BYTES, OcdbError } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { testContext } from '../../helpers/context';
import { tmpDir, tmpStore } from '../../helpers/tmp';

const PNG = readFileSync(join(__dirname, '../../../media/screenshot.png'));

function started(store = tmpStore()) {
  let t = 1000;
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, now: () => (t += 10) });
  const run = recorder.startRun({ agentId: 'writer', runtimeContext: testContext() });
  return { store, recorder, run };
}

test('an artifact: content stored in the store, its ref on the run at once and on the next checkpoint', () => {
  const { store, recorder, run } = started();
  run.checkpoint('before_prompt_build');
  const ref = run.artifact({
    type: 'text/markdown',
    name: 'case-report.md',
    content: '# Case T-1\n\nRefunded.\n',
    metadata: { reportId: 'CR-1' },
  });
  assert.ok(ref);
  assert.equal(ref.artifactId, 'case-report.md');
  assert.equal(ref.version, 1);
  // the hash is SHA-256 of the bytes: what `sha256sum` says, first 32 hex digits
  assert.equal(ref.contentHash, createHash('sha256').update('# Case T-1\n\nRefunded.\n').digest('hex').slice(0, 32));
  assert.equal(ref.storagePath, `blobs/${ref.contentHash}`);
  assert.deepEqual(ref.metadata, { reportId: 'CR-1' });
  // the run lists it before any checkpoint carries it (a crash now still keeps it)
  assert.deepEqual(store.exportRunHead(run.runId).artifactRefs, [ref]);
  assert.equal(store.getCheckpointAt(run.runId, 0).artifactRefs, undefined, 'no checkpoint was written for it');
  assert.equal(store.getRun(run.runId).checkpointCount, 1);
  run.checkpoint('before_model_call');
  run.end();
  recorder.close();
  const cps = store.listCheckpoints(run.runId);
  assert.deepEqual(store.getCheckpoint(cps[1]!.checkpointId).artifactRefs, [ref], 'the next checkpoint carries it');
  assert.deepEqual(store.getCheckpoint(cps[2]!.checkpointId).artifactRefs, [ref], 'and it carries over');
  assert.equal(store.getArtifactContent(ref.contentHash).toString('utf8'), '# Case T-1\n\nRefunded.\n');
  assert.deepEqual(store.listArtifacts(run.runId), [ref]);
});

test('recording a name again makes its next version; checkpoints carry the newest, the run keeps both', () => {
  const { store, run } = started();
  const v1 = run.artifact({ type: 'text/plain', name: 'notes.txt', content: 'first' })!;
  run.checkpoint('before_prompt_build');
  const v2 = run.artifact({ type: 'text/plain', name: 'notes.txt', content: 'second' })!;
  const other = run.artifact({ type: 'text/plain', name: 'other.txt', content: 'x' })!;
  run.end();
  assert.equal(v2.version, 2);
  const last = store.getCheckpointAt(run.runId, 1);
  assert.deepEqual(last.artifactRefs, [v2, other], 'v2 in place of v1, the new name after it');
  assert.deepEqual(store.getCheckpointAt(run.runId, 0).artifactRefs, [v1]);
  assert.deepEqual(
    store.listArtifacts(run.runId).map((r) => `${r.artifactId}@${r.version}`),
    ['notes.txt@1', 'notes.txt@2', 'other.txt@1'],
  );
});

test('identical content is stored once, across runs, text or bytes', () => {
  const store = tmpStore();
  const report = `# Report\n${'line of a long report\n'.repeat(200)}`;
  const a = started(store).run;
  const refA = a.artifact({ type: 'text/markdown', name: 'r.md', content: report })!;
  a.end();
  const b = started(store).run;
  const before = store.contentBytes();
  const refB = b.artifact({ type: 'text/markdown', name: 'copy.md', content: Buffer.from(report) })!;
  assert.deepEqual(store.contentBytes(), before, 'the same report again adds no blob and no byte');
  assert.equal(refB.contentHash, refA.contentHash, 'text and its bytes: one hash');
  b.artifact({ type: 'text/markdown', name: 'r2.md', content: `${report}changed\n` });
  assert.equal(store.contentBytes().blobCount, before.blobCount + 1, 'a different report is one blob more');
  b.end();
});

test('binary content (a PNG) round-trips byte for byte, from bytes, base64 and a file', () => {
  const { store, run } = started();
  const dir = tmpDir();
  const file = join(dir, 'shot.png');
  writeFileSync(file, PNG);
  const fromBytes = run.artifact({ type: 'image/png', name: 'shot.png', content: PNG })!;
  const fromBase64 = run.artifact({
    type: 'image/png',
    name: 'shot-b64.png',
    content: PNG.toString('base64'),
    encoding: 'base64',
  })!;
  const fromFile = run.artifact({ type: 'image/png', name: 'shot-file.png', path: file })!;
  run.end();
  assert.equal(fromBytes.contentHash, createHash('sha256').update(PNG).digest('hex').slice(0, 32));
  assert.equal(fromBase64.contentHash, fromBytes.contentHash);
  assert.equal(fromFile.contentHash, fromBytes.contentHash);
  assert.ok(store.getArtifactContent(fromFile.contentHash).equals(PNG), 'the same bytes back');
});

test('bad artifact input is refused with what and where, and nothing is recorded', () => {
  const { store, run } = started();
  const refuse = (input: unknown, message: RegExp) =>
    assert.throws(
      () => run.artifact(input as Parameters<typeof run.artifact>[0]),
      (e: unknown) => e instanceof OcdbError && e.code === 'InvalidInput' && message.test(e.message),
      String(message),
    );
  refuse(
    { type: 'text/plain', name: 'a', content: 'x', path: '/etc/hostname' },
    /artifact: path: give content or path, not both/,
  );
  refuse({ type: 'text/plain', name: 'a' }, /artifact: content: give content \(text or bytes\) or path/);
  refuse(
    { type: 'text/plain', name: 'a', path: join(tmpDir(), 'missing.txt') },
    /artifact: path: cannot read .*missing\.txt: ENOENT/,
  );
  refuse({ type: 'text/plain', name: 'a', path: tmpDir() }, /artifact: path: cannot read .*not a regular file/);
  refuse(
    { type: 'text/plain', name: 'a', content: 'not base64!', encoding: 'base64' },
    /artifact: content: not valid base64/,
  );
  refuse({ type: '', name: 'a', content: 'x' }, /artifact: type: type is required/);
  refuse({ type: 'text/plain', name: 'two\nlines', content: 'x' }, /artifact: name: /);
  refuse({ type: 'text/plain', name: 'a', content: 42 }, /artifact: content: /);
  refuse(
    { type: 'text/plain', name: 'big', content: new Uint8Array(MAX_ARTIFACT_BYTES + 1) },
    /artifact: content: the artifact is 16777217 bytes, over the limit of 16777216 bytes/,
  );
  const big = join(tmpDir(), 'big.bin');
  writeFileSync(big, Buffer.alloc(MAX_ARTIFACT_BYTES + 1));
  refuse(
    { type: 'application/octet-stream', name: 'big', path: big },
    /artifact: path: the artifact is 16777217 bytes/,
  );
  assert.deepEqual(store.listArtifacts(run.runId), []);
  run.end();
  assert.throws(
    () => run.artifact({ type: 'text/plain', name: 'late', content: 'x' }),
    (e: unknown) => e instanceof OcdbError && e.code === 'RunNotRunning',
  );
});

test('a run deleted takes its artifact contents with it; contents another run shares stay', () => {
  const store = tmpStore();
  const a = started(store).run;
  const shared = a.artifact({ type: 'text/plain', name: 's', content: 'shared content' })!;
  const own = a.artifact({ type: 'image/png', name: 'p', content: PNG })!;
  a.end();
  const b = started(store).run;
  b.artifact({ type: 'text/plain', name: 's', content: 'shared content' });
  b.end();
  store.deleteRun(a.runId);
  assert.equal(store.getArtifactContent(shared.contentHash).toString(), 'shared content');
  assert.throws(
    () => store.getArtifactContent(own.contentHash),
    (e: unknown) => e instanceof OcdbError && e.code === 'ArtifactNotFound',
  );
});
