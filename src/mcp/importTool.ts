/**
 * The MCP tool `import_trace`: imports a session or trace file (or a folder of them) of every format the
 * importers read — Claude Code, Codex, Gemini CLI, OpenAI chat logs and Responses, OpenAI Agents, OpenTelemetry,
 * replay turns — into the store, through the importers' one entry point, as `ocdb import` does. A relative path is
 * taken from the server's working directory. Answers the runs it wrote (ids the next call takes) and the warnings,
 * bounded.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { IMPORT_FORMAT_OPTIONS, importPath } from '../importers';
import { fitItems, type ClipReport } from './bounded';
import { defineTool } from './toolContext';

const ImportTraceInput = z
  .object({
    path: z
      .string()
      .min(1)
      .describe("A trace file (.jsonl / .json) or a folder of them; relative to the server's folder."),
    format: z.enum(IMPORT_FORMAT_OPTIONS).default('auto').describe('The format; auto sniffs each file.'),
    strict: z.boolean().default(false).describe('Fail a file on its first malformed record instead of skipping it.'),
  })
  .strict();

export const importTraceTool = defineTool({
  name: 'import_trace',
  title: 'Import a trace',
  description:
    'Imports an agent session or trace file (Claude Code, Codex, Gemini CLI, OpenAI chat / Responses / Agents, OpenTelemetry) or a folder of them as runs of this store, to debug them with the other tools. Importing the same file again changes nothing; a session file that grew is continued. Answers the run ids written.',
  input: ImportTraceInput,
  readOnly: false,
  run(ctx, args, signal) {
    return ctx.exclusive(async () => {
      const summary = await importPath(ctx.storeForWrite(), resolve(ctx.cwd, args.path), {
        format: args.format,
        strict: args.strict,
        signal,
      });
      const report: ClipReport = { clipped: false };
      const runs = summary.files.flatMap((f) =>
        f.runs.map((r) => ({
          runId: r.runId,
          file: f.file,
          format: f.format,
          mode: r.mode,
          checkpoints: r.checkpointCount,
          toolCalls: r.toolCallCount,
          ...(r.parentRunId !== undefined ? { parentRunId: r.parentRunId } : {}),
          ...(r.appended !== undefined ? { appended: r.appended } : {}),
        })),
      );
      const problems = summary.files.flatMap((f) => [
        ...(f.outcome !== 'imported' ? [{ file: f.file, outcome: f.outcome, reason: f.reason }] : []),
        ...f.warnings.slice(0, 5).map((w) => ({ file: w.file, line: w.line, warning: w.message })),
      ]);
      const fittedRuns = fitItems(runs, 0, Math.floor(ctx.maxChars / 2), report);
      const fittedProblems = fitItems(problems, 0, Math.floor(ctx.maxChars / 4), report);
      return {
        body: {
          imported: summary.imported,
          appended: summary.appended,
          skipped: summary.skipped,
          failed: summary.failed,
          skippedRecords: summary.skippedRecords,
          runs: fittedRuns.items,
          runsPage: fittedRuns.page,
          problems: fittedProblems.items,
          next: 'run_summary {runId} for an imported run; find_runs lists them all.',
        },
        report,
        hint: 'find_runs lists every imported run when this answer could not hold them all.',
      };
    });
  },
});
