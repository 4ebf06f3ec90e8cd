/**
 * A Gemini CLI chat recording (JSON Lines) that grew is re-imported from where its last import stopped: only the new
 * bytes (and the window checked before them) are read, and the run is the one a fresh import of the whole file gives.
 * A record that writes again a message before that place, a changed byte, or a shorter file is read whole, and a
 * last line still being written is left for later. The recording is the fixture's (its real messages, in the
 * records the CLI writes); the large one repeats its turns under new ids.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { fileRange } from '../../../src/importers/fileTail';
import { importRecordingTail } from '../../../src/importers/gemini/recordingTail';
import type { ReaderOptions } from '../../../src/importers/reader';
import { sideEffectOf } from '../../../src/importers/sideEffects';
import { FIXTURES, counted, state, tempStores } from './helpers';

const FIXTURE = path.join(FIXTURES, 'gemini', 'session-2025-10-05T07-11-eefc44a3.jsonl');
const RUN = 'gemini-eefc44a3-0832-4bc0-ac33-fa668f038213';

const readerOptions = (): ReaderOptions => ({
  warnings: [],
  unknownTypes: {},
  sideEffectOf: (name) => sideEffectOf(name),
  skip: () => undefined,
});

/** The fixture's lines with their newlines, so a cut is a byte prefix of the file. */
const fixtureLines = () =>
  fs
    .readFileSync(FIXTURE, 'utf8')
    .split(/(?<=\n)/)
    .filter((l) => l.length > 0);

/**
 * The fixture's header, then its turns (prompt, model message written twice, `$set`, note, model message) `times`
 * times, each under new message and call ids.
 */
function largeRecording(times: number): string[] {
  const [header, ...turn] = fixtureLines();
  const out = [header as string];
  for (let i = 0; i < times; i++) {
    for (const line of turn) {
      out.push(
        line
          .replace(/"id":"([0-9a-f]{8})-/g, (_m, p: string) => `"id":"${p.slice(0, 4)}${String(i).padStart(4, '0')}-`)
          .replace(/"id":"(run_shell_command[^"]*)"/g, (_m, p: string) => `"id":"${p}-${i}"`),
      );
    }
  }
  return out;
}

describe('re-importing a grown Gemini CLI recording from its kept tail', () => {
  const store = tempStores();
  const fresh = async (text: string) => {
    const t = store();
    const file = path.join(t.dir, path.basename(FIXTURE));
    fs.writeFileSync(file, text);
    assert.equal((await importPath(t.store, file)).imported, 1);
    return state(t.store, t.dir, '<dir>');
  };

  it('reads only the new bytes of a long recording and gives the run a fresh import of the whole file gives', async () => {
    const lines = largeRecording(200);
    const t = store();
    const file = path.join(t.dir, path.basename(FIXTURE));
    fs.writeFileSync(file, lines.slice(0, -8).join(''));
    assert.equal((await importPath(t.store, file)).imported, 1);
    const before = fs.statSync(file).size;
    fs.appendFileSync(file, lines.slice(-8).join(''));
    const size = fs.statSync(file).size;
    const io = counted(file);
    const outcome = await importRecordingTail(t.store, file, readerOptions(), io.read);
    assert.equal(outcome.kind, 'continued', JSON.stringify(outcome));
    assert.ok(outcome.kind === 'continued' && outcome.appended > 0 && outcome.readFrom === before);
    const total = io.ranges.reduce((n, [, l]) => n + l, 0);
    assert.ok(total - (size - before) <= 3 * 4096 + 64 * 1024, `old bytes read again: ${total - (size - before)}`);
    assert.ok(total < size / 10, `${total} bytes read of ${size}`);
    assert.deepEqual(state(t.store, t.dir, '<dir>'), await fresh(lines.join('')));
    assert.ok(t.store.getRun(RUN).toolCallCount >= 200);
  });

  it('continues the recording line by line, each time as its fresh import', async () => {
    const lines = largeRecording(2);
    const t = store();
    const file = path.join(t.dir, path.basename(FIXTURE));
    fs.writeFileSync(file, lines.slice(0, 7).join(''));
    assert.equal((await importPath(t.store, file)).imported, 1);
    for (let cut = 8; cut <= lines.length; cut++) {
      fs.writeFileSync(file, lines.slice(0, cut).join(''));
      const outcome = await importRecordingTail(t.store, file, readerOptions(), fileRange(file));
      assert.equal(outcome.kind, 'continued', `line ${cut}: ${JSON.stringify(outcome)}`);
      assert.deepEqual(state(t.store, t.dir, '<dir>'), await fresh(lines.slice(0, cut).join('')), `line ${cut}`);
    }
  });

  it('leaves a last line still being written for the next import', async () => {
    const lines = largeRecording(2);
    const t = store();
    const file = path.join(t.dir, path.basename(FIXTURE));
    fs.writeFileSync(file, lines.slice(0, 9).join(''));
    await importPath(t.store, file);
    const checkpoints = t.store.getRun(RUN).checkpointCount;
    fs.appendFileSync(file, (lines[9] as string).slice(0, 60));
    const partial = await importPath(t.store, file);
    assert.equal(partial.skipped, 1);
    assert.match(partial.files[0]?.reason ?? '', /its last line is still being written/);
    assert.equal(t.store.getRun(RUN).checkpointCount, checkpoints);
    fs.appendFileSync(file, (lines[9] as string).slice(60) + lines.slice(10).join(''));
    const done = await importPath(t.store, file);
    assert.equal(done.files[0]?.readFrom, Buffer.byteLength(lines.slice(0, 9).join('')));
    assert.deepEqual(state(t.store, t.dir, '<dir>'), await fresh(lines.join('')));
  });

  it('reads the recording whole when a message before the kept place is written again, or a byte changed', async () => {
    const lines = fixtureLines();
    const t = store();
    const file = path.join(t.dir, path.basename(FIXTURE));
    fs.writeFileSync(file, lines.join(''));
    await importPath(t.store, file);
    // the first model message written a third time, with other text: every checkpoint after it changes
    const again = JSON.parse(lines[4] as string) as Record<string, unknown>;
    again.content = 'rewritten';
    const text = lines.join('') + `${JSON.stringify(again)}\n`;
    fs.writeFileSync(file, text);
    const outcome = await importRecordingTail(t.store, file, readerOptions(), fileRange(file));
    assert.equal(outcome.kind, 'fallback');
    assert.match(outcome.kind === 'fallback' ? outcome.why : '', /rewrites an earlier message/);
    const summary = await importPath(t.store, file);
    assert.equal(summary.imported, 1);
    assert.equal(summary.files[0]?.readFrom, undefined, 'read whole');

    const u = store();
    const changed = path.join(u.dir, path.basename(FIXTURE));
    fs.writeFileSync(changed, lines.slice(0, 8).join(''));
    await importPath(u.store, changed);
    const bytes = fs.readFileSync(changed);
    const at = bytes.lastIndexOf('"timestamp":"') + '"timestamp":"'.length + 3;
    bytes[at] = bytes[at] === 0x31 ? 0x32 : 0x31;
    fs.writeFileSync(changed, Buffer.concat([bytes, Buffer.from(lines.slice(8).join(''))]));
    // (the recording is shorter than the 4 KiB checked at its start: the change is in both checks)
    const outcome2 = await importRecordingTail(u.store, changed, readerOptions(), fileRange(changed));
    assert.equal(outcome2.kind, 'fallback');
    assert.match(outcome2.kind === 'fallback' ? outcome2.why : '', /bytes (before its end )?changed/);
  });
});
