/**
 * A Claude Code session that grew is re-imported from where its last import stopped: only the new bytes (and the
 * small window checked before them) are read, and the run is the one a fresh import of the whole file gives —
 * export, counters and the files rebuilt at every checkpoint. A file rewritten before that point, or shorter, is
 * read whole as before (a new run, with the warning), and a last line still being written is left for later.
 * The large session is the bench's (test/bench/largeSession.ts: the real fixture's records cloned), the small
 * one the real published spotter session.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { importSessionTail } from '../../../src/importers/claudeCode/tailImport';
import { fileRange } from '../../../src/importers/fileTail';
import { sideEffectOf } from '../../../src/importers/sideEffects';
import type { SessionReadOptions } from '../../../src/importers/claudeCode/importSession';
import { LARGE, SESSION_ID, records, writeSession } from '../../bench/largeSession';
import { REAL_FILE, counted, state, tempStores } from './helpers';

const RUN = `cc-${SESSION_ID}`;

const readerOptions = (): SessionReadOptions => ({
  warnings: [],
  unknownTypes: {},
  sideEffectOf: (name) => sideEffectOf(name),
  skip: () => undefined,
});

/** The sub-agent file of a session written by writeSession, dated the same in every folder (its run keeps it). */
function sameTimes(dir: string): void {
  const at = new Date('2026-01-02T03:04:05Z');
  fs.utimesSync(path.join(dir, SESSION_ID, 'subagents', 'agent-a7e1c2d.jsonl'), at, at);
}

