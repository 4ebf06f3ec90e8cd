/**
 * A TCP proxy on loopback that puts a network between a client and a server: every chunk is held `delayMs` in
 * each direction (a round trip costs 2 × delayMs), in order. `mode` changes what it does to connections from then
 * on: `forward` (as above), `hang` (accepts, then never answers: a server that stopped responding), `down`
 * (refuses: the host is unreachable). Switching to hang silences the connections open at that moment (nothing they
 * send arrives); switching to down cuts them.
 * Used by the team store's tests, the real-VS-Code suite and `npm run bench -- team`.
 */
import * as net from 'node:net';

export type ProxyMode = 'forward' | 'hang' | 'down';

export interface DelayProxy {
  /** The port clients connect to (127.0.0.1). */
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string;
  setDelay(ms: number): void;
  setMode(mode: ProxyMode): void;
  /** Connections the proxy accepted (each a round trip's worth of handshakes; a measure of connection churn). */
  accepted(): number;
  /** Chunks clients sent (each a flight of requests pipelined together: a round trip's worth, at most). */
  requests(): number;
  close(): Promise<void>;
}

/** `url` with its host and port replaced by a proxy's on loopback. */
export function viaPort(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

export async function startDelayProxy(target: { host: string; port: number }, delayMs = 0): Promise<DelayProxy> {
  let delay = delayMs;
  let mode: ProxyMode = 'forward';
  let count = 0;
  let requests = 0;
  const open = new Set<net.Socket>();
  /** Holds `from`'s chunks on their way to `to`; returns how long until the last of them has left (ms). */
  const hold = (from: net.Socket, to: net.Socket): (() => number) => {
    // chunks leave in the order they came, each `delay` after its arrival: one queue and one timer per direction.
    // A timer per chunk could reorder them under load (timers of different lengths started at a stale loop time),
    // which breaks the protocol stream and hangs the client.
    const queue: { due: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    let last = 0;
    const drain = () => {
      timer = undefined;
      const now = Date.now();
      while (queue.length > 0 && (queue[0] as { due: number }).due <= now) {
        const { chunk } = queue.shift() as { chunk: Buffer };
        if (mode !== 'hang' && !to.destroyed) to.write(chunk);
      }
      if (queue.length > 0) timer = setTimeout(drain, (queue[0] as { due: number }).due - now);
    };
    from.on('data', (chunk: Buffer) => {
      const due = Math.max(Date.now() + delay, last);
      last = due;
      queue.push({ due, chunk });
      if (timer === undefined) drain();
    });
    return () => Math.max(0, last - Date.now());
  };
  /** Ends `to` once what is held for it has left: a close travels behind the data, as on a network. */
  const endAfter = (to: net.Socket, pending: () => number) => {
    setTimeout(() => {
      if (mode === 'hang' || to.destroyed) return;
      to.end();
    }, pending() + 1);
  };
  const server = net.createServer((client) => {
    count++;
    // no Nagle in the proxy (pg's own socket has none): a flight that reaches it in several chunks would otherwise
    // wait for the server's delayed ACK (40 ms on Linux) chunk after chunk, a delay no network in between adds
    client.setNoDelay(true);
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    if (mode === 'down') {
      client.destroy();
      return;
    }
    if (mode === 'hang') return; // accepted, never answered
    const upstream = net.connect(target.port, target.host);
    upstream.setNoDelay(true);
    open.add(upstream);
    client.on('data', () => requests++);
    const toUpstream = hold(client, upstream);
    const toClient = hold(upstream, client);
    upstream.on('close', () => {
      open.delete(upstream);
      endAfter(client, toClient);
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => endAfter(upstream, toUpstream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    urlFor: (url) => viaPort(url, port),
    setDelay(ms) {
      delay = ms;
    },
    setMode(next) {
      mode = next;
      if (next === 'down') for (const s of open) s.destroy();
    },
    accepted: () => count,
    requests: () => requests,
    close() {
      for (const s of open) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
