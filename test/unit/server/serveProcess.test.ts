/**
 * `ocdb serve` as a process: one server per store (a second one is refused
 * and leaves the first one's server.json alone), SIGHUP and SIGTERM remove
 * server.json (the token) on the way out, and the file of a server that died
 * is replaced. Runs the built CLI (npm test builds first).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { serverFilePath } from '../../../src/server/serverFile';
import { tmpDir } from '../../helpers/tmp';

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'cli.js');

function serve(store: string): {
  child: ChildProcess;
  ready: Promise<void>;
  exit: Promise<{ code: number | null; err: string }>;
} {
  const child = spawn(process.execPath, [CLI, 'serve', '--store', store], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Ctrl-C stops')) resolve();
    });
    child.once('exit', () => reject(new Error(`exited before listening: ${err}`)));
  });
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const exit = new Promise<{ code: number | null; err: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, err })),
  );
  ready.catch(() => undefined);
  return { child, ready, exit };
}

const readFile = (store: string) =>
  JSON.parse(fs.readFileSync(serverFilePath(store), 'utf8')) as { pid: number; token: string };

test('a second server on the same store is refused; SIGHUP and SIGTERM remove server.json', async () => {
  const store = path.join(tmpDir(), 'runs.db');
  const first = serve(store);
  await first.ready;
  const owned = readFile(store);
  assert.equal(owned.pid, first.child.pid);

  const second = serve(store);
  const refused = await second.exit;
  assert.equal(refused.code, 1);
  assert.match(refused.err, new RegExp(`Another ocdb serve \\(pid ${first.child.pid}\\) already serves this store`));
  assert.deepEqual(readFile(store), owned, "the first server's file is untouched");

  first.child.kill('SIGHUP');
  assert.equal((await first.exit).code, 0);
  assert.equal(fs.existsSync(serverFilePath(store)), false, 'SIGHUP removed server.json');

  // a file left by a server that died (pid gone) is replaced
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  fs.writeFileSync(
    serverFilePath(store),
    JSON.stringify({ url: 'http://127.0.0.1:1', token: 'x'.repeat(32), pid: Number(dead.stdout) }),
  );
  const third = serve(store);
  await third.ready;
  assert.equal(readFile(store).pid, third.child.pid);
  third.child.kill('SIGTERM');
  assert.equal((await third.exit).code, 0);
  assert.equal(fs.existsSync(serverFilePath(store)), false, 'SIGTERM removed server.json');
});
