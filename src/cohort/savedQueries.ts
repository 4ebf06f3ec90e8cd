/**
 * Saved cohort queries of `ocdb what-if` (`--save-query NAME`, `--query NAME`): a cohort selection kept by name in
 * `queries.json` of the store's what-if folder (beside the batch files), so the cohort a CI job or a colleague
 * runs is named once. Read and written through the store's local-file rules (no link followed, written whole or
 * not at all); parsed with zod, saying which query of which file is wrong. No UI.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { OcdbError, parseWith } from '../model';
import { readLocalFile, writeLocalFile } from '../store';
import { CohortSelectionSchema, type CohortSelection } from './whatIfSpec';

const QUERY_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;

const SavedQueriesSchema = z.object({
  version: z.literal(1),
  queries: z.record(z.string(), CohortSelectionSchema),
});
type SavedQueries = z.infer<typeof SavedQueriesSchema>;

/** Where the saved queries of a what-if folder are kept. */
export const queriesFile = (whatIfDir: string): string => join(whatIfDir, 'queries.json');

function checkName(name: string): void {
  if (!QUERY_NAME.test(name)) {
    throw new OcdbError(
      'InvalidInput',
      `query name "${name}": use letters, digits, ".", "-" and "_" (at most 64, starting with a letter or digit).`,
      { path: 'query' },
    );
  }
}

function readAll(file: string): SavedQueries {
  const text = readLocalFile(file);
  if (text === undefined) return { version: 1, queries: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new OcdbError('InvalidInput', `${file} is not JSON (${(e as Error).message}); fix or remove it.`, {
      path: file,
    });
  }
  return parseWith(SavedQueriesSchema, json, file);
}

/** The saved queries by name (none when the file does not exist). */
export function listSavedQueries(whatIfDir: string): Record<string, CohortSelection> {
  return readAll(queriesFile(whatIfDir)).queries;
}

/** The cohort saved as `name`; InvalidInput naming the saved ones when there is none. */
export function savedQuery(whatIfDir: string, name: string): CohortSelection {
  const all = listSavedQueries(whatIfDir);
  const found = Object.hasOwn(all, name) ? all[name] : undefined;
  if (!found) {
    const names = Object.keys(all);
    throw new OcdbError(
      'InvalidInput',
      `No saved query "${name}" (${names.length > 0 ? `saved: ${names.join(', ')}` : 'none saved yet: --save-query NAME saves one'}).`,
      { path: 'query' },
    );
  }
  return found;
}

/** Saves `selection` as `name` (replacing a query of that name), the other queries kept. */
export function saveQuery(whatIfDir: string, root: string, name: string, selection: CohortSelection): void {
  checkName(name);
  const file = queriesFile(whatIfDir);
  const all = readAll(file);
  const queries = { ...all.queries, [name]: parseWith(CohortSelectionSchema, selection, `query ${name}`) };
  writeLocalFile(file, `${JSON.stringify({ version: 1, queries }, null, 2)}\n`, { root });
}
