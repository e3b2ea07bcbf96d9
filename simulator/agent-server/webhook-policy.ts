// Which webhook URLs a run or cron may name (§6 `webhooks.url`; LangSmith docs "Use webhooks", docs.langchain.com/langsmith/use-webhooks; langgraph-api webhook.py).
// Checked before a run or cron is created, so a refused URL creates nothing.
//
// Decisions where the spec is silent:
// - Without a `webhooks.url` section no URL is restricted (as the reference did before its
//   SSRF checks); only a URL that cannot be delivered at all is refused.
// - With it, `allowed_ports` defaults to the scheme's default port (443 for https, 80 for
//   http, §6 and §8), `max_url_length` to 4096 (the reference's default), `require_https`
//   and `disable_loopback` to false.
// - `disable_loopback` refuses relative URLs, the spec's "internal loopback calls"; absolute
//   URLs naming a loopback host are governed by `allowed_domains` like any other host.
// - A `*.<domain>` entry allows subdomains of <domain>, not <domain> itself (the reference).
// - The checks run in the reference's order, so the first broken setting is the one named.
import { hostMatches, type UrlPolicy } from '../../specs/url-policy.ts';
import { unprocessable } from '../http/errors.ts';

// WEBHOOK-CONFIG-MAX-URL-LENGTH-VALUE: the reference's default, the simulator's value.
export const DEFAULT_MAX_URL_LENGTH = 4096;
const DEFAULT_PORTS: Record<string, number> = { 'https:': 443, 'http:': 80 };

/** A relative URL is delivered to the server's own routes (the open-source agent server, langgraph-api webhook.py and http.py). */
export function isRelativeWebhook(url: string): boolean {
  return url.startsWith('/') && !url.startsWith('//');
}

/** Throws a 422 ApiError naming the broken setting when `url` may not be used as a webhook (WEBHOOK-CONFIG-VIOLATION-422). */
export function checkWebhookUrl(url: string, policy: UrlPolicy | undefined): void {
  const relative = isRelativeWebhook(url);
  const parsed = relative ? undefined : parseAbsolute(url);
  if (!policy) return;

  const maxLength = policy.max_url_length ?? DEFAULT_MAX_URL_LENGTH;
  // WEBHOOK-CONFIG-MAX-URL-LENGTH
  if (url.length > maxLength) {
    refuse(`Webhook URL too long: ${url.length} characters, more than the ${maxLength} that webhooks.url.max_url_length allows`);
  }
  // A relative URL is an internal loopback call (WEBHOOK-CONFIG-DISABLE-LOOPBACK).
  if (!parsed) {
    if (policy.disable_loopback)
      refuse(`Loopback webhooks are disabled: the relative webhook URL '${url}' is refused because webhooks.url.disable_loopback is true`);
    return;
  }
  // WEBHOOK-CONFIG-REQUIRE-HTTPS
  if (policy.require_https && parsed.protocol !== 'https:') {
    refuse(`Webhook must use https: '${parsed.origin}' is refused because webhooks.url.require_https is true`);
  }
  // WEBHOOK-CONFIG-ALLOWED-PORTS: the URL's port, 443 or 80 by default.
  const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
  const ports = policy.allowed_ports ?? [DEFAULT_PORTS[parsed.protocol]];
  if (!ports.includes(port)) {
    refuse(`Webhook port ${port} not allowed: webhooks.url.allowed_ports allows ${ports.join(', ')}`);
  }
  // WEBHOOK-CONFIG-ALLOWED-DOMAINS
  const domains = policy.allowed_domains ?? [];
  if (domains.length > 0 && !domains.some((pattern) => hostMatches(parsed.hostname, pattern))) {
    refuse(`Webhook domain not allowed: '${parsed.hostname}' is not in webhooks.url.allowed_domains (${domains.join(', ')})`);
  }
}

function parseAbsolute(url: string): URL {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !(parsed.protocol in DEFAULT_PORTS) || parsed.hostname === '') {
    refuse(`Invalid webhook URL '${url}': give an absolute http(s) URL, or a path starting with '/' for the server's own routes`);
  }
  return parsed;
}

function refuse(message: string): never {
  throw unprocessable(message, [{ loc: ['body', 'webhook'], msg: message, type: 'value_error' }]);
}
