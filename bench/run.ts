// npm run bench: throughput of the simulator and the recording proxy against bare
// node:http, measured in one run on loopback with autocannon, printed as ratios; and the cost
// of the §8 rate limiter: the platform plane with and without limits, same requests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { startSimulator } from '../simulator/simulator.ts';
import { RecordingProxy } from '../harness/proxy/recording-proxy.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

interface Result {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(name: string, url: string, options: Partial<autocannon.Options> = {}): Promise<Result> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, ...options });
  const bad = result.non2xx + result.errors + result.timeouts;
  return { name, requests: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: bad };
}

async function bareServer(): Promise<{ url: string; server: Server }> {
  const body = JSON.stringify({ thread_id: '00000000-0000-4000-8000-000000000000', status: 'idle', metadata: {}, values: {} });
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

async function main(): Promise<void> {
  const bare = await bareServer();
  const sim = await startSimulator({ seed: 'bench' });
  const base = sim.urls['agent-server']!;
  const created = (await (
    await fetch(`${base}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"metadata":{"bench":true}}' })
  ).json()) as { thread_id: string };
  const proxy = new RecordingProxy({ plane: 'agent-server', target: base, keep: false });
  const proxied = await proxy.start();

  console.log(`autocannon: ${CONNECTIONS} connections, ${SECONDS} s each, loopback, Node ${process.version}`);
  const results: Result[] = [];
  results.push(await measure('bare node:http (fixed JSON body)', bare.url));
  results.push(await measure('simulator GET /threads/{id}', `${base}/threads/${created.thread_id}`));
  results.push(await measure('proxy → simulator GET /threads/{id}', `${proxied}/threads/${created.thread_id}`));
  results.push(await measure('bare node:http (again, for drift)', bare.url));

  // The limiter's cost on its hot path: every request admitted, two rows counting it (the
  // /info IP row and the default x-api-key row), callers spread over 1000 keys and IPs so that
  // no counter fills on the frozen virtual clock. Limits off and on, then off again for drift.
  const unlimited = await startSimulator({ seed: 'bench', rateLimits: false, quiet: true });
  let n = 0;
  const rotating: Partial<autocannon.Options> = {
    requests: [
      {
        method: 'GET',
        path: '/info',
        setupRequest: (request) => {
          n = (n + 1) % 1000;
          return { ...request, headers: { ...request.headers, 'x-api-key': `bench-key-${n}`, 'x-forwarded-for': `10.0.${n >> 8}.${n & 255}` } };
        },
      },
    ],
  };
  // Alternated twice, so that drift on a busy machine falls on both sides.
  const platform: Result[] = [];
  for (const round of [1, 2]) {
    platform.push(await measure(`platform GET /info, rate limits off (round ${round})`, `${unlimited.urls['platform-api']}/info`, rotating));
    platform.push(await measure(`platform GET /info, rate limits on (round ${round})`, `${sim.urls['platform-api']}/info`, rotating));
  }

  const baseline = (results[0].requests + results[3].requests) / 2;
  console.log('\n| target | req/s | p50 ms | p99 ms | non-2xx+errors | bare ÷ target |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(`| ${r.name} | ${Math.round(r.requests)} | ${r.p50} | ${r.p99} | ${r.errors} | ${(baseline / r.requests).toFixed(2)}× |`);
  }
  const off = (platform[0].requests + platform[2].requests) / 2;
  const on = (platform[1].requests + platform[3].requests) / 2;
  console.log('\n| platform plane | req/s | p50 ms | p99 ms | non-2xx+errors | off ÷ target |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of platform) {
    console.log(`| ${r.name} | ${Math.round(r.requests)} | ${r.p50} | ${r.p99} | ${r.errors} | ${(off / r.requests).toFixed(2)}× |`);
  }
  console.log(`\nrate limiter cost: ${(off / on).toFixed(2)}× (mean req/s without limits ÷ with limits; 1.00× is free)`);
  await proxy.close();
  await unlimited.close();
  await sim.close();
  bare.server.close();
}

await main();
