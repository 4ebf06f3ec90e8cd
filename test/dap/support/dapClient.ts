/**
 * Test support for the DAP layer: builds the shipped bundle once, writes the
 * demo store into a temp folder with `ocdb demo`, and starts `node
 * dist/cli.js dap` under @vscode/debugadapter-testsupport's DebugClient (a
 * DAP client this project did not write) over stdio.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { openRunStore, type CheckpointSummary } from '../../../src/store';
import type { DebugProtocol } from '@vscode/debugprotocol';

export const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
let built = false;

/** Builds dist/ once per test process (the tests run against the bundle that ships). */
export function buildOnce(): void {
  if (built) return;
  const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build failed: ${r.stderr}`);
  built = true;
}

/** A fresh demo store in a temp folder (`ocdb demo --store`); returns its path. */
export function demoStore(): string {
  buildOnce();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-dap-'));
  const store = path.join(dir, 'runs.db');
  const r = spawnSync(process.execPath, [CLI, 'demo', '--store', store], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ocdb demo failed: ${r.stderr}`);
  return store;
}

/** The checkpoint summaries of `runId` in `store`, read straight from the store (what the frames must match). */
export function checkpointsOf(store: string, runId: string): CheckpointSummary[] {
  const s = openRunStore(store, { create: false });
  try {
    return s.listCheckpoints(runId);
  } finally {
    s.close();
  }
}

/** DebugClient driving `node dist/cli.js dap` over stdio. */
export class OcdbDebugClient extends DebugClient {
  private proc: ChildProcess | undefined;
  stderr = '';
  /** Every event the adapter sent, in order (for event-order checks). */
  readonly events: DebugProtocol.Event[] = [];
  /** Set when the adapter process exits. */
  exited: Promise<number | null> = Promise.resolve(null);

  /** `nodeArgs` before the CLI (a preload such as test/support/skewedClock.mjs), `env` added to the adapter's. */
  constructor(private readonly spawnWith: { nodeArgs?: string[]; env?: NodeJS.ProcessEnv } = {}) {
    super(process.execPath, CLI, 'agent-replay');
    this.defaultTimeout = 20000;
  }

  /** The adapter's process (signals: a debugger that freezes, or dies). */
  get process(): ChildProcess | undefined {
    return this.proc;
  }

  override start(): Promise<void> {
    buildOnce();
    this.proc = spawn(process.execPath, [...(this.spawnWith.nodeArgs ?? []), CLI, 'dap'], {
      cwd: ROOT,
      env: { ...process.env, OCDB_STORE: '', ...this.spawnWith.env },
    });
    this.proc.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    // a test that killed the adapter still says disconnect when it stops: the pipe's EPIPE is expected, kept as text
    this.proc.stdin?.on('error', (e) => (this.stderr += `\n[adapter stdin: ${e.message}]`));
    const proc = this.proc;
    this.exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
    this.connect(this.proc.stdout as Readable, this.proc.stdin as Writable);
    return Promise.resolve();
  }

  override emit(name: string | symbol, ...args: unknown[]): boolean {
    const e = args[0] as DebugProtocol.Event | undefined;
    if (e && typeof e === 'object' && e.type === 'event') this.events.push(e);
    return super.emit(name, ...args);
  }

  /** The seq the next request will carry (to cancel it). */
  get nextSeq(): number {
    return (this as unknown as { sequence: number }).sequence;
  }

  /** Sends `command` and resolves with the whole response, success or not (never rejects). */
  raw(command: string, args?: unknown): Promise<DebugProtocol.Response> {
    return new Promise((resolve) => {
      (this as unknown as { doSend(c: string, a: unknown, cb: (r: DebugProtocol.Response) => void): void }).doSend(
        command,
        args,
        resolve,
      );
    });
  }

  /**
   * Sends `command` with its arguments exactly as given, even empty ones (`raw` leaves out an empty `{}` or `[]`, as
   * the library does; nvim-dap sends `[]`), and resolves with the whole response.
   */
  verbatim(command: string, args: unknown): Promise<DebugProtocol.Response> {
    const self = this as unknown as {
      sequence: number;
      pendingRequests: Map<number, (r: DebugProtocol.Response) => void>;
    };
    return new Promise((resolve) => {
      const seq = self.sequence++;
      self.pendingRequests.set(seq, resolve);
      const json = JSON.stringify({ type: 'request', seq, command, arguments: args });
      this.writeRaw(`Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`);
    });
  }

  /** Kills the adapter process at once (SIGKILL: no disconnect, no cleanup), as a crash would. */
  kill9(): void {
    this.proc?.kill('SIGKILL');
  }

  /** Writes bytes as they are to the adapter's stdin (a malformed message). */
  writeRaw(text: string): void {
    this.proc?.stdin?.write(text);
  }

  /** Disconnects (the adapter exits on its own after disconnect) and makes sure the process is gone. */
  override async stop(): Promise<void> {
    try {
      await Promise.race([this.disconnectRequest({}), this.exited]);
    } catch {
      // the adapter may already be gone
    }
    this.proc?.kill();
    this.proc = undefined;
  }

  /** initialize + launch + configurationDone, resolving with the first stopped event. */
  async launchAndStop(args: Record<string, unknown>): Promise<DebugProtocol.StoppedEvent> {
    const [, , stopped] = await Promise.all([
      this.configurationSequence(),
      this.launch(args),
      this.waitForEvent('stopped'),
    ]);
    return stopped as DebugProtocol.StoppedEvent;
  }

  /** Sends a request and waits for both its response and the stopped event it causes. */
  async stepAndStop(send: () => Promise<unknown>): Promise<DebugProtocol.StoppedEvent> {
    const [, stopped] = await Promise.all([send(), this.waitForEvent('stopped')]);
    return stopped as DebugProtocol.StoppedEvent;
  }

  async frames(levels = 0, startFrame = 0): Promise<DebugProtocol.StackTraceResponse['body']> {
    return (await this.stackTraceRequest({ threadId: 1, startFrame, levels })).body;
  }

  async topFrame(): Promise<DebugProtocol.StackFrame> {
    const f = (await this.frames(1)).stackFrames[0];
    if (!f) throw new Error('no frames');
    return f;
  }

  async scopesOfTop(): Promise<DebugProtocol.Scope[]> {
    return (await this.scopesRequest({ frameId: (await this.topFrame()).id })).body.scopes;
  }

  async scope(name: string): Promise<DebugProtocol.Variable[]> {
    const s = (await this.scopesOfTop()).find((x) => x.name === name);
    if (!s) throw new Error(`no scope ${name}`);
    return (await this.variablesRequest({ variablesReference: s.variablesReference })).body.variables;
  }

  async child(vars: DebugProtocol.Variable[], name: string): Promise<DebugProtocol.Variable[]> {
    const v = vars.find((x) => x.name === name);
    if (!v) throw new Error(`no variable ${name} in ${vars.map((x) => x.name).join(', ')}`);
    return (await this.variablesRequest({ variablesReference: v.variablesReference })).body.variables;
  }

  async evaluate(expression: string, context = 'repl'): Promise<DebugProtocol.EvaluateResponse['body']> {
    const frameId = (await this.topFrame()).id;
    return (await this.evaluateRequest({ expression, frameId, context })).body;
  }
}

/** A started client; the caller stops it. */
export async function startClient(
  spawnWith: ConstructorParameters<typeof OcdbDebugClient>[0] = {},
): Promise<OcdbDebugClient> {
  const dc = new OcdbDebugClient(spawnWith);
  await dc.start();
  return dc;
}
