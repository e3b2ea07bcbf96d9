// The `webhooks.url` policy of a deployment configuration (§6) as the contract states it: its
// settings (the UrlPolicy schema of specs/openapi/simulator-admin.yaml, as /__sim/info publishes
// them) and how an `allowed_domains` entry matches a host. The simulator enforces the policy and
// the suites build URLs against it, both from this one statement.
export type { UrlPolicy } from './types/simulator-admin.ts';

/** An exact host, or `*.<domain>` for any subdomain of <domain> (not <domain> itself); case does not matter. */
export function hostMatches(host: string, pattern: string): boolean {
  const h = host.toLowerCase();
  const p = pattern.toLowerCase();
  return p.startsWith('*.') ? h.endsWith(p.slice(1)) && h.length > p.length - 1 : h === p;
}
