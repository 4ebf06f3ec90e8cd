/**
 * `ocdb export <runId>`: the run as DebugRun JSON on stdout (or --out file), streamed one checkpoint at a time
 * (store/runExport.ts): memory does not grow with the run. `--format replay-turns`: outpost ReplayTurn[] (built from
 * the whole run, then written).
 */
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { OcdbError, replayTurnsOf } from '../../model';
import { runExportChunks, writeRunExport } from '../../store';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';

const EXPORT_FORMATS = ['debug-run', 'replay-turns'] as const;
const ExportFormatSchema = z.enum(EXPORT_FORMATS);

export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'print a run as DebugRun JSON or as ReplayTurn[]',
  help: [
    'Usage: ocdb export <runId> [--format debug-run|replay-turns] [--out <file>]',
    '',
    '  --format <f>   debug-run (default): the whole run, for ocdb load;',
    '                 replay-turns: outpost ReplayTurn[] (prompt, events, text, usage per turn),',
    '                 for ocdb import --format replay-turns',
    '  --out <file>   write to a file instead of stdout',
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, {
      ...STORE_OPTION,
      out: { type: 'string' },
      format: { type: 'string' },
    });
    const runId = positionals[0];
    if (!runId || positionals.length > 1) {
      io.err(`ocdb export: expected exactly one run id.\n\n${this.help}`);
      return EXIT.usage;
    }
    const format = ExportFormatSchema.safeParse(values.format ?? 'debug-run');
    if (!format.success) {
      throw new OcdbError(
        'InvalidInput',
        `--format: expected ${EXPORT_FORMATS.join(' or ')} (got ${String(values.format)})`,
        { path: 'format' },
      );
    }
    const store = openStoreFor(io, values.store, false);
    try {
      if (format.data === 'replay-turns') {
        const text = JSON.stringify(replayTurnsOf(store.exportRun(runId)), null, 2);
        if (values.out) writeFileSync(values.out, `${text}\n`);
        else io.out(text);
      } else if (values.out) {
        store.getRun(runId); // RunNotFound before the file is created
        const fd = openSync(values.out, 'w');
        try {
          writeRunExport(store, runId, (chunk) => writeSync(fd, `${chunk}\n`));
        } finally {
          closeSync(fd);
        }
      } else if (io.write) {
        store.getRun(runId);
        // a pipe takes what its reader reads: wait for it rather than buffer the whole export
        for (const chunk of runExportChunks(store, runId)) await io.write(`${chunk}\n`);
      } else writeRunExport(store, runId, (chunk) => io.out(chunk));
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};
