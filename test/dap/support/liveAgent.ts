/**
 * Test support for the live DAP tests: starts the order agent (orderAgent.cjs, the README's recording example run
 * longer, on the shipped SDK bundle) as a real process, collects the JSON lines it prints, and attaches a
 * DebugClient to `ocdb dap` with breakpoints set before configurationDone (as VS Code does).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { buildOnce, startClient, type OcdbDebugClient } from './dapClient';

const AGENT = path.join(__dirname, 'orderAgent.cjs');

export interface AgentProcess {
  proc: ChildProcess;
  /** Every JSON line printed so far. */
  lines: Record<string, unknown>[];
  stderr: string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** Resolves with the first line matching `pred` (rejects after `ms`). */
  line(pred: (l: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  /** The run id the agent printed first. */
  runId(): Promise<string>;
}

/** Starts the order agent on `store`; `go`: a file it waits for after its first checkpoint. */
export function startAgent(store: string, opts: { agentId: string; go?: string; orderId?: string }): AgentProcess {
  buildOnce();
  const env: NodeJS.ProcessEnv = { ...process.env, OCDB_STORE: store, AGENT_ID: opts.agentId };
  if (opts.go) env.AGENT_GO = opts.go;
  if (opts.orderId) env.ORDER_ID = opts.orderId;
  const proc = spawn(process.execPath, [AGENT], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const waiters: { pred: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] =
    [];
  let buf = '';
  const agent: AgentProcess = {
    proc,
    lines,
    stderr: '',
    exited: new Promise((resolve) => proc.on('exit', (code) => resolve(code))),
    line(pred, ms = 60000) {
      const seen = lines.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`the agent printed no such line in ${ms} ms: ${JSON.stringify(lines)} ${agent.stderr}`)),
          ms,
        );
        waiters.push({
          pred,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
      });
    },
    async runId() {
      return String((await agent.line((l) => typeof l.runId === 'string' && l.done === undefined)).runId);
    },
  };
  proc.stderr?.on('data', (d: Buffer) => (agent.stderr += d.toString()));
  proc.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const text = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!text.trim()) continue;
      const l = JSON.parse(text) as Record<string, unknown>;
      lines.push(l);
      for (const w of waiters.splice(0)) {
        if (w.pred(l)) w.resolve(l);
        else waiters.push(w);
      }
    }
  });
  return agent;
}

/** The debug clients and agent processes of a suite's live tests, each given back after the test that started it. */
export interface LiveProcesses {
  /** A started DebugClient on `ocdb dap` (startClient's options). */
  client(spawnWith?: Parameters<typeof startClient>[0]): Promise<OcdbDebugClient>;
  /** The order agent started on `store` (startAgent's options). */
  agent(store: string, opts: Parameters<typeof startAgent>[1]): AgentProcess;
}

/**
 * Starts the clients and agents of a suite's live tests and gives them back after each test (an `afterEach` it
 * registers: call it in the `describe` body): every client woken first (a test may have frozen its adapter) and
 * stopped, every agent killed — a failed test leaves no agent held at a stop nor an adapter running.
 */
export function liveProcesses(): LiveProcesses {
  const clients: OcdbDebugClient[] = [];
  const agents: AgentProcess[] = [];
  afterEach(async () => {
    for (const dc of clients.splice(0)) {
      dc.process?.kill('SIGCONT');
      await dc.stop().catch(() => undefined);
    }
    for (const a of agents.splice(0)) a.proc.kill('SIGKILL');
  });
  return {
    async client(spawnWith) {
      const dc = await startClient(spawnWith);
      clients.push(dc);
      return dc;
    },
    agent(store, opts) {
      const a = startAgent(store, opts);
      agents.push(a);
      return a;
    },
  };
}

/** Lets an agent waiting for its go file go on. */
export function go(file: string): void {
  fs.writeFileSync(file, 'go');
}

/**
 * initialize + attach + (the client's breakpoints in `configure`) + configurationDone, as VS Code sends them.
 */
export async function attach(
  dc: OcdbDebugClient,
  args: Record<string, unknown>,
  configure: () => Promise<unknown> = () => Promise.resolve(),
): Promise<void> {
  await dc.initializeRequest({
    adapterID: 'agent-replay',
    clientID: 'dap-test',
    clientName: 'DebugClient test',
    linesStartAt1: true,
    columnsStartAt1: true,
    pathFormat: 'path',
    supportsInvalidatedEvent: true,
  });
  const initialized = dc.waitForEvent('initialized');
  await dc.attachRequest(args as DebugProtocol.AttachRequestArguments);
  await initialized;
  await configure();
  await dc.configurationDoneRequest();
}

/** The top frame of `threadId`. */
export async function top(dc: OcdbDebugClient, threadId: number): Promise<DebugProtocol.StackFrame> {
  const f = (await dc.stackTraceRequest({ threadId, startFrame: 0, levels: 1 })).body.stackFrames[0];
  if (!f) throw new Error(`thread ${threadId} has no frames`);
  return f;
}

/** The variables of scope `name` of the top frame of `threadId`. */
export async function scopeVars(
  dc: OcdbDebugClient,
  threadId: number,
  name: string,
): Promise<{ ref: number; vars: DebugProtocol.Variable[] }> {
  const scopes = (await dc.scopesRequest({ frameId: (await top(dc, threadId)).id })).body.scopes;
  const s = scopes.find((x) => x.name === name);
  if (!s) throw new Error(`no scope ${name} (scopes: ${scopes.map((x) => x.name).join(', ')})`);
  return {
    ref: s.variablesReference,
    vars: (await dc.variablesRequest({ variablesReference: s.variablesReference })).body.variables,
  };
}

/** The names of the scopes of the top frame of `threadId`. */
export async function scopeNames(dc: OcdbDebugClient, threadId: number): Promise<string[]> {
  return (await dc.scopesRequest({ frameId: (await top(dc, threadId)).id })).body.scopes.map((s) => s.name);
}

/**
 * The first event of the adapter from position `from` of `dc.events` on (0: since the start) that matches: no
 * race with events that came before the wait began. Resolves with the event and the position after it.
 */
export async function eventFrom<E extends DebugProtocol.Event>(
  dc: OcdbDebugClient,
  from: number,
  pred: (e: DebugProtocol.Event) => boolean,
  ms = 60000,
): Promise<{ event: E; next: number }> {
  const until = Date.now() + ms;
  for (;;) {
    for (let i = from; i < dc.events.length; i++) {
      const e = dc.events[i] as DebugProtocol.Event;
      if (pred(e)) return { event: e as E, next: i + 1 };
    }
    if (Date.now() > until) {
      throw new Error(
        `no such event in ${ms} ms after #${from}: ${dc.events
          .slice(from)
          .map((e) => e.event)
          .join(', ')}`,
      );
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Where the next event will be in `dc.events` (mark it before the request that causes it). */
export function mark(dc: OcdbDebugClient): number {
  return dc.events.length;
}

/** The next stopped event from `from` on (of `threadId` when given). */
export async function stoppedFrom(
  dc: OcdbDebugClient,
  from: number,
  threadId?: number,
  ms = 60000,
): Promise<DebugProtocol.StoppedEvent> {
  const { event } = await eventFrom<DebugProtocol.StoppedEvent>(
    dc,
    from,
    (e) =>
      e.event === 'stopped' && (threadId === undefined || (e as DebugProtocol.StoppedEvent).body.threadId === threadId),
    ms,
  );
  return event;
}
