/**
 * Canonical JSON (object keys sorted, no whitespace) and the hashes built on
 * it: `argsHash` (the cassette key of a tool call) and `contentHash` (the key
 * of a content-addressed blob). Uses node:crypto only. No other I/O.
 */
import { createHash } from 'node:crypto';

function write(value: unknown, out: string[]): void {
  if (value === null || value === undefined) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      out.push(Number.isFinite(value) ? JSON.stringify(value) : 'null');
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'bigint':
      out.push(value.toString());
      return;
    case 'object': {
      const withToJson = value as { toJSON?: () => unknown };
      if (typeof withToJson.toJSON === 'function') {
        write(withToJson.toJSON(), out);
        return;
      }
      if (Array.isArray(value)) {
        out.push('[');
        value.forEach((item, i) => {
          if (i > 0) out.push(',');
          write(item === undefined || typeof item === 'function' ? null : item, out);
        });
        out.push(']');
        return;
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      out.push('{');
      let first = true;
      for (const key of keys) {
        const v = record[key];
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        if (!first) out.push(',');
        first = false;
        out.push(JSON.stringify(key), ':');
        write(v, out);
      }
      out.push('}');
      return;
    }
    default:
      // functions and symbols have no JSON form
      out.push('null');
  }
}

/** JSON with object keys sorted at every level and no whitespace; `undefined` members are dropped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

/** Hex SHA-256 of a string (UTF-8). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The cassette key of a tool call: first 16 hex chars of SHA-256 of the canonical JSON of its args. */
export function argsHash(args: unknown): string {
  return sha256Hex(canonicalJson(args)).slice(0, 16);
}

/** The key of a content-addressed blob: 32 hex chars (128 bits) of SHA-256 of its canonical JSON text. */
export function contentHash(canonicalText: string): string {
  return sha256Hex(canonicalText).slice(0, 32);
}
