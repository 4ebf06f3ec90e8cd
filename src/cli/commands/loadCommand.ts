/** `ocdb load <file.json>`: loads DebugRun JSON (one run or an array) into the store, all or nothing. */
import { readFileSync } from 'node:fs';
import { OcdbError, errorMessage } from '../../model';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';

export const loadCommand: CliCommand = {
  name: 'load',
  summary: 'load DebugRun JSON into the store',
  help: [
    'Usage: ocdb load <file.json> [--replace]',
    '',
    'Loads a DebugRun (or an array of them) in one transaction. Invalid input is',
    'rejected with the JSON path of the first error and the store is left unchanged.',
    '  --replace   replace runs whose id is already in the store',
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, { ...STORE_OPTION, replace: { type: 'boolean' } });
    const file = positionals[0];
    if (!file || positionals.length > 1) {
      io.err(`ocdb load: expected exactly one file.\n\n${this.help}`);
      return EXIT.usage;
    }
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new OcdbError('InvalidInput', `${file}: not readable JSON (${errorMessage(e)})`, { file });
    }
    const runs = Array.isArray(data) ? data : [data];
    // a run's parent may come later in the same file
    const batch = new Map<string, { parentRunId?: string }>();
    for (const run of runs) {
      if (run && typeof run === 'object' && typeof (run as { runId?: unknown }).runId === 'string') {
        const { runId, parentRunId } = run as { runId: string; parentRunId?: unknown };
        batch.set(runId, typeof parentRunId === 'string' ? { parentRunId } : {});
      }
    }
    const store = openStoreFor(io, values.store, true);
    try {
      const loaded = store.transaction(() =>
        runs.map((run, i) =>
          store.loadRun(run, {
            where: Array.isArray(data) ? `${file} [${i}]` : file,
            replace: values.replace,
            batch,
          }),
        ),
      );
      for (const r of loaded)
        io.out(`loaded ${r.runId} (${r.agentId}, ${r.checkpointCount} checkpoints, ${r.toolCallCount} tool calls)`);
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};
