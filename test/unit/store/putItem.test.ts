/**
 * The rows a list item is stored as do not depend on how the content store computes them (issue 11 item 6 made
 * putItem serialise each member once and deflate short texts with a window their size): the item's hash is the
 * SHA-256 of its canonical JSON, its row holds that JSON with its large members left out (null) in canonical
 * order, `refs` names those members in the item's own key order, each large member is a blob of its own, every
 * deflated cell is exactly what zlib's default window gives, and the item reads back as it was put. The summary
 * an append returns (made from what it wrote, not parsed again) is the one read back.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { canonicalJson, contentHash } from '../../../src/model';
import { openRunStore } from '../../../src/store';
import { openBetterSqlite } from '../../../src/store/betterSqliteDriver';
import { COMPRESS_MIN, ContentStore, SHARED_PART_MIN, hashKey } from '../../../src/store/contentStore';
import { testContext } from '../../helpers/context';

const big = (tag: string, n = 1200) => `${tag}: ${'héllo wörld → ✓ '.repeat(Math.ceil(n / 16))}`.slice(0, n);

test('an item is stored as its canonical JSON with its large members as blobs of their own, read back unchanged', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-putitem-'));
  const file = path.join(dir, 'runs.db');
  try {
    openRunStore(file, { create: true }).close();
    const content = new ContentStore(openBetterSqlite(file, false));
    const items: Record<string, unknown>[] = [
      // a tool message: its content is large
      { role: 'tool', toolCallId: 'c1', name: 'Read', content: big('result') },
      // short as a whole though a member is over SHARED_PART_MIN
      { role: 'tool', toolCallId: 'c3', name: 'Read', content: big('medium', SHARED_PART_MIN + 50) },
      // a record whose keys are not in sorted order, two large members, an undefined one
      {
        toolCallId: 'c1',
        toolName: 'Read',
        result: big('result'),
        args: { file_path: big('path', 600), n: 1 },
        argsHash: '0123456789abcdef',
        error: undefined,
        startedAt: 1,
        endedAt: 2,
      },
      // an array member with one large element among small ones, and nested objects
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'short' },
          { type: 'text', text: big('long') },
          { type: 'tool_call', toolCallId: 'c2', toolName: 'Grep', args: { q: 'x', deep: { a: [1, 2, { b: null }] } } },
        ],
        ключ: 'unicode key',
        z: true,
      },
      // large in total, no member large on its own: one blob, no refs
      Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, big(`v${i}`, SHARED_PART_MIN - 100)])),
    ];
    const db = new Database(file, { readonly: true });
    try {
      const row = db.prepare('SELECT data, refs FROM blobs WHERE hash = ?');
      const textOf = (data: unknown) => (Buffer.isBuffer(data) ? inflateRawSync(data).toString('utf8') : String(data));
      for (const item of items) {
        const hash = content.putItem(item);
        const text = canonicalJson(item);
        assert.equal(hash, contentHash(text), 'the hash of the canonical JSON of the whole item');
        assert.deepEqual(content.getValue(hash), JSON.parse(text), 'reads back as put');
        const r = row.get(hashKey(hash)) as { data: unknown; refs: string | null };
        // Which members are large, in the item's own key order (elements of arrays first), as the store keeps them.
        const expectRefs: [(string | number)[], string][] = [];
        const holed: Record<string, unknown> = { ...item };
        // An item short as a whole is one blob, whatever its members.
        for (const key of text.length < 2 * SHARED_PART_MIN ? [] : Object.keys(item)) {
          const member = item[key];
          if (typeof member !== 'object' && typeof member !== 'string') continue;
          if (member === null) continue;
          if (Array.isArray(member)) {
            const copy = [...(member as unknown[])];
            member.forEach((e, i) => {
              const t = canonicalJson(e);
              if ((typeof e === 'object' || typeof e === 'string') && t.length >= SHARED_PART_MIN) {
                expectRefs.push([[key, i], contentHash(t)]);
                copy[i] = null;
              }
            });
            if (copy.some((e, i) => e !== (member as unknown[])[i])) {
              holed[key] = copy;
              continue;
            }
          }
          const t = canonicalJson(member);
          if (t.length >= SHARED_PART_MIN) {
            expectRefs.push([[key], contentHash(t)]);
            holed[key] = null;
          }
        }
        assert.deepEqual(r.refs === null ? [] : JSON.parse(r.refs), expectRefs);
        assert.equal(textOf(r.data), canonicalJson(expectRefs.length > 0 ? holed : item), 'the inline text');
        for (const [, ref] of expectRefs) assert.ok(row.get(hashKey(ref)), `the large member ${ref} is a blob`);
      }
      // Every deflated cell is byte for byte what zlib's default window makes of its text.
      let deflated = 0;
      for (const r of db.prepare('SELECT data FROM blobs').all() as { data: unknown }[]) {
        if (!Buffer.isBuffer(r.data)) continue;
        const text = inflateRawSync(r.data).toString('utf8');
        assert.ok(text.length >= COMPRESS_MIN);
        assert.deepEqual(r.data, deflateRawSync(text, { level: 4 }));
        deflated++;
      }
      assert.ok(deflated >= 5, `${deflated} deflated cells`);
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the summary an append returns is the one the store reads back', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-summary-'));
  const store = openRunStore(path.join(dir, 'runs.db'), { create: true });
  try {
    const runId = 'r-summary';
    store.createRun({ runId, sessionId: 's', agentId: 'a', mode: 'live', startedAt: 1 });
    const ctx = JSON.parse(JSON.stringify(testContext())) as Parameters<
      typeof store.appendCheckpoint
    >[0]['runtimeContext'];
    const base = { runId, messages: [], toolLedgerSnapshot: [], runtimeContext: ctx, createdAt: 5 };
    const appended = [
      store.appendCheckpoint({ ...base, checkpointId: `${runId}#0`, boundary: 'before_model_call', stepIndex: 0 }),
      store.appendCheckpoint({
        ...base,
        checkpointId: `${runId}#1`,
        boundary: 'after_model_call',
        stepIndex: 0,
        messages: [{ role: 'assistant', content: 'hi' }],
        finishReason: 'stop',
        usage: { inputTokens: 3, outputTokens: 4, cached: { read: 1 } },
        promptVersion: 'v2',
      }),
    ];
    for (const summary of appended) {
      const read = store.getCheckpointSummary(summary.checkpointId);
      assert.deepEqual(summary, read);
      assert.deepEqual(Object.keys(summary), Object.keys(read), 'the same keys in the same order');
    }
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
