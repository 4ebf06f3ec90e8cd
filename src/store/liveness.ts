/**
 * Crash detection for runs left `running`: the recording process's pid and
 * host, and a heartbeat the recorder refreshes while it lives. A run is
 * crashed when its process is gone (same host) or its heartbeat is stale.
 * On the recorder's own host the pid decides, so an agent whose event loop is
 * busy for a minute is not called crashed; the heartbeat decides for runs
 * recorded elsewhere (a shared folder, a PostgreSQL server) and guards against pid reuse.
 *
 * Hosts' clocks differ: on PostgreSQL the store compares on the server's clock (runTable.ts
 * `heartbeatTime`, `toSummary`; the offset measured by pgDriver.ts `clockOffsetMs`): a host whose clock is
 * off by more than CLOCK_SKEW_MS writes its heartbeats in the server's time, and every reader judges staleness
 * against the server's time, so a skew of minutes does not read a live run as crashed.
 */
import * as os from 'node:os';

/** A heartbeat older than this marks a `running` run of another host as crashed. The recorder beats every 5 s. */
export const HEARTBEAT_STALE_MS = 60_000;

/** On the same host, a live pid with no heartbeat for this long is taken as a reused pid: the run is crashed. */
export const PID_REUSE_STALE_MS = 60 * 60_000;

export const THIS_HOST = os.hostname();

/** A host clock further than this from the store server's is corrected to the server's for heartbeats. */
export const CLOCK_SKEW_MS = 1_000;

/** True while process `pid` exists on this host (EPERM: it exists but is someone else's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function isCrashed(
  status: string,
  ownerPid: number | null,
  ownerHost: string | null,
  heartbeatAt: number | null,
  now: number = Date.now(),
): boolean {
  if (status !== 'running') return false;
  const age = heartbeatAt === null ? 0 : now - heartbeatAt;
  if (ownerPid !== null && ownerHost === THIS_HOST) {
    if (ownerPid === process.pid) return false;
    return !pidAlive(ownerPid) || age > PID_REUSE_STALE_MS;
  }
  return age > HEARTBEAT_STALE_MS;
}
