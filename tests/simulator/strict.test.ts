// Request violations over HTTP, through `simulate` as a client developer starts it: the lenient
// simulator answers a typo'd field as usual and names it in a header and its log; --strict refuses
// it with 422 in the plane's error style, changing nothing; a JSON route takes a body only as
// application/json; each request is one log line.
import { expect, test } from '@playwright/test';
import { contract } from '../../specs/contract.ts';
import { type StandIn, startStandIn } from '../self-test/stand-in.ts';

const running: StandIn[] = [];
test.afterAll(() => Promise.all(running.map((sim) => sim.stop())));

/** `simulate` on the virtual clock with `args`, its output read for its whole life. */
async function simulate(args: string[]): Promise<StandIn> {
  const sim = await startStandIn(['--clock', 'virtual', ...args]);
  running.push(sim);
  return sim;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const HEADER = contract().requestViolationsHeader;
const TYPO = { assistant_id: 'agent', inptu: { messages: [{ role: 'user', content: 'hi' }] } };
const violationsOf = (res: Response) => {
  const value = res.headers.get(HEADER);
  return value === null ? null : JSON.parse(decodeURIComponent(value));
};

async function thread(sim: StandIn): Promise<string> {
  const res = await fetch(`${sim.planes['agent-server']}/threads`, { method: 'POST', headers: JSON_TYPE, body: '{}' });
  return ((await res.json()) as { thread_id: string }).thread_id;
}

test('lenient: the typo is answered as usual, named in the header and logged at warn; a clean request has no header and an info line', async () => {
  const sim = await simulate([]);
  const id = await thread(sim);
  const res = await fetch(`${sim.planes['agent-server']}/threads/${id}/runs/wait`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(TYPO) });
  expect(res.status).toBe(200);
  expect(violationsOf(res)).toEqual([{ at: '/inptu', type: 'extra_forbidden', message: "unknown field 'inptu': did you mean 'input'?" }]);
  const clean = await fetch(`${sim.planes['agent-server']}/threads/${id}`);
  expect([clean.status, violationsOf(clean)]).toEqual([200, null]);
  await expect
    .poll(() => sim.since.stdout)
    .toEqual([
      expect.stringMatching(/^\[simulator\] info: POST \/threads 200 \d+\.\d ms$/),
      expect.stringMatching(new RegExp(`^\\[simulator\\] info: GET /threads/${id} 200 \\d+\\.\\d ms$`)),
    ]);
  expect(sim.since.stderr).toEqual([
    expect.stringMatching(
      new RegExp(
        `^\\[simulator\\] warn: POST /threads/${id}/runs/wait 200 \\d+\\.\\d ms; request violations: /inptu unknown field 'inptu': did you mean 'input'\\?$`,
      ),
    ),
  ]);
});

test('strict: the typo is a 422 naming the field on the agent server, run_type banana one in FastAPI style on the platform API; neither changes anything', async () => {
  const sim = await simulate(['--strict', '--log-level', 'warn']);
  const id = await thread(sim);
  const wait = await fetch(`${sim.planes['agent-server']}/threads/${id}/runs/wait`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(TYPO) });
  expect(wait.status).toBe(422);
  expect(await wait.json()).toEqual({ detail: "Invalid request: body.inptu: unknown field 'inptu': did you mean 'input'?" });
  expect(violationsOf(wait)).toHaveLength(1);
  const runs = await fetch(`${sim.planes['agent-server']}/threads/${id}/runs`);
  expect(await runs.json()).toEqual([]);

  const platform = { ...JSON_TYPE, 'x-api-key': sim.keys.primary };
  const runId = '01a2019e-7617-7531-8d44-d0b7d1cb0011';
  const banana = await fetch(`${sim.planes['platform-api']}/runs`, {
    method: 'POST',
    headers: platform,
    body: JSON.stringify({ id: runId, name: 'r', run_type: 'banana', inputs: {}, start_time: Date.now() }),
  });
  expect(banana.status).toBe(422);
  expect(await banana.json()).toEqual({
    detail: [{ loc: ['body', 'run_type'], msg: expect.stringContaining("'banana' is not one of tool, chain, llm"), type: 'enum' }],
  });
  expect((await fetch(`${sim.planes['platform-api']}/runs/${runId}`, { headers: platform })).status).toBe(404);
  // The same run with a run type the client knows is taken.
  const chain = await fetch(`${sim.planes['platform-api']}/runs`, {
    method: 'POST',
    headers: platform,
    body: JSON.stringify({ id: runId, name: 'r', run_type: 'chain', inputs: {}, start_time: Date.now() }),
  });
  expect([chain.status, violationsOf(chain)]).toEqual([202, null]);
  // At warn, only the refused requests are logged.
  await expect.poll(() => sim.since.stderr.length).toBe(2);
  expect(sim.since.stdout).toEqual([]);
});

test('a body on a JSON route must say application/json: text/plain and no Content-Type answer 415; no body needs none', async () => {
  const sim = await simulate(['--log-level', 'error']);
  const url = `${sim.planes['agent-server']}/threads`;
  const plain = await fetch(url, { method: 'POST', body: '{}' });
  expect(plain.headers.get('content-type')).toBe('application/json');
  expect([plain.status, await plain.json()]).toEqual([415, { detail: "Unsupported Content-Type 'text/plain': send the body as application/json" }]);
  const none = await fetch(url, { method: 'POST', body: new Blob(['{}']) });
  expect([none.status, await none.json()]).toEqual([415, { detail: 'A request body without a Content-Type: send the body as application/json' }]);
  expect((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/vnd.api+json' }, body: '{}' })).status).toBe(200);
  const id = await thread(sim);
  expect((await fetch(`${url}/${id}/copy`, { method: 'POST' })).status).toBe(200);
});
