// How many of a run's requests its client sent again, per endpoint: after a transient fault
// (harness/retry.ts) or a rate limit's 429. Verdicts stand, but a run that needed many retries
// was made over an unreliable path to the target, and every format says so.
import type { ConformanceReport, RecordedExchange } from './conformance-report.ts';

export interface Retries {
  /** Requests sent again (each attempt after the first). */
  count: number;
  /** Requests of the report's exchanges in all, attempts included. */
  of: number;
  /** Per endpoint, `<plane> <operationId>` (or the method and path of an undocumented one), most first. */
  byEndpoint: Record<string, number>;
}

/** Above this share of requests sent again, a run says it needed many. */
const MANY = 0.01;

/** The retries among the exchanges, or none when no request was sent again. */
export function retriesOf(exchanges: RecordedExchange[]): Retries | undefined {
  const sent = exchanges.filter((e) => !e.delivery);
  const again = sent.filter((e) => e.attempt !== undefined);
  if (again.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const e of again) {
    const endpoint = `${e.plane} ${e.operation ?? `${e.request.method} ${e.request.url.split('?')[0]}`}`;
    counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
  }
  const byEndpoint = Object.fromEntries([...counts].sort(([a, m], [b, n]) => n - m || a.localeCompare(b)));
  return { count: again.length, of: sent.length, byEndpoint };
}

/** One line for every format, or none when no request was sent again. */
export function retriesLine(report: ConformanceReport): string | undefined {
  const retries = report.summary.retries;
  if (!retries) return undefined;
  const share = retries.count / Math.max(retries.of, 1);
  const endpoints = Object.entries(retries.byEndpoint)
    .slice(0, 5)
    .map(([endpoint, n]) => `${endpoint} ${n}`)
    .join(', ');
  const more = Object.keys(retries.byEndpoint).length > 5 ? ', …' : '';
  const many = share > MANY ? 'Many requests were sent again: the path to the target was unreliable. ' : '';
  return `${many}${retries.count} of ${retries.of} requests were sent again after a transient fault or a rate limit (${(share * 100).toFixed(1)}%): ${endpoints}${more}.`;
}
