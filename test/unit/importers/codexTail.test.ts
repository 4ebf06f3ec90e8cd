/**
 * A Codex rollout that grew is re-imported from where its last import stopped: only the new bytes (and the small
 * window checked before them) are read, and the run is the one a fresh import of the whole file gives — export,
 * counters, metadata and the files rebuilt at every checkpoint. A file rewritten before that point, or shorter, or
 * a compaction after it, is read whole as before, and a last line still being written is left for later. The
 * large rollout is the bench's (test/bench/largeRollout.ts: the real fixture's records cloned), the small one the
 * real published Codex 0.60.1 rollout.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { importRolloutTail } from '../../../src/importers/codex/rolloutTail';
import { fileRange } from '../../../src/importers/fileTail';
import type { ReaderOptions } from '../../../src/importers/reader';
import { sideEffectOf } from '../../../src/importers/sideEffects';
import { ROLLOUT_RUN, rolloutRecords, writeRollout } from '../../bench/largeRollout';
import { FIXTURES, counted, state, tempStores } from './helpers';

const REAL = path.join(FIXTURES, 'codex', 'rollout-2025-11-22T21-45-35-019aad50-a7e6-7422-b7a8-0b384290624f.jsonl');

const readerOptions = (): ReaderOptions => ({
  warnings: [],
  unknownTypes: {},
  sideEffectOf: (name) => sideEffectOf(name),
  skip: () => undefined,
});

/** The lines of `file` with their newlines, so a cut is a byte prefix of the file. */
const linesOf = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split(/(?<=\n)/)
    .filter((l) => l.length > 0);

