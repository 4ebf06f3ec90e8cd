/**
 * Where the run store lives: `--store` beats `OCDB_STORE` beats `<cwd>/.ocdb/runs.db`. A `postgres://` or
 * `postgresql://` connection string names a PostgreSQL store and is taken as it is (not a path).
 */
import * as path from 'node:path';
import { isPostgresLocation } from './pgDialect';

export const DEFAULT_STORE_RELATIVE = path.join('.ocdb', 'runs.db');

export function resolveStorePath(
  explicit?: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  const chosen = explicit && explicit.length > 0 ? explicit : env.OCDB_STORE;
  if (chosen && chosen.length > 0) return isPostgresLocation(chosen) ? chosen.trim() : path.resolve(cwd, chosen);
  return path.join(cwd, DEFAULT_STORE_RELATIVE);
}
