// Secrets never reach a recording: API keys and credentials in headers, secret-looking
// query parameters (webhook ?token=…) and secret-looking JSON keys are replaced.
import { safeDecode } from '../../specs/contract.ts';

const REDACTED = 'REDACTED';

const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-service-key']);
const SECRET_NAME = /(^|[_-])(token|api[_-]?key|secret|password|signature|client[_-]?secret)$/i;

export function redactHeader(name: string, value: string): string {
  return SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value;
}

/** Redacts secret query parameters of a URL or path, keeping everything else as written. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
      return eq >= 0 && SECRET_NAME.test(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

/** Redacts secret keys and secret query parameters inside URL strings, deep in a JSON value. */
function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (typeof value === 'string') return /^(https?:)?\/\/|^\//.test(value) && value.includes('?') ? redactUrl(value) : value;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = SECRET_NAME.test(key) && typeof inner === 'string' ? REDACTED : redactJson(inner);
  }
  return out;
}

/** A parsed JSON body, redacted, as text. */
export function redactParsedJson(value: unknown): string {
  return JSON.stringify(redactJson(value));
}

/** Redacts a body given as text: JSON bodies structurally, anything else as is. */
export function redactBody(text: string, contentType: string | undefined): string {
  if (!/json/i.test(contentType ?? '') || text.length === 0) return text;
  try {
    return JSON.stringify(redactJson(JSON.parse(text)));
  } catch {
    return text;
  }
}

/**
 * Redacts a body that was cut short, so no longer parses: the values of secret-looking JSON keys
 * (a value cut open included) and secret query parameters, found by pattern.
 */
export function redactCutText(text: string): string {
  return text
    .replace(/("((?:[^"\\]|\\.)*)"\s*:\s*)"(?:[^"\\]|\\.)*("|$)/g, (pair, head: string, key: string, close: string) =>
      SECRET_NAME.test(key) ? `${head}"${REDACTED}${close}` : pair,
    )
    .replace(/([?&])([^=&#"\s]+)=[^&#"\s]*/g, (param, separator: string, name: string) =>
      SECRET_NAME.test(safeDecode(name)) ? `${separator}${name}=${REDACTED}` : param,
    );
}
