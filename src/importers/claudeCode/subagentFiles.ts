/**
 * A Claude Code session's sub-agent files (`<session>/subagents/agent-*.jsonl`, as Claude Code keeps them) and the
 * reader options they are read with before the session is mapped. Reads a folder's listing only.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ReaderOptions } from '../reader';
import type { ImportWarning } from '../types';

/** What of a session's reader options the deferral touches. */
interface DeferrableOptions {
  warnings: ImportWarning[];
  unknownTypes: Record<string, number>;
  strict?: boolean;
  skip: ReaderOptions['skip'];
}

export function subagentFiles(sessionFile: string): string[] {
  const dir = join(dirname(sessionFile), basename(sessionFile, '.jsonl'), 'subagents');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .filter((n) => /^agent-.+\.jsonl$/.test(n))
    .sort()
    .map((n) => join(dir, n));
}

/**
 * Reader options whose reports (warnings, skipped lines, unknown types) wait for `replay`: a subagent file is read
 * before the session is mapped, and its reports come where they came when it was read after (the same order).
 * Strict reading fails at once.
 */
export function deferredOptions<O extends DeferrableOptions>(options: O): { options: O; replay: () => void } {
  const warnings: ImportWarning[] = [];
  const skips: { at: number; record: Parameters<ReaderOptions['skip']>[0]; error: unknown }[] = [];
  const unknownTypes: Record<string, number> = {};
  const deferred: O = {
    ...options,
    warnings,
    unknownTypes,
    skip: options.strict
      ? options.skip
      : (record, error) => {
          skips.push({ at: warnings.length, record, error });
        },
  };
  const replay = () => {
    let next = 0;
    warnings.forEach((w, i) => {
      for (; next < skips.length && (skips[next] as { at: number }).at <= i; next++) {
        const s = skips[next] as (typeof skips)[number];
        options.skip(s.record, s.error);
      }
      options.warnings.push(w);
    });
    for (; next < skips.length; next++) {
      const s = skips[next] as (typeof skips)[number];
      options.skip(s.record, s.error);
    }
    for (const [type, n] of Object.entries(unknownTypes))
      options.unknownTypes[type] = (options.unknownTypes[type] ?? 0) + n;
  };
  return { options: deferred, replay };
}
