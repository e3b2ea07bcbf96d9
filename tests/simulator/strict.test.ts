// Request violations over HTTP, through `simulate` as a client developer starts it: the lenient
// simulator answers a typo'd field as usual and names it in a header and its log; --strict refuses
// it with 422 in the plane's error style, changing nothing; a JSON route takes a body only as
// application/json; each request is one log line.
import { type ChildProcess, spawn } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { contract } from '../../specs/contract.ts';
import { CLI, cliEnv, ROOT } from '../self-test/run-cli.ts';

interface Simulate {
  urls: Record<string, string>;
  apiKey: string;
  stdout: string[];
  stderr: string[];
  child: ChildProcess;
}

const running: Simulate[] = [];
// A child that already exited has no exit left to wait for; one that ignores SIGTERM for 10 s is killed.
test.afterAll(() =>
  Promise.all(
    running.map(({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      return exited.finally(() => clearTimeout(killer));
    }),
  ),
);

/** `simulate` with `args`, its output read line by line for its whole life, once it is ready. */
async function simulate(args: string[]): Promise<Simulate> {
  const child = spawn(process.execPath, [CLI, 'simulate', '--clock', 'virtual', ...args], { cwd: ROOT, env: cliEnv() });
  const sim: Simulate = { urls: {}, apiKey: '', stdout: [], stderr: [], child };
  running.push(sim);
  const lines = (into: string[]) => (chunk: Buffer) => into.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout!.on('data', lines(sim.stdout));
  child.stderr!.on('data', lines(sim.stderr));
  await expect.poll(() => sim.stdout.some((line) => line.includes('Ctrl-C to stop')), { timeout: 30_000 }).toBe(true);
  for (const line of sim.stdout) {
    const plane = /^\[simulator\] (agent-server|platform-api)\s+(http\S+)$/.exec(line);
    if (plane) sim.urls[plane[1]] = plane[2];
    if (line.startsWith('LANGSMITH_API_KEY=')) sim.apiKey = line.split('=')[1];
  }
  sim.stdout.length = 0;
  return sim;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const HEADER = contract().requestViolationsHeader;
const TYPO = { assistant_id: 'agent', inptu: { messages: [{ role: 'user', content: 'hi' }] } };
const violationsOf = (res: Response) => {
  const value = res.headers.get(HEADER);
  return value === null ? null : JSON.parse(decodeURIComponent(value));
};

async function thread(sim: Simulate): Promise<string> {
  const res = await fetch(`${sim.urls['agent-server']}/threads`, { method: 'POST', headers: JSON_TYPE, body: '{}' });
  return ((await res.json()) as { thread_id: string }).thread_id;
}

test('lenient: the typo is answered as usual, named in the header and logged at warn; a clean request has no header and an info line', async () => {
  const sim = await simulate([]);
  const id = await thread(sim);
  const res = await fetch(`${sim.urls['agent-server']}/threads/${id}/runs/wait`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(TYPO) });
  expect(res.status).toBe(200);
  expect(violationsOf(res)).toEqual([{ at: '/inptu', type: 'extra_forbidden', message: "unknown field 'inptu': did you mean 'input'?" }]);
  const clean = await fetch(`${sim.urls['agent-server']}/threads/${id}`);
  expect([clean.status, violationsOf(clean)]).toEqual([200, null]);
  await expect
    .poll(() => sim.stdout)
    .toEqual([
      expect.stringMatching(/^\[simulator\] info: POST \/threads 200 \d+\.\d ms$/),
      expect.stringMatching(new RegExp(`^\\[simulator\\] info: GET /threads/${id} 200 \\d+\\.\\d ms$`)),
    ]);
  expect(sim.stderr).toEqual([
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
  const wait = await fetch(`${sim.urls['agent-server']}/threads/${id}/runs/wait`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(TYPO) });
  expect(wait.status).toBe(422);
  expect(await wait.json()).toEqual({ detail: "Invalid request: body.inptu: unknown field 'inptu': did you mean 'input'?" });
  expect(violationsOf(wait)).toHaveLength(1);
  const runs = await fetch(`${sim.urls['agent-server']}/threads/${id}/runs`);
  expect(await runs.json()).toEqual([]);

  const platform = { ...JSON_TYPE, 'x-api-key': sim.apiKey };
  const runId = '01a2019e-7617-7531-8d44-d0b7d1cb0011';
  const banana = await fetch(`${sim.urls['platform-api']}/runs`, {
    method: 'POST',
    headers: platform,
    body: JSON.stringify({ id: runId, name: 'r', run_type: 'banana', inputs: {}, start_time: Date.now() }),
  });
  expect(banana.status).toBe(422);
  expect(await banana.json()).toEqual({
    detail: [{ loc: ['body', 'run_type'], msg: expect.stringContaining("'banana' is not one of tool, chain, llm"), type: 'enum' }],
  });
  expect((await fetch(`${sim.urls['platform-api']}/runs/${runId}`, { headers: platform })).status).toBe(404);
  // The same run with a run type the client knows is taken.
  const chain = await fetch(`${sim.urls['platform-api']}/runs`, {
    method: 'POST',
    headers: platform,
    body: JSON.stringify({ id: runId, name: 'r', run_type: 'chain', inputs: {}, start_time: Date.now() }),
  });
  expect([chain.status, violationsOf(chain)]).toEqual([202, null]);
  // At warn, only the refused requests are logged.
  await expect.poll(() => sim.stderr.length).toBe(2);
  expect(sim.stdout).toEqual([]);
});

test('a body on a JSON route must say application/json: text/plain and no Content-Type answer 415; no body needs none', async () => {
  const sim = await simulate(['--log-level', 'error']);
  const url = `${sim.urls['agent-server']}/threads`;
  const plain = await fetch(url, { method: 'POST', body: '{}' });
  expect(plain.headers.get('content-type')).toBe('application/json');
  expect([plain.status, await plain.json()]).toEqual([415, { detail: "Unsupported Content-Type 'text/plain': send the body as application/json" }]);
  const none = await fetch(url, { method: 'POST', body: new Blob(['{}']) });
  expect([none.status, await none.json()]).toEqual([415, { detail: 'A request body without a Content-Type: send the body as application/json' }]);
  expect((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/vnd.api+json' }, body: '{}' })).status).toBe(200);
  const id = await thread(sim);
  expect((await fetch(`${url}/${id}/copy`, { method: 'POST' })).status).toBe(200);
});
