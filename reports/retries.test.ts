import { expect, test } from '@playwright/test';
import type { ConformanceReport, RecordedExchange } from './conformance-report.ts';
import { retriesLine, retriesOf } from './retries.ts';

function exchange(id: string, operation: string | undefined, attempt?: number, url = '/threads'): RecordedExchange {
  return {
    id,
    plane: 'agent-server',
    operation,
    request: { method: 'POST', url, headers: [] },
    response: { status: 200, headers: [] },
    violations: [],
    ...(attempt ? { attempt } : {}),
  };
}

test('retries are counted per endpoint, most first; a run without any has none', () => {
  expect(retriesOf([exchange('a-1', 'createThread'), exchange('a-2', 'getThread')])).toBeUndefined();
  const retries = retriesOf([
    exchange('a-1', 'createThread'),
    exchange('a-1.2', 'createThread', 2),
    exchange('a-2', 'getThread'),
    exchange('a-2.2', 'getThread', 2),
    exchange('a-2.3', 'getThread', 3),
    exchange('a-3.2', undefined, 2, '/nowhere?x=1'),
    { ...exchange('webhook:/h#1', undefined), delivery: true },
  ]);
  expect(retries).toEqual({ count: 4, of: 6, byEndpoint: { 'agent-server getThread': 2, 'agent-server POST /nowhere': 1, 'agent-server createThread': 1 } });
});

test('every format says how many requests were sent again, and that many is many', () => {
  const report = (count: number, of: number) =>
    ({ summary: { retries: { count, of, byEndpoint: { 'agent-server getThread': count } } } }) as unknown as ConformanceReport;
  expect(retriesLine(report(1, 1000))).toBe('1 of 1000 requests were sent again after a transient fault or a rate limit (0.1%): agent-server getThread 1.');
  expect(retriesLine(report(50, 1000))).toMatch(/^Many requests were sent again: the path to the target was unreliable\. 50 of 1000/);
  expect(retriesLine({ summary: {} } as ConformanceReport)).toBeUndefined();
});
