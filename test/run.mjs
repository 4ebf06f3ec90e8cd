// Runs the node:test files of one layer (`unit`, `dap`, ...) — Node 20's
// `--test` takes no globs, so this finds the *.test.ts files itself.
//
// `node test/run.mjs --postgres` is the store suite's second engine: the files of POSTGRES_SUITE (and every
// *.pg.test.ts, which the layers leave out) with OCDB_TEST_ENGINE=postgres, so each store they open is a fresh
// schema of the PostgreSQL server at OCDB_TEST_PG_URL. Without that variable it starts a throwaway server with
// test/support/pgCluster.sh when PostgreSQL is installed; without a server it says so loudly, and fails under CI.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';

/** The tests that run on PostgreSQL too: the store's, the write path's, the fork engine's store-heavy ones. */
const POSTGRES_SUITE = [
  'test/unit/store/roundTrip.test.ts',
  'test/unit/store/listMemo.test.ts',
  'test/unit/store/loadValidation.test.ts',
  'test/unit/store/lazyView.test.ts',
  // a view's items validated and frozen once per content, shared by the views that hold them
  'test/unit/store/itemCache.test.ts',
  'test/unit/store/contentAddressing.test.ts',
  // new content written without a look-up per blob; content stored before looked up again
  'test/unit/store/blobLookups.test.ts',
  // file versions: each text stored once by content, each version once
  'test/unit/store/fileVersions.test.ts',
  // an imported session's files stored by its import: read back as rebuilding gives them, a grown session continued
  'test/unit/replay/rebuiltFiles.test.ts',
  // pushed and pulled between SQLite and PostgreSQL, a run's stored files go with it
  'test/unit/replay/copiedFiles.test.ts',
  // a cancelled call is no error; an older store's count corrected once at open (store/fixups.ts)
  'test/unit/store/fixups.test.ts',
  // a screenshot in a tool result stored once
  'test/unit/store/imageResults.test.ts',
  'test/unit/store/processes.test.ts',
  // a used checkpoint id refused with nothing kept, the change feed once and in order
  'test/unit/store/appendPath.test.ts',
  'test/unit/writer/conformance.test.ts',
  // the Timeline's summary query: the calls' states and live-edit marks from their rows (listToolCallMarks)
  'test/unit/replay/timeline.test.ts',
  // the Timeline's marks read as one row of columns (JSON aggregates), equal to the full reads of the same rows
  'test/unit/store/marks.test.ts',
  // a finished call's record made from the open one the writer holds, or read back when the row changed
  'test/unit/writer/finishRecord.test.ts',
  // the time a live debugger held a call, apart from its own time
  'test/unit/writer/toolHold.test.ts',
  // a writer letting go of what it wrote (a streamed import) and a run's end setting its metadata
  'test/unit/writer/rebase.test.ts',
  'test/unit/fork/forkService.test.ts',
  'test/unit/fork/capturedReplay.test.ts',
  // the cassette's n-th recorded result, counting the calls finished at the fork point
  'test/unit/fork/cassetteCount.test.ts',
  // push / pull between a SQLite file and the PostgreSQL store, and ocdb serve over TLS in front of it
  'test/unit/cli/transfer.test.ts',
  'test/unit/server/tlsServe.test.ts',
  // live debugging's stop protocol and gate, artifacts, a resumed writer (the integration of this wave)
  'test/unit/store/liveTable.test.ts',
  'test/unit/writer/liveGate.test.ts',
  'test/unit/recorder/artifact.test.ts',
  'test/unit/writer/resume.test.ts',
  // many runs loaded in one transaction, the scale bench's seeding path
  'test/unit/store/bulkLoad.test.ts',
  // checkpoint ids of every kind found by themselves, heads, usages (schema 7)
  'test/unit/store/checkpointIds.test.ts',
];

const args = process.argv.slice(2);
const postgres = args.includes('--postgres');
const layers = args.filter((a) => a !== '--postgres');
if (layers.length === 0 && !postgres) {
  console.error('usage: node test/run.mjs <layer> [<layer> ...] | --postgres   (folders under test/)');
  process.exit(2);
}
function find(dir, suffix = '.test.ts') {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return find(p, suffix);
    return name.endsWith(suffix) ? [p] : [];
  });
}
function runTests(files, env = process.env) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], {
    stdio: 'inherit',
    env,
  });
  return r.status ?? 1;
}

if (!postgres) {
  const files = layers
    .flatMap((l) => find(join('test', l)))
    .filter((f) => !f.endsWith('.pg.test.ts'))
    .sort();
  if (files.length === 0) {
    console.error(`no test files under ${layers.map((l) => `test/${l}`).join(', ')}`);
    process.exit(1);
  }
  // an SDK recorder pointed at a postgres:// URL writes to it (the tests of the engine), not to a local store in
  // ~/.ocdb it ships from; the tests of local-first recording ask for it by name
  process.exit(runTests(files, { ...process.env, OCDB_TEAM_STORE: process.env.OCDB_TEAM_STORE ?? 'direct' }));
}

const ci = Boolean(process.env.CI) && process.env.CI !== '0' && process.env.CI !== 'false';
const files = [...POSTGRES_SUITE, ...find('test/unit', '.pg.test.ts').sort()];
let url = process.env.OCDB_TEST_PG_URL;
let started;
if (!url) {
  const r = spawnSync('bash', ['test/support/pgCluster.sh', 'start'], { encoding: 'utf8' });
  if (r.status === 0) {
    started = /OCDB_TEST_PG_DIR='([^']+)'/.exec(r.stdout)?.[1];
    url = /OCDB_TEST_PG_URL='([^']+)'/.exec(r.stdout)?.[1];
  } else {
    const bar = '!'.repeat(100);
    console.error(
      `\n${bar}\n!! The PostgreSQL store tests did NOT run (${files.length} files): no server.\n` +
        `!! ${(r.stderr || r.stdout).trim().split('\n').join('\n!! ')}\n` +
        "!! Install Debian's postgresql (apt-get install -y postgresql) or set OCDB_TEST_PG_URL to a server\n" +
        `!! you may create schemas on.${ci ? ' CI=1: this fails the run.' : ''}\n${bar}\n`,
    );
    process.exit(ci ? 1 : 0);
  }
}
console.log(`PostgreSQL store suite: ${files.length} files on ${url.replace(/\/\/[^@/]*@/, '//[REDACTED]@')}`);
// the suite tests the engine: an SDK recorder pointed at the server writes to it, not to a local store it ships from
const status = runTests(files, {
  ...process.env,
  OCDB_TEST_ENGINE: 'postgres',
  OCDB_TEST_PG_URL: url,
  OCDB_TEAM_STORE: 'direct',
});
if (started) spawnSync('bash', ['test/support/pgCluster.sh', 'stop', started], { stdio: 'inherit' });
process.exit(status);
