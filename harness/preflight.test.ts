// The preflight sends its probes past a transient fault, as the run does, and still stops a run
// whose target is not serving: a gateway that answers 503 every time.
import { expect, test } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { preflight } from './preflight.ts';
import type { Target } from './target.ts';

/** A target whose agent server answers the first `unavailable` requests with a gateway's 503, then as this API does. */
async function flakyTarget(unavailable: number): Promise<{ target: Target; server: Server; seen: () => number }> {
  let seen = 0;
  const server = createServer((req, res) => {
    req.resume();
    if (++seen <= unavailable) {
      res.writeHead(503, { 'retry-after': '0', 'content-type': 'text/html' });
      res.end('<h1>503 Service Unavailable</h1>');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The preflight reads a target's endpoints, keys and capabilities only.
  const target = { name: 'flaky', kind: 'url', endpoints: { 'agent-server': url }, capabilities: [] } as unknown as Target;
  return { target, server, seen: () => seen };
}

test('a 503 now and then is sent past; a 503 every time stops the run', async () => {
  const once = await flakyTarget(1);
  try {
    expect(await preflight(once.target, ['agent-server'])).toEqual([]);
    expect(once.seen()).toBe(2);
  } finally {
    once.server.close();
  }
  const always = await flakyTarget(Number.POSITIVE_INFINITY);
  try {
    const problems = await preflight(always.target, ['agent-server']);
    expect(problems.map((p) => p.problem)).toEqual([expect.stringMatching(/^is not serving \(a gateway answered\): POST \/threads\/search answered 503/)]);
    expect(always.seen()).toBe(4);
  } finally {
    always.server.close();
  }
});
