// Secrets never reach a recording. Three rules, applied to every recorded string:
// - by name: the values of secret headers, query parameters, JSON fields and form fields are
//   replaced (a built-in list, and the names a user adds);
// - by look: platform API keys (lsv2_…) and bearer tokens are replaced under any name;
// - by value: a secret once redacted by name is remembered, and replaced wherever else it shows
//   (a target that reflects the key in an error message or a header is the worst case).
import { stripVTControlCharacters } from 'node:util';
import { safeDecode } from '../../specs/contract.ts';

const REDACTED = 'REDACTED';

const SECRET_HEADERS = ['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-service-key'];
const SECRET_NAME = /(^|[_-])(token|api[_-]?key|secret|password|signature|client[_-]?secret)$/i;
/** Words one of which every name SECRET_NAME matches contains. */
const SECRET_WORDS = 'token|api[_-]?key|secret|password|signature';
/** Values secret by their look, whatever their name. */
const SECRET_LOOKS: [RegExp, string][] = [
  [/lsv2_[A-Za-z0-9_-]+/g, REDACTED],
  [/\b(bearer)\s+[A-Za-z0-9._~+/-]+=*/gi, `$1 ${REDACTED}`],
];
/**
 * `name=value` or `"name": "value"` in free text (an HTML error page, a body that is not valid JSON).
 * The separator is optional so that every run of name characters is one match: required, a long
 * run without one would be tried from each of its characters (quadratic: a 256 KiB body hung the proxy).
 */
const NAMED_VALUE = /([A-Za-z0-9_%-]+)(?:(["']?\s*[:=]\s*["']?)([^\s"'&,;{}[\]<>]*))?/g;
const AUTH_SCHEME = /^(basic|bearer|digest|token|negotiate)$/i;
/** Shorter values are not searched for elsewhere: they would match too much that is no secret. */
const MIN_REMEMBERED = 8;
/** Forms of secrets remembered at most (the oldest are forgotten), so a long proxy session stays flat. */
const MAX_REMEMBERED = 1024;

interface RedactionOptions {
  /** More names whose values are secret, matched in any case as header, query parameter, JSON and form field names. */
  names?: string[];
  /** Secret values known beforehand (the run's API keys), replaced wherever they show. */
  secrets?: string[];
}

/**
 * The run's redaction, set by the global setup for its proxies and read by the reporters, which
 * redact the errors outside any test with the secrets the proxies have met. Both run in
 * Playwright's runner process. What a test says, its worker has the proxy redact (/__apc/redact).
 */
let shared: Redaction | undefined;

export function shareRunRedaction(redaction: Redaction | undefined): void {
  shared = redaction;
}

/** The words of an error, as a test's worker and the runner's reporters hold them. */
interface ErrorWords {
  message?: string;
  stack?: string;
  value?: string;
  snippet?: string;
  cause?: ErrorWords;
}

/** Applies `redact` to each of an error's words, its causes' too, in place. */
function redactErrorWords(error: ErrorWords, redact: (text: string) => string): void {
  for (const key of ['message', 'stack', 'value', 'snippet'] as const) {
    const text = error[key];
    if (text) error[key] = redact(text);
  }
  if (error.cause) redactErrorWords(error.cause, redact);
}

/** An error outside any test (a global setup that failed), redacted in place with the run's secrets, as a reporter gets it. */
export function redactRunError(error: ErrorWords): void {
  const redaction = shared;
  if (redaction) redactErrorWords(error, (text) => redaction.words(text));
}

/** One redaction policy and the secrets it has met; proxies sharing one share what they learn. */
export class Redaction {
  private readonly names: Set<string>;
  /**
   * Matches any text in which a secret name may be written: one of the names, a word of
   * SECRET_NAME, or a percent sign (a name may be percent-encoded). Text without one has no
   * `name=value` pair to redact, and is spared the search for them (most header values and
   * JSON strings: this is the proxy's hot path).
   */
  private readonly mayNameSecret: RegExp;
  private readonly remembered = new Set<string>();
  /**
   * Values whose forms are all in `remembered` now: the same key on every request is then looked
   * up once, not turned into its forms again. Emptied whenever a form is forgotten.
   */
  private readonly rememberedWhole = new Set<string>();
  private rememberedPattern?: RegExp;