describe('re-importing a grown Claude Code session from its kept tail', () => {
  const store = tempStores();
  /** The real spotter session's first `n` lines, imported into a new store. */
  const importedCut = async (n: number) => {
    const lines = fs
      .readFileSync(REAL_FILE, 'utf8')
      .split(/(?<=\n)/)
      .filter((l) => l.length > 0);
    const t = store();
    const file = path.join(t.dir, path.basename(REAL_FILE));
    fs.writeFileSync(file, lines.slice(0, n).join(''));
    await importPath(t.store, file);
    return { lines, t, file };
  };

  it('reads only the new bytes of a large session and gives the run a fresh import of the whole file gives', async () => {
    const { lines, subagent } = records({ ...LARGE, toolCalls: 300 });
    const grown = store();
    // short of its last 4 Edits (8 lines), imported; then grown by them
    const file = writeSession(grown.dir, lines, subagent, lines.length - 8);
    sameTimes(grown.dir);
    const first = await importPath(grown.store, file);
    assert.equal(first.imported, 1);
    const before = fs.statSync(file).size;
    fs.appendFileSync(file, lines.slice(-8).join('\n') + '\n');
    const size = fs.statSync(file).size;
    const io = counted(file);
    const options = readerOptions();
    const outcome = await importSessionTail(grown.store, file, options, io.read);
    assert.equal(outcome.kind, 'continued', JSON.stringify(outcome));
    assert.ok(outcome.kind === 'continued' && outcome.appended > 0);
    // what was read: the file's first 4 KiB (checked unchanged) and the window before the old end, then the new bytes
    const newBytes = size - before;
    const total = io.ranges.reduce((n, [, l]) => n + l, 0);
    const window = io.ranges.find(([s]) => s > 0);
    assert.ok(window, 'a read from the kept window on');
    assert.equal(window[0] + window[1], size, 'the read ends at the end of the file');
    assert.ok(window[0] <= before, 'it starts at or before the old end');
    assert.ok(total - newBytes <= 4096 + 64 * 1024, `old bytes read again: ${total - newBytes}`);
    assert.ok(total < size / 10, `${total} bytes read of ${size}`);

    const whole = store();
    const wholeFile = writeSession(whole.dir, lines, subagent);
    sameTimes(whole.dir);
    assert.equal((await importPath(whole.store, wholeFile)).imported, 1);
    const want = state(whole.store, whole.dir, '<dir>');
    const got = state(grown.store, grown.dir, '<dir>');
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort());
    for (const id of Object.keys(want)) assert.deepEqual(got[id], want[id], `${id} as imported whole`);

    // and once more: nothing new, nothing written
    const again = await importPath(grown.store, file);
    assert.equal(again.skipped, 1);
    assert.match(again.files[0]?.reason ?? '', /already imported as cc-/);
  });

  it('continues the real spotter session line by line, each time as its fresh import', async () => {
    const { lines, t, file } = await importedCut(26);
    for (let cut = 27; cut <= lines.length; cut++) {
      fs.writeFileSync(file, lines.slice(0, cut).join(''));
      const outcome = await importSessionTail(t.store, file, readerOptions(), fileRange(file));
      assert.equal(outcome.kind, 'continued', `line ${cut}: ${JSON.stringify(outcome)}`);
      const fresh = store();
      const freshFile = path.join(fresh.dir, path.basename(REAL_FILE));
      fs.writeFileSync(freshFile, lines.slice(0, cut).join(''));
      await importPath(fresh.store, freshFile);
      assert.deepEqual(state(t.store, t.dir, '<dir>'), state(fresh.store, fresh.dir, '<dir>'), `line ${cut}`);
    }
  });

  it('leaves a last line still being written for the next import', async () => {
    const { lines, t, file } = await importedCut(30);
    const checkpoints = t.store.getRun(`cc-${path.basename(REAL_FILE, '.jsonl')}`).checkpointCount;
    const half = (lines[30] as string).slice(0, 100);
    fs.appendFileSync(file, half);
    const partial = await importPath(t.store, file);
    assert.equal(partial.skipped, 1);
    assert.match(partial.files[0]?.reason ?? '', /its last line is still being written/);
    assert.equal(t.store.getRun(`cc-${path.basename(REAL_FILE, '.jsonl')}`).checkpointCount, checkpoints);
    fs.appendFileSync(file, (lines[30] as string).slice(100) + lines.slice(31).join(''));
    const done = await importPath(t.store, file);
    assert.equal(done.files[0]?.continued, true);
    const fresh = store();
    const freshFile = path.join(fresh.dir, path.basename(REAL_FILE));
    fs.writeFileSync(freshFile, lines.join(''));
    await importPath(fresh.store, freshFile);
    assert.deepEqual(state(t.store, t.dir, '<dir>'), state(fresh.store, fresh.dir, '<dir>'));
  });

  it('reads a rewritten file whole: a changed byte before the kept end, or a shorter file', async () => {
    const { lines, subagent } = records({ ...LARGE, toolCalls: 60 });
    const t = store();
    const file = writeSession(t.dir, lines, subagent, lines.length - 8);
    await importPath(t.store, file);
    // the same length, one byte changed near the end of what was imported, then grown
    const bytes = fs.readFileSync(file);
    const at = bytes.lastIndexOf('"timestamp":"') + '"timestamp":"'.length + 3;
    bytes[at] = bytes[at] === 0x31 ? 0x32 : 0x31;
    fs.writeFileSync(file, Buffer.concat([bytes, Buffer.from(lines.slice(-8).join('\n') + '\n')]));
    const outcome = await importSessionTail(t.store, file, readerOptions(), fileRange(file));
    assert.deepEqual(outcome, { kind: 'fallback', why: 'the bytes before its end changed' });
    const summary = await importPath(t.store, file);
    assert.equal(summary.imported, 1);
    assert.ok(
      summary.files[0]?.warnings.some((w) => /cannot continue it, imported as a new run/.test(w.message)),
      JSON.stringify(summary.files[0]?.warnings),
    );
    assert.ok(
      summary.runIds.some((id) => id !== RUN && id.startsWith(RUN)),
      'a new run',
    );

    const u = store();
    const shorter = writeSession(u.dir, lines, subagent);
    await importPath(u.store, shorter);
    fs.writeFileSync(shorter, lines.slice(0, lines.length - 8).join('\n') + '\n');
    assert.deepEqual(await importSessionTail(u.store, shorter, readerOptions(), fileRange(shorter)), {
      kind: 'fallback',
      why: 'the file is shorter',
    });
  });
});
