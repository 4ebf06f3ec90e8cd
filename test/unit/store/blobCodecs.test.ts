/**
 * Blob text written by earlier releases reads back as it was written. `test/fixtures/stores/schema7-brotli.db` was
 * written by schema 7's first release (commit 2b16eea), which compressed long texts with brotli behind a mark byte
 * (short ones deflated with the dictionary, as now): a run recorded through the SDK with a long system prompt, long
 * assistant messages and long tool results. `schema7-brotli.exports.sha256.json` holds the SHA-256 of its export
 * made then. This code deflates every text with the dictionary; opened by it on SQLite, and copied row for row into a
 * PostgreSQL schema and opened there, the run exports exactly as it did, and a run recorded next to it with the
 * same long texts exports the same conversation.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { PG_MIGRATIONS } from '../../../src/store/pgMigrations';
import { testContext } from '../../helpers/context';
import { PG_URL, pgSchemaUrl } from '../../helpers/engines';
import { loadSqliteFixtureIntoPg } from '../../helpers/pgFixtureStore';
import { tmpDir } from '../../helpers/tmp';

const FIXTURES = join(__dirname, '../../fixtures/stores');
const FIXTURE = join(FIXTURES, 'schema7-brotli.db');
const EXPECTED = JSON.parse(readFileSync(join(FIXTURES, 'schema7-brotli.exports.sha256.json'), 'utf8')) as Record<
  string,
  string
>;
const sha = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

const prompt = (tag: string) => `You summarise papers.${tag} ${'Cite every claim. '.repeat(40)}`;
const pageText = (url: string, tag: string) =>
  `${url}:${tag} ${'Replay debugging records an execution so it can be stepped back and forth. '.repeat(20)}`;
const thought = (step: number, tag: string) =>
  `Step ${step}.${tag} ${'I will read the next page before I answer. '.repeat(20)}`;

/** The fixture's run (its generator's loop; `tag` '' writes the fixture's texts exactly), written by this code. */
async function recordAgain(location: string, runId: string, tag: string): Promise<void> {
  const recorder = openRecorder({ store: location, heartbeatMs: 0 });
  const run = recorder.startRun({
    runId,
    agentId: 'schema7',
    runtimeContext: testContext(),
    systemPrompt: prompt(tag),
  });
  const fetchPage = run.tool('fetch_page', { sideEffectLevel: 'read_only' }, (args: { url: string }) => ({
    url: args.url,
    text: pageText(args.url, tag),
  }));
  for (let step = 0; step < 3; step++) {
    await run.modelCall({}, () =>
      Promise.resolve({
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: thought(step, tag) },
            {
              type: 'tool_call',
              toolCallId: `fetch-${step}`,
              toolName: 'fetch_page',
              args: { url: `https://example.org/paper/${step}` },
            },
          ],
        },
        finishReason: 'tool_calls',
        usage: { inputTokens: 900 + step, outputTokens: 60 },
      }),
    );
    await fetchPage({ url: `https://example.org/paper/${step}` }, { toolCallId: `fetch-${step}` });
  }
  run.end();
  recorder.close();
}

/**
 * The fixture's run exports as it did, and reads back the texts its generator wrote; a run recorded with other long
 * texts (so none is shared with the fixture's blobs) reads back its own.
 */
async function assertReadsAndGoesOn(location: string): Promise<void> {
  const store = openRunStore(location, { create: false });
  try {
    assert.equal(sha(store.exportRun('brotli-texts')), EXPECTED['brotli-texts'], 'the brotli run exports as before');
  } finally {
    store.close();
  }
  await recordAgain(location, 'deflate-texts', ' (again)');
  const again = openRunStore(location, { create: false });
  try {
    assert.equal(sha(again.exportRun('brotli-texts')), EXPECTED['brotli-texts']);
    for (const [runId, tag] of [
      ['brotli-texts', ''],
      ['deflate-texts', ' (again)'],
    ] as const) {
      const last = again.exportRun(runId).checkpoints.at(-1);
      assert.equal(last?.systemPrompt, prompt(tag), `${runId}: the system prompt`);
      const texts = (last?.messages ?? []).flatMap((m) =>
        Array.isArray(m.content) ? m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])) : [],
      );
      assert.deepEqual(
        texts,
        [0, 1, 2].map((s) => thought(s, tag)),
        `${runId}: the assistant's long texts`,
      );
      assert.deepEqual(
        again.listToolCalls(runId).map((c) => (c.result as { text: string }).text),
        [0, 1, 2].map((s) => pageText(`https://example.org/paper/${s}`, tag)),
        `${runId}: the long tool results`,
      );
    }
    assert.equal(again.integrityCheck(), 'ok');
  } finally {
    again.close();
  }
}

test('a SQLite store whose long texts are brotli reads back as written, and goes on with deflate', async () => {
  const file = join(tmpDir(), 'schema7-brotli.db');
  copyFileSync(FIXTURE, file);
  const marks = (db: Database.Database) =>
    (db.prepare("SELECT data FROM blobs WHERE typeof(data) = 'blob' ORDER BY rowid").all() as { data: Buffer }[]).map(
      (r) => r.data[0],
    );
  const before = new Database(file, { readonly: true });
  assert.ok(marks(before).includes(0xff), 'the fixture holds brotli blobs (mark 0xff)');
  const blobsBefore = marks(before).length;
  before.close();
  await assertReadsAndGoesOn(file);
  const after = new Database(file, { readonly: true });
  const added = marks(after).slice(blobsBefore);
  after.close();
  assert.ok(added.length >= 7, `${added.length} compressed blobs written next to the fixture's`);
  assert.ok(!added.includes(0xff), 'long texts written now are not brotli');
});

test(
  'a PostgreSQL store holding the same brotli blobs reads back as written, and goes on with deflate',
  { skip: !PG_URL },
  async () => {
    const location = pgSchemaUrl();
    loadSqliteFixtureIntoPg(location, FIXTURE, PG_MIGRATIONS.length);
    await assertReadsAndGoesOn(location);
  },
);
