/**
 * What only the PostgreSQL engine has to show (the PostgreSQL pass of test/run.mjs runs this file; the rest of the
 * store suite runs there too, on fresh schemas of the same server): the schema mirrors SQLite's table for table,
 * migrations applied once by processes opening a new store at once, the change feed by LISTEN/NOTIFY from another
 * process, crash detection across hosts by heartbeat, a fork claimed by exactly one of two processes, the writer's
 * lock timeout, and the password: never in an error or `store.path`, taken from PGPASSWORD or a pgpass file.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { ForkService } from '../../../src/fork/forkService';
import { isOcdbError } from '../../../src/model';
import { openRunStore } from '../../../src/store';
import { PgDriver, storeLockKeys, WRITE_LOCK } from '../../../src/store/pgDriver';
import { PG_MIGRATIONS } from '../../../src/store/pgMigrations';
import { PG_URL, pgAdminQuery, pgSchemaUrl, schemaOf, tmpLocation } from '../../helpers/engines';
import { testContext as testContextOf } from '../../helpers/context';
import { tmpDir } from '../../helpers/tmp';
import { recordSupportRun } from '../fork/supportRun';

const ROOT = join(__dirname, '..', '..', '..');
const LOOP = join(ROOT, 'test', 'fixtures', 'recordLoop.ts');

function url(): URL {
  assert.ok(PG_URL, 'OCDB_TEST_PG_URL names the test server');
  return new URL(PG_URL);
}

/** Runs `script` (CommonJS, with src/ at hand) in a child process under tsx; resolves with its exit and stdout. */
function child(script: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; out: string }> {
  const p = spawn(process.execPath, ['--import', 'tsx', '-e', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => p.on('exit', (code) => resolve({ code, out })));
}

test('the PostgreSQL schema has every table and column of the SQLite one', () => {
  const file = tmpLocation('runs.db', 'sqlite');
  openRunStore(file).close();
  const db = new Database(file, { readonly: true });
  const sqlite = new Map<string, string[]>();
  for (const { name } of db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all() as { name: string }[]) {
    sqlite.set(name, (db.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[]).map((c) => c.name).sort());
  }
  db.close();
  const location = pgSchemaUrl();
  openRunStore(location).close();
  const pg = new Map<string, string[]>();
  for (const row of pgAdminQuery(
    'SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = ? ORDER BY column_name',
    schemaOf(location),
  )) {
    const list = pg.get(String(row.table_name)) ?? [];
    list.push(String(row.column_name));
    pg.set(String(row.table_name), list);
  }
  for (const [table, columns] of sqlite) {
    const mine = pg.get(table);
    assert.ok(mine, `table ${table} of the SQLite schema is missing on PostgreSQL (add it to pgMigrations.ts)`);
    for (const c of columns) assert.ok(mine.includes(c), `column ${table}.${c} is missing on PostgreSQL`);
  }
  assert.deepEqual(
    [...pg.keys()].filter((t) => !sqlite.has(t)),
    ['schema_migrations'],
    'PostgreSQL adds only its migration table',
  );
});

test('four processes opening a new store at once apply each migration once', async () => {
  const location = pgSchemaUrl();
  const script = `const { openRunStore } = require(${JSON.stringify(join(ROOT, 'src/store'))});
    const s = openRunStore(${JSON.stringify(location)}); s.listRuns(); s.close(); process.stdout.write('open\\n');`;
  const results = await Promise.all([1, 2, 3, 4].map(() => child(script)));
  for (const r of results) assert.equal(r.code, 0, r.out);
  const rows = pgAdminQuery(`SELECT version FROM ${schemaOf(location)}.schema_migrations ORDER BY version`);
  // each step once, in order (1, 2, …: as many as the store knows)
  assert.deepEqual(
    rows.map((r) => Number(r.version)),
    PG_MIGRATIONS.map((_, i) => i + 1),
  );
});

test('an empty database opened to read is "no run store", not an empty one', () => {
  const location = pgSchemaUrl();
  assert.throws(
    () => openRunStore(location, { create: false }),
    (e: unknown) => isOcdbError(e) && e.code === 'StoreUnavailable' && /No run store in postgres:\/\//.test(e.message),
  );
});

test('the change feed wakes a reader when another process commits (LISTEN/NOTIFY), and changesSince names the run', async () => {
  const location = pgSchemaUrl();
  const store = openRunStore(location);
  try {
    const seq = store.changeSeq();
    let wakes = 0;
    const woke = new Promise<void>((resolve) =>
      store.onChange(() => {
        wakes++;
        resolve();
      }),
    );
    const recorder = spawn(process.execPath, ['--import', 'tsx', LOOP, location, 'elsewhere', '3'], {
      stdio: 'ignore',
    });
    const exited = new Promise((r) => recorder.on('exit', r));
    await Promise.race([
      woke,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no notification within 20 s')), 20_000)),
    ]);
    await exited;
    const changes = store.changesSince(seq);
    assert.ok(wakes >= 1);
    assert.deepEqual(
      changes.changedRuns.map((r) => r.runId),
      ['elsewhere'],
    );
  } finally {
    store.close();
  }
});

test("a run of another host reads crashed once its owner's heartbeat is stale, from any host", () => {
  const location = pgSchemaUrl();
  const store = openRunStore(location);
  try {
    store.createRun({ runId: 'remote', sessionId: 's', agentId: 'a', startedAt: Date.now() });
    const table = `${schemaOf(location)}.runs`;
    pgAdminQuery(
      `UPDATE ${table} SET owner_host = 'ci-runner-7', owner_pid = 1, heartbeat_at = ? WHERE run_id = 'remote'`,
      Date.now() - 5_000,
    );
    assert.equal(store.getRun('remote').crashed, false, 'a fresh heartbeat of another host: alive');
    pgAdminQuery(`UPDATE ${table} SET heartbeat_at = ? WHERE run_id = 'remote'`, Date.now() - 5 * 60_000);
    assert.equal(store.getRun('remote').crashed, true, 'a stale heartbeat: crashed');
    assert.equal(store.listRuns().runs[0]?.crashed, true);
  } finally {
    store.close();
  }
});

test('two processes claiming one fork request at once: exactly one gets it', async () => {
  const location = pgSchemaUrl();
  const store = openRunStore(location);
  try {
    await recordSupportRun(store, 'support');
    const first = store.listCheckpoints('support')[0];
    assert.ok(first);
    const created = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: first.checkpointId,
      toolPolicyMap: { '*': 'reuse_result' },
    });
    const script = `const { openRunStore } = require(${JSON.stringify(join(ROOT, 'src/store'))});
      const { claimForkRequest } = require(${JSON.stringify(join(ROOT, 'src/fork/forkRequests'))});
      const s = openRunStore(${JSON.stringify(location)});
      try { claimForkRequest(s, ${JSON.stringify(created.forkRequestId)}, Date.now()); process.stdout.write('claimed'); }
      catch (e) { process.stdout.write('refused: ' + e.message); }
      s.close();`;
    const results = await Promise.all([1, 2, 3].map(() => child(script)));
    const claimed = results.filter((r) => r.out === 'claimed');
    assert.equal(claimed.length, 1, results.map((r) => r.out).join('\n'));
    for (const r of results.filter((x) => x.out !== 'claimed')) assert.match(r.out, /^refused: .*has already/);
  } finally {
    store.close();
  }
});

