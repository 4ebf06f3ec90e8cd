/**
 * `ocdb compare <baseline> <run…>`: an N-way comparison (replay/cohortComparison.ts) — a baseline beside
 * several runs, aligned by step and tool call, the steps where any of them differs and how.
 * Exit codes: 0 compared, 2 usage, 3 not found.
 */
import { MAX_COHORT_COMPARISON, cohortComparisonLines, compareCohort } from '../../replay/cohortComparison';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';

export const compareCommand: CliCommand = {
  name: 'compare',
  summary: 'compare a baseline run with several others, step by step (N-way)',
  help: [
    'Usage: ocdb compare <baselineRunId> <runId…> [--json]',
    '',
    `Lays up to ${MAX_COHORT_COMPARISON} runs beside a baseline, each compared with it as \`ocdb diff\` does (a fork`,
    'lines up with its source at the fork point), and lists the steps where any run differs.',
    '  --json   print the comparison as JSON',
    STORE_HELP,
    '',
    'Exit codes: 0 compared, 2 usage, 3 not found.',
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, { ...STORE_OPTION, json: { type: 'boolean' } });
    const [baseline, ...others] = positionals;
    if (!baseline || others.length === 0) {
      io.err(`ocdb compare: expected a baseline and at least one other run id.\n\n${this.help}`);
      return EXIT.usage;
    }
    const store = openStoreFor(io, values.store, false);
    try {
      const comparison = compareCohort(store, baseline, others);
      io.out(values.json ? JSON.stringify(comparison, null, 2) : cohortComparisonLines(comparison).join('\n'));
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};
