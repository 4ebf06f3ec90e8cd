/**
 * `ocdb diff <a> <b>`: compares two runs (replay/runComparison.ts, the same
 * comparison as the extension's Compare with Parent / Compare Runs): the fork
 * point, the context changes, step by step what differs, the first
 * divergence, tools called differently, token and time deltas.
 * Exit codes: 0 compared, 2 usage, 3 not found.
 */
import { compareRunFiles, fileDifferenceLine } from '../../replay/fileComparison';
import { compareRuns } from '../../replay/runComparison';
import { comparisonSummary } from '../../replay/comparisonText';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';

export const diffCommand: CliCommand = {
  name: 'diff',
  summary: 'compare two runs: fork point, context changes, step by step, first divergence',
  help: [
    'Usage: ocdb diff <runA> <runB> [--json]',
    '',
    "A fork's view includes the checkpoints it inherited from its parent (marked inherited), so a fork and its",
    'parent line up at the fork point; two unrelated runs of the same agent are aligned by step and tool call.',
    '  --json   print the comparison as JSON',
    STORE_HELP,
    '',
    'Exit codes: 0 compared, 2 usage, 3 not found.',
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, { ...STORE_OPTION, json: { type: 'boolean' } });
    const [a, b] = positionals;
    if (!a || !b || positionals.length > 2) {
      io.err(`ocdb diff: expected two run ids.\n\n${this.help}`);
      return EXIT.usage;
    }
    const store = openStoreFor(io, values.store, false);
    try {
      const comparison = compareRuns(store, a, b);
      const files = compareRunFiles(store, a, b);
      io.out(
        values.json
          ? JSON.stringify({ ...comparison, files: files.map(({ left: _l, right: _r, ...f }) => f) }, null, 2)
          : [
              ...comparisonSummary(comparison),
              ...(files.length > 0
                ? [
                    '',
                    `Files that differ at the end (${files.length}):`,
                    ...files.map((f) => `  ${fileDifferenceLine(f)}`),
                  ]
                : []),
            ].join('\n'),
      );
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};