test('a writer waits for another writer at most its lock timeout, then StoreLocked', () => {
  const location = pgSchemaUrl();
  const holder = new PgDriver({ url: location, location: 'holder' });
  const store = openRunStore(location, { busyTimeoutMs: 300 });
  try {
    holder.begin('write');
    holder.prepare('SELECT pg_advisory_xact_lock(?, ?)').get(storeLockKeys(schemaOf(location)).store, WRITE_LOCK);
    const t = Date.now();
    assert.throws(
      () => store.createRun({ runId: 'blocked', sessionId: 's', agentId: 'a', startedAt: 1 }),
      (e: unknown) => isOcdbError(e) && e.code === 'StoreLocked' && !e.message.includes(url().password),
    );
    assert.ok(Date.now() - t < 5_000);
    holder.rollback();
    assert.equal(store.createRun({ runId: 'free', sessionId: 's', agentId: 'a', startedAt: 1 }).runId, 'free');
    assert.equal(store.hasRun('blocked'), false);
  } finally {
    store.close();
    holder.close();
  }
});

test('the password never shows: store.path and every error carry the redacted location', () => {
  const good = url();
  const store = openRunStore(pgSchemaUrl());
  try {
    assert.ok(!store.path.includes(good.password));
    assert.match(store.path, /^postgres:\/\/\[REDACTED\]@127\.0\.0\.1:/);
  } finally {
    store.close();
  }
  const wrong = new URL(good.toString());
  wrong.password = 'not-the-password-42';
  assert.throws(
    () => openRunStore(wrong.toString()),
    (e: unknown) =>
      isOcdbError(e) &&
      e.code === 'StoreUnavailable' &&
      /Cannot sign in .* PGPASSWORD or ~\/\.pgpass/.test(e.message) &&
      !e.message.includes('not-the-password-42') &&
      !JSON.stringify(e.details).includes('not-the-password-42'),
  );
  const closed = new URL(good.toString());
  closed.port = '1';
  assert.throws(
    () => openRunStore(closed.toString()),
    (e: unknown) =>
      isOcdbError(e) &&
      e.code === 'StoreUnavailable' &&
      /Cannot reach/.test(e.message) &&
      !e.message.includes(good.password),
  );
  // through the CLI as a user sees it: one line, no stack, no password
  const cli = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'runs', '--store', wrong.toString()],
    {
      encoding: 'utf8',
    },
  );
  assert.notEqual(cli.status, 0);
  assert.match(cli.stderr, /Cannot sign in/);
  assert.ok(!cli.stderr.includes('not-the-password-42'), cli.stderr);
  assert.ok(!/\n\s+at /.test(cli.stderr), 'no stack trace');
});

