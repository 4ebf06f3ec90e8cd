/**
 * `ocdb push <runId…> --to <store>` and `ocdb pull <runId…> --from <store>`: copy runs with their lineage between
 * two stores of any engine (a file or a `postgres://` URL), idempotently. The rules are `cli/runTransfer.ts`'s;
 * this file parses the arguments, opens the two stores and prints what happened.
 */
import { OcdbError, storeLocationLabel } from '../../model';
import { openRunStore, resolveStorePath, type RunStore } from '../../store';
import { transferRuns, type TransferReport } from '../../team/runTransfer';
import {
  EXIT,
  STORE_HELP,
  STORE_OPTION,
  openStoreFor,
  parseCommandArgs,
  type CliCommand,
  type CliIo,
} from '../cliCommand';

type Direction = 'push' | 'pull';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The lines a transfer prints: one per run, then a summary that says when nothing was copied. */
export function transferLines(report: TransferReport, to: string): string[] {
  const lines: string[] = [];
  for (const r of report.runs) {
    const what =
      r.summary.parentRunId !== undefined
        ? `fork of ${r.summary.parentRunId}, ${plural(r.summary.checkpointCount, 'checkpoint')}`
        : `${r.summary.agentId}, ${plural(r.summary.checkpointCount, 'checkpoint')}`;
    const why = r.reason === 'ancestor' ? ' [ancestor]' : r.reason === 'fork' ? ' [fork]' : '';
    switch (r.outcome) {
      case 'copied':
        lines.push(`copied ${r.runId} (${what})${why}`);
        break;
      case 'unchanged':
        lines.push(`unchanged ${r.runId}: already in the target with the same content${why}`);
        break;
      case 'skipped':
        lines.push(`skipped ${r.runId}: still being recorded, or a fork of one${why}`);
        break;
      default: {
        const never: never = r.outcome;
        throw new Error(`unknown outcome ${String(never)}`);
      }
    }
  }
  const copied = report.runs.filter((r) => r.outcome === 'copied').length;
  const unchanged = report.runs.filter((r) => r.outcome === 'unchanged').length;
  const skipped = report.runs.filter((r) => r.outcome === 'skipped').length;
  if (copied === 0 && report.forkRequests.length === 0) {
    lines.push(
      `Nothing to copy: ${unchanged === 1 ? 'the run is' : `all ${unchanged} runs are`} already in ${to}${skipped > 0 ? ` (${plural(skipped, 'fork')} skipped)` : ''}.`,
    );
  } else {
    const parts = [`${plural(copied, 'run')} copied to ${to}`];
    if (unchanged > 0) parts.push(`${unchanged} already there`);
    if (skipped > 0) parts.push(`${skipped} skipped`);
    if (report.forkRequests.length > 0) parts.push(plural(report.forkRequests.length, 'fork request'));
    lines.push(`${parts.join(', ')}.`);
  }
  return lines;
}

function openOther(io: CliIo, location: string, create: boolean): RunStore {
  return openRunStore(resolveStorePath(location, io.env, io.cwd), { create });
}

function transferCommand(direction: Direction): CliCommand {
  const flag = direction === 'push' ? 'to' : 'from';
  return {
    name: direction,
    summary:
      direction === 'push'
        ? 'copy runs (with their lineage) to another store, e.g. a shared PostgreSQL'
        : 'copy runs (with their lineage) from another store into this one',
    help: [
      `Usage: ocdb ${direction} <runId…> --${flag} <store> [--with-forks]`,
      '',
      direction === 'push'
        ? 'Copies the runs from --store to --to, each after its ancestors (a fork needs its parent).'
        : 'Copies the runs from --from into --store, each after its ancestors (a fork needs its parent).',
      'A store is a file or a postgres://user@host/db URL (password: PGPASSWORD or ~/.pgpass).',
      'Idempotent: a run already there with the same content is left alone; one with different',
      'content is an error naming it, and nothing is copied. A run still being recorded is refused.',
      `  --${flag} <store>   the ${direction === 'push' ? 'target' : 'source'} store (a path or a URL)`,
      '  --with-forks      also copy the forks of the named runs (and theirs)',
      STORE_HELP,
    ].join('\n'),
    async run({ args, io }) {
      const { values, positionals } = parseCommandArgs(args, {
        ...STORE_OPTION,
        [flag]: { type: 'string' },
        'with-forks': { type: 'boolean' },
      } as const);
      const other = (values as Record<string, unknown>)[flag];
      if (positionals.length === 0 || typeof other !== 'string' || other.trim() === '') {
        io.err(`ocdb ${direction}: expected one or more run ids and --${flag} <store>.\n\n${this.help}`);
        return EXIT.usage;
      }
      const here = resolveStorePath(typeof values.store === 'string' ? values.store : undefined, io.env, io.cwd);
      if (resolveStorePath(other, io.env, io.cwd) === here) {
        throw new OcdbError(
          'InvalidInput',
          `--${flag} names the same store as --store (${storeLocationLabel(here)}).`,
          {
            path: flag,
          },
        );
      }
      // the source must exist; the target is created when missing
      const source = direction === 'push' ? openStoreFor(io, values.store, false) : openOther(io, other, false);
      try {
        const target = direction === 'push' ? openOther(io, other, true) : openStoreFor(io, values.store, true);
        try {
          const report = transferRuns(source, target, positionals, { withForks: values['with-forks'] === true });
          for (const line of transferLines(report, storeLocationLabel(target.path))) io.out(line);
          return EXIT.ok;
        } finally {
          target.close();
        }
      } finally {
        source.close();
      }
    },
  };
}

export const pushCommand = transferCommand('push');
export const pullCommand = transferCommand('pull');
