// The mark a failure message names its exchange with, read back as the report does.
import { expect, test } from '@playwright/test';
import { exchangeMark, markedExchange } from './exchange-mark.ts';

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
