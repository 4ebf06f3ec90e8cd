/**
 * The thread that talks to a team store (a PostgreSQL run store) for a `TeamStore` (teamClient.ts): every wait
 * on the network happens here, never on the caller's thread (the VS Code extension host, a CLI's event loop).
 * It holds the team store open (the store's synchronous contract is fine on a thread that does nothing else),
 * answers one request at a time, forwards the store's change feed (LISTEN/NOTIFY) as `changed` events, and copies
 * runs between the team store and a local SQLite store with the transfer rules of `runTransfer.ts`.
 * A failure is answered as text with what the caller needs to decide: offline (retry later) or a refused sign-in.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage, OcdbError, redactText } from '../model';
import { openRunStore, type RunStore } from '../store';
import { RunShipping } from './runShipping';
import { transferRuns } from './runTransfer';
import type { TeamFailure, TeamOp, TeamReply, TeamRequest, TeamValue, TeamWorkerData } from './teamProtocol';

const data = workerData as TeamWorkerData;
let team: RunStore | undefined;
let stopFeed: (() => void) | undefined;
const locals = new Map<string, RunStore>();
/** What this thread shipped from each local store: a confirmation sends only what is newer (runShipping.ts). */
const shippers = new Map<string, RunShipping>();

function post(reply: TeamReply): void {
  parentPort?.postMessage(reply);
}

function teamStore(): RunStore {
  if (team) return team;
  const store = openRunStore(data.url, { create: false, connectTimeoutMs: data.connectTimeoutMs });
  team = store;
  if (!data.changeFeed) return store;
  try {
    stopFeed = store.onChange?.(() => post({ id: 0, event: 'changed' }));
  } catch {
    // no change feed: the caller's poll of changeSeq still sees other writers
  }
  return store;
}

function localStore(localPath: string): RunStore {
  let store = locals.get(localPath);
  if (!store) {
    store = openRunStore(localPath, { create: true });
    locals.set(localPath, store);
  }
  return store;
}

function shipping(localPath: string): RunShipping {
  const store = teamStore();
  let shipper = shippers.get(localPath);
  // a team store opened again (after a failure) is a new target: what was shipped is read from it again
  if (!shipper || shipper.target !== store) {
    shipper = new RunShipping(localStore(localPath), store);
    shippers.set(localPath, shipper);
  }
  return shipper;
}

function dropTeam(): void {
  stopFeed?.();
  stopFeed = undefined;
  try {
    team?.close();
  } catch {
    // a connection already gone closes with an error: nothing to keep
  }
  team = undefined;
}

function transfer(from: RunStore, to: RunStore, runIds: string[]): TeamValue {
  const report = transferRuns(from, to, runIds);
  const of = (outcome: string) => report.runs.filter((r) => r.outcome === outcome).map((r) => r.runId);
  return { copied: of('copied'), unchanged: of('unchanged'), skipped: of('skipped') };
}

function answer(op: TeamOp): TeamValue {
  switch (op.type) {
    case 'open':
      teamStore();
      return undefined;
    case 'listRuns':
      return teamStore().listRuns(op.options);
    case 'getRuns': {
      const store = teamStore();
      return op.runIds.filter((id) => store.hasRun(id)).map((id) => store.getRun(id));
    }
    case 'changeSeq':
      return teamStore().changeSeq();
    case 'changesSince':
      return teamStore().changesSince(op.seq);
    case 'pull':
      return transfer(teamStore(), localStore(op.localPath), op.runIds);
    case 'push':
      return transfer(localStore(op.localPath), teamStore(), op.runIds);
    case 'ship':
      return shipping(op.localPath).ship(op.runIds);
    default: {
      const never: never = op;
      throw new Error(`unknown team store request ${JSON.stringify(never)}`);
    }
  }
}

function failure(e: unknown): TeamFailure {
  const message = redactText(errorMessage(e));
  const code = e instanceof OcdbError ? e.code : undefined;
  const auth = /Cannot sign in to the run store/.test(message);
  const offline = !auth && /Cannot reach the run store|worker thread stopped|not connected/i.test(message);
  const noStore = /^No run store in /.test(message);
  return {
    message,
    ...(code ? { code } : {}),
    ...(auth ? { auth } : {}),
    ...(offline ? { offline } : {}),
    ...(noStore ? { noStore } : {}),
  };
}

/** Answers a request: on the worker's port, or to a caller waiting on its own thread (TeamRequest.sync). */
function reply(request: TeamRequest, message: TeamReply): void {
  const sync = request.sync;
  if (!sync) return post(message);
  sync.port.postMessage(message);
  sync.port.close();
  const flag = new Int32Array(sync.flag);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

parentPort?.on('message', (request: TeamRequest) => {
  try {
    reply(request, { id: request.id, ok: true, value: answer(request.op) });
  } catch (e) {
    const error = failure(e);
    // a connection that failed is opened again by the next request (after the caller's back-off)
    if (error.offline || error.auth) dropTeam();
    reply(request, { id: request.id, ok: false, error });
  }
});
