// Faults at the HTTP layer, set through the admin path: a status fault answers in the plane's
// error shape (Retry-After when given) and creates nothing; a reset closes the connection with no
// answer; a truncate cuts a JSON body halfway and an event stream after its first event; the
// admin path is never faulted; clearFaults and resetSimulator end them; a bad fault is a 422;
// the agent servers of created deployments meet the agent-server plane's faults.
import { expect, test } from '@playwright/test';
import type { FaultList } from '../../specs/types/simulator-admin.ts';
import { Simulator } from '../simulator.ts';
import { faultRefusal, truncatedResponse } from './wire-faults.ts';

const sims: Simulator[] = [];
test.afterAll(() => Promise.all(sims.map((sim) => sim.close())));

function simulator(): Simulator {
  const sim = new Simulator({ seed: 'faults', quiet: true });
  sims.push(sim);
  return sim;
}

const json = (method: string, body?: unknown) => ({
  method,
  body: body === undefined ? undefined : JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});
const threadCount = async (sim: Simulator) => ((await (await sim.request('agent-server', '/threads/search', json('POST', {}))).json()) as unknown[]).length;

test('the smallest form: the next two POST /threads answer 503 {detail} and create nothing, then requests pass', async () => {
  const sim = simulator();
  const set = await sim.request('control-plane', '/__sim/faults', json('POST', { method: 'POST', path: '/threads', status: 503, count: 2 }));
  expect(set.status).toBe(200);
  expect(((await set.json()) as FaultList).faults).toEqual([{ fault: { method: 'POST', path: '/threads', status: 503, count: 2 }, remaining: 2 }]);
  for (let i = 0; i < 2; i++) {
    const res = await sim.request('agent-server', '/threads', json('POST', {}));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await res.json()).toEqual({ detail: expect.stringContaining('Fault set by POST /__sim/faults: POST /') });
  }
  expect(await threadCount(sim)).toBe(0);
  expect((await sim.request('agent-server', '/threads', json('POST', {}))).status).toBe(200);
  expect(await threadCount(sim)).toBe(1);
  expect(((await (await sim.request('agent-server', '/__sim/faults')).json()) as FaultList).faults).toEqual([]);
});

test('a 429 carries Retry-After; faults reach every plane, by endpoint and operation, and never the admin path', async () => {
  const sim = simulator();
  await sim.request('agent-server', '/__sim/faults', json('POST', { endpoint: 'platform-api-eu', operation: 'listDatasets', status: 429, retry_after: 3 }));
  await sim.request('agent-server', '/__sim/faults', json('POST', { path: '/**', status: 500 }));
  const key = (region: string) => sim.info().credentials.api_keys.find((k) => k.role === (region === 'eu' ? 'eu-primary' : 'primary'))!.key;
  const eu = await sim.request('platform-api-eu', '/datasets', { headers: { 'x-api-key': key('eu') } });
  expect(eu.status).toBe(429);
  expect(eu.headers.get('retry-after')).toBe('3');
  for (const endpoint of ['agent-server', 'control-plane', 'platform-api'] as const) {
    const res = await sim.request(endpoint, '/anything');
    expect(res.status, endpoint).toBe(500);
    expect(await res.json()).toEqual({ detail: expect.stringContaining('answers 500') });
  }
  expect((await sim.request('agent-server', '/__sim/info')).status).toBe(200);
  const cleared = await sim.request('platform-api', '/__sim/faults', { method: 'DELETE' });
  expect(await cleared.json()).toEqual({ faults: [] });
  expect((await sim.request('agent-server', '/ok')).status).toBe(200);
});

test('a fault the admin path refuses answers 422 and sets nothing; resetSimulator clears faults', async () => {
  const sim = simulator();
  const refused = [
    { path: '/threads' },
    { status: 503, reset: true },
    { retry_after: 1, latency_ms: 1 },
    { operation: 'nope', status: 500 },
    { status: 200 },
    { reset: 'yes' },
  ];
  for (const fault of refused) expect((await sim.request('agent-server', '/__sim/faults', json('POST', fault))).status, JSON.stringify(fault)).toBe(422);
  expect(sim.faults.list()).toEqual([]);
  await sim.request('agent-server', '/__sim/faults', json('POST', { status: 503 }));
  expect((await sim.request('agent-server', '/ok')).status).toBe(503);
  await sim.request('agent-server', '/__sim/reset', json('POST', {}));
  expect((await sim.request('agent-server', '/ok')).status).toBe(200);
});

