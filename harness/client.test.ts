// The suites' client reads what the recording proxy adds to an answer: the exchange id, and the
// violations, which come after the body as a trailer (or in a header when there is no body).
import { expect, test } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from './client.ts';
import { wasNotJudged } from './retry.ts';
import { RecordingProxy } from './proxy/recording-proxy.ts';

let target: Server;
let proxy: RecordingProxy;

test.beforeAll(async () => {
  target = createServer((req, res) => {
    if (req.method === 'GET') {
      // getThread does not document 204.
      res.writeHead(204);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify([{ thread_id: 'not-a-uuid', status: 'idle' }]));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', () => resolve()));
  proxy = new RecordingProxy({ plane: 'agent-server', target: `http://127.0.0.1:${(target.address() as AddressInfo).port}` });
  await proxy.start();
});
test.afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => target.close(resolve));
});

test("an answer's violations and exchange id reach the caller, and the proxy's headers are not among the target's", async () => {
  const client = new ApiClient(proxy.url, { plane: 'agent-server', testId: 'client-test' });
  const res = await client.post('/threads/search', {});
  expect(res.json).toEqual([{ thread_id: 'not-a-uuid', status: 'idle' }]);
  expect(res.violations.map((v) => v.at)).toContain('/0/thread_id');
  const recorded = proxy.exchanges.find((e) => e.id === res.exchange);
  expect(recorded?.violations).toEqual(res.violations);
  expect(Object.keys(res.headers).filter((name) => name === 'trailer' || name.startsWith('x-apc-'))).toEqual([]);
});

test('an answer without a body (204) has its violations too', async () => {
  const client = new ApiClient(proxy.url, { plane: 'agent-server' });
  const res = await client.get('/threads/00000000-0000-4000-8000-000000000000');
  expect(res.status).toBe(204);
  expect(res.violations.map((v) => v.message)).toEqual([expect.stringContaining('status 204 is not documented for getThread')]);
});

test.describe('transient faults', () => {
  /** What the target does to the next requests of a method and path: reset, or answer a status (200 after the script runs out). */
  const scripts = new Map<string, ('reset' | number)[]>();
  let flaky: Server;
  let flakyProxy: RecordingProxy;
  const thread = '/threads/00000000-0000-4000-8000-000000000000';

  test.beforeAll(async () => {
    flaky = createServer((req, res) => {
      const next = scripts.get(`${req.method} ${req.url}`)?.shift() ?? 200;
      req.resume();
      if (next === 'reset') {
        req.socket.destroy();
        return;
      }
      const body = next === 200 ? { thread_id: '00000000-0000-4000-8000-000000000000', status: 'idle' } : { detail: 'gateway' };
      res.writeHead(next, { 'content-type': 'application/json', ...(next === 503 ? { 'retry-after': '0' } : {}) });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', () => resolve()));
    flakyProxy = new RecordingProxy({ plane: 'agent-server', target: `http://127.0.0.1:${(flaky.address() as AddressInfo).port}` });
    await flakyProxy.start();
  });
  test.afterAll(async () => {
    await flakyProxy.close();
    await new Promise((resolve) => flaky.close(resolve));
  });

  test('a read that met a reset and a 503 is sent again, and each attempt is recorded under the same place', async () => {
    scripts.set(`GET ${thread}`, ['reset', 503]);
    const retried: string[] = [];
    const client = new ApiClient(flakyProxy.url, { plane: 'agent-server', testId: 'retry-read', onRetry: (what) => retried.push(what) });
    const res = await client.get(thread);
    expect(res.status).toBe(200);
    expect(retried).toEqual([
      `GET ${thread} met a connection dropped without an answer; sent again after 250 ms`,
      `GET ${thread} met 503; sent again after 0 ms`,
    ]);
    const attempts = flakyProxy.exchanges.filter((e) => e.test === 'retry-read');
    expect(attempts.map((e) => [e.id.replace(/-\w{8}-/, '-…-'), e.attempt, e.response.status])).toEqual([
      ['agent-server-…-1', undefined, 502],
      ['agent-server-…-1.2', 2, 503],
      ['agent-server-…-1.3', 3, 200],
    ]);
  });

  test('a create that met a reset is not sent again, and is not judged', async () => {
    scripts.set('POST /threads', ['reset']);
    const client = new ApiClient(flakyProxy.url, { plane: 'agent-server', testId: 'retry-create' });
    const error = await client.post('/threads', {}).catch((e: Error) => e);
    expect(String(error)).toContain('[transient fault] POST /threads was not judged: it met a connection dropped without an answer and is not sent again');
    expect(wasNotJudged(error)).toBe(true);
    expect(flakyProxy.exchanges.filter((e) => e.test === 'retry-create')).toHaveLength(1);
  });

  test('a 502 the target answers every time is its answer, judged', async () => {
    scripts.set(`GET ${thread}`, [502, 502, 502, 502]);
    const client = new ApiClient(flakyProxy.url, { plane: 'agent-server', testId: 'retry-every-time' });
    const res = await client.get(thread);
    expect(res.status).toBe(502);
    expect(flakyProxy.exchanges.filter((e) => e.test === 'retry-every-time')).toHaveLength(4);
  });
});
