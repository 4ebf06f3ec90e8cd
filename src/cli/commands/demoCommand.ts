/** `ocdb demo`: writes the demo runs (three agents, forks, errors) into the store. */
import { writeDemoStore } from '../../demo';
import { writeSupportCohort } from '../../demo/supportCohort';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';

export const demoCommand: CliCommand = {
  name: 'demo',
  summary: 'write a store of realistic sample runs (support, research and coding agents)',
  help: [
    'Usage: ocdb demo [--cohort <n>]',
    '',
    'Records the demo runs into the store (replacing earlier demo runs): a 9-step support',
    'run with a refund and a fork of it, a failed escalation, a research run with a failing',
    'fetch, a crashed run, a coding fix and a cancelled run.',
    '  --cohort <n>   also record n varied support-desk runs (refunds, declines, escalations) for ocdb what-if',
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const { values } = parseCommandArgs(args, { ...STORE_OPTION, cohort: { type: 'string' } }, false);
    const cohort = values.cohort === undefined ? 0 : Number(values.cohort);
    if (!Number.isInteger(cohort) || cohort < 0 || cohort > 100_000) {
      io.err(`ocdb demo: --cohort ${values.cohort}: expected a whole number of runs (0-100000).`);
      return EXIT.usage;
    }
    const store = openStoreFor(io, values.store, true);
    try {
      const ids = writeDemoStore(store);
      for (const id of ids) {
        const r = store.getRun(id);
        io.out(
          `${id.padEnd(30)} ${r.agentId.padEnd(15)} ${(r.crashed ? 'crashed' : r.status).padEnd(10)} ${r.checkpointCount} checkpoints`,
        );
      }
      io.out(`\nWrote ${ids.length} demo runs to ${store.path}`);
      if (cohort > 0) {
        const written = writeSupportCohort(store, cohort);
        io.out(`Wrote ${written.length} support-desk cohort runs (${written[0]} … ${written.at(-1)})`);
      }
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};
