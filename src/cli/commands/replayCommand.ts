/**
 * `ocdb replay <runId>`: replays a run into a new run of mode `replay` —
 * every tool answered from the recording, the model captured (--captured) or
 * real — and prints the first divergence. Exit codes: 0 reproduced, 5
 * diverged, 1 stopped by another failure, 2 usage, 3 not found.
 */
import { ForkService } from '../../fork/forkService';
import { runFork } from '../../fork/runner';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';
import { MODEL_HELP, MODEL_OPTIONS, chatModelFrom, reportOutcome, requireEndpoint } from './forkCliShared';
import { resolveCheckpoint } from './forkCommand';

export const replayCommand: CliCommand = {
  name: 'replay',
  summary: 'replay a run (captured model or real) into a new run and report divergence',
  help: [
    'Usage: ocdb replay <runId> [--from <checkpointId|index>] [--captured] [--json]',
    '',
    'Replays into a new run (mode replay, parent the source). Tools are never run: every',
    'result comes from the recording. --captured re-emits the recorded model turns (no',
    'tokens spent) and checks each prompt against the recording; without it the real model',
    'answers (needs --base-url).',
    '  --from <checkpoint>         start at this checkpoint (default: the first)',
    '  --captured                  use the recorded model output',
    '  --json                      print the outcome as JSON',
    MODEL_HELP,
    STORE_HELP,
    '',
    'Exit codes: 0 reproduced, 1 failed, 2 usage, 3 not found, 5 diverged.',
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, {
      ...STORE_OPTION,
      ...MODEL_OPTIONS,
      from: { type: 'string' },
      captured: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const runId = positionals[0];
    if (!runId || positionals.length > 1) {
      io.err(`ocdb replay: expected exactly one run id.\n\n${this.help}`);
      return EXIT.usage;
    }
    const store = openStoreFor(io, values.store, false);
    try {
      store.getRun(runId);
      const chat = chatModelFrom(values, io);
      requireEndpoint(values.captured ? 'captured' : 'real', chat);
      const created = new ForkService(store).createReplay(runId, {
        captured: values.captured === true,
        ...(values.from ? { fromCheckpointId: resolveCheckpoint(store, runId, values.from) } : {}),
      });
      const outcome = await runFork(store, created.forkRequestId, chat ? { chatModel: chat } : {});
      if (values.json) {
        io.out(JSON.stringify(outcome, null, 2));
        return outcome.failure?.code === 'diverged' ? EXIT.diverged : outcome.failure ? EXIT.failed : EXIT.ok;
      }
      return reportOutcome(io, outcome, `Replay of ${runId} into`);
    } finally {
      store.close();
    }
  },
};
