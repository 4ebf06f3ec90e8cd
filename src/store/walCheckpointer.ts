/**
 * WAL checkpoints off the writer's thread: a SQLite writer's commit pays for copying the WAL back into
 * the database file whenever the WAL reaches `wal_autocheckpoint` pages — on a recording, every ~100 checkpoints one
 * commit took 15–22 ms, a third of the whole recording's time. A store opened with `backgroundCheckpoints` (the
 * SDK's) runs those copies in a worker thread of its own with its own connection: every CHECK_MS, when the writer
 * committed since, a PASSIVE checkpoint (it never waits for, nor blocks, the writer or any reader). The writer keeps
 * an autocheckpoint of its own at WRITER_AUTOCHECKPOINT pages: the background checkpoints cannot restart the WAL
 * while the writer keeps appending to it (SQLite restarts it at a write that finds every frame copied), so once in a
 * while the writer's commit copies the few frames left and the WAL starts over; and if the worker is gone, the WAL
 * is still bounded (the default, 1000, is set back).
 */
import { Worker } from 'node:worker_threads';

/** How often the worker looks for new commits. */
const CHECK_MS = 100;
/** The writer's own autocheckpoint (pages) while a worker checkpoints: the WAL's bound, some 32 MiB. */
export const WRITER_AUTOCHECKPOINT = 8000;
/** SQLite's default, set back when the worker stops early. */
export const DEFAULT_AUTOCHECKPOINT = 1000;
/** How long close waits for a checkpoint in progress to finish. */
const STOP_WAIT_MS = 5000;

/** Slots of the shared Int32Array. */
const COMMITS = 0;
const STOP = 1;
const DONE = 2;

/** The worker: a loop that sleeps on the STOP slot, and checkpoints when COMMITS moved. */
const WORKER_CODE = `
const { workerData } = require('node:worker_threads');
const s = new Int32Array(workerData.shared);
let db;
try {
  const Database = require(workerData.module);
  db = new Database(workerData.path, { fileMustExist: true });
  let seen = Atomics.load(s, ${COMMITS});
  while (Atomics.load(s, ${STOP}) === 0) {
    Atomics.wait(s, ${STOP}, 0, ${CHECK_MS});
    const now = Atomics.load(s, ${COMMITS});
    if (now === seen) continue;
    seen = now;
    try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy: another checkpoint runs; the next one copies */ }
  }
} finally {
  try { if (db) db.close(); } catch {}
  Atomics.store(s, ${DONE}, 1);
  Atomics.notify(s, ${DONE});
}
`;

export interface WalCheckpointer {
  /** The writer committed a transaction. */
  committed(): void;
  /** Stops the worker (waiting for a checkpoint in progress), so the writer's close is the last connection's. */
  stop(): void;
}

/**
 * Starts the checkpoint worker for the SQLite file at `path`, whose writer loads better-sqlite3 from `modulePath`;
 * `onLost` runs when the worker stopped by itself (it could not open the file): the writer checkpoints again.
 */
export function startWalCheckpointer(path: string, modulePath: string, onLost: () => void): WalCheckpointer {
  const shared = new SharedArrayBuffer(3 * 4);
  const slots = new Int32Array(shared);
  let stopped = false;
  const worker = new Worker(WORKER_CODE, {
    eval: true,
    workerData: { shared, path, module: modulePath },
    stdout: false,
    stderr: false,
  });
  worker.unref();
  const lost = (): void => {
    if (stopped) return;
    stopped = true;
    onLost();
  };
  worker.on('error', lost);
  worker.on('exit', lost);
  return {
    committed: () => void Atomics.add(slots, COMMITS, 1),
    stop: () => {
      if (stopped) return;
      stopped = true;
      Atomics.store(slots, STOP, 1);
      Atomics.notify(slots, STOP);
      Atomics.wait(slots, DONE, 0, STOP_WAIT_MS);
    },
  };
}
