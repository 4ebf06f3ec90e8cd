/**
 * A hostile DAP client against a real `ocdb dap` process (dist/cli.js, as `npm test` builds it), speaking raw
 * frames: a Content-Length longer or shorter than its message, a 100 MB request, and a function breakpoint whose
 * glob would backtrack exponentially. The adapter answers each (a response or a clear refusal) and then answers the
 * next request: it never goes deaf.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';

const CLI = path.join(__dirname, '../../../dist/cli.js');

interface Message {
  type: string;
  seq: number;
  request_seq?: number;
  command?: string;
  success?: boolean;
  message?: string;
  event?: string;
  body?: Record<string, unknown>;
}

/** A raw DAP connection: frames written as given, messages read as the adapter sends them. */
class RawClient {
  private buffer = Buffer.alloc(0);
  readonly seen: Message[] = [];
  private waiters: { test: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];

  constructor(readonly proc: ChildProcessWithoutNullStreams) {
    proc.stdout.on('data', (d: Buffer) => this.read(d));
  }

  private read(data: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/.exec(this.buffer.subarray(0, end).toString())?.[1]);
      if (this.buffer.length < end + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString()) as Message;
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.seen.push(message);
      this.waiters = this.waiters.filter((w) => (w.test(message) ? (w.resolve(message), false) : true));
    }
  }

  /** Resolves with the first message (seen or to come) that passes `test`. */
  waitFor(test: (m: Message) => boolean): Promise<Message> {
    const found = this.seen.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  response(seq: number): Promise<Message> {
    return this.waitFor((m) => m.type === 'response' && m.request_seq === seq);
  }

  /** Writes `body` with a Content-Length of `length` (its own byte length unless told). */
  frame(body: string | Buffer, length?: number): void {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    this.proc.stdin.write(`Content-Length: ${length ?? bytes.length}\r\n\r\n`);
    this.proc.stdin.write(bytes);
  }

  request(seq: number, command: string, args?: unknown): string {
    return JSON.stringify({ seq, type: 'request', command, ...(args === undefined ? {} : { arguments: args }) });
  }
}

describe('hostile DAP frames', { timeout: 120_000 }, () => {
  let dir: string;
  let store: string;
  let client: RawClient;
  const cases: string[] = [];

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'att-dapframes-'));
    store = path.join(dir, 'runs.db');
    const demo = spawnSync(process.execPath, [CLI, 'demo', '--store', store], { encoding: 'utf8' });
    assert.equal(demo.status, 0, demo.stderr);
    client = new RawClient(spawn(process.execPath, [CLI, 'dap'], { env: { ...process.env, OCDB_STORE: '' } }));
  });
  after(() => {
    client.proc.kill();
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`# hostile DAP frames: ${cases.length} cases, 0 deaf — ${cases.join('; ')}`);
  });

  it('a Content-Length longer than its message: the message is read as it is, the next one answered', async () => {
    const body = client.request(1, 'initialize', { adapterID: 'agent-replay', linesStartAt1: false });
    client.frame(body, body.length + 100);
    const init = await client.response(1);
    assert.equal(init.success, true);
    await client.waitFor((m) => m.event === 'output' && /announced \d+ bytes/.test(String(m.body?.output)));
    client.frame(client.request(2, 'launch', { runId: 'demo-support-refund', store, stopOnEntry: true }));
    const launched = await client.response(2);
    assert.equal(launched.success, true, JSON.stringify(launched));
    cases.push('long Content-Length');
  });

  it('a longer Content-Length followed at once by the next frame: both read', async () => {
    const body = client.request(3, 'threads');
    client.frame(
      `${body}Content-Length: ${client.request(4, 'threads').length}\r\n\r\n${client.request(4, 'threads')}`,
      9000,
    );
    assert.equal((await client.response(3)).success, true);
    assert.equal((await client.response(4)).success, true);
    cases.push('header inside a body');
  });

  it('a Content-Length shorter than its message: refused, and the next request answered', async () => {
    const body = client.request(5, 'threads');
    client.proc.stdin.write(`Content-Length: 10\r\n\r\n${body}`);
    client.frame(client.request(6, 'threads'));
    assert.equal((await client.response(6)).success, true);
    cases.push('short Content-Length');
  });

  it('a 100 MB request is refused clearly, and the next request answered', async () => {
    const big = Buffer.alloc(100 * 1024 * 1024, 0x61);
    const head = Buffer.from(client.request(7, 'evaluate', { expression: '"' }).slice(0, -3));
    client.frame(Buffer.concat([head, big, Buffer.from('"}}')]));
    const refused = await client.response(7);
    assert.equal(refused.success, false);
    assert.match(String(refused.message), /more than this debugger takes/);
    client.frame(client.request(8, 'threads'));
    assert.equal((await client.response(8)).success, true);
    cases.push('100 MB request');
  });

  it('a 20 MB string literal is evaluated in time linear in its length, and the next request answered', async () => {
    /** Evaluates a string literal of `mb` MiB at the stop; the time until its answer. */
    const evaluate = async (seq: number, mb: number): Promise<number> => {
      const text = 'a'.repeat(mb * 1024 * 1024);
      const started = performance.now();
      client.frame(client.request(seq, 'evaluate', { expression: `"${text}"`, context: 'repl' }));
      const answer = await client.response(seq);
      const took = performance.now() - started;
      assert.equal(answer.success, true, answer.message);
      assert.match(String(answer.body?.result), /^"?aaaa/);
      return took;
    };
    const small = await evaluate(11, 2);
    const big = await evaluate(12, 20);
    // ten times the text: linear costs ~10x (quadratic reading or evaluation: ~100x, 16 s at 20 MB)
    assert.ok(big < 40 * small + 3000, `2 MB: ${small.toFixed(0)} ms, 20 MB: ${big.toFixed(0)} ms`);
    client.frame(client.request(13, 'threads'));
    assert.equal((await client.response(13)).success, true);
    cases.push(`20 MB string literal (${big.toFixed(0)} ms)`);
  });

  it('a function breakpoint glob of many * is answered (no exponential backtracking)', async () => {
    client.frame(client.request(9, 'setFunctionBreakpoints', { breakpoints: [{ name: `${'*'.repeat(40)}Q` }] }));
    const answer = await client.response(9);
    assert.equal(answer.success, true);
    const [bp] = (answer.body?.breakpoints ?? []) as { verified: boolean; message?: string }[];
    assert.equal(bp?.verified, false, 'no tool of the run matches');
    client.frame(client.request(10, 'setFunctionBreakpoints', { breakpoints: [{ name: '*_*' }] }));
    const [real] = ((await client.response(10)).body?.breakpoints ?? []) as { verified: boolean }[];
    assert.equal(real?.verified, true);
    cases.push('pathological glob');
  });
});
