/**
 * Where the HTTP API listens and which names it answers to. By default 127.0.0.1 and the loopback names only;
 * a non-loopback address (`ocdb serve --host 0.0.0.0`, for agents on other machines in front of a shared store)
 * only with TLS — a certificate and its key — and the bearer token every request needs anyway. Behind such an
 * address the Host header may name, besides loopback, the configured host, the names and addresses the
 * certificate is issued for (a client that checks the certificate uses one of them) and any name given with
 * `allowHosts`: the DNS-rebinding guard stays, widened only to names the operator chose. Pure but for reading
 * nothing: certificate and key come in as PEM text.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import * as os from 'node:os';
import { OcdbError, errorMessage } from '../model';

/** TLS material as PEM text (`--tls-cert`, `--tls-key`), with the file names for error messages. */
export interface TlsInput {
  cert: string;
  key: string;
  certFile?: string;
  keyFile?: string;
}

/** What the server listens on and answers to, decided before it listens. */
export interface ListenPlan {
  host: string;
  tls?: { cert: string; key: string };
  /** Host-header names (lower case; IPv6 without brackets) this server answers. */
  names: ReadonlySet<string>;
  /** The URL clients use (server.json). */
  url: (port: number) => string;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** A host name as the Host header and the set compare it: lower case, IPv6 without brackets. */
export function normalHostName(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
}

/** True for an address or name that only this machine reaches (127.0.0.0/8, ::1, localhost). */
export function isLoopbackAddress(host: string): boolean {
  const h = normalHostName(host);
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** The DNS names and IP addresses a certificate is issued for (subject alternative names, else its CN). */
export function certificateNames(cert: X509Certificate): string[] {
  const names: string[] = [];
  for (const part of (cert.subjectAltName ?? '').split(',')) {
    const m = /^\s*(DNS|IP Address):(.+)$/.exec(part);
    if (m?.[2]) names.push(normalHostName(m[2]));
  }
  if (names.length === 0) {
    const cn = /(?:^|\n)CN=([^\n]+)/.exec(cert.subject)?.[1];
    if (cn) names.push(normalHostName(cn));
  }
  return names;
}

function readTls(tls: TlsInput): { cert: X509Certificate; key: string; certPem: string } {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(tls.cert);
  } catch (e) {
    throw new OcdbError(
      'InvalidInput',
      `--tls-cert ${tls.certFile ?? ''} is not a PEM certificate (${errorMessage(e)}).`.replace(/ +/g, ' '),
      { path: 'tls-cert' },
    );
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(tls.key);
  } catch (e) {
    throw new OcdbError(
      'InvalidInput',
      `--tls-key ${tls.keyFile ?? ''} is not a PEM private key (${errorMessage(e)}).`.replace(/ +/g, ' '),
      { path: 'tls-key' },
    );
  }
  if (!cert.checkPrivateKey(key)) {
    throw new OcdbError(
      'InvalidInput',
      `--tls-key ${tls.keyFile ?? ''} is not the key of the certificate ${tls.certFile ?? ''}.`.replace(/ +/g, ' '),
      { path: 'tls-key' },
    );
  }
  if (Date.parse(cert.validTo) < Date.now()) {
    throw new OcdbError(
      'InvalidInput',
      `--tls-cert ${tls.certFile ?? ''}: the certificate expired on ${cert.validTo}.`.replace(' :', ':'),
      {
        path: 'tls-cert',
      },
    );
  }
  return { cert, key: tls.key, certPem: tls.cert };
}

/**
 * Decides where to listen and which Host names to answer. Throws InvalidInput for a non-loopback host without
 * TLS, for TLS material that does not parse or does not match, and for an `allowHosts` name that is not a name.
 */
export function planListen(options: { host?: string; tls?: TlsInput; allowHosts?: readonly string[] }): ListenPlan {
  const host = options.host?.trim() || '127.0.0.1';
  const loopback = isLoopbackAddress(host);
  if (!loopback && !options.tls) {
    throw new OcdbError(
      'InvalidInput',
      `--host ${host} is reachable from other machines: serve it only over TLS with --tls-cert <file> and --tls-key <file> (clients then send the bearer token over an encrypted connection).`,
      { path: 'host' },
    );
  }
  const names = new Set<string>(['127.0.0.1', 'localhost', '::1']);
  let tls: ListenPlan['tls'];
  let certNames: string[] = [];
  if (options.tls) {
    const read = readTls(options.tls);
    tls = { cert: read.certPem, key: read.key };
    certNames = certificateNames(read.cert);
    for (const n of certNames) names.add(n);
  }
  if (!WILDCARDS.has(host)) names.add(normalHostName(host));
  for (const extra of options.allowHosts ?? []) {
    const n = normalHostName(extra);
    if (!/^[a-z0-9.-]+$|^[0-9a-f:.]+$/.test(n)) {
      throw new OcdbError('InvalidInput', `--allow-host ${extra}: expected a host name or an IP address.`, {
        path: 'allow-host',
      });
    }
    names.add(n);
  }
  // the name clients are told to use: the host itself, else the certificate's first name other than loopback
  const publicName = !WILDCARDS.has(host)
    ? host
    : (certNames.find((n) => !isLoopbackAddress(n) && !n.includes('*')) ?? os.hostname());
  const shown = publicName.includes(':') && !publicName.startsWith('[') ? `[${publicName}]` : publicName;
  return {
    host: host === '[::]' ? '::' : host,
    ...(tls ? { tls } : {}),
    names,
    url: (port) => (tls ? `https://${shown}:${port}` : `http://${shown}:${port}`),
  };
}

/** A Host header this API answers: one of `names`, optionally `:port` with our port, nothing else (no `@`, no suffix). */
export function isAllowedHost(hostHeader: string, names: ReadonlySet<string>, port: number): boolean {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(hostHeader);
  if (!m?.[1]) return false;
  if (m[2] !== undefined && Number(m[2]) !== port) return false;
  return names.has(normalHostName(m[1]));
}
