/**
 * A line read again by its position (LineSource, what an import keeps instead of a line's content) is the line
 * `readLines` read — in file order, backwards, across the read-ahead window's edge, longer than the window — and
 * a file cut short since reads as the ImportFailed that says so.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { LineSource, readLines, type FileLine } from '../../../src/importers/lineReader';
import { tmpDir } from '../../helpers/tmp';

async function linesOf(file: string): Promise<FileLine[]> {
  const lines: FileLine[] = [];
  for await (const line of readLines(file)) lines.push(line);
  return lines;
}

test('lines read again by position are the lines read, in any order and past the read-ahead window', async () => {
  const file = path.join(tmpDir(), 'lines.jsonl');
  const rows: string[] = [];
  // ~3 MiB: lines of many sizes, one of 1.5 MiB (longer than the 1 MiB window), CRLF endings, a BOM, non-ASCII
  for (let i = 0; i < 4000; i++) rows.push(JSON.stringify({ i, text: `é→${'x'.repeat((i * 7919) % 700)}` }));
  rows.splice(1234, 0, JSON.stringify({ big: 'y'.repeat(1.5 * 2 ** 20) }));
  fs.writeFileSync(file, '\uFEFF' + rows.join('\r\n') + '\n');
  const lines = await linesOf(file);
  const source = new LineSource(file);
  try {
    const at = (k: number) => {
      const line = lines[k] as FileLine;
      return source.text(line.start, line.length);
    };
    assert.equal(at(0), rows[0], 'the BOM is dropped');
    for (let k = 0; k < rows.length; k++) assert.equal(at(k), rows[k], `line ${k} in order`);
    for (let k = rows.length - 1; k >= 0; k -= 37) assert.equal(at(k), rows[k], `line ${k} backwards`);
    assert.equal(at(1234), rows[1234], 'the line longer than the window');
  } finally {
    source.close();
  }
});

test('a file cut short after its lines were read fails the read again with ImportFailed', async () => {
  const file = path.join(tmpDir(), 'cut.jsonl');
  const rows = Array.from({ length: 50 }, (_, i) => JSON.stringify({ i, pad: 'z'.repeat(100) }));
  fs.writeFileSync(file, rows.join('\n') + '\n');
  const lines = await linesOf(file);
  fs.truncateSync(file, (lines[20] as FileLine).start + 10);
  const source = new LineSource(file);
  try {
    const first = lines[3] as FileLine;
    assert.equal(source.text(first.start, first.length), rows[3]);
    const cut = lines[40] as FileLine;
    assert.throws(
      () => source.text(cut.start, cut.length),
      (e: Error & { code?: string }) =>
        e.code === 'ImportFailed' && /got shorter while it was imported/.test(e.message),
    );
  } finally {
    source.close();
  }
});
