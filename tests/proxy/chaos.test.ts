// The proxy's chaos mode in front of a real target on 127.0.0.1: a client meets the resets and
// the 503s the seed decides, in the order the seed decides them, the target sees only what was
// forwarded, the counts at /__apc/chaos say what the client met, and the HAR records each fault.
// The latency option slows every answer; the `proxy` command takes the options and refuses a rate
// outside 0..1.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chaos, type ChaosCounts, type ChaosOptions } from '../../harness/proxy/chaos.ts';
import { HarWriter } from '../../harness/proxy/har.ts';
import { CHAOS_RESET_TEXT, CHAOS_UNAVAILABLE_TEXT, RecordingProxy } from '../../harness/proxy/recording-proxy.ts';
import { runCli, startProxy } from '../self-test/run-cli.ts';

/** What a client met: the connection reset, or an answer. */
type Met = { reset: true } | { status: number; retryAfter?: string; body: string };

let target: Server;
let targetUrl: string;
/** The bodies of the requests the target received. */
const received: string[] = [];

test.beforeAll(async () => {
  // Echoes what it received, so that a body held back by a delay is seen to arrive whole.
  target = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ echo: body }));
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', () => resolve()));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});

test.afterAll(() => new Promise<void>((resolve) => target.close(() => resolve())));

/** One POST on a connection of its own. */
function post(url: string, path: string, body: string): Promise<Met> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: text }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A reset met while the request was still being written shows as EPIPE.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') resolve({ reset: true });
      else reject(error);
    });
    req.end(body);
  });
}

const chaosCounts = async (url: string) => (await (await fetch(`${url}/__apc/chaos`)).json()) as ChaosCounts;

test('a client meets the resets and 503s the seed decides, in its order; the counts and the HAR say what it met', async () => {
  received.length = 0;
  const chaos: ChaosOptions = { seed: 'e2e', unavailableRate: 0.2, resetRate: 0.1, jitterMs: 20 };
  const harFile = join(mkdtempSync(join(tmpdir(), 'apc-chaos-')), 'exchanges.har');
  const har = await HarWriter.open(harFile);
  const proxy = new RecordingProxy({ plane: 'agent-server', target: targetUrl, chaos, onExchange: (e) => har.add(e) });
  await proxy.start();
  const n = 60;
  const met: Met[] = [];
  try {
    // One after the other, so that the order of arrival is the order sent.
    for (let i = 0; i < n; i++) met.push(await post(proxy.url, '/threads/search', JSON.stringify({ request: i })));
    const counts = await chaosCounts(proxy.url);
    const resets = met.filter((m) => 'reset' in m).length;
    const unavailable = met.filter((m): m is Extract<Met, { status: number }> => 'status' in m && m.status === 503);
    const answered = met.filter((m) => 'status' in m && m.status === 200);
    expect(resets, 'the seed gives some of each').toBeGreaterThan(0);
    expect(unavailable.length).toBeGreaterThan(0);
    expect(resets + unavailable.length + answered.length).toBe(n);
    // The control path is no request of the count's.
    expect(counts).toMatchObject({ requests: n, reset: resets, unavailable: unavailable.length });
    expect(counts.delay_ms_total).toBeLessThanOrEqual(20 * n);
    // The decisions the seed gives, met in the order the requests were sent.
    const expected = new Chaos(chaos);
    expect(met.map((m) => ('reset' in m ? 'reset' : m.status === 503 ? 'unavailable' : 'forward'))).toEqual(met.map(() => expected.next().action));
    for (const answer of unavailable) {
      expect(answer.retryAfter).toBe('1');
      expect(JSON.parse(answer.body)).toEqual({ detail: CHAOS_UNAVAILABLE_TEXT });
    }
    // The target saw the forwarded requests only, each body whole though it waited out a delay.
    expect(received).toHaveLength(answered.length);
    for (const answer of answered) expect(received).toContain((JSON.parse((answer as { body: string }).body) as { echo: string }).echo);
    await proxy.close();
    await har.close();
    const entries = (JSON.parse(readFileSync(harFile, 'utf8')) as { log: { entries: { request: { postData?: { text: string } }; response: HarResponse }[] } })
      .log.entries;
    expect(entries).toHaveLength(n);
    const faulted = entries.filter((e) => e.response._error);
    expect(faulted.filter((e) => e.response.status === 0 && e.response._error === CHAOS_RESET_TEXT)).toHaveLength(resets);
    const recorded503 = faulted.filter((e) => e.response.status === 503);
    expect(recorded503).toHaveLength(unavailable.length);
    for (const e of recorded503) {
      expect(e.response.headers).toContainEqual({ name: 'retry-after', value: '1' });
      expect(e.request.postData?.text, 'the request body is recorded too').toMatch(/^\{"request":\d+\}$/);
    }
  } finally {
    await proxy.close();
  }
});

interface HarResponse {
  status: number;
  headers: { name: string; value: string }[];
  _error?: string;
}

test('--latency delays every answer by at least that much; rates of 0 fault nothing', async () => {
  const proxy = new RecordingProxy({ plane: 'agent-server', target: targetUrl, chaos: { seed: 'slow', latencyMs: 300, resetRate: 0, unavailableRate: 0 } });
  await proxy.start();
  try {
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect(await post(proxy.url, '/threads/search', '{}')).toMatchObject({ status: 200 });
      expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    }
    expect(await chaosCounts(proxy.url)).toEqual({ requests: 3, reset: 0, unavailable: 0, delayed: 3, delay_ms_total: 900 });
  } finally {
    await proxy.close();
  }
});

test('the proxy command takes the chaos options, and prints the counts when it stops', async () => {
  const har = join(mkdtempSync(join(tmpdir(), 'apc-chaos-cli-')), 'exchanges.har');
  const args = ['--target', targetUrl, '--har', har, '--quiet', '--chaos-seed', 'cli', '--chaos-unavailable', '1', '--chaos-retry-after', '7'];
  const { child, url, output, exited } = await startProxy(args);
  expect(output()).toContain("chaos, seed 'cli'");
  for (let i = 0; i < 2; i++) expect(await post(url, '/threads/search', '{}')).toMatchObject({ status: 503, retryAfter: '7' });
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(output()).toContain('[proxy] chaos: 2 requests, 0 reset, 2 answered 503, 0 delayed (0 ms in all)');
});

test('a rate outside 0..1 is a usage error (exit 2)', async () => {
  for (const [option, value] of [
    ['--chaos-reset', '1.5'],
    ['--chaos-unavailable', '-0.1'],
    ['--chaos-unavailable', 'often'],
  ]) {
    const run = await runCli(['proxy', '--target', targetUrl, `${option}=${value}`]);
    expect([run.code, run.stderr], `${option} ${value}`).toEqual([2, expect.stringContaining(`${option} must be a share within 0..1, got '${value}'`)]);
  }
  const both = await runCli(['proxy', '--target', targetUrl, '--chaos-reset', '0.6', '--chaos-unavailable', '0.6']);
  expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('together must not exceed 1')]);
});
