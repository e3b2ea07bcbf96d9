import { expect, test } from '@playwright/test';
import type { ConformanceReport, RecordedExchange } from './conformance-report.ts';
import { type Retries, retriesLine, retriesOf } from './retries.ts';

function exchange(id: string, operation: string | undefined, attempt?: number, url = '/threads', status = 200, error?: string): RecordedExchange {
  return {
    id,
    plane: 'agent-server',
    operation,
    request: { method: 'POST', url, headers: [] },
    response: { status, headers: [] },
    violations: [],
    ...(attempt ? { attempt } : {}),
    ...(error ? { error } : {}),
  };
}

test('retries are counted per endpoint, most first, and per cause; a run without any has none', () => {
  expect(retriesOf([exchange('a-1', 'createThread'), exchange('a-2', 'getThread')])).toBeUndefined();
  const retries = retriesOf([
    exchange('a-1', 'createThread', undefined, '/threads', 503),
    exchange('a-1.2', 'createThread', 2),
    exchange('a-2', 'getThread', undefined, '/threads', 429),
    exchange('a-2.2', 'getThread', 2, '/threads', 502, 'The target closed the connection without answering'),
    exchange('a-2.3', 'getThread', 3),
    exchange('a-3.2', undefined, 2, '/nowhere?x=1'),
    { ...exchange('webhook:/h#1', undefined), delivery: true },
  ]);
  expect(retries).toEqual({
    count: 4,
    of: 6,
    byEndpoint: { 'agent-server getThread': 2, 'agent-server POST /nowhere': 1, 'agent-server createThread': 1 },
    byCause: { unavailable: 1, 'rate-limit': 1, network: 1, unknown: 1 },
  });
});

/** A report whose requests were sent again `byCause`, `of` requests in all. */
const report = (of: number, byCause: Retries['byCause']) => {
  const count = Object.values(byCause ?? {}).reduce((a, b) => a + b, 0);
  return { summary: { retries: { count, of, byEndpoint: { 'agent-server getThread': count }, byCause } } } as unknown as ConformanceReport;
};

test('every format says how many requests were sent again, after what, and that many is many', () => {
  expect(retriesLine(report(1000, { network: 1 }))).toBe(
    "1 of 1000 requests were sent again (0.1%): 1 after a network fault (a reset, silence, a gateway's 502 or 504). By endpoint: agent-server getThread 1.",
  );
  expect(retriesLine(report(1000, { network: 50 }))).toMatch(
    /^Many requests were sent again after network faults: the path to the target was unreliable\. 50 of 1000/,
  );
  expect(retriesLine(report(1000, { unavailable: 20, network: 2 }))).toMatch(
    /^Many requests met a 503: the target, or a gateway before it, was unavailable at times\. 22 of 1000 requests were sent again \(2\.2%\): 2 after a network fault .*, 20 after a 503\./,
  );
  expect(retriesLine({ summary: {} } as ConformanceReport)).toBeUndefined();
  // A report of format 1.4 has no causes: the line does not guess them.
  const old = { summary: { retries: { count: 1, of: 10, byEndpoint: { 'agent-server getThread': 1 } } } } as unknown as ConformanceReport;
  expect(retriesLine(old)).toBe('1 of 10 requests were sent again after a transient fault or a rate limit (10.0%): agent-server getThread 1.');
});

test("429s to the run's own requests are rate limits, never an unreliable path", () => {
  // The loopback run of the issue: 33 of 2420 requests sent again, every first attempt a 429.
  const line = retriesLine(report(2420, { 'rate-limit': 33 }))!;
  expect(line).not.toMatch(/unreliable|network fault/);
  expect(line).toBe(
    "Many of the run's own requests met the target's rate limits (429): fewer workers (--workers) send fewer at once. 33 of 2420 requests were sent again (1.4%): 33 after a 429 of the target's rate limits to the run's own requests (waited out, as a client does). By endpoint: agent-server getThread 33.",
  );
});
