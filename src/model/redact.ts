/**
 * Secret redaction: the one rule for what never reaches the store, a
 * terminal or an HTTP answer. An error keeps what helps (status, host, path,
 * the endpoint's words) and loses what is secret: authorization headers and
 * bearer tokens, API-key-shaped tokens (`sk-…`, `ghp_…`, `AKIA…`, …), URL
 * credentials (`user:key@`) and key-like query parameters (`?api-key=`,
 * `key=`, `token=`, `sig=`, …), and values of key-like JSON fields. Applied by
 * the model client, the fork error mapping (`fork/forkErrors.ts` toRunError),
 * the CLI's error output and the HTTP error body.
 *
 * A key without a well-known shape is found by its value: the model client tells this module the key it sends
 * (`knowSecretValue`), and from then on every text redacted in the process loses that value too — an endpoint that
 * echoes the key in an error or in an answer cannot put it in the store or on the screen. The only state here: the
 * set of values known (never listed, never logged).
 */

/** What stands in for a removed secret. */
export const REDACTED = '[REDACTED]';

/** Names of headers, fields and query parameters whose value is a secret. */
const SECRET_NAME =
  /^(?:authorization|proxy-authorization|x-api-key|api[-_]?key|apikey|key|access[-_]?token|refresh[-_]?token|id[-_]?token|token|auth|secret|client[-_]?secret|password|passwd|pwd|sig|signature|x-amz-signature|x-goog-api-key|session[-_]?token|cookie|set-cookie)$/i;

/** True when a header, field or query parameter of this name holds a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name.trim());
}

/** Tokens shaped like credentials of well-known providers, wherever they appear. */
const TOKEN_PATTERNS: readonly RegExp[] = [
  /\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{6,}/g, // OpenAI, Anthropic, Stripe-like
  /\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{10,}/g, // GitHub
  /\bxox[abposr]-[A-Za-z0-9-]{8,}/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{30,}/g, // Google API key
  /\bhf_[A-Za-z0-9]{20,}/g, // Hugging Face
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWT
];

/** Secret values this process sends (API keys, passwords), redacted wherever they appear. */
const knownValues = new Set<string>();

/** Shorter values are not redacted by value: they would hide ordinary words. */
const MIN_KNOWN_LENGTH = 8;

/**
 * Registers a secret this process sends (an API key, a password), so every text redacted from now on loses it:
 * as written, JSON-escaped and URL-encoded.
 */
export function knowSecretValue(value: string | undefined): void {
  if (!value || value.trim().length < MIN_KNOWN_LENGTH) return;
  for (const form of [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]) knownValues.add(form);
}

/**
 * Text with the secret values known to this process (`knowSecretValue`) replaced by [REDACTED], and nothing else
 * changed: for content that must stay as it is but for a key echoed in it (a model's answer).
 */
export function redactKnownSecrets(text: string): string {
  let out = text;
  for (const value of knownValues) if (out.includes(value)) out = out.split(value).join(REDACTED);
  return out;
}

