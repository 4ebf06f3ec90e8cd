/**
 * Transcript excerpts (replay/transcript.ts `excerpt`): the line a user reads for a message, args or a result is
 * the value's canonical JSON with whitespace collapsed, cut at the detail level's length — and only the beginning
 * of the value is serialised, so a result of megabytes costs its excerpt.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson } from '../../../src/model';
import { excerpt } from '../../../src/replay/transcript';

/** What an excerpt reads: the whole value's text, collapsed and cut. */
function whole(value: unknown, max: number): string {
  const raw = typeof value === 'string' ? value : value === undefined ? 'undefined' : canonicalJson(value);
  const text = raw.replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

test('an excerpt reads as the beginning of the whole value, collapsed and cut', () => {
  const values: unknown[] = [
    'short',
    '  padded \n\n text  ',
    `${' '.repeat(5000)}late text after a run of blanks`,
    'x'.repeat(10_000),
    { b: 2, a: [1, 'two', { z: null, y: true }] },
    { text: `line one\n\n\tline two ${'word '.repeat(400)}` },
    Array.from({ length: 500 }, (_, i) => ({ id: `doc-${i}`, snippet: 'lorem  ipsum' })),
    [],
    {},
    null,
    42,
    undefined,
    { emoji: '🙂'.repeat(100) },
  ];
  for (const value of values) {
    for (const max of [1, 20, 80, 300]) {
      assert.equal(excerpt(value, max), whole(value, max), `${JSON.stringify(value)?.slice(0, 40)} at ${max}`);
    }
  }
});

test('an excerpt of a large value serialises its beginning only', () => {
  let serialised = 0;
  const hits = Array.from({ length: 100_000 }, (_, i) => ({
    toJSON: () => {
      serialised++;
      return { id: `doc-${i}`, snippet: 'a snippet of a search result' };
    },
  }));
  const line = excerpt({ hits }, 80);
  assert.ok(line.startsWith('{"hits":[{"id":"doc-0","snippet":"a snippet of a search result"}'), line);
  assert.equal(line.length, 80);
  assert.ok(serialised < 20, `${serialised} of 100,000 hits serialised for an 80-character excerpt`);
});
