/**
 * `ocdb serve`: the HTTP API of a store on 127.0.0.1 until Ctrl-C /
 * SIGTERM / SIGHUP; a second server on the same store is refused. The URL and token go to server.json beside the store (mode 0600);
 * the token is never printed. `--host` with `--tls-cert` / `--tls-key` serves it to other machines over HTTPS
 * (a shared store's API for agents elsewhere); a non-loopback host without them is refused.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { OcdbError, errorMessage, storeLocationLabel } from '../../model';
import { startServer, DEFAULT_BODY_LIMIT } from '../../server/httpServer';
import { planListen } from '../../server/listenAddress';
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

function readPem(file: string, flag: string, cwd: string): string {
  try {
    return readFileSync(path.resolve(cwd, file), 'utf8');
  } catch (e) {
    throw new OcdbError('InvalidInput', `--${flag} ${file} is not readable (${errorMessage(e)})`, { path: flag });
  }
}

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'serve the store over an HTTP API (127.0.0.1, or another address over TLS; bearer token)',
  help: [
    'Usage: ocdb serve [--port <n>] [--host <addr> --tls-cert <file> --tls-key <file>] [--body-limit <bytes>]',
    '',
    'Listens on 127.0.0.1 by default. The URL and the bearer token are written to server.json',
    'beside the store file (for a postgres:// store: in ~/.ocdb/stores/<hash>/), mode 0600,',
    'and removed on exit (Ctrl-C, SIGTERM, SIGHUP).',
    'One server per store: a second one is refused while the first one runs.',
    '  --port <n>             port (default: a free one)',
    '  --host <addr>          address to listen on, e.g. 0.0.0.0 for agents on other machines;',
    '                         an address other machines reach needs --tls-cert and --tls-key',
    '  --tls-cert <file>      PEM certificate: serve over HTTPS (clients must trust it)',
    '  --tls-key <file>       PEM private key of the certificate',
    '  --allow-host <name>    another name clients may send as Host (the host and the',
    "                         certificate's names are allowed already); repeatable",
    `  --body-limit <bytes>   largest request body (default ${DEFAULT_BODY_LIMIT})`,
    MODEL_HELP,
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const { values } = parseCommandArgs(
      args,
      {
        ...STORE_OPTION,
        ...MODEL_OPTIONS,
        port: { type: 'string' },
        'body-limit': { type: 'string' },
        host: { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'allow-host': { type: 'string', multiple: true },
      },
      false,
    );
    const port = intOption(values.port, 'port', 65535);
    const bodyLimitBytes = intOption(values['body-limit'], 'body-limit', 1024 * 1024 * 1024);
    const certFile = values['tls-cert'];
    const keyFile = values['tls-key'];
    if ((certFile === undefined) !== (keyFile === undefined)) {
      throw new OcdbError('InvalidInput', 'Give both --tls-cert <file> and --tls-key <file>, or neither.', {
        path: certFile === undefined ? 'tls-cert' : 'tls-key',
      });
    }
    const tls =
      certFile !== undefined && keyFile !== undefined
        ? { cert: readPem(certFile, 'tls-cert', io.cwd), key: readPem(keyFile, 'tls-key', io.cwd), certFile, keyFile }
        : undefined;
    // refused before the store is opened: a non-loopback host without TLS, TLS material that does not parse
    planListen({
      ...(values.host !== undefined ? { host: values.host } : {}),
      ...(tls ? { tls } : {}),
      ...(values['allow-host'] ? { allowHosts: values['allow-host'] } : {}),
    });
    const store = openStoreFor(io, values.store, true, true);
    const chat = chatModelFrom(values, io);
    let server: Awaited<ReturnType<typeof startServer>>;
    try {
      server = await startServer({
        store,
        ...(port !== undefined ? { port } : {}),
        ...(bodyLimitBytes !== undefined ? { bodyLimitBytes } : {}),
        ...(chat ? { chatModel: chat } : {}),
        ...(values.host !== undefined ? { host: values.host } : {}),
        ...(tls ? { tls } : {}),
        ...(values['allow-host'] ? { allowHosts: values['allow-host'] } : {}),
      });
    } catch (e) {
      store.close();
      throw e;
    }
    // every way a terminal or a supervisor ends a server removes server.json (the token) on the way out; the
    // handlers are in place before the ready line, so a signal sent as soon as it is read is never the default kill
    const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const lastResort = () => server.removeServerFile();
    process.once('exit', lastResort);
    const stopped = new Promise<void>((resolve) => {
      const stop = () => resolve();
      for (const s of SIGNALS) process.once(s, stop);
    });
    io.out(`Agent Time Travel API on ${server.url} for ${storeLocationLabel(store.path)}`);
    io.out(`Token and URL in ${server.serverFile ?? '(not written)'}. Ctrl-C stops.`);
    await stopped;
    await server.close();
    process.off('exit', lastResort);
    store.close();
    io.out('stopped');
    return EXIT.ok;
  },
};
