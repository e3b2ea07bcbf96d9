import { expect, test } from '@playwright/test';
import { contract } from '../specs/contract.ts';
import { type Attempt, MAX_ATTEMPTS, nextStep, RETRY_BUDGET_MS, requestKind } from './retry.ts';

const ok: Attempt = { kind: 'answer', status: 200 };
const unavailable: Attempt = { kind: 'answer', status: 503, retryAfter: '1' };
const dropped: Attempt = { kind: 'answer', status: 502, fault: 'dropped' };
const badGateway: Attempt = { kind: 'answer', status: 502 };
const broken: Attempt = { kind: 'broken', message: 'other side closed' };

test('an answer that is no fault is judged at once', () => {
  expect(nextStep('create', [ok], 0)).toEqual({ do: 'judge' });
  expect(nextStep('create', [{ kind: 'answer', status: 500 }], 0)).toEqual({ do: 'judge' });
  expect(nextStep('idempotent', [{ kind: 'answer', status: 404 }], 0)).toEqual({ do: 'judge' });
});

test('a request with no effect is sent again after any fault, waiting what a gateway asks or backing off', () => {
  expect(nextStep('no-effect', [unavailable], 0)).toEqual({ do: 'retry', waitMs: 1000 });
  expect(nextStep('no-effect', [dropped], 0)).toEqual({ do: 'retry', waitMs: 250 });
  expect(nextStep('no-effect', [dropped, badGateway], 0)).toEqual({ do: 'retry', waitMs: 500 });
  expect(nextStep('no-effect', [broken, dropped, broken], 0)).toEqual({ do: 'retry', waitMs: 1000 });
  expect(nextStep('no-effect', [{ kind: 'answer', status: 503, retryAfter: '5' }], 0)).toEqual({ do: 'retry', waitMs: 5000 });
  expect(nextStep('no-effect', [dropped, ok], 300)).toEqual({ do: 'judge' });
});

test('a create is sent again only after a 503, which says the request was not handled', () => {
  expect(nextStep('create', [unavailable], 0)).toEqual({ do: 'retry', waitMs: 1000 });
  expect(nextStep('create', [unavailable, ok], 1000)).toEqual({ do: 'judge' });
  for (const fault of [dropped, badGateway, broken, { kind: 'answer', status: 504, fault: 'silent' } as Attempt]) {
    const step = nextStep('create', [fault], 0);
    expect(step.do, JSON.stringify(fault)).toBe('give-up');
  }
  expect(nextStep('create', [dropped], 0)).toEqual({
    do: 'give-up',
    why: 'it met a connection dropped without an answer and is not sent again: a create that may have reached the target could be made twice',
  });
});

test('a request the target counts is sent again only after a 503, which it did not count', () => {
  expect(nextStep('counted', [unavailable], 0)).toEqual({ do: 'retry', waitMs: 1000 });
  expect(nextStep('counted', [dropped], 0).do).toBe('give-up');
});

test('a request judged by when its answer comes is never sent again', () => {
  expect(nextStep('timed', [unavailable], 0).do).toBe('give-up');
  expect(nextStep('timed', [{ kind: 'answer', status: 409 }], 0)).toEqual({ do: 'judge' });
});

test('a 4xx after a fault that may have landed is not judged for a write, but is for a request with no effect', () => {
  const notFound: Attempt = { kind: 'answer', status: 404 };
  expect(nextStep('idempotent', [dropped, notFound], 300).do).toBe('give-up');
  expect(nextStep('idempotent', [unavailable, notFound], 1000)).toEqual({ do: 'judge' });
  expect(nextStep('idempotent', [dropped, ok], 300)).toEqual({ do: 'judge' });
  expect(nextStep('no-effect', [dropped, notFound], 300)).toEqual({ do: 'judge' });
  // A method not allowed, or a key refused, is what the first send met too.
  expect(nextStep('idempotent', [dropped, { kind: 'answer', status: 405 }], 300)).toEqual({ do: 'judge' });
  expect(nextStep('create', [unavailable, { kind: 'answer', status: 401 }], 300)).toEqual({ do: 'judge' });
});

test('the same fault on every attempt is the answer, judged; faults that differ are not judged', () => {
  const same = Array.from({ length: MAX_ATTEMPTS }, () => badGateway);
  expect(nextStep('no-effect', same, 2000)).toEqual({ do: 'judge' });
  expect(
    nextStep(
      'no-effect',
      Array.from({ length: MAX_ATTEMPTS }, () => dropped),
      2000,
    ),
  ).toEqual({ do: 'judge' });
  const mixed = [dropped, unavailable, badGateway, dropped];
  expect(nextStep('no-effect', mixed, 3000)).toEqual({
    do: 'give-up',
    why: 'it met transient faults on all 4 attempts: a connection dropped without an answer, 503, 502, a connection dropped without an answer',
  });
});

test('a Retry-After that asks for longer than a blip lasts leaves the answer standing', () => {
  expect(nextStep('no-effect', [{ kind: 'answer', status: 503, retryAfter: '3600' }], 0)).toEqual({ do: 'judge' });
});

test('no attempt is made past the budget of one request', () => {
  expect(nextStep('no-effect', [dropped], RETRY_BUDGET_MS - 100).do).toBe('judge');
  expect(nextStep('no-effect', [unavailable, dropped], RETRY_BUDGET_MS - 100).do).toBe('give-up');
});

test('the contract says which requests change nothing, which may be sent twice and which create', () => {
  const op = (id: string) => contract().operation('agent-server', id);
  expect(requestKind('GET', op('getThread'), undefined)).toBe('no-effect');
  expect(requestKind('POST', op('searchThreads'), { json: {} })).toBe('no-effect');
  expect(requestKind('DELETE', op('deleteThread'), undefined)).toBe('idempotent');
  expect(requestKind('POST', op('createThread'), { json: {} })).toBe('create');
  // Named by the client, a second send cannot make a second one; the same fields set twice are set once.
  expect(requestKind('POST', op('createThread'), { json: { thread_id: '00000000-0000-4000-8000-000000000000' } })).toBe('idempotent');
  expect(requestKind('PATCH', contract().operation('platform-api', 'updateRun'), { json: { outputs: {} } })).toBe('idempotent');
  expect(requestKind('POST', op('createRun'), { json: { assistant_id: 'agent' } })).toBe('create');
  expect(requestKind('POST', undefined, { json: {} })).toBe('create');
  // A create the contract refuses creates nothing on a conforming target.
  expect(requestKind('POST', op('createThread'), 'unparsed')).toBe('no-effect');
  expect(requestKind('POST', op('createThread'), { json: { metadata: 'not an object' } })).toBe('no-effect');
});
