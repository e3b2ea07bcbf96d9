// The run's floor replays what the proxies wrote: entries written by harness/proxy/har.ts are aimed
// at the fresh simulator's endpoint of the same name, with working credentials in place of the
// redacted ones; deliveries and unknown bases are left out and counted; the replay keeps the order.
import { expect, test } from '@playwright/test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toHar } from '../harness/proxy/har.ts';
import { type HarEntry, replay, replayScript } from './har-replay.ts';
import type { Exchange } from '../specs/evidence-protocol.ts';

const US_BETA = '25db5074-4b1a-4161-a386-89c1d5b17fbe';
const fresh = {
  planes: {
    'agent-server': 'http://127.0.0.1:9000',
    'control-plane': 'http://127.0.0.1:9001',
    'platform-api': 'http://127.0.0.1:9002',
    'platform-api-eu': 'http://127.0.0.1:9003',
  },
  credentials: {
    organization: { id: 'org', name: 'org' },
    workspaces: [],
    api_keys: [
      { key: 'us-primary', role: 'primary', workspaces: ['alpha'], default_workspace: 'alpha', region: 'us' },
      { key: 'us-beta', role: 'second-workspace', workspaces: [US_BETA], default_workspace: US_BETA, region: 'us' },
      { key: 'eu-primary', role: 'eu-primary', workspaces: ['eu'], default_workspace: 'eu', region: 'eu' },
    ],
    bearer_tokens: [{ token: 'bearer-token', role: 'primary', workspaces: ['alpha'], default_workspace: 'alpha', region: 'us' }],
  },
} as unknown as Parameters<typeof replayScript>[1];

function exchange(id: string, base: string, url: string, headers: [string, string][], extra: Partial<Exchange> = {}): Exchange {
  return {
    id,
    plane: 'platform-api',
    base,
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 1,
    request: { method: 'GET', url, headers },
    response: { status: 200, headers: [] },
    violations: [],
    ...extra,
  };
}

const entries = (exchanges: Exchange[]) => toHar(exchanges).log.entries as unknown as HarEntry[];

test('each recorded request goes to the fresh endpoint of its name, credentials restored, transport headers dropped', () => {
  const script = replayScript(
    entries([
      exchange('platform-api-7', 'http://127.0.0.1:5002', '/runs/query?limit=2', [
        ['host', '127.0.0.1:4000'],
        ['content-length', '2'],
        ['x-api-key', 'REDACTED'],
      ]),
      exchange('platform-api-eu-1', 'http://127.0.0.1:5003', '/info', [['x-api-key', 'REDACTED']]),
      exchange('platform-api-8', 'http://127.0.0.1:5002', '/sessions', [
        ['x-api-key', 'REDACTED'],
        ['x-tenant-id', US_BETA],
      ]),
      exchange('control-plane-2', 'http://127.0.0.1:5001', '/v1/integrations/sourcehost/install', [['authorization', 'Bearer REDACTED']]),
      exchange('agent-server-3', 'http://127.0.0.1:5000', '/threads', [['content-type', 'application/json']], {
        plane: 'agent-server',
        request: { method: 'POST', url: '/threads', headers: [['content-type', 'application/json']], body: '{}' },
        response: { status: 409, headers: [] },
      }),
    ]),
    fresh,
  );
  expect(script.requests).toEqual([
    { method: 'GET', url: 'http://127.0.0.1:9002/runs/query?limit=2', headers: { 'x-api-key': 'us-primary' }, recordedStatus: 200 },
    { method: 'GET', url: 'http://127.0.0.1:9003/info', headers: { 'x-api-key': 'eu-primary' }, recordedStatus: 200 },
    { method: 'GET', url: 'http://127.0.0.1:9002/sessions', headers: { 'x-api-key': 'us-beta', 'x-tenant-id': US_BETA }, recordedStatus: 200 },
    {
      method: 'GET',
      url: 'http://127.0.0.1:9001/v1/integrations/sourcehost/install',
      headers: { authorization: 'Bearer bearer-token' },
      recordedStatus: 200,
    },
    { method: 'POST', url: 'http://127.0.0.1:9000/threads', headers: { 'content-type': 'application/json' }, body: '{}', recordedStatus: 409 },
  ]);
  expect(script).toMatchObject({ deliveries: 0, elsewhere: 0 });
});

test('webhook deliveries and requests to a base the fresh simulator lacks are left out and counted', () => {
  const script = replayScript(
    entries([
      exchange('webhook:/apc-hooks/a/b#1', 'http://receiver.apc.test', '/apc-hooks/a/b', [], { plane: 'agent-server', delivery: true }),
      exchange('deployment-4', 'http://127.0.0.1:5009', '/threads', []),
      exchange('agent-server-1', 'http://127.0.0.1:5000', '/ok', []),
    ]),
    fresh,
  );
  expect(script.requests.map((r) => r.url)).toEqual(['http://127.0.0.1:9000/ok']);
  expect(script).toMatchObject({ deliveries: 1, elsewhere: 1 });
});

test('the replay sends one request at a time in recorded order and counts answers with the recorded status', async () => {
  const seen: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    seen.push(`${req.method} ${req.url}`);
    setTimeout(() => {
      inFlight--;
      res.writeHead(req.url === '/missing' ? 404 : 200).end('x'.repeat(200_000));
    }, 5);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const result = await replay([
      { method: 'GET', url: `${base}/a`, headers: {}, recordedStatus: 200 },
      { method: 'POST', url: `${base}/b`, headers: { 'content-type': 'application/json' }, body: '{}', recordedStatus: 201 },
      { method: 'GET', url: `${base}/missing`, headers: {}, recordedStatus: 404 },
    ]);
    expect(seen).toEqual(['GET /a', 'POST /b', 'GET /missing']);
    expect(mostInFlight).toBe(1);
    expect(result).toMatchObject({ sameStatus: 2, timedOut: 0 });
    expect(result.seconds).toBeGreaterThan(0);
  } finally {
    server.close();
  }
});
