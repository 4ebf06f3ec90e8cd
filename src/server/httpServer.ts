/**
 * The HTTP API of a run store (node:http / node:https only). Listens on 127.0.0.1 unless told otherwise; a
 * non-loopback address only over TLS (listenAddress.ts decides). Every request needs
 * `Authorization: Bearer <token>` (401); a Host header that is not one of the server's names (loopback, and
 * behind `--host` the names listenAddress.ts allows) is refused with 421 and a foreign Origin with 403
 * (DNS-rebinding and cross-site guards); JSON only (415); bodies past the limit get 413; errors have one shape.
 * Writes server.json (mode 0600) while it runs. Depends on routes.ts and the store contract.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { OcdbError, assertJsonInput, errorMessage } from '../model';
import type { RunStore } from '../store';
import { HttpError, errorResponse } from './httpErrors';
import { buildRoutes, type Route, type RouteResult, type RoutesOptions } from './routes';
import { isAllowedHost, normalHostName, planListen, type TlsInput } from './listenAddress';
import { removeServerFile, writeServerFile } from './serverFile';

export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

export interface ServerOptions extends Omit<RoutesOptions, 'store'> {
  store: RunStore;
  /** 0 (default) picks a free port. */
  port?: number;
  /** A fixed token (tests); default 32 random bytes, hex. */
  token?: string;
  bodyLimitBytes?: number;
  /** Write server.json beside the store (default true). */
  writeServerFile?: boolean;
  /** The address to listen on; default 127.0.0.1. A non-loopback one needs `tls`. */
  host?: string;
  /** Certificate and key (PEM): the API is served over HTTPS. */
  tls?: TlsInput;
  /** More names the Host header may carry (behind a proxy or a DNS alias). */
  allowHosts?: readonly string[];
}

export interface RunningServer {
  url: string;
  token: string;
  port: number;
  serverFile?: string;
  /** Removes server.json now if it is still ours (synchronous: safe in an `exit` handler). */
  removeServerFile(): void;
  close(): Promise<void>;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Bytes as they are (an artifact's content), with its content type. */
function sendRaw(res: http.ServerResponse, status: number, raw: NonNullable<RouteResult['raw']>): void {
  res.writeHead(status, {
    ...raw.headers,
    'content-type': raw.contentType,
    'content-length': raw.data.byteLength,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
  });
  res.end(raw.data);
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}

/** Checks host, origin and token; throws HttpError. */
function guard(req: http.IncomingMessage, token: string, port: number, names: ReadonlySet<string>): void {
  const host = req.headers.host;
  if (!host || !isAllowedHost(host, names, port)) {
    const listed = [...names].map((n) => (n.includes(':') ? `[${n}]` : n)).join(', ');
    throw new HttpError(
      'MisdirectedRequest',
      `Host ${host ?? '(none)'} is not a name of this server; it answers ${listed}.`,
    );
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let originHost = '';
    try {
      originHost = new URL(origin).hostname;
    } catch {
      // an unparsable origin is foreign
    }
    if (originHost === '' || !names.has(normalHostName(originHost))) {
      throw new HttpError('Forbidden', `Requests from origin ${origin} are refused.`);
    }
  }
  const auth = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(auth);
  if (!match || !sameToken(match[1] ?? '', token)) {
    throw new HttpError(
      'Unauthorized',
      'Missing or wrong bearer token: send Authorization: Bearer <token> (the token is in server.json beside the store).',
    );
  }
}

function readBody(req: http.IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new HttpError('PayloadTooLarge', `The body (${declared} bytes) is over the limit of ${limit} bytes.`));
      req.resume();
      return;
    }
    const type = String(req.headers['content-type'] ?? '');
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new HttpError('PayloadTooLarge', `The body is over the limit of ${limit} bytes.`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (failed) return;
      if (size === 0) return resolve(undefined);
      if (!/^application\/json\b/i.test(type)) {
        return reject(new HttpError('UnsupportedMediaType', 'Send JSON with Content-Type: application/json.'));
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch (e) {
        reject(new OcdbError('InvalidInput', `The body is not valid JSON: ${errorMessage(e)}`, { path: '' }));
        return;
      }
      try {
        assertJsonInput(body, 'body'); // refused before anything is written (MAX_JSON_DEPTH, no __proto__ keys)
        resolve(body);
      } catch (e) {
        reject(e);
      }
    });
  });
}

async function dispatch(routes: Route[], req: http.IncomingMessage, limit: number): Promise<RouteResult> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const pathname = url.pathname.replace(/\/+$/, '') || '/';
  const matching = routes.filter((r) => r.pattern.test(pathname));
  if (matching.length === 0) throw new HttpError('NotFound', `No endpoint ${pathname}.`);
  const route = matching.find((r) => r.method === req.method);
  if (!route) throw new HttpError('MethodNotAllowed', `${req.method ?? '?'} is not allowed on ${pathname}.`);
  const body = req.method === 'POST' ? await readBody(req, limit) : undefined;
  const params = (route.pattern.exec(pathname) ?? []).slice(1);
  return route.handle({ params, query: url.searchParams, body });
}

/** Starts the API; resolves once it listens. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const token = options.token ?? randomBytes(32).toString('hex');
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const plan = planListen({
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.allowHosts ? { allowHosts: options.allowHosts } : {}),
  });
  const routes = buildRoutes(options);
  const handler: http.RequestListener = (req, res) => {
    void (async () => {
      try {
        guard(req, token, (server.address() as AddressInfo).port, plan.names);
        const result = await dispatch(routes, req, limit);
        if (result.raw) sendRaw(res, result.status, result.raw);
        else send(res, result.status, result.body);
      } catch (e) {
        const { status, body } = errorResponse(e);
        send(res, status, body);
      }
    })();
  };
  const server: http.Server = plan.tls
    ? https.createServer({ cert: plan.tls.cert, key: plan.tls.key, minVersion: 'TLSv1.2' }, handler)
    : http.createServer(handler);
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE' || e.code === 'EADDRNOTAVAIL' || e.code === 'EACCES'
          ? new OcdbError('InvalidInput', `Cannot listen on ${plan.host}:${options.port ?? 0}: ${e.code}.`, {
              path: 'host',
            })
          : e,
      ),
    );
    server.listen(options.port ?? 0, plan.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = plan.url(port);
  let file: string | undefined;
  try {
    file =
      options.writeServerFile === false
        ? undefined
        : writeServerFile(options.store.path, { url, token, pid: process.pid });
  } catch (e) {
    // another live server owns this store: do not stay up undiscoverable
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw e;
  }
  return {
    url,
    token,
    port,
    ...(file ? { serverFile: file } : {}),
    removeServerFile: () => {
      if (file) removeServerFile(options.store.path, token);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (file) removeServerFile(options.store.path, token);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
