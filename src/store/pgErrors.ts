/**
 * PostgreSQL and connection errors as the core's typed errors (StoreLocked, StoreUnavailable, StoreCorrupt), the
 * way sqliteErrors.ts does for SQLite. Every message names the store by its redacted location and is itself
 * passed through redactText: a server or driver message that quotes the connection string loses its password.
 */
import { OcdbError, redactText } from '../model';
import type { PgErrorInfo } from './pgWorker';

/** SQLSTATE classes and codes read here (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
const LOCK_NOT_AVAILABLE = '55P03';
const QUERY_CANCELED = '57014';
/** Two writers each waiting for the other (the server ends one), or a serialization failure. */
const DEADLOCK_DETECTED = '40P01';
const SERIALIZATION_FAILURE = '40001';

export function translatePgError(info: PgErrorInfo, location: string): Error {
  const code = info.code ?? '';
  const message = redactText(info.message);
  const detail = info.detail ? ` (${redactText(info.detail)})` : '';
  const where = { path: location, ...(code ? { sqlstate: code } : {}) };
  if (code === LOCK_NOT_AVAILABLE) {
    return new OcdbError(
      'StoreLocked',
      `The run store ${location} stayed locked by another writer past the lock timeout; retry, or stop the process holding it.`,
      where,
    );
  }
  if (code === DEADLOCK_DETECTED || code === SERIALIZATION_FAILURE) {
    // not retried here: the caller's transaction ran code with effects of its own (the writer's timeline)
    return new OcdbError(
      'StoreLocked',
      `Another writer of the run store ${location} wanted what this write holds, and this one gave way (${message}); nothing was written: retry.`,
      where,
    );
  }
  if (code === QUERY_CANCELED) {
    return new OcdbError('StoreLocked', `A statement on the run store ${location} was cancelled: ${message}.`, where);
  }
  // no password at all: pg refuses on the client side (no SQLSTATE) when the server asks for one
  if (code.startsWith('28') || /client password must be|SASL:|password authentication/i.test(info.message)) {
    return new OcdbError(
      'StoreUnavailable',
      `Cannot sign in to the run store ${location}: ${message}. Give the password in PGPASSWORD or ~/.pgpass, not in settings.`,
      where,
    );
  }
  if (code === '3D000') {
    return new OcdbError(
      'StoreUnavailable',
      `Cannot open the run store ${location}: ${message}. Create the database first (createdb), or point --store / OCDB_STORE at an existing one.`,
      where,
    );
  }
  if (
    code.startsWith('08') ||
    code.startsWith('53') ||
    code.startsWith('57P') ||
    /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|ECONNRESET|timeout expired|Connection terminated|connection was lost|worker thread stopped|not connected/i.test(
      info.message,
    )
  ) {
    return new OcdbError(
      'StoreUnavailable',
      `Cannot reach the run store ${location}: ${message}${detail}. Check that the PostgreSQL server runs and the address is right.`,
      where,
    );
  }
  if (code === 'XX001' || code === 'XX002') {
    return new OcdbError('StoreCorrupt', `The run store ${location} reports corrupt data: ${message}.`, where);
  }
  if (code === '42P01' || code === '42703') {
    return new OcdbError(
      'StoreCorrupt',
      `The run store ${location} is not a store of this version: ${message}. Open it once with this version to migrate it.`,
      where,
    );
  }
  return Object.assign(new Error(`PostgreSQL run store ${location}: ${message}${detail}`), { code });
}