test('latency delays the answer, which then comes whole', async () => {
  const sim = simulator();
  await sim.request('agent-server', '/__sim/faults', json('POST', { path: '/ok', latency_ms: 50, count: 1 }));
  const pending = sim.request('agent-server', '/ok');
  let settled = false;
  void pending.then(() => {
    settled = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  expect(settled, 'not answered before the delay').toBe(false);
  expect(await (await pending).json()).toEqual({ ok: true });
});

test('over a socket: a reset closes the connection with no answer; a truncate cuts a JSON body halfway and a stream after its first event', async () => {
  const sim = await Simulator.start({ seed: 'faults-socket', quiet: true });
  sims.push(sim);
  const url = sim.urls['agent-server']!;
  const admin = (body: unknown) => fetch(`${url}/__sim/faults`, json('POST', body));
  await admin({ path: '/ok', reset: true, count: 1 });
  await expect(fetch(`${url}/ok`)).rejects.toThrow('fetch failed');
  expect((await fetch(`${url}/ok`)).status).toBe(200);

  const thread = (await (await fetch(`${url}/threads`, json('POST', { metadata: { note: 'x'.repeat(200) } }))).json()) as { thread_id: string };
  await admin({ method: 'GET', path: '/threads/{thread_id}', truncate: true, count: 1 });
  const cut = await fetch(`${url}/threads/${thread.thread_id}`);
  expect(cut.status).toBe(200);
  await expect(cut.text()).rejects.toThrow();
  expect(((await (await fetch(`${url}/threads/${thread.thread_id}`)).json()) as { thread_id: string }).thread_id).toBe(thread.thread_id);

  const stream = async () =>
    (await fetch(`${url}/runs/stream`, json('POST', { assistant_id: 'agent', input: { topic: 'x' }, stream_mode: ['values'] }))).text();
  const events = (text: string) => text.split('\n').filter((line) => line.startsWith('event:'));
  const whole = events(await stream());
  await admin({ operation: 'streamStatelessRun', truncate: true, count: 1 });
  const truncated = events(await stream());
  expect(whole.length).toBeGreaterThan(1);
  expect(truncated).toEqual(whole.slice(0, 1));
});

test('faults of the agent-server plane reach the agent servers of created deployments too', async () => {
  const sim = await Simulator.start({ seed: 'faults', quiet: true });
  sims.push(sim);
  const apiKey = sim.info().credentials.api_keys.find((k) => k.role === 'primary')!.key;
  const call = (url: string, method = 'GET', body?: unknown) =>
    fetch(url, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-api-key': apiKey } });
  const plane = sim.urls['control-plane']!;
  const [integration] = (await (await call(`${plane}/v1/integrations/sourcehost/install`)).json()) as { id: string }[];
  const [repo] = (await (await call(`${plane}/v1/integrations/sourcehost/${integration!.id}/repos`)).json()) as { url: string; default_branch: string }[];
  const created = (await (
    await call(`${plane}/v2/deployments`, 'POST', {
      name: 'faulted',
      integration_id: integration!.id,
      source_config: { repo_url: repo!.url },
      source_revision_config: { repo_ref: repo!.default_branch },
    })
  ).json()) as { id: string };
  sim.advance(90_000);
  const deployed = (await (await call(`${plane}/v2/deployments/${created.id}`)).json()) as { source_config: { custom_url: string } };
  const hosted = deployed.source_config.custom_url;
  expect((await call(`${hosted}/threads`, 'POST', {})).status).toBe(200);

  await sim.request('agent-server', '/__sim/faults', json('POST', { endpoint: 'agent-server', method: 'POST', path: '/threads', status: 503, count: 1 }));
  const faulted = await call(`${hosted}/threads`, 'POST', {});
  expect(faulted.status).toBe(503);
  expect(await faulted.json()).toEqual({ detail: expect.stringContaining('Fault set by POST /__sim/faults: POST /') });
  expect((await call(`${hosted}/threads`, 'POST', {})).status, 'the count is spent').toBe(200);
});

test("a status fault's refusal names the fault and the request, with Retry-After when the fault gives one", () => {
  const refused = faultRefusal('POST', '/threads', 429, 3, 'a test');
  expect([refused.status, refused.message, refused.headers]).toEqual([429, 'Fault set by a test: POST /threads answers 429', { 'retry-after': '3' }]);
  expect(faultRefusal('GET', '/x', 503, undefined, 'a test').headers).toEqual({});
});

test("in process, a truncate errors a JSON body's stream, ends a stream after its first event, and resets a reply with no body", async () => {
  const cut = truncatedResponse({ status: 200, body: { thread_id: 'abcdefgh' } });
  expect([cut.status, cut.headers.get('content-type')]).toEqual([200, 'application/json']);
  await expect(cut.text()).rejects.toThrow('terminated');
  const stream = truncatedResponse({
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    stream: (write) => {
      write('event: a\n\n');
      write('event: b\n\n');
    },
  });
  expect(await stream.text()).toBe('event: a\n\n');
  expect(() => truncatedResponse({ status: 204 })).toThrow('fetch failed');
});
