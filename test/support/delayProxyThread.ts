/**
 * The delay proxy (delayProxy.ts) in a worker thread of its own, for a caller that may block its own event loop
 * (a synchronous PostgreSQL writer measured beside the asynchronous one): it keeps forwarding meanwhile.
 * Controlled by messages; its request count is read from shared memory.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { startDelayProxy, viaPort, type ProxyMode } from './delayProxy';

export interface ProxyThread {
  port: number;
  urlFor(url: string): string;
  setDelay(ms: number): Promise<void>;
  setMode(mode: ProxyMode): Promise<void>;
  requests(): number;
  close(): Promise<void>;
}

type Control = { type: 'delay'; ms: number } | { type: 'mode'; mode: ProxyMode };

export async function startProxyThread(target: { host: string; port: number }): Promise<ProxyThread> {
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const tsx = 'tsx/cjs';
  const worker = new Worker(
    `require(${JSON.stringify(require.resolve(tsx))}); require(${JSON.stringify(__filename)});`,
    {
      eval: true,
      workerData: { target, counter },
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { port: number }) => resolve(m.port));
    worker.once('error', reject);
  });
  const ask = (c: Control) =>
    new Promise<void>((resolve) => {
      worker.once('message', () => resolve());
      worker.postMessage(c);
    });
  return {
    port,
    urlFor: (url) => viaPort(url, port),
    setDelay: (ms) => ask({ type: 'delay', ms }),
    setMode: (mode) => ask({ type: 'mode', mode }),
    requests: () => Atomics.load(counter, 0),
    close: async () => {
      await worker.terminate();
    },
  };
}

if (!isMainThread && parentPort && (workerData as { counter?: unknown })?.counter) {
  const { target, counter } = workerData as { target: { host: string; port: number }; counter: Int32Array };
  const parent = parentPort;
  void startDelayProxy(target).then((proxy) => {
    setInterval(() => Atomics.store(counter, 0, proxy.requests()), 5);
    parent.on('message', (c: Control) => {
      if (c.type === 'delay') proxy.setDelay(c.ms);
      else proxy.setMode(c.mode);
      Atomics.store(counter, 0, proxy.requests());
      parent.postMessage({ done: true });
    });
    parent.postMessage({ port: proxy.port });
  });
}
