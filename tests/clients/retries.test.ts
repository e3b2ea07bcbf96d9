// The official clients retry through faults set on the simulator (POST /__sim/faults) and
// succeed: `langsmith` (createRun, readRun) and `@langchain/langgraph-sdk` (threads.create,
// threads.get). Each client's fetch is wrapped to log what it got, so the test also shows the
// faulted attempts really were answered with the fault, and fails if faults do nothing.
// Both clients retry 429 and 5xx with exponential backoff (p-retry: about 1 s, then 2 s, not
// configurable), and neither reads Retry-After on these calls, so a test here takes seconds.
// langsmith retries a failed connection too; the langgraph SDK does not (it throws a
// ConnectionError at once), so only langsmith is shown a reset.
import { Client as LangGraphClient } from '@langchain/langgraph-sdk';
import { expect, test } from '@playwright/test';
import { Client, uuid7 } from 'langsmith';
import type { Fault } from '../../specs/types/simulator-admin.ts';
import { Simulator } from '../../simulator/simulator.ts';

// Up to 2 retries of 1-2 s and 2-4 s each, and a few calls per test.
test.describe.configure({ timeout: 60_000 });

let sim: Simulator;

test.beforeAll(async () => {
  sim = await Simulator.start({ seed: 'client-retries', quiet: true, strict: true });
});
test.afterAll(async () => sim.close());
test.beforeEach(() => sim.reset());

/** What each attempt got: its status and Retry-After, or `reset` when the connection failed. */
type Attempt = { call: string; got: number | 'reset'; retryAfter?: string };

/** A fetch that logs each attempt of the calls that match `path`. */
function loggingFetch(attempts: Attempt[], path: RegExp): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const call = `${init?.method ?? 'GET'} ${url.pathname}`;
    try {
      const res = await fetch(input, init);
      if (path.test(url.pathname))
        attempts.push({ call, got: res.status, ...(res.headers.has('retry-after') ? { retryAfter: res.headers.get('retry-after')! } : {}) });
      return res;
    } catch (error) {
      if (path.test(url.pathname)) attempts.push({ call, got: 'reset' });
      throw error;
    }
  };
}

/** Sets a fault through the admin path, as a user of `simulate` would. */
async function setFault(fault: Fault): Promise<void> {
  const res = await fetch(`${sim.urls['agent-server']}/__sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

test('langsmith: createRun through two 503s, readRun through a 429 and a reset', async () => {
  const attempts: Attempt[] = [];
  const apiKey = sim.info().credentials.api_keys.find((k) => k.role === 'primary')!.key;
  const client = new Client({
    apiUrl: sim.urls['platform-api'],
    apiKey,
    autoBatchTracing: false,
    fetchImplementation: loggingFetch(attempts, /^\/runs/),
  });
  await setFault({ endpoint: 'platform-api', method: 'POST', path: '/runs', status: 503, count: 2 });
  const id = uuid7();
  await client.createRun({ id, name: 'through-faults', run_type: 'chain', inputs: { q: 'hi' }, project_name: 'apc-retries' });
  expect(attempts.map((a) => a.got)).toEqual([503, 503, 202]);

  attempts.length = 0;
  await setFault({ endpoint: 'platform-api', operation: 'readRun', status: 429, retry_after: 1, count: 1 });
  await setFault({ endpoint: 'platform-api', operation: 'readRun', reset: true, count: 1 });
  const run = await client.readRun(id);
  expect(run).toMatchObject({ id, name: 'through-faults', inputs: { q: 'hi' } });
  expect(attempts).toEqual([
    { call: `GET /runs/${id}`, got: 429, retryAfter: '1' },
    { call: `GET /runs/${id}`, got: 'reset' },
    { call: `GET /runs/${id}`, got: 200 },
  ]);
});

test('@langchain/langgraph-sdk: threads.create through two 503s, threads.get through a 429 with Retry-After', async () => {
  const attempts: Attempt[] = [];
  const client = new LangGraphClient({ apiUrl: sim.urls['agent-server'], apiKey: null, callerOptions: { fetch: loggingFetch(attempts, /^\/threads/) } });
  await setFault({ method: 'POST', path: '/threads', status: 503, count: 2 });
  const thread = await client.threads.create({ metadata: { via: 'faults' } });
  expect(thread.metadata).toEqual({ via: 'faults' });
  expect(attempts.map((a) => `${a.call} ${a.got}`)).toEqual(['POST /threads 503', 'POST /threads 503', 'POST /threads 200']);

  attempts.length = 0;
  await setFault({ endpoint: 'agent-server', operation: 'getThread', status: 429, retry_after: 1, count: 1 });
  expect((await client.threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);
  expect(attempts).toEqual([
    { call: `GET /threads/${thread.thread_id}`, got: 429, retryAfter: '1' },
    { call: `GET /threads/${thread.thread_id}`, got: 200 },
  ]);
});
