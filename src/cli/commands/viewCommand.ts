/**
 * `ocdb view <runId> [--with-forks] --out run.html`: the run as one self-contained HTML file (cli/viewFile.ts) —
 * the Timeline, the transcript and tool ledger of each step, the artifacts — to open in any browser or share.
 */
import { statSync, writeFileSync } from 'node:fs';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';
import { viewFileHtml } from '../viewFile';

export const viewCommand: CliCommand = {
  name: 'view',
  summary: 'write a run (and its forks) as one HTML file: timeline, transcript, tool ledger, artifacts',
  help: [
    'Usage: ocdb view <runId> [--with-forks] --out <file.html>',
    '',
    '  --with-forks   draw the run’s forks (and theirs) as branches, with their transcripts',
    '  --out <file>   the HTML file to write (one file: no server, no network; secrets redacted)',
    '',
    '  Link to a checkpoint with #cp=37 (the [37] the UI shows; a fork’s: #cp=<forkRunId>:5).',
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, {
      ...STORE_OPTION,
      out: { type: 'string' },
      'with-forks': { type: 'boolean' },
    });
    const runId = positionals[0];
    if (!runId || positionals.length > 1 || !values.out) {
      io.err(`ocdb view: expected one run id and --out <file.html>.\n\n${this.help}`);
      return EXIT.usage;
    }
    const store = openStoreFor(io, values.store, false);
    try {
      const html = viewFileHtml(store, runId, { withForks: values['with-forks'] === true });
      writeFileSync(values.out, html);
      const kib = Math.ceil(statSync(values.out).size / 1024);
      io.out(`wrote ${values.out} (${kib} KiB)`);
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};