describe('re-importing a grown Codex rollout from its kept tail', () => {
  const store = tempStores();
  /** A fresh import of `text` as the rollout, in a store of its own: what a continued run must equal. */
  const fresh = async (text: string) => {
    const t = store();
    const file = path.join(t.dir, path.basename(REAL));
    fs.writeFileSync(file, text);
    assert.equal((await importPath(t.store, file)).imported, 1);
    return state(t.store, t.dir, '<dir>');
  };

  it('reads only the new bytes of a large rollout and gives the run a fresh import of the whole file gives', async () => {
    const lines = rolloutRecords(300);
    const grown = store();
    // short of its last call (7 lines) and one line of the call before, imported; then grown by them
    const file = writeRollout(grown.dir, lines, lines.length - 8);
    assert.equal((await importPath(grown.store, file)).imported, 1);
    const before = fs.statSync(file).size;
    fs.appendFileSync(file, lines.slice(-8).join('\n') + '\n');
    const size = fs.statSync(file).size;
    const io = counted(file);
    const outcome = await importRolloutTail(grown.store, file, readerOptions(), io.read);
    assert.equal(outcome.kind, 'continued', JSON.stringify(outcome));
    assert.ok(outcome.kind === 'continued' && outcome.appended > 0 && outcome.readFrom === before);
    // what was read: the file's first 4 KiB (checked unchanged) and the window before the old end, then the new bytes
    const total = io.ranges.reduce((n, [, l]) => n + l, 0);
    const window = io.ranges.find(([s]) => s > 0);
    assert.ok(window, 'a read from the kept window on');
    assert.equal(window[0] + window[1], size, 'the read ends at the end of the file');
    assert.ok(window[0] <= before, 'it starts at or before the old end');
    assert.ok(total - (size - before) <= 4096 + 64 * 1024, `old bytes read again: ${total - (size - before)}`);
    assert.ok(total < size / 10, `${total} bytes read of ${size}`);

    const whole = store();
    writeRollout(whole.dir, lines);
    assert.equal((await importPath(whole.store, path.join(whole.dir, path.basename(file)))).imported, 1);
    assert.deepEqual(state(grown.store, grown.dir, '<dir>'), state(whole.store, whole.dir, '<dir>'));
    const run = grown.store.getRun(ROLLOUT_RUN);
    assert.equal(run.toolCallCount, 300);

    // and once more: nothing new, nothing written
    const again = await importPath(grown.store, file);
    assert.equal(again.skipped, 1);
    assert.match(again.files[0]?.reason ?? '', /already imported as codex-/);
  });

  it('continues the real rollout line by line, each time as its fresh import', async () => {
    const lines = linesOf(REAL);
    const t = store();
    const file = path.join(t.dir, path.basename(REAL));
    fs.writeFileSync(file, lines.slice(0, 12).join(''));
    assert.equal((await importPath(t.store, file)).imported, 1);
    let continued = 0;
    for (let cut = 13; cut <= lines.length; cut++) {
      fs.writeFileSync(file, lines.slice(0, cut).join(''));
      const outcome = await importRolloutTail(t.store, file, readerOptions(), fileRange(file));
      assert.equal(outcome.kind, 'continued', `line ${cut}: ${JSON.stringify(outcome)}`);
      continued++;
      assert.deepEqual(state(t.store, t.dir, '<dir>'), await fresh(lines.slice(0, cut).join('')), `line ${cut}`);
    }
    assert.equal(continued, lines.length - 12);
  });

  it('leaves a last line still being written for the next import', async () => {
    const lines = linesOf(REAL);
    const t = store();
    const file = path.join(t.dir, path.basename(REAL));
    fs.writeFileSync(file, lines.slice(0, 14).join(''));
    await importPath(t.store, file);
    const run = `codex-019aad50-a7e6-7422-b7a8-0b384290624f`;
    const checkpoints = t.store.getRun(run).checkpointCount;
    const half = (lines[14] as string).slice(0, 100);
    fs.appendFileSync(file, half);
    const partial = await importPath(t.store, file);
    assert.equal(partial.skipped, 1);
    assert.match(partial.files[0]?.reason ?? '', /its last line is still being written/);
    assert.equal(t.store.getRun(run).checkpointCount, checkpoints);
    fs.appendFileSync(file, (lines[14] as string).slice(100) + lines.slice(15).join(''));
    const done = await importPath(t.store, file);
    assert.equal(done.files[0]?.continued, true);
    assert.equal(done.files[0]?.readFrom, Buffer.byteLength(lines.slice(0, 14).join('')));
    assert.deepEqual(state(t.store, t.dir, '<dir>'), await fresh(lines.join('')));
  });

  it('reads a rewritten rollout whole: a changed byte before the kept end, or a shorter file', async () => {
    const lines = rolloutRecords(60);
    const t = store();
    const file = writeRollout(t.dir, lines, lines.length - 8);
    await importPath(t.store, file);
    // the same length, one byte changed near the end of what was imported, then grown
    const bytes = fs.readFileSync(file);
    const at = bytes.lastIndexOf('"timestamp":"') + '"timestamp":"'.length + 3;
    bytes[at] = bytes[at] === 0x31 ? 0x32 : 0x31;
    fs.writeFileSync(file, Buffer.concat([bytes, Buffer.from(lines.slice(-8).join('\n') + '\n')]));
    assert.deepEqual(await importRolloutTail(t.store, file, readerOptions(), fileRange(file)), {
      kind: 'fallback',
      why: 'the bytes before its end changed',
    });
    const summary = await importPath(t.store, file);
    assert.equal(summary.imported, 1);
    assert.equal(summary.files[0]?.readFrom, undefined, 'read whole');
    assert.ok(
      summary.files[0]?.warnings.some((w) => /cannot continue it, imported as a new run/.test(w.message)),
      JSON.stringify(summary.files[0]?.warnings),
    );

    const u = store();
    const shorter = writeRollout(u.dir, lines);
    await importPath(u.store, shorter);
    writeRollout(u.dir, lines, lines.length - 8);
    assert.deepEqual(await importRolloutTail(u.store, shorter, readerOptions(), fileRange(shorter)), {
      kind: 'fallback',
      why: 'the file is shorter',
    });
  });

  it('reads the rollout whole when a compaction follows the kept end, and still continues its run', async () => {
    const lines = linesOf(REAL);
    const t = store();
    const file = path.join(t.dir, path.basename(REAL));
    fs.writeFileSync(file, lines.join(''));
    await importPath(t.store, file);
    // a compaction as Codex writes it (`compacted`, its summary as `message`), then the conversation goes on:
    const compacted = `${JSON.stringify({
      timestamp: '2025-11-22T20:49:00.000Z',
      type: 'compacted',
      payload: { message: 'Summary: the repository is empty; a chess variant with cooldowns is to be built.' },
    })}\n`;
    // the next prompt and its answer: the real records of the same rollout a day later (the .tail.jsonl fixture)
    const later = linesOf(REAL.replace(/\.jsonl$/, '.tail.jsonl'));
    const text = lines.join('') + compacted + (later[2] as string) + (later[9] as string);
    fs.writeFileSync(file, text);
    assert.deepEqual(await importRolloutTail(t.store, file, readerOptions(), fileRange(file)), {
      kind: 'fallback',
      why: 'a compaction',
    });
    const summary = await importPath(t.store, file);
    assert.equal(summary.files[0]?.continued, true, JSON.stringify(summary.files[0]));
    assert.equal(summary.files[0]?.readFrom, undefined, 'read whole');
    assert.deepEqual(state(t.store, t.dir, '<dir>'), await fresh(text));
  });
});
