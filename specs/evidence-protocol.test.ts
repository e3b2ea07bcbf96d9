// The protocol's readers: the exchange a failure message or an exchange id names, the rule a tag names.
import { expect, test } from '@playwright/test';
import { endpointOfExchange, type Exchange, exchangeId, exchangeMark, inSentOrder, markedExchange, RULE_TAG, testExchangesUrl } from './evidence-protocol.ts';

test('a message names its exchange, and the first mark is the one read back', () => {
  expect(exchangeMark('agent-server-12')).toBe('[exchange agent-server-12]');
  expect(markedExchange(`run_id: POST /threads/t/runs answered 200 {} ${exchangeMark('agent-server-12')}\n\nExpected: "x"`)).toBe('agent-server-12');
  expect(markedExchange(`payload.status ${exchangeMark('webhook:/apc-hooks/t/x#3')} quoting ${exchangeMark('agent-server-1')}`)).toBe(
    'webhook:/apc-hooks/t/x#3',
  );
});

test('a message naming no exchange, or none recorded, marks none', () => {
  expect(markedExchange(undefined)).toBeUndefined();
  expect(markedExchange('expected 200, got 500')).toBeUndefined();
  expect(markedExchange('GET /x answered 200 [exchange (not recorded)]')).toBeUndefined();
});

test('an exchange id names its endpoint, the longest that fits', () => {
  expect(endpointOfExchange('platform-api-eu-3')).toBe('platform-api-eu');
  expect(endpointOfExchange('platform-api-1a2b3c4d-3')).toBe('platform-api');
  expect(endpointOfExchange('my-proxy-3')).toBeUndefined();
});

test('a rule tag is @ and an upper-case id of two words or more; other tags name no rule', () => {
  expect(['@THREAD-GET', '@RATE-LIMIT-2', '@smoke', '@THREAD', 'THREAD-GET', '@THREAD-get'].map((tag) => RULE_TAG.exec(tag)?.[1])).toEqual([
    'THREAD-GET',
    'RATE-LIMIT-2',
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});

test("a test's exchange ids are its digest and its sequence, the same on any worker; without both the proxy counts", () => {
  const first = exchangeId('agent-server', 'test-a', '1', undefined);
  expect(first).toMatch(/^agent-server-[0-9a-f]{8}-1$/);
  expect(exchangeId('agent-server', 'test-a', '1', undefined)).toBe(first);
  expect(exchangeId('agent-server', 'test-b', '1', undefined)).not.toBe(first);
  expect(exchangeId('agent-server', 'test-a', '1', 2)).toBe(`${first}.2`);
  expect([exchangeId('agent-server', undefined, '1', undefined), exchangeId('agent-server', 'test-a', 'x', undefined)]).toEqual([undefined, undefined]);
  const ids = ['3', '1', '2'].map((sequence) => ({ id: exchangeId('agent-server', 'test-a', sequence, undefined)! }) as Exchange);
  expect(inSentOrder(ids).map((e) => e.id.at(-1))).toEqual(['1', '2', '3']);
  expect(testExchangesUrl('http://127.0.0.1:9', 'a b')).toBe('http://127.0.0.1:9/__apc/exchanges?test=a%20b');
});