  constructor(options: RedactionOptions = {}) {
    this.names = new Set([...SECRET_HEADERS, ...(options.names ?? [])].map((n) => n.toLowerCase()));
    this.mayNameSecret = new RegExp(['%', SECRET_WORDS, ...[...this.names].map(escapeRegExp)].join('|'), 'i');
    for (const secret of options.secrets ?? []) this.remember(secret);
  }

  /** Whether the value under this name (header, query parameter or field, decoded) is secret. */
  private isSecretName(name: string): boolean {
    return this.names.has(name.toLowerCase()) || SECRET_NAME.test(name);
  }

  header(name: string, value: string): string {
    if (!this.isSecretName(name)) return this.text(value);
    this.remember(value);
    // The credential alone, as a target may reflect it without its scheme.
    const credential = /^\s*[A-Za-z]+\s+(\S+)\s*$/.exec(value)?.[1];
    if (credential) this.remember(credential);
    return REDACTED;
  }

  /** A URL or path with its secret query parameters redacted, everything else as written. */
  url(url: string): string {
    const q = url.indexOf('?');
    if (q < 0) return this.text(url);
    return `${this.text(url.slice(0, q))}?${this.form(url.slice(q + 1))}`;
  }

  /** A body given as text: JSON structurally, forms field by field, event streams event by event, anything else as free text. */
  body(text: string, contentType: string | undefined): string {
    if (text.length === 0) return text;
    const type = (contentType ?? '').toLowerCase();
    if (type.includes('x-www-form-urlencoded')) return this.form(text);
    if (type.includes('multipart/form-data')) return this.multipart(text, /boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1]);
    if (type.includes('text/event-stream')) return this.eventStream(text);
    // A JSON body labelled otherwise (fetch sends a string as text/plain) is still JSON.
    if (type.includes('json') || /^\s*[[{]/.test(text)) {
      try {
        return this.parsedJson(JSON.parse(text));
      } catch {
        // Not JSON after all: free text.
      }
    }
    return this.text(text);
  }

  /** A parsed JSON body, redacted, as text. */
  parsedJson(value: unknown): string {
    return this.known(JSON.stringify(this.json(value)));
  }

  /**
   * Words a test or the harness wrote (an assertion's message, which Playwright colours, marking the
   * characters a comparison found different inside a string): colour codes that cut a secret in two
   * would hide it from the search for its value and its name, so the text is searched without them.
   * It keeps them where nothing was redacted.
   */
  words(text: string): string {
    const plain = stripVTControlCharacters(text);
    const out = this.text(plain);
    return out === plain ? text : out;
  }

  /** Free text: secret-looking values, `name=value` pairs of secret names, and the secrets met so far. */
  text(text: string): string {
    return this.known(this.scrub(text));
  }

  /** Secret-looking values and `name=value` pairs of secret names replaced (not yet the secrets met). */
  private scrub(text: string): string {
    // Most strings have neither: they are left at one cheap test.
    if (!/[:=]|lsv2_|bearer/i.test(text)) return text;
    let out = text;
    for (const [pattern, replacement] of SECRET_LOOKS) out = out.replace(pattern, replacement);
    return this.mayNameSecret.test(out) ? this.namedValues(out) : out;
  }

  /** The values of `name=value` pairs whose name is secret replaced. */
  private namedValues(text: string): string {
    const pattern = new RegExp(NAMED_VALUE);
    let out = '';
    let last = 0;
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      const [whole, name, separator = '', value] = m;
      if (value && this.isSecretName(safeDecode(name))) {
        const end = m.index + whole.length;
        // `Authorization: Basic <credential>`: the scheme is kept, the credential after it is the secret.
        const credential = AUTH_SCHEME.test(value) ? /^\s+([A-Za-z0-9._~+/-]+=*)/.exec(text.slice(end)) : null;
        this.remember(credential ? credential[1] : value);
        out += `${text.slice(last, m.index)}${name}${separator}${credential ? `${value} ` : ''}${REDACTED}`;
        last = end + (credential?.[0].length ?? 0);
        pattern.lastIndex = last;
      } else {
        // The value may be a name of its own (`a=token=x`): the search goes on from it.
        pattern.lastIndex = m.index + name.length + separator.length;
      }
    }
    return out + text.slice(last);
  }

