/**
 * `ocdb export <runId>`: the run as DebugRun JSON on stdout (or --out file),
 * streamed one checkpoint at a time (store/runExport.ts): memory does not grow
 * with the run.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { runExportChunks, writeRunExport } from '../../store';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';

export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'print a run as DebugRun JSON',
  help: [
    'Usage: ocdb export <runId> [--out <file>]',
    '',
    '  --out <file>   write to a file instead of stdout',
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, { ...STORE_OPTION, out: { type: 'string' } });
    const runId = positionals[0];
    if (!runId || positionals.length > 1) {
      io.err(`ocdb export: expected exactly one run id.\n\n${this.help}`);
      return EXIT.usage;
    }
    const store = openStoreFor(io, values.store, false);
    try {
      if (values.out) {
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
