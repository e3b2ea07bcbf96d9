// The suites' client reads what the recording proxy adds to an answer: the exchange id, and the
// violations, which come after the body as a trailer (or in a header when there is no body).
import { expect, test } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from './client.ts';
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
