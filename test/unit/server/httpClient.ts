/** A raw node:http client for the API tests (fetch cannot set the Host header). */
import * as http from 'node:http';

export interface RawResponse {
  status: number;
  body: unknown;
  headers: http.IncomingHttpHeaders;
  /** The body as sent (binary content). */
  bytes: Buffer;
}

export function call(
  url: string,
  options: {
    method?: string;
    path: string;
    token?: string;
    headers?: Record<string, string>;
    body?: unknown;
    raw?: Buffer | string;
  },
): Promise<RawResponse> {
  const target = new URL(options.path, url);
  const payload =
    options.raw !== undefined ? options.raw : options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // keep text
          }
          resolve({ status: res.statusCode ?? 0, body, headers: res.headers, bytes });
        });
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
