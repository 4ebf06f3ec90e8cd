/**
 * A store location is a path or a URL, everywhere a store is named: `--store` / OCDB_STORE (resolveStorePath),
 * the launch configuration's `store`, and what is shown (storeLocationLabel: never the password). The password
 * the extension keeps in SecretStorage is filled into a URL that names none, keyed by the URL without password
 * and options; a URL store's companion files (server.json, transcripts) live in one local folder per database.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parseLaunchArgs } from '../../../src/debug/launchArgs';
import { redactText, storeLocationLabel } from '../../../src/model';
import {
  isPostgresLocation,
  isStoreUrl,
  openRunStore,
  resolveStorePath,
  storeLocalFolder,
  storePasswordKey,
  withStorePassword,
} from '../../../src/store';
import { transcriptPath } from '../../../src/debug/transcriptFiles';

const URL_WITH_SECRET = 'postgres://alice:s3cr%40t-pw@db.team.example:5432/runs?sslmode=require&password=s3cond';

describe('store locations', () => {
  it('--store / OCDB_STORE: a URL is kept as given, a path is resolved against the working directory', () => {
    assert.equal(resolveStorePath('postgres://alice@db/runs', {}, '/w'), 'postgres://alice@db/runs');
    assert.equal(resolveStorePath(undefined, { OCDB_STORE: ' postgresql://db/runs ' }, '/w'), 'postgresql://db/runs');
    assert.equal(resolveStorePath('runs.db', {}, '/w'), path.resolve('/w', 'runs.db'));
    assert.equal(resolveStorePath(undefined, {}, '/w'), path.join('/w', '.ocdb', 'runs.db'));
    assert.equal(isStoreUrl('C:\\runs.db'), false, 'a drive letter is not a scheme');
    assert.equal(isPostgresLocation('postgresql://h/db'), true);
    assert.equal(isPostgresLocation('/tmp/postgres.db'), false);
  });

  it("':memory:' is SQLite's in-memory store, not a file of that name in the working directory", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-memory-'));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const store = openRunStore(':memory:');
      assert.deepEqual(store.listRuns().runs, [], 'an empty store');
      store.close();
      assert.deepEqual(fs.readdirSync(dir), [], 'no file was made');
    } finally {
      process.chdir(cwd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the launch configuration's store may be a URL", () => {
    const args = parseLaunchArgs({ runId: 'r', store: 'postgres://alice@db.team.example/runs' }, {}, '/w');
    assert.equal(args.storePath, 'postgres://alice@db.team.example/runs');
  });

  it('what is shown keeps user, host, port and database, never a password (in the URL or its query)', () => {
    const shown = storeLocationLabel(URL_WITH_SECRET);
    assert.equal(shown, 'postgres://alice@db.team.example:5432/runs?sslmode=require&password=[REDACTED]');
    assert.doesNotMatch(shown, /s3cr|s3cond/);
    assert.doesNotMatch(redactText(`cannot open ${URL_WITH_SECRET}`), /s3cr|s3cond/);
    assert.equal(storeLocationLabel('/home/a/.ocdb/runs.db'), '/home/a/.ocdb/runs.db');
  });

  it('a stored password fills a URL that names none, and never replaces one it names', () => {
    const filled = withStorePassword('postgres://alice@db.team.example:5432/runs', 'p@ss:w/rd');
    assert.equal(new URL(filled).password, encodeURIComponent('p@ss:w/rd'));
    assert.equal(decodeURIComponent(new URL(filled).password), 'p@ss:w/rd');
    assert.equal(withStorePassword('postgres://alice:given@db/runs', 'other'), 'postgres://alice:given@db/runs');
    assert.equal(withStorePassword('/tmp/runs.db', 'x'), '/tmp/runs.db');
    assert.equal(withStorePassword('postgres://alice@db/runs', undefined), 'postgres://alice@db/runs');
  });

  it('the password key is the URL without password and options; a file has none', () => {
    assert.equal(storePasswordKey(URL_WITH_SECRET), 'postgres://alice@db.team.example:5432/runs');
    assert.equal(storePasswordKey('postgres://alice@db.team.example:5432/runs'), storePasswordKey(URL_WITH_SECRET));
    assert.notEqual(storePasswordKey('postgres://bob@db.team.example:5432/runs'), storePasswordKey(URL_WITH_SECRET));
    assert.equal(storePasswordKey('/tmp/runs.db'), undefined);
  });

  it("a URL store's local folder is one per database under ~/.ocdb/stores, with no secret in its name", () => {
    const folder = storeLocalFolder(URL_WITH_SECRET);
    assert.equal(folder, storeLocalFolder('postgres://alice@db.team.example:5432/runs'));
    assert.ok(folder.startsWith(path.join(os.homedir(), '.ocdb', 'stores') + path.sep), folder);
    assert.doesNotMatch(folder, /s3cr|alice|team/);
    assert.equal(storeLocalFolder('/data/runs.db'), '/data');
    const transcript = transcriptPath('postgres://alice@db.team.example:5432/runs', 'run-1');
    assert.equal(transcript, path.join(folder, 'transcripts', 'run-1.transcript'));
  });
});
