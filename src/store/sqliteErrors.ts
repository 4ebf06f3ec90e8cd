/** Turns SQLite driver errors into the core's typed errors (StoreLocked, StoreUnavailable, StoreCorrupt). */
import { OcdbError } from '../model';

export function translateSqliteError(e: unknown, storePath: string): unknown {
  if (e instanceof OcdbError) return e;
  const err = e as { code?: unknown; errcode?: unknown; message?: unknown };
  const code = typeof err?.code === 'string' ? err.code : '';
  const message = typeof err?.message === 'string' ? err.message : String(e);
  if (
    code.startsWith('SQLITE_BUSY') ||
    code.startsWith('SQLITE_LOCKED') ||
    /database is locked|SQLITE_BUSY/i.test(message)
  ) {
    return new OcdbError(
      'StoreLocked',
      `The run store ${storePath} stayed locked by another process past the busy timeout; retry, or stop the process holding it.`,
      { path: storePath },
      { cause: e },
    );
  }
  if (code.startsWith('SQLITE_CANTOPEN') || /unable to open database/i.test(message)) {
    return new OcdbError(
      'StoreUnavailable',
      `Cannot open the run store ${storePath}: ${message}. Check the path and its permissions.`,
      { path: storePath },
      { cause: e },
    );
  }
  if (
    code.startsWith('SQLITE_CORRUPT') ||
    code.startsWith('SQLITE_NOTADB') ||
    /not a database|malformed/i.test(message)
  ) {
    return new OcdbError(
      'StoreCorrupt',
      `The run store ${storePath} is not a valid store: ${message}.`,
      { path: storePath },
      { cause: e },
    );
  }
  if (code.startsWith('SQLITE_FULL') || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY')) {
    return new OcdbError(
      'StoreUnavailable',
      `Writing the run store ${storePath} failed: ${message}.`,
      { path: storePath },
      { cause: e },
    );
  }
  return e;
}
