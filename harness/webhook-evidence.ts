// Webhook deliveries as evidence. Each request the run's receiver gets is an exchange from the
// target to the receiver (id webhook:<path>#<n>, the nth request to that path: the request as
// the target sent it, the answer the receiver gave), redacted with the run's redaction like every
// exchange through the proxies, and attributed to the test whose receiver path it reached
// (/apc-hooks/<test id>/…). Global teardown hands the run's deliveries to the reporter, which
// lists each under its test.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformancePlan } from './conformance-options.ts';
import type { Redaction } from './proxy/redact.ts';
import { answerOf, type ReceivedRequest } from './webhook-receiver.ts';
import type { Exchange } from '../specs/evidence-protocol.ts';

/** Where each test's receiver URLs begin: `/apc-hooks/<test id>`. */
const HOOKS_PREFIX = '/apc-hooks/';

/** Why a delivery has no answer: the receiver dropped it, as a test told it to. */
export const DROPPED_DELIVERY = 'The receiver closed the connection without answering, as the test told it to';

/** The receiver path of a test's webhook URLs. */
export function hooksPath(testId: string): string {
  return `${HOOKS_PREFIX}${testId}`;
}

/** The test whose receiver path a request reached, if any. */
export function testOfDelivery(path: string): string | undefined {
  return path.startsWith(HOOKS_PREFIX) ? path.slice(HOOKS_PREFIX.length).split('/')[0] || undefined : undefined;
}

/**
 * A request the receiver got, as an exchange: `base` is the receiver's URL as the target
 * addresses it (a tunnel's public URL, or the local one), so the HAR shows the URL it called.
 */
export function deliveryExchange(request: ReceivedRequest, base: string, redaction: Redaction, startedAt: number, endedAt = Date.now()): Exchange {
  // The URL and headers first: a secret they carry (a ?token=, a static header) is then known where the body repeats it.
  const url = redaction.url(request.url);
  const headers = Object.entries(request.headers).map(([name, value]): [string, string] => [name, redaction.header(name, value)]);
  const body = request.body === '' ? undefined : redaction.body(request.body, request.headers['content-type']);
  const answer = answerOf(request.answered);
  return {
    id: request.exchange,
    test: testOfDelivery(request.path),
    plane: 'agent-server',
    delivery: true,
    base: base.replace(/\/+$/, ''),
    startedDateTime: new Date(startedAt).toISOString(),
    time: endedAt - startedAt,
    request: { method: request.method, url, headers, body },
    response: answer ? { ...answer, contentType: 'application/json' } : { status: 0, headers: [] },
    violations: [],
    ...(answer ? {} : { error: DROPPED_DELIVERY }),
  };
}

const ID = /^webhook:(.*)#(\d+)$/;

/**
 * The order a test lists its deliveries in: by path, then as each path got them. Arrival order
 * over all paths is not the same from run to run (deliveries to different paths race); this is.
 */
export function deliveryOrder(a: Exchange, b: Exchange): number {
  const [, pathA, nthA] = ID.exec(a.id)!;
  const [, pathB, nthB] = ID.exec(b.id)!;
  return pathA < pathB ? -1 : pathA > pathB ? 1 : Number(nthA) - Number(nthB);
}

// Global teardown and the reporter run in Playwright's runner process, teardown first; the
// modules may be loaded apart, so the hand-over goes through the run's scratch folder, as
// harness/conformance-end.ts does.
const fileOf = (plan: ConformancePlan) => join(plan.scratch, 'deliveries.json');

/** Hands the run's deliveries to the reporter. */
export function recordDeliveries(plan: ConformancePlan, deliveries: Exchange[]): void {
  writeFileSync(fileOf(plan), JSON.stringify(deliveries));
}

/** The run's deliveries, in arrival order (none before teardown, or when the run had no receiver). */
export function runDeliveries(plan: ConformancePlan): Exchange[] {
  return existsSync(fileOf(plan)) ? (JSON.parse(readFileSync(fileOf(plan), 'utf8')) as Exchange[]) : [];
}
