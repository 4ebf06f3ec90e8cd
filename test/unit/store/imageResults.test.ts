/**
 * A tool result holding an image (a screenshot: MCP content blocks, a Claude Code Read of a PNG) is stored once —
 * the tool message, the ledger record and the call's result are one blob, not the whole result once and its image
 * element again — and base64 data is compressed by Huffman coding alone (store/contentStore.ts `mostlyBase64`).
 * The image is a real PNG (media/screenshot.png, the extension's screenshot); the transcript is a real Claude Code
 * session (test/fixtures/importers/claude-code-real) whose first tool result is replaced by an image block shaped as
 * Claude Code writes one (`{ type: 'image', source: { type: 'base64', media_type, data } }`, see the fixtures'
 * README).
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { importPath } from '../../../src/importers';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { mostlyBase64 } from '../../../src/store/blobCodec';
import { testContext } from '../../helpers/context';
import { storeBytes, TEST_ENGINE, tmpLocation } from '../../helpers/engines';
import { storedBlobs } from '../../helpers/blobs';
import { tmpDir } from '../../helpers/tmp';
import { REAL_FILE } from '../importers/helpers';

const PNG_BASE64 = readFileSync(join(__dirname, '../../../media/screenshot.png')).toString('base64');
/** A stretch of the image's base64 that no other text of a run holds. */
const IMAGE_MARK = PNG_BASE64.slice(20_000, 20_064);

/** Records a run whose one tool call answers a screenshot of `data` (base64) into a fresh store; its location. */
async function recordScreenshot(data: string): Promise<{ location: string; added: number }> {
  const location = tmpLocation();
  const store = openRunStore(location);
  try {
    store.checkpointWal();
    const empty = storeBytes(location);
    const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
    const run = recorder.startRun({
      runId: 'shot',
      agentId: 'browser',
      runtimeContext: testContext(),
      messages: [{ role: 'user', content: 'What does the page show?' }],
    });
    const screenshot = run.tool('screenshot', { sideEffectLevel: 'read_only' }, () => [
      { type: 'text', text: 'Screenshot of https://example.org' },
      { type: 'image', data, mimeType: 'image/png' },
    ]);
    await run.modelCall({}, () =>
      Promise.resolve({
        message: {
          role: 'assistant',
          content: [{ type: 'tool_call', toolCallId: 'c1', toolName: 'screenshot', args: {} }],
        },
      }),
    );
    await screenshot({}, { toolCallId: 'c1' });
    run.end();
    recorder.close();
    store.checkpointWal();
    return { location, added: storeBytes(location) - empty };
  } finally {
    store.close();
  }
}

test('a screenshot in a tool result (MCP content blocks) is stored once, compressed, and reads back whole', async () => {
  const shot = await recordScreenshot(PNG_BASE64);
  const blank = await recordScreenshot('AAAA');
  // What the image adds (the same run with a 4-character image beside it: each engine's pages for the run's rows
  // cancel out). Base64 deflates to 3/4 of its length: one copy is some 0.75 of it, a second would make it 1.5.
  const image = shot.added - blank.added;
  assert.ok(
    image > PNG_BASE64.length * 0.5 && image < PNG_BASE64.length,
    `the image takes ${image} bytes of the store for ${PNG_BASE64.length} characters of base64 (one compressed copy)`,
  );
  if (TEST_ENGINE === 'sqlite') {
    assert.equal(
      storedBlobs(shot.location).filter((b) => b.text.includes(IMAGE_MARK)).length,
      1,
      'in exactly one blob',
    );
  }
  const store = openRunStore(shot.location, { create: false });
  try {
    const exported = store.exportRun('shot');
    const toolMessage = exported.checkpoints.at(-1)?.messages.find((m) => m.role === 'tool');
    const element = (toolMessage?.content as { data?: string }[] | undefined)?.[1];
    assert.equal(element?.data, PNG_BASE64, 'the image reads back byte for byte');
    assert.deepEqual(exported.toolLedger[0]?.result, toolMessage?.content);
  } finally {
    store.close();
  }
});

// SQLite only (the blobs are read from the file): the importers write through the same ContentStore on both.
test('a Claude Code transcript with a screenshot in a tool result adds less to the store than the transcript holds', async () => {
  const dir = tmpDir();
  const transcript = join(dir, `${'4d5611e5-241a-462a-8d15-5122611a9569'}.jsonl`);
  let replaced = 0;
  const lines = readFileSync(REAL_FILE, 'utf8')
    .split('\n')
    .map((line) => {
      if (replaced > 0 || !line.includes('"tool_result"')) return line;
      const entry = JSON.parse(line) as { message: { content: { type: string; content?: unknown }[] } };
      const block = entry.message.content.find((b) => b.type === 'tool_result');
      if (!block) return line;
      block.content = [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }];
      replaced++;
      return JSON.stringify(entry);
    });
  assert.equal(replaced, 1);
  writeFileSync(transcript, lines.join('\n'));
  const file = join(dir, 'runs.db');
  const store = openRunStore(file, { create: true });
  try {
    const summary = await importPath(store, transcript);
    const runId = summary.files[0]?.runs[0]?.runId;
    assert.ok(runId, `imported: ${JSON.stringify(summary.files[0])}`);
    const exported = store.exportRun(runId);
    const toolMessage = exported.checkpoints.at(-1)?.messages.find((m) => m.role === 'tool');
    assert.deepEqual(toolMessage?.content, [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
    ]);
    store.checkpointWal();
  } finally {
    store.close();
  }
  assert.equal(
    storedBlobs(file).filter((b) => b.text.includes(IMAGE_MARK)).length,
    1,
    'the image is in exactly one blob',
  );
  // What the run added to the store: its bytes beyond an empty store's (a page for each table and index).
  const empty = openRunStore(join(dir, 'empty.db'), { create: true });
  empty.checkpointWal();
  empty.close();
  const added = statSync(file).size - statSync(join(dir, 'empty.db')).size;
  const transcriptBytes = statSync(transcript).size;
  assert.ok(
    added < transcriptBytes,
    `the run added ${added} bytes to the store, the transcript has ${transcriptBytes}`,
  );
});

test('base64 data is recognised as such, code, prose and short data are not', () => {
  const wrapped = JSON.stringify({
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 },
  });
  assert.equal(mostlyBase64(wrapped), true, 'a screenshot as a content block');
  const code = readFileSync(join(__dirname, '../../../src/store/contentStore.ts'), 'utf8');
  assert.equal(mostlyBase64(code), false, 'TypeScript source');
  const prose = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
  assert.equal(mostlyBase64(prose), false, 'Markdown prose');
  const hexDump = Buffer.from(PNG_BASE64.slice(0, 30_000)).toString('hex');
  assert.equal(
    mostlyBase64(JSON.stringify({ dump: hexDump.match(/.{1,64}/g)?.join('\n') })),
    false,
    'a hex dump in lines',
  );
  assert.equal(mostlyBase64(PNG_BASE64.slice(0, 8_000)), false, 'base64 shorter than the check threshold');
});
