// Webhook deliveries as exchanges of the run: what the target sent and what the receiver
// answered, attributed to the test whose receiver path it reached, and redacted like every
// exchange through the proxies: a secret in the URL's query, in a static header or in the body
// never shows, nor anywhere the body repeats it.
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPlan } from './conformance-options.ts';
import { Redaction } from './proxy/redact.ts';
import { DROPPED_DELIVERY, deliveryExchange, deliveryOrder, hooksPath, recordDeliveries, runDeliveries, testOfDelivery } from './webhook-evidence.ts';
import { type ReceivedRequest, WebhookReceiver } from './webhook-receiver.ts';
import type { Exchange } from '../specs/evidence-protocol.ts';

/** Starts a receiver that records each request as the run does, sends `requests`, and answers the exchanges. */
async function delivered(requests: { path: string; headers?: Record<string, string>; body: string }[], redaction = new Redaction()): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  const receiver = await WebhookReceiver.start({
    onRequest: (request, startedAt) => exchanges.push(deliveryExchange(request, 'https://hooks.example.com/apc/', redaction, startedAt)),
  });
  try {
    receiver.failNext(1, 'close', '/dropped');
    for (const { path, headers, body } of requests) {
      await fetch(`${receiver.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).catch(() => undefined);
    }
  } finally {
    await receiver.close();
  }
  return exchanges;
}

test("a test's receiver path names the test; other paths name none", () => {
  expect(hooksPath('abc-123')).toBe('/apc-hooks/abc-123');
  expect(testOfDelivery('/apc-hooks/abc-123')).toBe('abc-123');
  expect(testOfDelivery('/apc-hooks/abc-123/retried')).toBe('abc-123');
  expect(testOfDelivery('/apc-discard/accepted')).toBeUndefined();
  expect(testOfDelivery('/apc-hooks/')).toBeUndefined();
});

test('a delivery is an exchange from the target to the receiver: the request as sent, the answer as given', async () => {
  const [ok, dropped, elsewhere] = await delivered([
    { path: `${hooksPath('t1')}/trigger?step=1`, headers: { 'x-apc-conformance': 'static-header' }, body: '{"run_id":"r1"}' },
    { path: '/dropped', body: '{}' },
    { path: '/apc-discard/x', body: '' },
  ]);
  expect(ok).toMatchObject({
    id: 'webhook:/apc-hooks/t1/trigger#1',
    test: 't1',
    plane: 'agent-server',
    delivery: true,
    base: 'https://hooks.example.com/apc',
    request: { method: 'POST', url: '/apc-hooks/t1/trigger?step=1', body: '{"run_id":"r1"}' },
    response: { status: 200, headers: [['content-type', 'application/json']], body: '{"received":true}', contentType: 'application/json' },
    violations: [],
  });
  expect(ok.request.headers).toContainEqual(['x-apc-conformance', 'static-header']);
  expect(ok.error).toBeUndefined();
  expect(Date.parse(ok.startedDateTime)).not.toBeNaN();
  expect(dropped).toMatchObject({ id: 'webhook:/dropped#1', response: { status: 0, headers: [] }, error: DROPPED_DELIVERY });
  expect(dropped.test).toBeUndefined();
  expect(elsewhere).toMatchObject({ id: 'webhook:/apc-discard/x#1', request: { url: '/apc-discard/x' } });
  expect(elsewhere.test).toBeUndefined();
  expect(elsewhere.request.body).toBeUndefined();
});

const ALNUM = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];
const core = fc.string({ unit: fc.constantFrom(...ALNUM), minLength: 24, maxLength: 32 });

test('a delivery is redacted like every exchange: secret query values, secret headers, secret fields, and each again wherever the body repeats it', async () => {
  await fc.assert(
    fc.asyncProperty(
      core,
      core,
      core,
      fc.constantFrom('token', 'api_key', 'webhook_token', 'signature'),
      fc.constantFrom('authorization', 'x-webhook-secret', 'x-api-key', 'x-tenant-auth'),
      async (inQuery, inHeader, inField, queryName, headerName) => {
        // The run's redaction: what the target config adds (`redact`) included.
        const redaction = new Redaction({ names: ['X-Tenant-Auth'] });
        const [exchange] = await delivered(
          [
            {
              path: `${hooksPath('t')}/secret?${queryName}=${inQuery}&step=1`,
              headers: { [headerName]: headerName === 'authorization' ? `Bearer ${inHeader}` : inHeader },
              // A payload may quote the URL it was sent to, a header and a secret field of the run's kwargs.
              body: JSON.stringify({ kwargs: { webhook: `https://h/x?${queryName}=${inQuery}`, note: `sent with ${inHeader}`, client_secret: inField } }),
            },
          ],
          redaction,
        );
        const recorded = JSON.stringify(exchange);
        for (const secret of [inQuery, inHeader, inField]) expect(recorded).not.toContain(secret);
        expect(exchange.request.url).toBe(`/apc-hooks/t/secret?${queryName}=REDACTED&step=1`);
      },
    ),
    { numRuns: 15 },
  );
});

const received = (seq: number, exchange: string) =>
  ({ seq, exchange, method: 'POST', url: '/', path: '/', query: {}, headers: {}, body: '', json: undefined, answered: 200 }) as ReceivedRequest;

test('global teardown hands the deliveries to the reporter, which orders them by path, then as each path got them', () => {
  const arrived = ['webhook:/h/t/b#1', 'webhook:/h/t/a#1', 'webhook:/h/t/b#2', 'webhook:/h/t/a#2', 'webhook:/h/t/a#10'];
  const plan = defaultPlan(mkdtempSync(join(tmpdir(), 'apc-deliveries-')));
  expect(runDeliveries(plan)).toEqual([]);
  recordDeliveries(
    plan,
    arrived.map((id, i) => deliveryExchange(received(i + 1, id), 'http://r', new Redaction(), 0, 0)),
  );
  expect(runDeliveries(plan).map((d) => d.id)).toEqual(arrived);
  expect([...runDeliveries(plan)].sort(deliveryOrder).map((d) => d.id)).toEqual([
    'webhook:/h/t/a#1',
    'webhook:/h/t/a#2',
    'webhook:/h/t/a#10',
    'webhook:/h/t/b#1',
    'webhook:/h/t/b#2',
  ]);
});
