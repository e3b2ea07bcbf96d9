// The protocol's readers: the endpoint an exchange id names, an unreachable answer, the rule a tag names.
import { expect, test } from '@playwright/test';
import {
  endpointOfExchange,
  type Exchange,
  exchangeId,
  exchangeMark,
  inSentOrder,
  RULE_TAG,
  testExchangesUrl,
  unreachableExchange,
} from './evidence-protocol.ts';

test('a message names its exchange for its reader', () => {
  expect(exchangeMark('agent-server-12')).toBe('[exchange agent-server-12]');
});

test("an exchange is unreachable when the answer is the proxy's own for a target it could not reach", () => {
  const answered = (headers: [string, string][]) => ({ response: { status: 502, headers } }) as Exchange;
  expect(
    unreachableExchange(
      answered([
        ['content-type', 'application/json'],
        ['x-apc-unreachable', '1'],
      ]),
    ),
  ).toBe(true);
  expect(
    unreachableExchange(
      answered([
        ['content-type', 'application/json'],
        ['x-apc-fault', 'dropped'],
      ]),
    ),
  ).toBe(false);
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
