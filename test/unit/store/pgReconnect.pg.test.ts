/**
 * The PostgreSQL worker's connection (pgSession.ts) after its server connection broke: two batches in flight at
 * once (a copy's read-ahead and the caller's next request) wait for one reconnection and both run on the new
 * client. The connection is broken for real: its backend terminated from a second connection
 * (`pg_terminate_backend`), and the test waits until the session's client has seen it end.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { PgSession } from '../../../src/store/pgSession';

const PG = process.env.OCDB_TEST_PG_URL;
const opened: pg.Client[] = [];
const admin = new pg.Client({ connectionString: PG });

after(async () => {
  await admin.end().catch(() => undefined);
  await Promise.all(opened.map((c) => c.end().catch(() => undefined)));
});

/** A session whose clients are kept here, as the worker's are made (pipelined). */
function session(): PgSession {
  return new PgSession(() => {
    const c = new pg.Client({ connectionString: PG, pipeline: true } as pg.ClientConfig);
    opened.push(c);
    return c;
  });
}

/** Terminates the session's current backend and waits until its client has seen the connection end. */
async function breakConnection(s: PgSession): Promise<void> {
  const reply = await s.runBatch([{ text: 'SELECT pg_backend_pid() AS pid', mode: 'get' }]);
  assert.ok(reply.ok);
  const pid = Number(reply.rows?.[0]?.pid);
  const client = opened.at(-1) as pg.Client;
  const ended = new Promise((resolve) => client.once('end', resolve));
  const killed = await admin.query('SELECT pg_terminate_backend($1) AS done', [pid]);
  assert.equal(killed.rows[0]?.done, true);
  await ended;
}

test('two batches in flight when the connection broke wait for one reconnection and both run', async () => {
  assert.ok(PG, 'OCDB_TEST_PG_URL names the test server');
  await admin.connect();
  const s = session();
  await s.connect();
  await breakConnection(s);
  // the read-ahead sent first, the caller's request right after it: the second arrives while the first reconnects
  const [ahead, next] = await Promise.all([
    s.runBatch([{ text: 'SELECT 1 AS n', mode: 'all' }], true),
    s.runBatch([{ text: 'SELECT pg_backend_pid() AS pid', mode: 'get' }]),
  ]);
  assert.deepEqual(ahead, { ok: true, counts: [1], sets: [[{ n: 1 }]] });
  assert.ok(next.ok, `the second batch ran: ${JSON.stringify(next)}`);
  assert.equal(opened.length, 2, 'one reconnection, shared');
  await s.close();
});

test('a transaction whose connection broke fails every batch until its ROLLBACK, then the session goes on', async () => {
  const s = session();
  await s.connect();
  const began = await s.runBatch([
    { text: 'BEGIN', mode: 'none', tx: 'begin' },
    { text: 'SELECT 1 AS n', mode: 'get' },
  ]);
  assert.ok(began.ok);
  await breakConnection(s);
  const [first, second] = await Promise.all([
    s.runBatch([{ text: 'SELECT 2 AS n', mode: 'get' }]),
    s.runBatch([{ text: 'SELECT 3 AS n', mode: 'get' }]),
  ]);
  assert.equal(first.ok, false);
  assert.equal(second.ok, false, 'nothing of the lost transaction runs on the new connection');
  assert.ok(!first.ok && first.error.code === '08006');
  assert.ok((await s.runBatch([{ text: 'ROLLBACK', mode: 'none', tx: 'rollback' }])).ok);
  const after = await s.runBatch([{ text: 'SELECT 4 AS n', mode: 'get' }]);
  assert.deepEqual(after.ok && after.rows, [{ n: 4 }]);
  await s.close();
});

test('when the shared reconnection fails, every batch waiting for it fails with its error, and the next one tries again', async () => {
  let refuse = false;
  const s = new PgSession(() => {
    // refused: the same server's address with a port nothing listens on
    const url = new URL(PG as string);
    if (refuse) url.port = '1';
    const c = new pg.Client({ connectionString: url.toString(), pipeline: true } as pg.ClientConfig);
    opened.push(c);
    return c;
  });
  await s.connect();
  refuse = true;
  const before = opened.length;
  await breakConnection(s);
  const replies = await Promise.all([
    s.runBatch([{ text: 'SELECT 1 AS n', mode: 'get' }]),
    s.runBatch([{ text: 'SELECT 2 AS n', mode: 'get' }]),
  ]);
  assert.deepEqual(
    replies.map((r) => r.ok),
    [false, false],
  );
  assert.equal(opened.length, before + 1, 'one attempt for both');
  assert.ok(replies.every((r) => !r.ok && /reconnecting failed/.test(r.error.message)));
  refuse = false;
  const again = await s.runBatch([{ text: 'SELECT 5 AS n', mode: 'get' }]);
  assert.deepEqual(again.ok && again.rows, [{ n: 5 }]);
  await s.close();
});
