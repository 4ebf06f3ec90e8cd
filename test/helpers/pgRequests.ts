/**
 * Counting what a PostgreSQL store sends: the requests `work` made of the driver's worker, each a batch it
 * pipelines (one round trip). Counted here, not at a proxy: a push sends megabytes, which reach a proxy in many
 * chunks, so its count is not the round trips.
 */
import { PgDriver } from '../../src/store/pgDriver';

export function driverRequests<T>(work: () => T): { value: T; requests: number } {
  const proto = PgDriver.prototype as unknown as { request(this: unknown, ...args: unknown[]): unknown };
  const request = proto.request;
  let requests = 0;
  proto.request = function (this: unknown, ...args: unknown[]) {
    requests++;
    return request.apply(this, args);
  };
  try {
    const value = work();
    return { value, requests };
  } finally {
    proto.request = request;
  }
}