  /** The secrets met so far replaced, in the forms a reflection may take. */
  private known(text: string): string {
    return this.rememberedPattern ? text.replace(this.rememberedPattern, REDACTED) : text;
  }

  private remember(value: string): void {
    if (this.rememberedWhole.has(value)) return;
    const forms = [value, safeDecode(value), safeDecode(value.replace(/\+/g, ' '))];
    let changed = false;
    for (const form of forms) {
      if (form.length < MIN_REMEMBERED || form === REDACTED) continue;
      for (const variant of [form, encodeURIComponent(form), encodeURIComponent(form).replace(/%20/g, '+'), JSON.stringify(form).slice(1, -1)]) {
        if (this.remembered.has(variant)) continue;
        this.remembered.add(variant);
        changed = true;
      }
    }
    if (!changed) {
      this.rememberedWhole.add(value);
      return;
    }
    if (this.remembered.size > MAX_REMEMBERED) this.rememberedWhole.clear();
    while (this.remembered.size > MAX_REMEMBERED) this.remembered.delete(this.remembered.values().next().value as string);
    // Longest first, so that a secret is replaced whole rather than a shorter one inside it.
    const alternatives = [...this.remembered].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.rememberedPattern = new RegExp(alternatives.join('|'), 'g');
  }

  /** A query string or form body: the values of secret names redacted, the pairs kept as written. */
  private form(query: string): string {
    return query
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        const name = eq < 0 ? pair : pair.slice(0, eq);
        if (eq < 0 || !this.isSecretName(safeDecode(name.replace(/\+/g, ' ')))) return this.text(pair);
        this.remember(pair.slice(eq + 1));
        return `${name}=${REDACTED}`;
      })
      .join('&');
  }

  /** Secret keys' strings (however deep below them) and secret query parameters inside URL strings, deep in a JSON value. */
  private json(value: unknown, secret = false): unknown {
    if (Array.isArray(value)) return value.map((inner) => this.json(inner, secret));
    if (typeof value === 'string') {
      if (secret) {
        this.remember(value);
        return REDACTED;
      }
      // The secrets met are replaced once, in the whole body (parsedJson).
      return /^(https?:)?\/\/|^\//.test(value) && value.includes('?') ? this.url(value) : this.scrub(value);
    }
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = this.json(inner, secret || this.isSecretName(key));
    return out;
  }

  /** multipart/form-data: the text of secret fields redacted, other parts as bodies of their own type. */
  private multipart(text: string, boundary: string | undefined): string {
    if (!boundary) return this.text(text);
    return text
      .split(`--${boundary}`)
      .map((part) => {
        const end = part.indexOf('\r\n\r\n');
        if (end < 0) return this.text(part);
        const head = part.slice(0, end);
        const body = part.slice(end + 4);
        const name = /name="([^"]*)"/i.exec(head)?.[1];
        const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1];
        const trailer = body.endsWith('\r\n') ? '\r\n' : '';
        const content = body.slice(0, body.length - trailer.length);
        if (name !== undefined && this.isSecretName(name)) {
          this.remember(content);
          return `${this.text(head)}\r\n\r\n${REDACTED}${trailer}`;
        }
        return `${this.text(head)}\r\n\r\n${this.body(content, type)}${trailer}`;
      })
      .join(`--${boundary}`);
  }

  /** An event stream: each data line as JSON when it is JSON, as free text otherwise. */
  private eventStream(text: string): string {
    return text
      .split('\n')
      .map((line) => {
        const data = /^data: ?/.exec(line);
        return data ? `${data[0]}${this.body(line.slice(data[0].length), 'application/json')}` : this.text(line);
      })
      .join('\n');
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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
