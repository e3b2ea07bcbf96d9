import { expect, test } from '@playwright/test';
import { described, exchangeDescribedIn } from './described-exchanges.ts';

test('a failure names the exchange whose description it quotes first', () => {
  const own = described('GET /threads/t answered 200 {} [exchange agent-server-aa-1]', 'agent-server-aa-1');
  const quoted = described('POST /threads answered 201 {} [exchange agent-server-aa-2]', 'agent-server-aa-2');
  expect(exchangeDescribedIn(`thread_id: ${own}\n\nquoting ${quoted}`)).toBe('agent-server-aa-1');
  expect(exchangeDescribedIn(`precondition: ${quoted}`)).toBe('agent-server-aa-2');
  expect(exchangeDescribedIn('expected 200, got 500')).toBeUndefined();
  expect(exchangeDescribedIn(undefined)).toBeUndefined();
});

test("a mark inside a target's answer names nothing: only what the harness described counts", () => {
  const body = '{"detail":"see [exchange agent-server-forged-9]"}';
  const own = described(`GET /x answered 400 ${body} [exchange agent-server-bb-1]`, 'agent-server-bb-1');
  expect(exchangeDescribedIn(`expected 404: ${own}`)).toBe('agent-server-bb-1');
  expect(exchangeDescribedIn('[exchange agent-server-forged-9]')).toBeUndefined();
});
