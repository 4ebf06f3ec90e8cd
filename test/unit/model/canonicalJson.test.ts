import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { argsHash, canonicalJson, MAX_JSON_DEPTH, rememberCanonical } from '../../../src/model';

test('canonical JSON sorts keys at every depth and has no whitespace', () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } }),
    '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
  );
  assert.equal(canonicalJson({ a: undefined, b: null }), '{"b":null}');
  assert.equal(canonicalJson([undefined, 1]), '[null,1]');
  assert.equal(canonicalJson('é"\n'), JSON.stringify('é"\n'));
});

test('canonical JSON orders keys by UTF-16 code units whatever order they come in, and escapes every key', () => {
  // keys in order, out of order after an ordered run, astral and BMP characters, keys JSON must escape
  const value = {
    a: 1,
    b: 2,
    '\uffff': 3,
    '\u{1f600}': 4,
    'q"uote': 5,
    'back\\slash': 6,
    'ctl\u0001': 7,
    '10': 8,
    '2': 9,
    nested: { y: 1, x: 2, w: [{ k2: 1, k1: 2 }] },
  };
  // an independent reference: JSON.stringify of a copy built with its keys sorted as Array.prototype.sort does
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : typeof v === 'object' && v !== null
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
  // integer-like keys come first in any JS object, so the reference is compared as text, key by key
  const text = canonicalJson(value);
  const keysOf = (t: string) => [...t.matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
  const top = keysOf(text).filter((k) => k in value);
  assert.deepEqual(top, Object.keys(value).sort());
  assert.deepEqual(JSON.parse(text), sorted(value));
  assert.equal(canonicalJson(JSON.parse(text)), text, 'written again from its own parse: the same text');
});

test('canonical JSON of a value nested deeper than 32 levels is written as a shallow one is', () => {
  // Up to 32 levels the text is written by recursion, deeper by an iterative walk: the same text either way.
  let deep: unknown = { b: [undefined, new Date(0)], a: 1 };
  for (let i = 0; i < 40; i++) deep = i % 2 === 0 ? [deep, 'x'] : { z: NaN, y: deep };
  let want = '{"a":1,"b":[null,"1970-01-01T00:00:00.000Z"]}';
  for (let i = 0; i < 40; i++) want = i % 2 === 0 ? `[${want},"x"]` : `{"y":${want},"z":null}`;
  assert.equal(canonicalJson(deep), want);
});

test('argsHash is 16 hex chars of SHA-256 of the canonical JSON, whatever the key order', () => {
  const a = argsHash({ orderId: 'A-1', amount: 10, meta: { x: 1, y: [1, 2] } });
  const b = argsHash({ meta: { y: [1, 2], x: 1 }, amount: 10, orderId: 'A-1' });
  assert.equal(a, b);
  assert.match(a, /^[0-9a-f]{16}$/);
  const expected = createHash('sha256').update('{"amount":10,"meta":{"x":1,"y":[1,2]},"orderId":"A-1"}').digest('hex');
  assert.equal(a, expected.slice(0, 16));
  assert.notEqual(argsHash({ amount: 10 }), argsHash({ amount: 11 }));
  assert.notEqual(argsHash([1, 2]), argsHash([2, 1]), 'array order matters');
});

/** A deep-frozen copy of JSON data. */
function frozenCopy<T>(value: T): T {
  const copy = JSON.parse(JSON.stringify(value)) as T;
  const freeze = (v: unknown): void => {
    if (typeof v === 'object' && v !== null) {
      Object.values(v).forEach(freeze);
      Object.freeze(v);
    }
  };
  freeze(copy);
  return copy;
}

test('a remembered frozen value is written from its text wherever it sits, and the output is that of a full walk', () => {
  const result = frozenCopy({ z: 1, hits: [{ id: 'a', snippet: 'x'.repeat(600) }], a: { b: [true, null] } });
  const full = canonicalJson(result);
  rememberCanonical(result, full);
  assert.equal(canonicalJson(result), full);
  const message = { role: 'tool', toolCallId: 't1', content: result };
  assert.equal(canonicalJson(message), canonicalJson(JSON.parse(JSON.stringify(message))));
  // at every depth up to and past the point where the recursion leaves for the iterative walk
  for (let depth = 0; depth < 40; depth++) {
    let wrapped: unknown = result;
    for (let i = 0; i < depth; i++) wrapped = i % 2 === 0 ? [wrapped] : { k: wrapped };
    assert.equal(canonicalJson(wrapped), canonicalJson(JSON.parse(JSON.stringify(wrapped))), `at depth ${depth}`);
  }
  // the nesting limit's error is the full walk's, a remembered value inside or not
  let deep: unknown = result;
  for (let i = 0; i < MAX_JSON_DEPTH; i++) deep = [deep];
  assert.throws(() => canonicalJson(deep), /nested deeper than 256 levels/);
});

test('a remembered value is not walked again: what holds it is written with its text (the append path relies on it)', () => {
  let reads = 0;
  const value = Object.freeze(
    Object.defineProperty({}, 'a', {
      enumerable: true,
      get: () => {
        reads++;
        return 1;
      },
    }),
  );
  rememberCanonical(value, '{"a":1}');
  reads = 0;
  assert.equal(canonicalJson({ v: value, w: [value] }), '{"v":{"a":1},"w":[{"a":1}]}');
  assert.equal(reads, 0, 'the remembered value was not read');
  // an unremembered object with the same content is walked
  assert.equal(canonicalJson({ v: { a: 1 } }), '{"v":{"a":1}}');
});

test('a remembered long string is written from its text, where it sits in anything, and only while it is recent', () => {
  const body = `line "one"\n\u2192 tab\there ${'z'.repeat(400)}`;
  // a wrong text remembered for it shows whether the remembered one is used (a caller always gives the right one)
  rememberCanonical(body, '"REMEMBERED"');
  assert.equal(canonicalJson({ role: 'tool', content: body }), '{"content":"REMEMBERED","role":"tool"}');
  assert.equal(canonicalJson([body, 1]), '["REMEMBERED",1]');
  // the same characters in another string object are the same string
  assert.equal(canonicalJson({ c: body.slice(0, 10) + body.slice(10) }), '{"c":"REMEMBERED"}');
  // a short string is written as it is: remembering it is not worth a look-up
  rememberCanonical('short', '"REMEMBERED"');
  assert.equal(canonicalJson({ c: 'short' }), '{"c":"short"}');
  // the last 32 are kept, the oldest goes first
  for (let i = 0; i < 32; i++) rememberCanonical(`${'y'.repeat(300)}${i}`, JSON.stringify(`${'y'.repeat(300)}${i}`));
  assert.equal(canonicalJson({ content: body }), JSON.stringify({ content: body }));
});
