/** `ocdb import <file|dir>`: imports trace files of every format of the importers' registry as runs. */
import { errorMessage, OcdbError } from '../../model';
import {
  IMPORT_FORMAT_OPTIONS,
  IMPORT_FORMATS,
  ImportFormatOptionSchema,
  importPath,
  loadSideEffectTable,
  type ImportProgress,
} from '../../importers';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';
import { printable } from '../format';

/** Progress when stderr is not a terminal: a line every this many files or this many ms, whichever comes first. */
const PROGRESS_FILES = 50;
const PROGRESS_MS = 10_000;

function mib(n: number): string {
  return `${(n / 2 ** 20).toFixed(1)} MiB`;
}

export const importCommand: CliCommand = {
  name: 'import',
  summary: 'import Claude Code, Codex, Gemini CLI, OpenAI or OpenTelemetry traces as runs',
  help: [
    `Usage: ocdb import <file|dir> [--format ${IMPORT_FORMAT_OPTIONS.join('|')}] [--side-effects <table.json>]`,
    '',
    'Imports trace files as runs (a directory: every *.jsonl / *.json under it). The format is',
    'sniffed from the content unless --format is given. Each file is imported whole or not at all.',
    'A malformed record (a line that is not JSON, a record of unexpected shape) is skipped with a',
    'warning naming the file and line, and listed in the run metadata (skippedRecords); a cut-off',
    'last line is skipped with a warning. Importing the same file again does nothing (run ids',
    'derive from the content).',
    `  --format <f>           auto (default) | ${IMPORT_FORMATS.join(' | ')}`,
    '  --side-effects <file>  JSON {"ToolName": "read_only" | "write" | ..., "mcp__x__*": ...} overriding',
    '                         the built-in side-effect table (decides the replay policy of each tool)',
    '  --strict               fail a file on its first malformed record, importing nothing of it',
    '  --json                 print the import summary as JSON',
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, {
      ...STORE_OPTION,
      format: { type: 'string' },
      'side-effects': { type: 'string' },
      json: { type: 'boolean' },
      strict: { type: 'boolean' },
    });
    const target = positionals[0];
    if (!target || positionals.length > 1) {
      io.err(`ocdb import: expected exactly one file or directory.\n\n${this.help}`);
      return EXIT.usage;
    }
    const parsedFormat = ImportFormatOptionSchema.safeParse(values.format ?? 'auto');
    if (!parsedFormat.success) {
      throw new OcdbError(
        'InvalidInput',
        `--format: expected ${IMPORT_FORMAT_OPTIONS.join(', ')} (got ${String(values.format)})`,
        { path: 'format' },
      );
    }
    const format = parsedFormat.data;
    const sideEffectTable = values['side-effects'] ? loadSideEffectTable(values['side-effects']) : undefined;
    const store = openStoreFor(io, values.store, true);
    let lastDraw = 0;
    let lastLine = Date.now();
    let lastLineFiles = 0;
    const onProgress = io.isTty
      ? (p: ImportProgress) => {
          const now = Date.now();
          if (now - lastDraw < 100 && p.allBytesRead < p.allBytesTotal) return;
          lastDraw = now;
          const pct = p.allBytesTotal > 0 ? Math.floor((100 * p.allBytesRead) / p.allBytesTotal) : 100;
          const what =
            p.phase === 'write'
              ? `writing ${p.checkpointsWritten ?? 0}${p.checkpointsTotal !== undefined ? ` of ${p.checkpointsTotal}` : ''} checkpoints`
              : `reading ${mib(p.allBytesRead)} of ${mib(p.allBytesTotal)}`;
          const files = p.filesTotal > 1 ? `file ${Math.min(p.filesDone + 1, p.filesTotal)} of ${p.filesTotal}, ` : '';
          process.stderr.write(`\r\x1b[Kimporting ${pct}% (${files}${what}) ${printable(p.file)}`);
        }
      : (p: ImportProgress) => {
          // Not a terminal (a log, CI): a line every PROGRESS_FILES files or PROGRESS_MS, for a directory only.
          if (p.filesTotal <= 1 || p.filesDone === p.filesTotal) return;
          const now = Date.now();
          if (p.filesDone - lastLineFiles < PROGRESS_FILES && now - lastLine < PROGRESS_MS) return;
          if (p.filesDone === lastLineFiles) return;
          lastLine = now;
          lastLineFiles = p.filesDone;
          io.err(
            `importing: ${p.filesDone} of ${p.filesTotal} files done (${mib(p.allBytesRead)} of ${mib(p.allBytesTotal)})`,
          );
        };
    try {
      const summary = await importPath(store, target, {
        format,
        sideEffectTable,
        onProgress,
        strict: values.strict === true,
      });
      if (io.isTty) process.stderr.write('\r\x1b[K');
      if (values.json) {
        io.out(JSON.stringify(summary, null, 2));
      } else {
        for (const f of summary.files) {
          for (const w of f.warnings) io.err(printable(`warning: ${w.file}: ${w.message}`));
          const unknown = Object.entries(f.unknownTypes);
          if (unknown.length > 0)
            io.err(
              printable(
                `note: ${f.file}: skipped lines of unknown type: ${unknown.map(([t, n]) => `${t} x${n}`).join(', ')}`,
              ),
            );
          if (f.outcome === 'imported') {
            for (const r of f.runs) {
              if (r.appended !== undefined) {
                io.out(
                  printable(
                    r.appended > 0
                      ? `appended ${r.appended} checkpoints to ${r.runId} (now ${r.checkpointCount} checkpoints, ${r.toolCallCount} tool calls) from ${f.file}`
                      : `unchanged ${r.runId} from ${f.file}`,
                  ),
                );
                continue;
              }
              io.out(
                printable(
                  `imported ${r.runId} (${r.mode === 'fork' ? `fork${r.parentRunId ? ` of ${r.parentRunId}` : ''}, ` : ''}${r.checkpointCount} checkpoints, ${r.toolCallCount} tool calls) from ${f.file}`,
                ),
              );
            }
          } else io.out(printable(`${f.outcome} ${f.file}: ${f.reason ?? ''}`));
        }
        const malformed =
          summary.skippedRecords > 0 ? ` (${summary.skippedRecords} malformed record(s) skipped, see warnings)` : '';
        const appended = summary.appended > 0 ? ` (${summary.appended} grown since imported: appended)` : '';
        io.out(
          `${summary.imported} imported${appended}, ${summary.skipped} skipped, ${summary.failed} failed${malformed}`,
        );
      }
      return summary.failed > 0 ? EXIT.failed : EXIT.ok;
    } catch (e) {
      if (io.isTty) process.stderr.write('\r\x1b[K');
      throw e instanceof OcdbError
        ? e
        : new OcdbError('ImportFailed', `import of ${target} failed: ${errorMessage(e)}`, {}, { cause: e });
    } finally {
      store.close();
    }
  },
};
