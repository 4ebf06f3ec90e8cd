/**
 * Crash detection for runs left `running`: the recording process's pid and
 * host, and a heartbeat the recorder refreshes while it lives. A run is
 * crashed when its process is gone (same host) or its heartbeat is stale.
 */
import * as os from 'node:os';

/** A heartbeat older than this marks a `running` run as crashed. The recorder beats every 5 s. */
export const HEARTBEAT_STALE_MS = 60_000;

export const THIS_HOST = os.hostname();

function pidAlive(pid: number): boolean {
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
  if (ownerPid !== null && ownerHost === THIS_HOST && ownerPid !== process.pid && !pidAlive(ownerPid)) return true;
  if (heartbeatAt !== null && now - heartbeatAt > HEARTBEAT_STALE_MS) return true;
  return false;
}
