// sendRequests (bulk-requests.ts): a batch is made in turn, each request counted by the rate limits
// and answered as over HTTP; a fault in force makes it refuse, making none.
import { expect, test } from '@playwright/test';
import { contract } from '../specs/contract.ts';
import { answerBatch, type AnswerOne } from './bulk-requests.ts';
import { Simulator } from './simulator.ts';

const sims: Simulator[] = [];
test.afterAll(() => Promise.all(sims.map((sim) => sim.close())));
const inProcess = () => sims[sims.push(new Simulator({ seed: 'bulk', quiet: true })) - 1];

test('a batch makes its requests in turn, one after the other, and answers each status, Retry-After and a 429 body', async () => {
  const made: string[] = [];
  let inFlight = 0;
  const one: AnswerOne = async ({ path }) => {
    inFlight++;
    expect(inFlight, 'one request at a time').toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    made.push(path);
    inFlight--;
    const refused = made.length > 3;
    return { status: refused ? 429 : 200, retryAfter: refused ? '7' : null, text: async () => (refused ? 'slow down' : 'ok') };
  };
  const answers = await answerBatch(
    {
      requests: [
        { method: 'GET', path: '/a' },
        { method: 'GET', path: '/b' },
      ],
      count: 5,
    },
    one,
    0,
  );
  expect(made).toEqual(['/a', '/b', '/a', '/b', '/a']);
  expect(answers).toEqual([
    { status: 200 },
    { status: 200 },
    { status: 200 },
    { status: 429, retry_after: '7', body: 'slow down' },
    { status: 429, retry_after: '7', body: 'slow down' },
  ]);
});

test('with a fault in force a batch makes no request and answers 409', async () => {
  let made = 0;
  const one: AnswerOne = async () => {
    made++;
    return { status: 200, text: async () => '' };
  };
  await expect(answerBatch({ requests: [{ method: 'GET', path: '/a' }], count: 2 }, one, 1)).rejects.toMatchObject({ status: 409 });
  expect(made).toBe(0);
});

test('on the simulator, a batch fills a rate-limit row as requests one by one do: the limit-th admitted, the next refused', async () => {
  const sim = inProcess();
  const row = contract().rateLimits.find((r) => r.id === 'beacon-ip')!;
  const limit = row.limit.us;
  const headers = { 'x-forwarded-for': '198.51.100.7' };
  const batch = (count: number) =>
    sim.request('platform-api', '/__sim/requests', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requests: [{ method: 'POST', path: '/v1/beacon', headers }], count }),
    });
  const first = await batch(limit);
  expect(first.status).toBe(200);
  const { answers } = (await first.json()) as { answers: { status: number; retry_after?: string; body?: string }[] };
  expect(answers).toHaveLength(limit);
  expect(answers.filter((a) => a.status === 429)).toEqual([]);
  // The next, one by one, is refused: the batch's requests were counted.
  const over = await sim.request('platform-api', '/v1/beacon', { method: 'POST', headers });
  expect(over.status).toBe(429);
  const [again] = ((await (await batch(1)).json()) as { answers: { status: number; retry_after?: string; body?: string }[] }).answers;
  expect(again).toMatchObject({ status: 429, retry_after: expect.stringMatching(/^\d+$/), body: expect.stringContaining(row.id) });
  // Another caller is counted apart.
  const other = await sim.request('platform-api', '/v1/beacon', { method: 'POST', headers: { 'x-forwarded-for': '198.51.100.8' } });
  expect(other.status).not.toBe(429);
});

test('on the simulator, a batch over the largest count is refused by the schema, making none', async () => {
  const sim = inProcess();
  const refused = await sim.request('platform-api', '/__sim/requests', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ requests: [{ method: 'POST', path: '/v1/beacon' }], count: 10_001 }),
  });
  expect(refused.status).toBe(422);
  expect((await sim.request('platform-api', '/v1/beacon', { method: 'POST' })).status).not.toBe(429);
});
