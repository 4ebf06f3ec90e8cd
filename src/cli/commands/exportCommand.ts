/** `ocdb export <runId>`: the run as DebugRun JSON on stdout (or --out file). */
import { writeFileSync } from 'node:fs';
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
      const text = JSON.stringify(store.exportRun(runId), null, 2);
      if (values.out) writeFileSync(values.out, `${text}\n`);
      else io.out(text);
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};
