/**
 * The two hashes an import takes of a transcript read as lines (LineHashes: one pass while they agree) are the
 * two it took before, each over its own pass: of the lines as text (each line's UTF-8, a trailing CR dropped, then
 * LF — what names a run's content) and of the file's bytes (what proves the file unchanged when it is read again).
 * On the files that make them part: CR LF endings, one CR LF line among LF ones, a last line without its LF, bytes
 * that are not UTF-8, a BOM, blank lines, an empty file.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { LineHashes } from '../../../src/importers/lineHashes';
import { readLines } from '../../../src/importers/lineReader';
import { tmpDir } from '../../helpers/tmp';

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

async function twoPasses(file: string): Promise<{ text: string; raw: string }> {
  const text = createHash('sha256');
  for await (const line of readLines(file)) {
    text.update(line.invalidUtf8 ? line.text : line.bytes);
    text.update('\n');
  }
  return { text: text.digest('hex'), raw: sha(fs.readFileSync(file)) };
}

async function onePass(file: string): Promise<{ text: string; raw: string }> {
  const digests = await LineHashes.create();
  for await (const line of readLines(file, { highWaterMark: 64 })) digests.line(line);
  return digests.digests();
}

const rows = Array.from({ length: 40 }, (_, i) => JSON.stringify({ i, text: `é→${'x'.repeat((i * 31) % 200)}` }));

const files: [string, Buffer][] = [
  ['LF-ended lines', Buffer.from(rows.join('\n') + '\n')],
  ['CR LF endings', Buffer.from(rows.join('\r\n') + '\r\n')],
  [
    'one CR LF line among LF ones',
    Buffer.from(rows.slice(0, 20).join('\n') + '\r\n' + rows.slice(20).join('\n') + '\n'),
  ],
  ['a last line without its LF', Buffer.from(rows.join('\n'))],
  ['a last line ending in CR', Buffer.from(rows.join('\n') + '\r')],
  ['a BOM and blank lines', Buffer.from('\uFEFF' + rows.slice(0, 10).join('\n\n') + '\n\n\n')],
  [
    'bytes that are not UTF-8',
    Buffer.concat([
      Buffer.from(rows.slice(0, 5).join('\n') + '\n{"bad":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}\n'),
    ]),
  ],
  ['an empty file', Buffer.alloc(0)],
  ['one LF', Buffer.from('\n')],
];

for (const [name, bytes] of files) {
  test(`one pass gives both hashes of two passes: ${name}`, async () => {
    const file = path.join(tmpDir(), 'lines.jsonl');
    fs.writeFileSync(file, bytes);
    const want = await twoPasses(file);
    const got = await onePass(file);
    assert.deepEqual(got, want);
    assert.equal(got.raw, sha(bytes), 'the bytes hash is the file as written');
    // the two agree exactly when the text is the file's bytes
    assert.equal(
      got.text === got.raw,
      ['LF-ended lines', 'a BOM and blank lines', 'an empty file', 'one LF'].includes(name),
    );
  });
}
