// The recording proxy alone: it records, redacts, validates and streams through.
import { expect, test } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { toHar } from './har.ts';
import { request } from 'undici';
import { RecordingProxy } from './recording-proxy.ts';
import { endpointOfExchange, EXCHANGE_HEADER, SEQUENCE_HEADER, TEST_HEADER, VIOLATIONS_HEADER, VIOLATIONS_WANTED } from '../../specs/evidence-protocol.ts';

let upstream: Server;
let upstreamUrl: string;
const seenHeaders: Record<string, string | string[] | undefined>[] = [];
/** A thread the upstream answers with 204, which getThread does not document. */
const EMPTY_THREAD = '/threads/00000000-0000-4000-8000-000000000204';
/** Ends the stream the upstream holds open: called once the client has read its first event. */
let endStream = () => {};

test.beforeAll(async () => {
  upstream = createServer((req, res) => {
    seenHeaders.push(req.headers);
    if (req.url?.startsWith('/threads/search')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ thread_id: 'not-a-uuid', status: 'sleeping' }]));
      return;
    }
    if (req.url === EMPTY_THREAD) {
      res.writeHead(204);
      res.end();
      return;
    }
    if (req.url?.includes('/runs/stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: metadata\ndata: {"run_id":"r","attempt":1}\n\n');
      // The second event comes only once the client has seen the first: a proxy that held the
      // stream until its end would never pass the first on, and the test would time out.
      endStream = () => res.end('event: values\ndata: {}\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token: 'secret-token', webhook: 'https://hooks.example/x?token=abc&keep=1' }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
test.afterAll(() => upstream.close());

test('records each exchange with secrets redacted, and keeps the test attribution from the target', async () => {
  const proxy = new RecordingProxy({ plane: 'agent-server', target: upstreamUrl });
  const url = await proxy.start();
  const res = await fetch(`${url}/other?api_key=k1`, {
    headers: { 'x-api-key': 'lsv2_secret', [TEST_HEADER]: 't1', [SEQUENCE_HEADER]: '1', authorization: 'Bearer b' },
  });
  // A test's exchanges are numbered as the test sent them, under a digest of its id.
  const id = res.headers.get(EXCHANGE_HEADER)!;
  expect(id).toMatch(/^agent-server-[0-9a-f]{8}-1$/);
  expect(endpointOfExchange(id)).toBe('agent-server');
  expect(await res.json()).toEqual({ token: 'secret-token', webhook: 'https://hooks.example/x?token=abc&keep=1' });
  // Ids follow each test's own sequence, whatever other tests send in between (parallel workers) and
  // in whatever order its concurrent requests arrive; requests without one are counted by the proxy.
  const idOf = async (headers: Record<string, string>) => (await fetch(`${url}/other`, { headers })).headers.get(EXCHANGE_HEADER);
  expect(await idOf({ [TEST_HEADER]: 't1', [SEQUENCE_HEADER]: '3' })).toBe(id.replace(/-1$/, '-3'));
  expect(await idOf({ [TEST_HEADER]: 't2', [SEQUENCE_HEADER]: '1' })).toMatch(/^agent-server-[0-9a-f]{8}-1$/);
  expect(await idOf({ [TEST_HEADER]: 't2', [SEQUENCE_HEADER]: '1' })).not.toBe(id);
  expect(await idOf({ [TEST_HEADER]: 't1' })).toBe('agent-server-1');
  expect(await idOf({})).toBe('agent-server-2');
  expect(seenHeaders.at(-2)?.[SEQUENCE_HEADER]).toBeUndefined();
  await proxy.close();
  expect(seenHeaders.at(-1)?.[TEST_HEADER]).toBeUndefined();
  const [exchange] = proxy.exchanges;
  expect(exchange.test).toBe('t1');
  expect(exchange.request.url).toBe('/other?api_key=REDACTED');
  expect(exchange.request.headers).toContainEqual(['x-api-key', 'REDACTED']);
  expect(exchange.request.headers).toContainEqual(['authorization', 'REDACTED']);
  expect(JSON.parse(exchange.response.body!)).toEqual({ token: 'REDACTED', webhook: 'https://hooks.example/x?token=REDACTED&keep=1' });
  const har = toHar(proxy.exchanges);
  expect(har.log.version).toBe('1.2');
  expect(JSON.stringify(har)).not.toContain('lsv2_secret');
});

test('validates responses against specs/, and sends the violations as a trailer to a client that asks', async () => {
  const proxy = new RecordingProxy({ plane: 'agent-server', target: upstreamUrl });
  const url = await proxy.start();
  const res = await request(`${url}/threads/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [VIOLATIONS_HEADER]: VIOLATIONS_WANTED },
    body: '{}',
  });
  expect(res.headers[VIOLATIONS_HEADER], 'not a header: the body went first').toBeUndefined();
  expect(await res.body.json()).toEqual([{ thread_id: 'not-a-uuid', status: 'sleeping' }]);
  const violations = JSON.parse(decodeURIComponent(res.trailers[VIOLATIONS_HEADER] ?? '[]')) as { at: string; message: string }[];
  await proxy.close();
  expect(seenHeaders.at(-1)?.[VIOLATIONS_HEADER], 'the request for violations is not forwarded').toBeUndefined();
  expect(violations.map((v) => v.at)).toEqual(expect.arrayContaining(['/0/thread_id', '/0/status']));
  expect(proxy.exchanges[0].operation).toBe('searchThreads');
  expect(proxy.exchanges[0].violations).toEqual(violations);
});

test('a client that does not ask gets the answer as the target framed it, and the violations are recorded all the same', async () => {
  const proxy = new RecordingProxy({ plane: 'agent-server', target: upstreamUrl });
  const url = await proxy.start();
  const res = await request(`${url}/threads/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const body = await res.body.text();
  await proxy.close();
  expect(res.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  expect(res.headers[VIOLATIONS_HEADER]).toBeUndefined();
  expect(res.trailers[VIOLATIONS_HEADER]).toBeUndefined();
  expect(proxy.exchanges[0].violations.map((v) => v.at)).toEqual(expect.arrayContaining(['/0/thread_id', '/0/status']));
});

// The client runs in a thread of its own, so that it can read its answer while the recording
// holds the proxy's thread: a proxy that recorded before answering would leave it waiting.
const CLIENT_IN_A_THREAD = `
const { workerData } = require('node:worker_threads');
const answered = new Int32Array(workerData.answered);
fetch(workerData.url, { headers: workerData.headers }).then((res) => res.text()).then(() => {
  Atomics.store(answered, 0, 1);
  Atomics.notify(answered, 0);
});`;

for (const asks of [false, true]) {
  test(`the client has its whole answer before the exchange is recorded (${asks ? 'asking' : 'not asking'} for the violations)`, async () => {
    const answered = new Int32Array(new SharedArrayBuffer(4));
    let wait = '';
    const proxy = new RecordingProxy({
      plane: 'agent-server',
      target: upstreamUrl,
      // Holds the proxy's thread until the client has read its answer, or 5 s.
      onExchange: () => {
        wait = Atomics.wait(answered, 0, 0, 5_000);
      },
    });
    const url = await proxy.start();
    const headers = asks ? { [VIOLATIONS_HEADER]: VIOLATIONS_WANTED } : {};
    const client = new Worker(CLIENT_IN_A_THREAD, { eval: true, workerData: { url: `${url}/threads/search`, headers, answered: answered.buffer } });
    await expect.poll(() => proxy.exchanges.length).toBe(1);
    await client.terminate();
    await proxy.close();
    expect(wait, 'the recording waited for an answer the proxy had not sent').not.toBe('timed-out');
    expect(proxy.exchanges[0].violations.length).toBeGreaterThan(0);
  });
}

test('an answer without a body carries its violations in a header', async () => {
  const proxy = new RecordingProxy({ plane: 'agent-server', target: upstreamUrl });
  const url = await proxy.start();
  const res = await request(`${url}${EMPTY_THREAD}`, { headers: { [VIOLATIONS_HEADER]: VIOLATIONS_WANTED } });
  await res.body.dump();
  await proxy.close();
  expect(res.statusCode).toBe(204);
  const violations = JSON.parse(decodeURIComponent(String(res.headers[VIOLATIONS_HEADER]))) as { message: string }[];
  expect(violations.map((v) => v.message)).toEqual([expect.stringContaining('status 204 is not documented for getThread')]);
  expect(proxy.exchanges[0].violations).toEqual(violations);
});

test('passes an event stream through as it flows', async () => {
  const proxy = new RecordingProxy({ plane: 'agent-server', target: upstreamUrl });
  const url = await proxy.start();
  const res = await fetch(`${url}/threads/00000000-0000-4000-8000-000000000000/runs/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"assistant_id":"agent"}',
  });
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  expect(first).toContain('event: metadata');
  endStream();
  let rest = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
  expect(rest).toContain('event: values');
  await proxy.close();
  expect(proxy.exchanges[0].response.body).toContain('event: values');
});

test('an unreachable target answers 502 with a JSON body and is recorded', async () => {
  const proxy = new RecordingProxy({ plane: 'agent-server', target: 'http://127.0.0.1:9' });
  const url = await proxy.start();
  const res = await fetch(`${url}/threads`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  expect(res.status).toBe(502);
  expect(((await res.json()) as { detail: string }).detail).toContain('could not reach');
  await proxy.close();
  expect(proxy.exchanges[0].error).toBeTruthy();
});

test('malformed percent-encoding in a path or a query name neither crashes the proxy nor goes unrecorded', async () => {
  const proxy = new RecordingProxy({ plane: 'agent-server', target: upstreamUrl });
  const url = await proxy.start();
  for (const path of ['/threads/%00%ff', '/threads?%ff=1&x_token=%zz']) {
    const res = await fetch(`${url}${path}`);
    expect(res.status, path).toBe(200);
  }
  const after = await fetch(`${url}/other`);
  await proxy.close();
  expect(after.status, 'the proxy still answers').toBe(200);
  expect(proxy.exchanges.map((e) => e.request.url)).toEqual(['/threads/%00%ff', '/threads?%ff=1&x_token=REDACTED', '/other']);
});
