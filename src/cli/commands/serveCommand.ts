/**
 * `ocdb serve`: the local HTTP API of a store on 127.0.0.1 until Ctrl-C /
 * SIGTERM / SIGHUP; a second server on the same store is refused. The URL and token go to server.json beside the store (mode 0600);
 * the token is never printed.
 */
import { OcdbError } from '../../model';
import { startServer, DEFAULT_BODY_LIMIT } from '../../server/httpServer';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';
import { MODEL_HELP, MODEL_OPTIONS, chatModelFrom } from './forkCliShared';

function intOption(value: string | undefined, flag: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) {
    throw new OcdbError('InvalidInput', `--${flag} ${value}: expected an integer from 0 to ${max}`, { path: flag });
  }
  return n;
}

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'serve the store over a local HTTP API (127.0.0.1, bearer token)',
  help: [
    'Usage: ocdb serve [--port <n>] [--body-limit <bytes>]',
    '',
    'Listens on 127.0.0.1 only. The URL and the bearer token are written to server.json',
    'beside the store file (mode 0600) and removed on exit (Ctrl-C, SIGTERM, SIGHUP).',
    'One server per store: a second one is refused while the first one runs.',
    '  --port <n>             port (default: a free one)',
    `  --body-limit <bytes>   largest request body (default ${DEFAULT_BODY_LIMIT})`,
    MODEL_HELP,
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const { values } = parseCommandArgs(
      args,
      { ...STORE_OPTION, ...MODEL_OPTIONS, port: { type: 'string' }, 'body-limit': { type: 'string' } },
      false,
    );
    const port = intOption(values.port, 'port', 65535);
    const bodyLimitBytes = intOption(values['body-limit'], 'body-limit', 1024 * 1024 * 1024);
    const store = openStoreFor(io, values.store, true);
    const chat = chatModelFrom(values, io);
    const server = await startServer({
      store,
      ...(port !== undefined ? { port } : {}),
      ...(bodyLimitBytes !== undefined ? { bodyLimitBytes } : {}),
      ...(chat ? { chatModel: chat } : {}),
    });
    // every way a terminal or a supervisor ends a server removes server.json (the token) on the way out; the
    // handlers are in place before the ready line, so a signal sent as soon as it is read is never the default kill
    const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const lastResort = () => server.removeServerFile();
    process.once('exit', lastResort);
    const stopped = new Promise<void>((resolve) => {
      const stop = () => resolve();
      for (const s of SIGNALS) process.once(s, stop);
    });
    io.out(`Agent Time Travel API on ${server.url} for ${store.path}`);
    io.out(`Token and URL in ${server.serverFile ?? '(not written)'}. Ctrl-C stops.`);
    await stopped;
    await server.close();
    process.off('exit', lastResort);
    store.close();
    io.out('stopped');
    return EXIT.ok;
  },
};
