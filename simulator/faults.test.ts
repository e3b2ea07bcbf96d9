// The fault rules alone (no HTTP): a count is used up one request at a time, a window ends on
// the simulator's clock, selectors (endpoint, method, path pattern, operation) all have to
// match, the first fault set wins, and faults that cannot mean anything are refused with a reason.
import { expect, test } from '@playwright/test';
import { VirtualClock } from './clock.ts';
import { faultProblem, Faults, type Fault, type FaultedRequest } from './faults.ts';

const createThread: FaultedRequest = { endpoint: 'agent-server', method: 'POST', path: '/threads', operation: 'createThread' };

function faults(...set: Fault[]): { faults: Faults; clock: VirtualClock } {
  const clock = new VirtualClock();
  const faults = new Faults(clock);
  for (const fault of set) expect(faults.add(fault)).toBeUndefined();
  return { faults, clock };
}

test('the smallest form fails the next two matching requests, then requests pass', () => {
  const { faults: f } = faults({ method: 'POST', path: '/threads', status: 503, count: 2 });
  expect(f.list()).toEqual([{ fault: { method: 'POST', path: '/threads', status: 503, count: 2 }, remaining: 2 }]);
  expect(f.take({ ...createThread, method: 'GET', operation: 'searchThreads' })).toBeUndefined();
  expect(f.take(createThread)).toMatchObject({ status: 503 });
  expect(f.list()[0].remaining).toBe(1);
  expect(f.take(createThread)).toMatchObject({ status: 503 });
  expect(f.take(createThread)).toBeUndefined();
  expect(f.list()).toEqual([]);
});

test('a window ends when the clock reaches it; with a count too, whichever ends first', () => {
  const { faults: f, clock } = faults({ operation: 'createThread', status: 500, for_ms: 1000 }, { path: '/threads', latency_ms: 5, count: 1, for_ms: 5000 });
  expect(f.list()[0]).toMatchObject({ until: '2026-01-01T00:00:01.000Z' });
  expect(f.take(createThread)).toMatchObject({ status: 500 });
  expect(f.take(createThread)).toMatchObject({ status: 500 });
  clock.advance(1000);
  expect(f.take(createThread)).toMatchObject({ latency_ms: 5 });
  expect(f.take(createThread)).toBeUndefined();
});

test('without a count or a window a fault stays until cleared', () => {
  const { faults: f } = faults({ reset: true });
  for (let i = 0; i < 5; i++) expect(f.take(createThread)).toMatchObject({ reset: true });
  f.clear();
  expect(f.take(createThread)).toBeUndefined();
});

test('every selector given must match: endpoint, method in any case, path pattern, operation', () => {
  const { faults: f } = faults(
    { endpoint: 'platform-api-eu', status: 502 },
    { method: 'get', path: '/threads/{thread_id}/state', status: 503 },
    { path: '/runs/*', status: 504 },
    { path: '/repos/**', status: 500 },
  );
  expect(f.take({ endpoint: 'platform-api', method: 'GET', path: '/datasets' })).toBeUndefined();
  expect(f.take({ endpoint: 'platform-api-eu', method: 'GET', path: '/datasets' })).toMatchObject({ status: 502 });
  expect(f.take({ endpoint: 'agent-server', method: 'GET', path: '/threads/abc/state' })).toMatchObject({ status: 503 });
  expect(f.take({ endpoint: 'agent-server', method: 'POST', path: '/threads/abc/state' })).toBeUndefined();
  expect(f.take({ endpoint: 'agent-server', method: 'GET', path: '/threads/abc/history' })).toBeUndefined();
  expect(f.take({ endpoint: 'platform-api', method: 'PATCH', path: '/runs/r1' })).toMatchObject({ status: 504 });
  expect(f.take({ endpoint: 'platform-api', method: 'GET', path: '/runs/r1/share' })).toBeUndefined();
  expect(f.take({ endpoint: 'control-plane', method: 'GET', path: '/repos' })).toMatchObject({ status: 500 });
  expect(f.take({ endpoint: 'control-plane', method: 'GET', path: '/repos/a/b' })).toMatchObject({ status: 500 });
  const { faults: byOperation } = faults({ operation: 'createThread', status: 503 });
  expect(byOperation.take({ ...createThread, operation: undefined })).toBeUndefined();
  expect(byOperation.take(createThread)).toMatchObject({ status: 503 });
});

test('the first fault set that matches takes the request, and only its count goes down', () => {
  const { faults: f } = faults({ path: '/threads', status: 429, retry_after: 1, count: 1 }, { path: '/threads', status: 503, count: 1 });
  expect(f.take(createThread)).toEqual({ status: 429, retry_after: 1, setBy: 'POST /__sim/faults' });
  expect(f.list().map((a) => a.remaining)).toEqual([1]);
  expect(f.take(createThread)).toMatchObject({ status: 503 });
});

test('a fault without an effect, with two ways of failing, retry_after alone or an unknown operation is refused and not set', () => {
  expect(faultProblem({ path: '/threads', count: 1 })).toMatch(/needs an effect/);
  expect(faultProblem({ reset: false })).toMatch(/needs an effect/);
  expect(faultProblem({ status: 503, reset: true })).toMatch(/status and reset cannot be combined/);
  expect(faultProblem({ truncate: true, reset: true })).toMatch(/reset and truncate cannot be combined/);
  expect(faultProblem({ latency_ms: 10, retry_after: 1 })).toMatch(/retry_after is sent with a status/);
  expect(faultProblem({ operation: 'makeCoffee', status: 503 })).toMatch(/no operation 'makeCoffee'/);
  expect(faultProblem({ latency_ms: 10, status: 503, retry_after: 2 })).toBeUndefined();
  const { faults: f } = faults();
  expect(f.add({ status: 503, truncate: true })).toMatch(/cannot be combined/);
  expect(f.list()).toEqual([]);
});
