/**
 * `ocdb`: the command line of Agent Time Travel. Dispatches to the commands
 * of commands.ts; errors go to stderr with a non-zero exit code.
 */
// first: it tunes the heap before the other modules load (see the file)
import './heapTuning';
import { isOcdbError, errorMessage, redactText } from '../model';
import { EXIT, type CliIo } from './cliCommand';
import { COMMANDS } from './commands';

async function mainHelp(): Promise<string> {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const commands = await Promise.all(COMMANDS.map((c) => c.load()));
  return [
    'ocdb — time-travel debugging for LLM agent runs',
    '',
    'Usage: ocdb <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Every command takes --store <path|url> (a file, or postgres://user@host/db; default: $OCDB_STORE,',
    'else ./.ocdb/runs.db) and --help. A PostgreSQL password comes from PGPASSWORD or ~/.pgpass.',
  ].join('\n');
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(await mainHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- version of the installed package
    io.out(String((require('../../package.json') as { version: string }).version));
    return EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.err(`ocdb: unknown command '${name}'. Run 'ocdb --help' for the list.`);
    return EXIT.usage;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.help);
    return EXIT.ok;
  }
  try {
    return await command.run({ args: rest, io });
  } catch (e) {
    if (isOcdbError(e)) {
      io.err(`ocdb ${name}: ${redactText(e.message)}`);
      switch (e.code) {
        case 'InvalidInput':
          return EXIT.usage;
        case 'RunNotFound':
        case 'CheckpointNotFound':
        case 'ToolCallNotFound':
        case 'ForkNotFound':
        case 'ArtifactNotFound':
          return EXIT.notFound;
        case 'ForkRejected':
          return EXIT.rejected;
        case 'Diverged':
          return EXIT.diverged;
        default:
          return EXIT.failed;
      }
    }
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      io.err(`ocdb ${name}: ${errorMessage(e)}\n\n${command.help}`);
      return EXIT.usage;
    }
    io.err(`ocdb ${name}: ${redactText(e instanceof Error ? (e.stack ?? e.message) : errorMessage(e))}`);
    return EXIT.failed;
  }
}

/**
 * A reader that went away (`ocdb show … | head`) is not an error: stop quietly,
 * as cat and git do, instead of dying with an EPIPE stack trace.
 */
function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

if (require.main === module) {
  exitQuietlyOnClosedPipe(process.stdout);
  exitQuietlyOnClosedPipe(process.stderr);
  const io: CliIo = {
    out: (t) => process.stdout.write(`${t}\n`),
    write: (t) =>
      new Promise<void>((resolve) => {
        if (process.stdout.write(t)) resolve();
        else process.stdout.once('drain', () => resolve());
      }),
    writeBytes: (data) =>
      new Promise<void>((resolve) => {
        if (process.stdout.write(data)) resolve();
        else process.stdout.once('drain', () => resolve());
      }),
    err: (t) => process.stderr.write(`${t}\n`),
    isTty: Boolean(process.stdout.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
  runCli(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`ocdb: ${errorMessage(e)}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
