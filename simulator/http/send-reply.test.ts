import { expect, test } from '@playwright/test';
import { toResponse } from './send-reply.ts';

test('a JSON reply is application/json unless it says otherwise; a 204 or a reply without a body has none', async () => {
  const json = toResponse({ status: 201, body: { a: 1 } });
  expect([json.status, json.headers.get('content-type'), await json.text()]).toEqual([201, 'application/json', '{"a":1}']);
  expect(toResponse({ body: 'x', headers: { 'content-type': 'application/problem+json' } }).headers.get('content-type')).toBe('application/problem+json');
  expect(await toResponse({ status: 204, body: { ignored: true } }).text()).toBe('');
  expect(toResponse({ status: 202, headers: { location: '/x' } }).headers.get('location')).toBe('/x');
});

test('a stream reply is a body its handler writes into until it ends, which resolves its closed promise', async () => {
  let told = false;
  const stream = toResponse({
    headers: { 'content-type': 'text/event-stream' },
    stream: async (write, end, closed) => {
      write('event: a\n\n');
      void closed.then(() => {
        told = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 10));
      write('event: b\n\n');
      end();
    },
  });
  expect(await stream.text()).toBe('event: a\n\nevent: b\n\n');
  expect(told).toBe(true);
});
