/**
 * The clock of a SQLite store: the file system's that holds it. Processes that share a store file may not share a
 * clock (another host on a shared folder, a process whose clock was set off): leases and heartbeats are judged on
 * one clock, the store's, as PostgreSQL's are judged on its server's (pgDriver.ts `clockOffsetMs`). The kernel (or
 * the file server) stamps a file's change time with its own clock when its metadata changes, so touching the mode
 * of SQLite's `-shm` file beside the store (there while the store is open in WAL mode; its mode unchanged) reads that
 * clock. Measured at the first use and again every minute; where it cannot be read (Windows, a file of another
 * user, a read-only folder) this process's clock is the store's. No SQL.
 */
import * as fs from 'node:fs';

/** How often the file system's clock is read again. */
const MEASURE_EVERY_MS = 60_000;

/** How far the file system's clock is ahead of this process's, in ms (0 until it could be read). */
export function fileClockOffset(file: string): () => number {
  let offset = 0;
  let measuredAt = -Infinity;
  return () => {
    const t = Date.now();
    if (t - measuredAt >= MEASURE_EVERY_MS || t < measuredAt) {
      offset = measure(`${file}-shm`) ?? offset;
      measuredAt = Date.now();
    }
    return offset;
  };
}

function measure(probe: string): number | undefined {
  if (process.platform === 'win32') return undefined; // NTFS does not stamp a same-mode chmod
  try {
    // by path, never an fd of our own: closing one would drop the POSIX locks SQLite holds on the file in this
    // process, and another process would then take the store for unopened and truncate the -shm under us
    const before = fs.lstatSync(probe);
    if (!before.isFile()) return undefined; // a link is not followed
    const t0 = Date.now();
    fs.chmodSync(probe, before.mode & 0o7777);
    const after = fs.lstatSync(probe);
    const t1 = Date.now();
    // a file system that did not stamp the change says nothing about its clock
    if (after.ctimeMs <= before.ctimeMs) return undefined;
    return Math.round(after.ctimeMs - (t0 + t1) / 2);
  } catch {
    return undefined;
  }
}
