/**
 * A what-if batch's progress on disk, so an interrupted batch goes on where it stopped: a JSON-lines file whose
 * first line names the batch (its spec and cohort, hashed into a key) and each next line one finished run's
 * result, appended as the run finishes. Reading it back keeps the results of the same batch (a line cut short by
 * the interruption is dropped, and that run is forked again); a file of another batch is started over. Every
 * line is parsed with zod. No UI.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { OcdbError, canonicalJson } from '../model';
import { WhatIfRunResultSchema, WhatIfSpecSchema, type WhatIfRunResult, type WhatIfSpec } from './whatIfSpec';

const HeaderSchema = z.object({
  kind: z.literal('ocdb-what-if'),
  version: z.literal(1),
  key: z.string(),
  spec: WhatIfSpecSchema,
  runIds: z.array(z.string()),
  startedAt: z.number(),
});
const LineSchema = z.object({ result: WhatIfRunResultSchema });

/** The key of a batch: the same spec over the same runs is the same batch. */
export function batchKey(spec: WhatIfSpec, runIds: readonly string[]): string {
  return createHash('sha256').update(canonicalJson({ spec, runIds })).digest('hex').slice(0, 16);
}

export interface BatchProgress {
  /** Results already in the file, by source run id. */
  done: Map<string, WhatIfRunResult>;
  /** Appends one finished run's result. */
  append(result: WhatIfRunResult): void;
}

/** Opens (or starts) the batch file `path` for `spec` over `runIds`; `fresh` starts it over. */
export function openBatchFile(
  path: string,
  spec: WhatIfSpec,
  runIds: readonly string[],
  options: { fresh?: boolean; now?: number } = {},
): BatchProgress {
  const key = batchKey(spec, runIds);
  const done = new Map<string, WhatIfRunResult>();
  if (!options.fresh && existsSync(path)) {
    const lines = readFileSync(path, 'utf8').split('\n');
    const header = parseLine(lines[0] ?? '', HeaderSchema);
    if (header?.key === key) {
      const wanted = new Set(runIds);
      for (const line of lines.slice(1)) {
        const parsed = parseLine(line, LineSchema);
        if (parsed && wanted.has(parsed.result.sourceRunId)) done.set(parsed.result.sourceRunId, parsed.result);
      }
    }
  }
  mkdirSync(dirname(path), { recursive: true });
  // Rewritten whole when resuming: a line the interruption cut short must not join the next one.
  const header = { kind: 'ocdb-what-if', version: 1, key, spec, runIds, startedAt: options.now ?? Date.now() };
  writeFileSync(
    path,
    [header, ...[...done.values()].map((result) => ({ result }))].map((l) => `${JSON.stringify(l)}\n`).join(''),
  );
  return {
    done,
    append(result) {
      appendFileSync(path, `${JSON.stringify({ result })}\n`);
    },
  };
}

function parseLine<T>(line: string, schema: z.ZodType<T>): T | undefined {
  if (line.trim() === '') return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A batch file read back (for a cohort view of a batch `ocdb what-if` ran): its spec, cohort and results. */
export function readBatchFile(path: string): { spec: WhatIfSpec; runIds: string[]; results: WhatIfRunResult[] } {
  const lines = readFileSync(path, 'utf8').split('\n');
  const header = parseLine(lines[0] ?? '', HeaderSchema);
  if (!header) {
    throw new OcdbError('InvalidInput', `${path}: not a what-if batch file (its first line names no batch).`, {
      path: 'batchFile',
      file: path,
    });
  }
  const byRun = new Map<string, WhatIfRunResult>();
  for (const line of lines.slice(1)) {
    const parsed = parseLine(line, LineSchema);
    if (parsed) byRun.set(parsed.result.sourceRunId, parsed.result);
  }
  const results = header.runIds.map((id) => byRun.get(id)).filter((r): r is WhatIfRunResult => r !== undefined);
  return { spec: header.spec, runIds: header.runIds, results };
}
