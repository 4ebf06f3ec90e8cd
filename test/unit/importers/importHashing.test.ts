/**
 * The work an import does per byte of a tool result (a long import's cost): the result of a Claude Code transcript is
 * hashed as text once per place the store keeps it under a hash of its own (the call's result blob, its tool
 * message and its ledger record) plus once in the digest a grown file is recognised by — not again as a member of
 * the message and the record, and the file's lines are hashed as the bytes read, not as text encoded again, in one pass.
 * Counted by watching node:crypto's Hash.update and crypto.hash; the import's result is checked by the golden tests.
 */
import assert from 'node:assert/strict';
import { Hash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { test } from 'node:test';
import { importPath } from '../../../src/importers';
import { ResumableSha256 } from '../../../src/importers/resumableSha256';
import { tempStore } from './helpers';

const MARKER = 'MARKER-of-the-one-tool-result';
/** node:crypto itself (not an import's copy of its bindings), so a function replaced on it is the one called. */
const nodeCrypto = createRequire(__filename)('node:crypto') as typeof import('node:crypto');

/** A short session: a prompt, a Read call, its (large) result with Claude Code's structured copy, an answer. */
function transcript(file: string): void {
  const env = {
    isSidechain: false,
    userType: 'external',
    cwd: '/home/dev/project',
    sessionId: '0b5e0000-1111-4222-8333-444455550001',
    version: '2.1.50',
  };
  let n = 0;
  let parent: string | null = null;
  const lines: string[] = [];
  const node = (obj: Record<string, unknown>) => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    lines.push(
      JSON.stringify({ parentUuid: parent, ...env, ...obj, uuid, timestamp: new Date(Date.UTC(2026, 0, 5, 9, 0, n)) }),
    );
    parent = uuid;
  };
  const body = `${MARKER}\n${'   42\u2192export const value = compute(input) + 1;\n'.repeat(80)}`;
  node({ type: 'user', message: { role: 'user', content: 'Read the file.' } });
  node({
    type: 'assistant',
    requestId: 'req_1',
    message: {
      model: 'claude-sonnet-4-5-20250929',
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/home/dev/project/a.ts' } }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 3, output_tokens: 20 },
    },
  });
  node({
    type: 'user',
    message: { role: 'user', content: [{ tool_use_id: 'toolu_1', type: 'tool_result', content: body }] },
    toolUseResult: { type: 'text', file: { filePath: '/home/dev/project/a.ts', content: body } },
  });
  node({
    type: 'assistant',
    requestId: 'req_2',
    message: {
      model: 'claude-sonnet-4-5-20250929',
      id: 'msg_2',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'It computes a value.' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 9 },
    },
  });
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

test('an imported tool result is hashed once per blob that holds it, and its line as the bytes read', async () => {
  const t = tempStore();
  const file = path.join(t.dir, '0b5e0000-1111-4222-8333-444455550001.jsonl');
  transcript(file);
  // what was hashed, as text (a blob's text is hashed as its UTF-8 bytes once it is encoded for compression too)
  const texts: string[] = [];
  let linesWithMarker = 0;
  let checks = 0;
  const fileText = fs.readFileSync(file, 'utf8');
  const update = Object.getOwnPropertyDescriptor(Hash.prototype, 'update')?.value as (
    this: Hash,
    ...a: unknown[]
  ) => Hash;
  const seen = (data: unknown) => {
    const text = typeof data === 'string' ? data : Buffer.isBuffer(data) ? data.toString('utf8') : '';
    if (!text.includes(MARKER)) return;
    // the transcript's bytes (its line, the file) carry the line's toolUseResult; nothing the store writes does
    if (text.includes('"toolUseResult"')) linesWithMarker++;
    // the checks kept for a later import of the grown file: its first 4 KiB, the window before its end
    else if (fileText.startsWith(text) || fileText.endsWith(text)) checks++;
    else texts.push(text);
  };
  Hash.prototype.update = function (this: Hash, data: unknown, ...rest: unknown[]) {
    seen(data);
    return update.call(this, data, ...rest);
  } as Hash['update'];
  // the one-shot crypto.hash (Node 20.12+), which the store's content hashes use where there is one
  const oneShot = nodeCrypto.hash as ((...a: unknown[]) => unknown) | undefined;
  // the resumable SHA-256 (hash-wasm) the lines are read with
  let readWithMarker = 0;
  const resumable = Object.getOwnPropertyDescriptor(ResumableSha256.prototype, 'update')?.value as (
    this: ResumableSha256,
    data: Uint8Array,
  ) => ResumableSha256;
  ResumableSha256.prototype.update = function (this: ResumableSha256, data: Uint8Array) {
    if (Buffer.from(data.buffer, data.byteOffset, data.byteLength).includes(MARKER)) readWithMarker++;
    return resumable.call(this, data);
  };
  if (oneShot) {
    nodeCrypto.hash = ((algorithm: unknown, data: unknown, ...rest: unknown[]) => {
      seen(data);
      return oneShot(algorithm, data, ...rest);
    }) as typeof nodeCrypto.hash;
  }
  try {
    const summary = await importPath(t.store, file);
    assert.equal(summary.files[0]?.outcome, 'imported', summary.files[0]?.reason);
  } finally {
    Hash.prototype.update = update as Hash['update'];
    ResumableSha256.prototype.update = resumable;
    if (oneShot) nodeCrypto.hash = oneShot as typeof nodeCrypto.hash;
  }
  try {
    const runId = t.store.listRuns({}).runs[0]?.runId ?? '';
    const calls = t.store.listToolCalls(runId);
    assert.equal(calls.length, 1);
    assert.ok(String(calls[0]?.result).includes(MARKER), 'the result is the tool_result content');
    // The result as a blob of its own, the tool message and the finished ledger record (each hashed whole), and
    // the digest of the plan's ops (growth.ts), which takes a long string as it is, not as JSON text: four texts.
    // Before: also once more as a member of the message and of the record, and the line it came in as text (seven).
    const result = String(calls[0]?.result);
    const blobs = texts.filter((s) => s !== result);
    const digests = texts.length - blobs.length;
    assert.equal(digests, 1, 'the grown-file digest hashes the result once, as it is');
    assert.equal(blobs.length, 3, `hashed as text: ${blobs.map((s) => s.slice(0, 40)).join(' | ')}`);
    assert.equal(new Set(blobs).size, 3, 'no text is hashed twice');
    // the line as read: once as it is read (the session's content hash, the file's sha256 and the state a later
    // import goes on from are one pass of the resumable hash over a file of LF-ended UTF-8 lines: lineHashes.ts) and
    // once in the check before commit (three before: two passes, then a third for the resumable state)
    assert.equal(readWithMarker, 1, 'the lines are hashed once as they are read');
    assert.equal(linesWithMarker, 1, 'and once more by the check before commit');
    assert.ok(checks <= 2, `the file's first bytes and its window before the end, each once: ${checks}`);
  } finally {
    t.close();
  }
});
