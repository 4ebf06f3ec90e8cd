/**
 * Bad input behaves the way a user needs: a corrupt line or a record of
 * unexpected shape is skipped with a warning naming the line and listed in
 * the run's metadata; with `strict` it fails its file naming the line and
 * leaves the store untouched; a cut-off last line (a
 * transcript still being written) is skipped with a warning; unknown types
 * are counted; a 5 MB tool output, bytes that are not UTF-8 and an empty
 * file are handled; a directory import goes on past a bad file.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { checkpoints, SESSION_FILE, tempStore, type TempStore } from './helpers';

const lines = fs
  .readFileSync(SESSION_FILE, 'utf8')
  .split('\n')
  .filter((l) => l !== '');

function write(t: TempStore, name: string, content: string | Buffer): string {
  const file = path.join(t.dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

describe('bad input', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('with strict, fails a transcript with a corrupt third line saying "line 3" and leaves the store empty', async () => {
    const bad = [...lines];
    assert.match(bad[2] as string, /"type":"user"/);
    bad[2] = (bad[2] as string).replace('"type":"user"', '"type" "user"');
    const file = write(t, 'corrupt/session.jsonl', bad.join('\n') + '\n');
    const summary = await importPath(t.store, file, { strict: true });
    assert.equal(summary.failed, 1);
    assert.match(String(summary.files[0]?.reason), /line 3: not valid JSON/);
    assert.equal(t.store.listRuns().total, 0);
  });

  it('with strict, fails a line whose fields are wrong, naming the line and the field', async () => {
    const obj = JSON.parse(lines[4] as string) as { message: { content: unknown } };
    obj.message.content = [{ type: 'tool_use', id: 'toolu_x', input: {} }];
    const bad = [...lines];
    bad[4] = JSON.stringify(obj);
    const summary = await importPath(t.store, write(t, 'badfield/s.jsonl', bad.join('\n')), { strict: true });
    assert.equal(summary.failed, 1);
    assert.match(String(summary.files[0]?.reason), /line 5: message\.content\[0\]: name: .*expected string/);
    assert.equal(t.store.listRuns().total, 0);
  });

  it('skips a corrupt line and a record of unexpected shape, naming them, and keeps the session', async () => {
    const other = tempStore();
    try {
      const bad = [...lines];
      bad[2] = (bad[2] as string).replace('"type":"user"', '"type" "user"');
      const obj = JSON.parse(bad[4] as string) as { message: Record<string, unknown> };
      obj.message.contnet = obj.message.content; // a misspelt key: the line has no content
      delete obj.message.content;
      bad[4] = JSON.stringify(obj);
      const file = write(other, 'skips/session.jsonl', bad.join('\n') + '\n');
      const summary = await importPath(other.store, file);
      assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
      assert.equal(summary.skippedRecords, 2);
      const warnings = summary.files[0]?.warnings ?? [];
      assert.ok(warnings.some((w) => w.line === 3 && /line 3: not valid JSON/.test(w.message)));
      assert.ok(warnings.some((w) => w.line === 5 && /line 5: message\.content: /.test(w.message)));
      const run = other.store.getRun(summary.runIds[0] as string);
      assert.deepEqual(
        (run.metadata.skippedRecords as { line: number }[]).map((r) => r.line),
        [3, 5],
      );
      // Everything else is there: the main run keeps every tool call but the Grep of the skipped line 5.
      const ids = other.store.listToolCalls(run.runId).map((r) => r.toolCallId);
      assert.equal(ids.length, 10);
      assert.ok(!ids.includes('toolu_01Grep') && ids.includes('toolu_01Read'));
    } finally {
      other.close();
    }
  });

  it('imports a transcript whose last line is cut off, warning about that line', async () => {
    const cut = lines.slice(0, 25);
    const last = cut[24] as string;
    cut[24] = last.slice(0, Math.floor(last.length / 2));
    const summary = await importPath(t.store, write(t, 'cut/session.jsonl', cut.join('\n')));
    assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
    const warnings = summary.files[0]?.warnings ?? [];
    assert.ok(
      warnings.some((w) => w.line === 25 && /line 25 is cut off/.test(w.message)),
      JSON.stringify(warnings),
    );
    const runId = summary.runIds[0] as string;
    // Line 25 was toolu_09Edit's call in the abandoned branch: it is not there.
    assert.ok(!summary.runIds.some((id) => t.store.listToolCalls(id).some((r) => r.toolCallId === 'toolu_09Edit')));
    assert.ok(t.store.getRun(runId).checkpointCount > 20);
    t.store.deleteRun(runId);
    for (const id of summary.runIds.slice(1)) if (t.store.hasRun(id)) t.store.deleteRun(id);
  });

  it('skips and counts unknown line types', async () => {
    const extra = [
      lines[0],
      JSON.stringify({ type: 'future-type', payload: { x: 1 } }),
      ...lines.slice(1, 12),
      JSON.stringify({ type: 'future-type', uuid: 'zz', parentUuid: null }),
      JSON.stringify({ type: 'another-new-one' }),
    ];
    const summary = await importPath(t.store, write(t, 'unknown/s.jsonl', extra.join('\n')));
    assert.equal(summary.imported, 1);
    assert.deepEqual(summary.files[0]?.unknownTypes, { 'future-type': 2, 'another-new-one': 1 });
    for (const id of summary.runIds) t.store.deleteRun(id);
  });

  it('keeps a 5 MB tool output whole', async () => {
    const big = 'x'.repeat(5 * 1024 * 1024 - 7) + '\nEND';
    const l = lines.map((s) => JSON.parse(s) as Record<string, unknown>);
    const i = l.findIndex((o) => JSON.stringify(o).includes('"tool_use_id":"toolu_02Read"'));
    const user = l[i] as { message: { content: { content: string }[] } };
    (user.message.content[0] as { content: string }).content = big;
    const summary = await importPath(t.store, write(t, 'big/s.jsonl', l.map((o) => JSON.stringify(o)).join('\n')));
    assert.equal(summary.imported, 1);
    const runId = summary.runIds[0] as string;
    const rec = t.store.getToolCall(runId, 'toolu_02Read');
    assert.equal((rec.result as string).length, big.length);
    assert.ok((rec.result as string).endsWith('END'));
    const cp = checkpoints(t.store, runId).find(
      (c) => c.toolCallId === 'toolu_02Read' && c.boundary === 'after_tool_call',
    );
    assert.equal((cp?.messages.at(-1)?.content as string).length, big.length);
    for (const id of summary.runIds) t.store.deleteRun(id);
  });

  it('imports bytes that are not UTF-8 as U+FFFD with a warning naming the line', async () => {
    const before = Buffer.from(lines.slice(0, 2).join('\n') + '\n');
    const third = Buffer.from(lines[2] as string);
    const at = third.indexOf(Buffer.from('leap years'));
    const broken = Buffer.concat([third.subarray(0, at), Buffer.from([0xff, 0xfe]), third.subarray(at)]);
    const rest = Buffer.from('\n' + lines.slice(3, 12).join('\n') + '\n');
    const summary = await importPath(t.store, write(t, 'latin/s.jsonl', Buffer.concat([before, broken, rest])));
    assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
    assert.ok(summary.files[0]?.warnings.some((w) => w.line === 3 && /not UTF-8/.test(w.message)));
    const first = checkpoints(t.store, summary.runIds[0] as string)[0];
    assert.match(String(first?.messages[0]?.content), /\uFFFD\uFFFDleap years/);
    for (const id of summary.runIds) t.store.deleteRun(id);
  });

  it('skips an empty file', async () => {
    const summary = await importPath(t.store, write(t, 'empty/none.jsonl', ''));
    assert.equal(summary.skipped, 1);
    assert.equal(summary.files[0]?.reason, 'empty file');
  });

  it('goes on past a bad file in a directory and ends with a summary', async () => {
    const dir = path.join(t.dir, 'mixed');
    write(t, 'mixed/a-good.jsonl', lines.join('\n'));
    write(t, 'mixed/b-bad.jsonl', [lines[0], lines[1], '{"type":"user",', lines[3]].join('\n'));
    write(t, 'mixed/c-empty.jsonl', '');
    write(t, 'mixed/d-notes.json', '{"hello": "world"}');
    const progress: number[] = [];
    const writes: [number, number][] = [];
    const summary = await importPath(t.store, dir, {
      onProgress: (p) => {
        progress.push(p.allBytesRead);
        if (p.phase === 'write') writes.push([p.checkpointsWritten ?? -1, p.checkpointsTotal ?? -1]);
      },
    });
    assert.deepEqual(
      summary.files.map((f) => [path.basename(f.file), f.outcome]),
      [
        ['a-good.jsonl', 'imported'],
        ['b-bad.jsonl', 'imported'],
        ['c-empty.jsonl', 'skipped'],
        ['d-notes.json', 'failed'],
      ],
    );
    assert.deepEqual(
      summary.files[1]?.skippedRecords.map((r) => r.line),
      [3],
    );
    assert.match(String(summary.files[3]?.reason), /format not recognised/);
    assert.deepEqual([summary.imported, summary.skipped, summary.failed, summary.skippedRecords], [2, 1, 1, 1]);
    assert.ok(progress.length > 0 && progress.at(-1) === summary.files.reduce((a, f) => a + f.bytes, 0));
    const total = summary.files[1]?.runs.reduce((a, r) => a + r.checkpointCount, 0);
    assert.deepEqual(writes.at(-1), [total, total], 'the write phase reports its checkpoints');
  });

  it('stops when cancelled and imports nothing of the file being read', async () => {
    const other = tempStore();
    try {
      const ac = new AbortController();
      ac.abort();
      await assert.rejects(importPath(other.store, SESSION_FILE, { signal: ac.signal }), { code: 'Cancelled' });
      assert.equal(other.store.listRuns().total, 0);
    } finally {
      other.close();
    }
  });
});
