/** `ocdb runs`: the runs in a store, newest first, as a table or JSON. */
import { RUN_MODES, RUN_STATUSES, RunModeSchema, RunStatusSchema, parseWith } from '../../model';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';
import { displayStatus, duration, table, timestamp } from '../format';

export const runsCommand: CliCommand = {
  name: 'runs',
  summary: 'list the runs in the store, newest first',
  help: [
    'Usage: ocdb runs [--json] [--agent <id>] [--status <status>] [--mode <mode>] [--limit <n>] [--offset <n>]',
    '',
    'Lists runs newest first. A run whose recording process died shows as "crashed".',
    '  --json           print a JSON array of run summaries',
    '  --agent <id>     only runs of this agent',
    `  --status <s>     ${RUN_STATUSES.join(' | ')}`,
    `  --mode <m>       ${RUN_MODES.join(' | ')}`,
    '  --limit <n>      at most n runs (default 50)',
    '  --offset <n>     skip the first n runs',
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const { values } = parseCommandArgs(
      args,
      {
        ...STORE_OPTION,
        json: { type: 'boolean' },
        agent: { type: 'string' },
        status: { type: 'string' },
        mode: { type: 'string' },
        limit: { type: 'string' },
        offset: { type: 'string' },
      },
      false,
    );
    const store = openStoreFor(io, values.store, false);
    try {
      const { runs, total } = store.listRuns({
        agentId: values.agent,
        status: values.status === undefined ? undefined : parseWith(RunStatusSchema, values.status, '--status'),
        mode: values.mode === undefined ? undefined : parseWith(RunModeSchema, values.mode, '--mode'),
        limit: values.limit === undefined ? 50 : Number(values.limit),
        offset: values.offset === undefined ? 0 : Number(values.offset),
      });
      if (values.json) {
        io.out(JSON.stringify(runs, null, 2));
        return EXIT.ok;
      }
      if (runs.length === 0) {
        io.out(`No runs in ${store.path}. Try \`ocdb demo\` or record one with the SDK.`);
        return EXIT.ok;
      }
      io.out(
        table(
          [
            'RUN',
            'AGENT',
            'STATUS',
            'MODE',
            'STARTED',
            'DURATION',
            'STEPS',
            'CHECKPOINTS',
            'TOOLS',
            'TOKENS',
            'PARENT',
          ],
          runs.map((r) => [
            r.runId,
            r.agentId,
            displayStatus(r),
            r.mode,
            timestamp(r.startedAt),
            r.endedAt !== undefined
              ? duration(r.endedAt - r.startedAt)
              : r.lastCheckpointAt !== undefined
                ? `${duration(r.lastCheckpointAt - r.startedAt)}+`
                : '-',
            String(r.stepCount),
            String(r.checkpointCount),
            r.toolErrorCount > 0 ? `${r.toolCallCount} (${r.toolErrorCount} err)` : String(r.toolCallCount),
            String(r.inputTokens + r.outputTokens),
            r.parentRunId ?? '',
          ]),
        ),
      );
      if (total > runs.length) io.out(`\n${runs.length} of ${total} runs; use --offset/--limit for more.`);
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};