test('a connection string without a password signs in with PGPASSWORD, or with a pgpass file', async () => {
  const good = url();
  // a schema of its own: the database's default one may hold another version's store (a shared server)
  const bare = new URL(pgSchemaUrl());
  bare.password = '';
  const script = `const { openRunStore } = require(${JSON.stringify(join(ROOT, 'src/store'))});
    const s = openRunStore(${JSON.stringify(bare.toString())}); process.stdout.write(String(s.listRuns().total >= 0)); s.close();`;
  const { PGPASSWORD: _p, PGPASSFILE: _f, ...env } = process.env;
  const withEnv = await child(script, { ...env, PGPASSWORD: decodeURIComponent(good.password) });
  assert.equal(withEnv.out, 'true', withEnv.out);
  const passfile = join(tmpDir(), 'pgpass');
  writeFileSync(
    passfile,
    `${good.hostname}:${good.port}:*:${decodeURIComponent(good.username)}:${decodeURIComponent(good.password)}\n`,
  );
  chmodSync(passfile, 0o600);
  const withFile = await child(script, { ...env, PGPASSFILE: passfile });
  assert.equal(withFile.out, 'true', withFile.out);
  const without = await child(script, env);
  assert.match(without.out, /Cannot sign in to the run store/);
  // no password anywhere: the CLI says where to give one, in one line (pg refuses this on the client side)
  const cli = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'runs', '--store', bare.toString()],
    {
      encoding: 'utf8',
      env: { ...env, PGPASSFILE: join(tmpDir(), 'no-pgpass') },
    },
  );
  assert.notEqual(cli.status, 0);
  assert.match(cli.stderr, /Cannot sign in to the run store .*PGPASSWORD or ~\/\.pgpass/);
  assert.ok(!/\n\s+at /.test(cli.stderr), `no stack trace: ${cli.stderr}`);
});

test('the integrity check finds a reference that does not resolve, and a view fails only on the damaged item', () => {
  const location = pgSchemaUrl();
  const store = openRunStore(location);
  try {
    store.createRun({ runId: 'r', sessionId: 's', agentId: 'a', startedAt: 1 });
    const base = { runId: 'r', boundary: 'before_model_call' as const, stepIndex: 0, toolLedgerSnapshot: [] };
    const context = { ...testContextOf(), conversation: { sessionId: 's' } };
    const messages = [
      { role: 'user' as const, content: 'first, to be damaged' },
      { role: 'assistant' as const, content: 'second, intact' },
    ];
    store.appendCheckpoint({ ...base, checkpointId: 'r#0', messages, runtimeContext: context, createdAt: 2 });
    assert.equal(store.integrityCheck(), 'ok');
    const schema = schemaOf(location);
    pgAdminQuery(
      `DELETE FROM ${schema}.blobs WHERE hash = (SELECT item FROM ${schema}.list_nodes WHERE parent = 0 LIMIT 1)`,
    );
    assert.match(store.integrityCheck(), /^1 dangling references/);
    const fresh = openRunStore(location, { create: false });
    try {
      const view = fresh.getCheckpointView('r#0');
      assert.equal(view.messages[1]?.content, 'second, intact');
      assert.throws(() => view.messages[0], /missing/);
    } finally {
      fresh.close();
    }
  } finally {
    store.close();
  }
});
