// How many of a run's requests its client sent again, per endpoint and per cause: after a
// network fault or a 503 (harness/retry.ts), or a rate limit's 429. Verdicts stand, but each
// cause says something else: network faults that the path to the target was unreliable, 503s
// that the target (or a gateway before it) was unavailable at times, 429s that the run's own
// requests met the target's rate limits. Every format says which.
import type { ConformanceReport, RecordedExchange } from './conformance-report.ts';

/**
 * What the attempt before a retry met: network (a reset, silence, a gateway's 502 or 504),
 * unavailable (a 503), rate-limit (a 429 to the run's own traffic, waited out as a client does),
 * unknown (that attempt is not among the report's exchanges).
 */
export type RetryCause = 'network' | 'unavailable' | 'rate-limit' | 'unknown';

export interface Retries {
  /** Requests sent again (each attempt after the first). */
  count: number;
  /** Requests of the report's exchanges in all, attempts included. */
  of: number;
  /** Per endpoint, `<plane> <operationId>` (or the method and path of an undocumented one), most first. */
  byEndpoint: Record<string, number>;
  /** Per cause, what the attempt before each retry met (absent from reports before format 1.5). */
  byCause?: Partial<Record<RetryCause, number>>;
}

/** Above this share of requests sent again for one cause, a run says it needed many. */
const MANY = 0.01;

/** The id of the attempt before `id`'s (`…-5.2` follows `…-5`, `…-5.3` follows `…-5.2`). */
function previousAttempt(id: string, attempt: number): string {
  return attempt === 2 ? id.replace(/\.2$/, '') : id.replace(/\.\d+$/, `.${attempt - 1}`);
}

/** What the attempt before a retry met, from its recorded exchange. */
function causeOf(before: RecordedExchange | undefined): RetryCause {
  if (!before) return 'unknown';
  if (before.response.status === 429) return 'rate-limit';
  // The recording proxy's own 502 and 504 carry an error (dropped, silent); a 503 without one is an answer.
  if (before.response.status === 503 && before.error === undefined) return 'unavailable';
  return 'network';
}

/** The retries among the exchanges, or none when no request was sent again. */
export function retriesOf(exchanges: RecordedExchange[]): Retries | undefined {
  const sent = exchanges.filter((e) => !e.delivery);
  const again = sent.filter((e) => e.attempt !== undefined);
  if (again.length === 0) return undefined;
  const byId = new Map(sent.map((e) => [e.id, e]));
  const counts = new Map<string, number>();
  const byCause: Partial<Record<RetryCause, number>> = {};
  for (const e of again) {
    const endpoint = `${e.plane} ${e.operation ?? `${e.request.method} ${e.request.url.split('?')[0]}`}`;
    counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
    const cause = causeOf(byId.get(previousAttempt(e.id, e.attempt!)));
    byCause[cause] = (byCause[cause] ?? 0) + 1;
  }
  const byEndpoint = Object.fromEntries([...counts].sort(([a, m], [b, n]) => n - m || a.localeCompare(b)));
  return { count: again.length, of: sent.length, byEndpoint, byCause };
}

/** Each cause as the line names it, and what many of them say. */
const CAUSES: Record<RetryCause, { after: string; many: string }> = {
  network: {
    after: "a network fault (a reset, silence, a gateway's 502 or 504)",
    many: 'Many requests were sent again after network faults: the path to the target was unreliable.',
  },
  unavailable: { after: 'a 503', many: 'Many requests met a 503: the target, or a gateway before it, was unavailable at times.' },
  'rate-limit': {
    after: "a 429 of the target's rate limits to the run's own requests (waited out, as a client does)",
    many: "Many of the run's own requests met the target's rate limits (429): fewer workers (--workers) send fewer at once.",
  },
  unknown: { after: 'a fault this report does not hold', many: '' },
};

/** One line for every format, or none when no request was sent again. */
export function retriesLine(report: ConformanceReport): string | undefined {
  const retries = report.summary.retries;
  if (!retries) return undefined;
  const of = Math.max(retries.of, 1);
  const endpoints = Object.entries(retries.byEndpoint)
    .slice(0, 5)
    .map(([endpoint, n]) => `${endpoint} ${n}`)
    .join(', ');
  const more = Object.keys(retries.byEndpoint).length > 5 ? ', …' : '';
  const pct = (n: number) => `${((n / of) * 100).toFixed(1)}%`;
  // A report of format 1.4 does not say why.
  if (!retries.byCause)
    return `${retries.count} of ${retries.of} requests were sent again after a transient fault or a rate limit (${pct(retries.count)}): ${endpoints}${more}.`;
  const causes = (Object.keys(CAUSES) as RetryCause[]).filter((cause) => retries.byCause?.[cause]);
  const many = causes.filter((cause) => retries.byCause![cause]! / of > MANY && CAUSES[cause].many).map((cause) => `${CAUSES[cause].many} `);
  const after = causes.map((cause) => `${retries.byCause![cause]} after ${CAUSES[cause].after}`).join(', ');
  return `${many.join('')}${retries.count} of ${retries.of} requests were sent again (${pct(retries.count)}): ${after}. By endpoint: ${endpoints}${more}.`;
}
