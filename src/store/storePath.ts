/**
 * Where the run store lives: `--store` beats `OCDB_STORE` beats `<cwd>/.ocdb/runs.db`. A store location is a
 * file path (SQLite) or a URL (`postgres://…`, PostgreSQL); a relative path is taken from the working directory,
 * a URL is kept as given. Pure: no I/O.
 */
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { OcdbError, storeLocationLabel } from '../model';
import { isPostgresLocation } from './pgDialect';

/** True when `location` names a PostgreSQL store (`postgres://` or `postgresql://`). */
export { isPostgresLocation };

export const DEFAULT_STORE_RELATIVE = path.join('.ocdb', 'runs.db');

/**
 * True when `location` is a URL rather than a file path: `scheme://…` with a scheme of two letters or more
 * (so `C:\runs.db` stays a path).
 */
export function isStoreUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]+:\/\//i.test(location.trim());
}

export function resolveStorePath(
  explicit?: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  const chosen = explicit && explicit.trim().length > 0 ? explicit : env.OCDB_STORE;
  if (chosen && chosen.trim().length > 0) return isStoreUrl(chosen) ? chosen.trim() : path.resolve(cwd, chosen);
  return path.join(cwd, DEFAULT_STORE_RELATIVE);
}

/**
 * A PostgreSQL store URL parsed, or InvalidInput in one line that shows no password: a URL that does not parse, or
 * whose password (holding an unencoded `/`, `?`, `#` or `@`) spilled into its path or fragment — the driver would
 * otherwise sign in as someone else at another host, or fail with the whole URL in its message.
 */
export function parseStoreUrl(location: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(location.trim());
  } catch {
    url = undefined;
  }
  if (!url || url.hash !== '' || url.pathname.includes('@') || url.search.includes('@')) {
    throw new OcdbError(
      'InvalidInput',
      `The store URL ${storeLocationLabel(location.trim())} is not a valid URL: percent-encode a password holding / ? # @ or % (%2F %3F %23 %40 %25), or leave it out and set PGPASSWORD or ~/.pgpass.`,
      { path: 'store' },
    );
  }
  return url;
}

/**
 * The location with `password` filled in when it is a PostgreSQL URL that names none (the extension's
 * SecretStorage, handed to the store and never shown); any other location is returned as is.
 */
export function withStorePassword(location: string, password: string | undefined): string {
  if (!password || !isPostgresLocation(location)) return location;
  const url = parseStoreUrl(location);
  if (url.password !== '') return location;
  url.password = password;
  return url.toString();
}

/**
 * What a stored password is keyed by: the URL without its password, query and fragment (`postgres://user@host:port/db`),
 * so one secret serves the same database named with other options.
 */
export function storePasswordKey(location: string): string | undefined {
  if (!isPostgresLocation(location)) return undefined;
  const url = parseStoreUrl(location);
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.toString();
}

/**
 * The local folder of a store's companion files (server.json, transcripts): the store file's folder, or for a
 * store named by URL (a shared PostgreSQL, no folder of its own) `~/.ocdb/stores/<hash>` — the hash of the URL
 * without its password and options, so every spelling of the same database shares one folder and no secret is
 * in a file name.
 */
export function storeLocalFolder(location: string): string {
  if (!isStoreUrl(location)) return path.dirname(path.resolve(location));
  let key = location.trim();
  try {
    const url = new URL(key);
    url.password = '';
    url.search = '';
    url.hash = '';
    key = url.toString();
  } catch {
    // not a parsable URL: hashed as written
  }
  return path.join(os.homedir(), '.ocdb', 'stores', createHash('sha256').update(key).digest('hex').slice(0, 16));
}
