/**
 * Gives each run imported from a coding-agent session a title a person can
 * tell apart from its neighbours (the session's summary, else the first
 * prompt the user typed): `metadata.title`, which the Runs view shows in place
 * of an id such as `cc-4d5611e5-…`. A title the importer already set (Claude
 * Code's summary) is kept.
 */
import { statSync } from 'node:fs';
import type { RunPlan } from '../runPlan';
import type { ImportFormat } from '../types';
import { claudeHead, codexHead, geminiHead, type SessionHead } from './sessionHead';

const HEADS: Partial<Record<ImportFormat, (file: string) => SessionHead>> = {
  'claude-code': claudeHead,
  codex: codexHead,
  'gemini-cli': (file) => geminiHead(file, statSync(file).size),
};

export function noteTitles(plans: readonly RunPlan[], format: ImportFormat): void {
  const head = HEADS[format];
  if (!head) return;
  const titles = new Map<string, string | undefined>();
  for (const plan of plans) {
    if (typeof plan.metadata.title === 'string') continue;
    const file = (plan.metadata.source as { file?: unknown } | undefined)?.file;
    if (typeof file !== 'string') continue;
    if (!titles.has(file)) {
      try {
        titles.set(file, head(file).title);
      } catch {
        titles.set(file, undefined); // unreadable now: the run keeps its id as its name
      }
    }
    const title = titles.get(file);
    if (title !== undefined) plan.metadata.title = title;
  }
}
