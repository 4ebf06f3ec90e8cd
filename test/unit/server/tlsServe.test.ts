/**
 * `ocdb serve --host 0.0.0.0 --tls-cert … --tls-key …` as a process, with a self-signed certificate this test
 * makes with openssl: it speaks HTTPS only (a client that does not trust the certificate is refused, plain HTTP
 * gets no answer), answers the certificate's names and --allow-host names with the token, refuses other Host
 * headers (421) and a missing token (401), and is reachable on this machine's non-loopback address — in front of
 * a store on the engine under test (a PostgreSQL schema under OCDB_TEST_ENGINE=postgres). A
 * non-loopback host without TLS, half the TLS pair, or a key of another certificate is refused before listening.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isAllowedHost, planListen } from '../../../src/server/listenAddress';
import { serverFilePath } from '../../../src/server/serverFile';
import { tmpLocation } from '../../helpers/engines';
import { tmpDir } from '../../helpers/tmp';

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'cli.js');
const NAME = 'runs.ocdb-test.example';

const dir = tmpDir('ocdb-tls-');
let cert: string;
let key: string;
let otherKey: string;

function makeCert(stem: string): { cert: string; key: string } {
  const certFile = path.join(dir, `${stem}.crt`);
  const keyFile = path.join(dir, `${stem}.key`);
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      `/CN=${NAME}`,
      '-addext',
      `subjectAltName=DNS:${NAME},IP:127.0.0.1`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, `openssl (installed by .ci/run) made no certificate: ${r.stderr}`);
  return { cert: certFile, key: keyFile };
}

function serve(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'serve', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const exit = new Promise<{ code: number | null; err: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, err })),
  );
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Ctrl-C stops')) resolve(out);
    });
    child.once('exit', () => reject(new Error(`exited before listening: ${err}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exit };
}

function get(
  port: number,
  options: { host?: string; address?: string; token?: string; ca?: string; servername?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: options.address ?? '127.0.0.1',
        port,
        path: '/runs',
        method: 'GET',
        servername: options.servername ?? NAME,
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
        headers: {
          host: options.host ?? `${NAME}:${port}`,
          ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function externalAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

before(() => {
  const made = makeCert('server');
  cert = made.cert;
  key = made.key;
  otherKey = makeCert('other').key;
});

describe('ocdb serve over TLS on a non-loopback address', () => {
  // the store on the engine under test: a file, or a PostgreSQL schema (OCDB_TEST_ENGINE=postgres)
  const location = tmpLocation('runs.db');
  const store = () => location;
  let server: ReturnType<typeof serve>;
  let port: number;
  let token: string;
  let ca: string;

  before(async () => {
    server = serve(
      ['--host', '0.0.0.0', '--tls-cert', cert, '--tls-key', key, '--allow-host', 'alias.internal', '--store', store()],
      { HOME: dir },
    );
    const out = await server.ready;
    const named = /Token and URL in (\S+)\. Ctrl-C stops/.exec(out)?.[1];
    assert.ok(named, out);
    // beside a store file; a URL store's under ~/.ocdb/stores/<hash>/ (HOME is the test's folder here)
    if (!location.startsWith('postgres')) assert.equal(named, serverFilePath(location));
    else assert.ok(named.startsWith(path.join(dir, '.ocdb', 'stores') + path.sep), named);
    const file = JSON.parse(fs.readFileSync(named, 'utf8')) as { url: string; token: string };
    assert.match(out, new RegExp(`API on https://${NAME.replace(/\./g, '\\.')}:\\d+ for `));
    assert.match(file.url, new RegExp(`^https://${NAME.replace(/\./g, '\\.')}:\\d+$`));
    port = Number(new URL(file.url).port);
    token = file.token;
    ca = fs.readFileSync(cert, 'utf8');
  });
  after(async () => {
    server.child.kill('SIGTERM');
    await server.exit;
  });

  it('answers the certificate name over HTTPS with the token; 401 without it', async () => {
    const ok = await get(port, { ca, token });
    assert.equal(ok.status, 200, ok.body);
    assert.ok(Array.isArray((JSON.parse(ok.body) as { runs: unknown[] }).runs));
    assert.equal((await get(port, { ca })).status, 401);
  });

  it('answers its IP name, loopback and --allow-host names; refuses another Host with 421', async () => {
    assert.equal((await get(port, { ca, token, host: `127.0.0.1:${port}`, servername: '' })).status, 200);
    assert.equal((await get(port, { ca, token, host: `alias.internal:${port}` })).status, 200);
    const foreign = await get(port, { ca, token, host: `evil.example:${port}` });
    assert.equal(foreign.status, 421);
    assert.match(foreign.body, /Host evil\.example:\d+ is not a name of this server/);
    assert.equal((await get(port, { ca, token, host: `${NAME}:${port + 1}` })).status, 421, 'another port');
  });

  it('is reached on the non-loopback address of this machine', async () => {
    const address = externalAddress();
    assert.ok(address, 'this machine has a non-loopback IPv4 address');
    assert.equal((await get(port, { ca, token, address })).status, 200);
  });

  it('refuses a client that does not trust the certificate, and plain HTTP gets no HTTP answer', async () => {
    await assert.rejects(get(port, { token }), /self[- ]signed certificate/);
    const reply = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write(`GET /runs HTTP/1.1\r\nHost: ${NAME}:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    assert.doesNotMatch(reply, /^HTTP\/1\.1 200/, 'no run list over plain HTTP');
    assert.doesNotMatch(reply, /"runs"/);
  });
});

describe('ocdb serve refuses an open address without TLS', () => {
  it('a non-loopback --host without --tls-cert / --tls-key exits 2 before listening', async () => {
    const r = await serve(['--host', '0.0.0.0', '--store', path.join(dir, 'open.db')]).exit;
    assert.equal(r.code, 2);
    assert.match(r.err, /--host 0\.0\.0\.0 is reachable from other machines: serve it only over TLS with --tls-cert/);
    assert.equal(fs.existsSync(path.join(dir, 'open.db')), false, 'no store was opened');
  });

  it('half the TLS pair, or the key of another certificate, exits 2', async () => {
    const half = await serve(['--host', '0.0.0.0', '--tls-cert', cert, '--store', path.join(dir, 'h.db')]).exit;
    assert.equal(half.code, 2);
    assert.match(half.err, /Give both --tls-cert <file> and --tls-key <file>/);
    const wrong = await serve([
      '--host',
      '0.0.0.0',
      '--tls-cert',
      cert,
      '--tls-key',
      otherKey,
      '--store',
      path.join(dir, 'w.db'),
    ]).exit;
    assert.equal(wrong.code, 2);
    assert.match(wrong.err, /--tls-key .*other\.key is not the key of the certificate/);
    const notPem = await serve(['--tls-cert', key, '--tls-key', key, '--store', path.join(dir, 'p.db')]).exit;
    assert.equal(notPem.code, 2);
    assert.match(notPem.err, /--tls-cert .*server\.key is not a PEM certificate/);
  });
});

describe('listen plan and Host names', () => {
  it('loopback by default answers loopback names only, on our port', () => {
    const plan = planListen({});
    assert.equal(plan.host, '127.0.0.1');
    assert.equal(plan.url(4000), 'http://127.0.0.1:4000');
    for (const h of ['127.0.0.1:4000', 'localhost', '[::1]:4000', 'LOCALHOST:4000'])
      assert.ok(isAllowedHost(h, plan.names, 4000), h);
    for (const h of ['127.0.0.1:4001', 'localhost.evil.example', 'user@localhost', '127.0.0.1.nip.io', '0.0.0.0', ''])
      assert.ok(!isAllowedHost(h, plan.names, 4000), h);
  });

  it('a named host is allowed as itself', () => {
    const plan = planListen({ host: 'localhost' });
    assert.ok(isAllowedHost('localhost:1', plan.names, 1));
  });

  it('a URL store has its server file under ~/.ocdb/stores, the same for every spelling of its password', () => {
    const a = serverFilePath('postgres://alice:s3cret@db.example:5432/runs');
    const b = serverFilePath('postgres://alice@db.example:5432/runs?sslmode=require');
    assert.equal(a, b);
    assert.ok(a.startsWith(path.join(os.homedir(), '.ocdb', 'stores')), a);
    assert.doesNotMatch(a, /s3cret/);
    assert.notEqual(a, serverFilePath('postgres://alice@db.example:5432/other'));
  });
});