/** Text with every secret it carries replaced by [REDACTED]. */
export function redactText(text: string): string {
  let out = redactKnownSecrets(text)
    // URL credentials: scheme://user:pass@host -> scheme://[REDACTED]@host
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"'<>]+@/gi, `$1${REDACTED}@`)
    // header lines and JSON / form fields: `Authorization: Bearer x`, `"api_key": "x"`, `token=x`
    .replace(
      /(["']?)([A-Za-z][\w-]*)\1(\s*[:=]\s*)(["']?)((?:bearer|basic|token|digest)\s+)?([^\s"'&,;}<>?#]+)/gi,
      (all: string, q: string, name: string, sep: string, vq: string, scheme: string | undefined, value: string) =>
        isSecretName(name) && value !== REDACTED ? `${q}${name}${q}${sep}${vq}${scheme ?? ''}${REDACTED}` : all,
    )
    // a bare `Bearer <token>` anywhere
    .replace(/\b(bearer|basic)\s+(?!\[REDACTED\])[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`);
  for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, REDACTED);
  return out;
}

/** A URL safe to show: no credentials, key-like query parameters blanked; other text redacted as text. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactText(url);
  }
  if (parsed.username || parsed.password) {
    parsed.username = '';
    parsed.password = '';
    const shown = parsed.toString().replace('://', `://${REDACTED}@`);
    return redactQuery(shown);
  }
  return redactQuery(parsed.toString());
}

function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return redactText(url);
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const kept = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeSafe(eq < 0 ? pair : pair.slice(0, eq));
      return eq >= 0 && isSecretName(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  return redactText(`${url.slice(0, q)}?${kept}${hash < 0 ? '' : url.slice(hash)}`);
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * A JSON-like value with every secret removed: strings redacted as text, the
 * values of secret-named fields replaced whole. Iterative (no stack limit);
 * returns new objects, never mutates its input.
 */
export function redactValue<T>(value: T): T {
  const root: { v: unknown } = { v: value };
  const stack: { from: unknown; to: Record<string, unknown> | unknown[]; key: string | number }[] = [
    { from: value, to: root as unknown as Record<string, unknown>, key: 'v' },
  ];
  while (stack.length > 0) {
    const { from, to, key } = stack.pop() as (typeof stack)[number];
    // defineProperty: a `__proto__` key stays a plain field, never a prototype
    const put = (v: unknown) =>
      Object.defineProperty(to, key, { value: v, enumerable: true, writable: true, configurable: true });
    if (typeof from === 'string') put(redactText(from));
    else if (Array.isArray(from)) {
      const copy: unknown[] = new Array<unknown>(from.length);
      put(copy);
      from.forEach((item, i) => stack.push({ from: item, to: copy, key: i }));
    } else if (from !== null && typeof from === 'object') {
      const copy: Record<string, unknown> = {};
      put(copy);
      for (const [k, v] of Object.entries(from)) {
        if (isSecretName(k) && (typeof v === 'string' || typeof v === 'number')) {
          Object.defineProperty(copy, k, { value: REDACTED, enumerable: true, writable: true, configurable: true });
        } else {
          Object.defineProperty(copy, k, { value: undefined, enumerable: true, writable: true, configurable: true });
          stack.push({ from: v, to: copy, key: k });
        }
      }
    } else put(from);
  }
  return root.v as T;
}

/**
 * A store location fit to show (settings echo, logs, errors, tree tooltips, the status bar): a file path as is; a
 * URL (`postgres://…`) without its password and with secret query parameters (`?password=`) blanked — the user
 * name, host, port and database stay, they say which store it is.
 */
export function storeLocationLabel(location: string): string {
  if (!/^[a-z][a-z0-9+.-]+:\/\//i.test(location)) return location;
  let parsed: URL;
  try {
    parsed = new URL(location);
  } catch {
    return credentialsCut(location);
  }
  // an `@` after the host or a fragment: a password holding `/`, `?` or `#` was cut into the wrong parts
  if (parsed.hash !== '' || parsed.pathname.includes('@') || parsed.search.includes('@'))
    return credentialsCut(location);
  parsed.password = '';
  const q = parsed.search;
  parsed.search = '';
  // a location already redacted (a store's `path`) keeps its marker readable
  const base = parsed.toString().replace(/%5BREDACTED%5D/g, REDACTED);
  if (q === '') return base;
  const kept = q
    .slice(1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeSafe(eq < 0 ? pair : pair.slice(0, eq));
      return eq >= 0 && isSecretName(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  return `${base}?${kept}`;
}

/**
 * A URL that does not parse as meant, shown without what may be a password: everything between `://` and the last
 * `@` goes (a password may hold `/`, `#`, `?` or `@`), the host and database after it stay.
 */
function credentialsCut(location: string): string {
  const start = location.indexOf('://') + 3;
  const at = location.lastIndexOf('@');
  if (at < start) return redactText(location);
  return `${location.slice(0, start)}${REDACTED}@${redactText(location.slice(at + 1))}`;
}
