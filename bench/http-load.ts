// HTTP throughput and latency: the simulator against bare node:http, the proxy against plain
// http-proxy with a keep-alive agent (both measured in the same run, so a busy machine moves both
// sides), then the proxy's memory over a long session. Load comes from autocannon in this process.
import { join } from 'node:path';
import autocannon from 'autocannon';
import { CLI, type Server, simulate, startProcess, urlIn } from './processes.ts';
import { log, MiB, mib, row } from './table.ts';

interface LoadOptions {
  quick: boolean;
  /** Seconds of load per measure, after an untimed second of warm-up. */
  seconds: number;
  connections: number;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  /** The server's CPU time per request, user and system, in µs, where it was measured. */
  cpuUs?: number;
}

/**
 * The busy time per request of the yardstick (plain http-proxy made to wait that long after each
 * answer): what the recording may cost in all for the proxy to reach 0.9× on a machine like CI's.
 */
const YARDSTICK_BUSY_US = 10;

const LARGE_BODY_BYTES = 3 * 1024 * 1024;

/**
 * Load for `seconds` after an untimed second of warm-up (the JIT, the keep-alive sockets); with
 * `server`, the CPU that process spent per request too.
 */
async function load(name: string, url: string, options: LoadOptions, request: Partial<autocannon.Options> = {}, server?: Server): Promise<Load> {
  await autocannon({ url, connections: options.connections, duration: 1, ...request });
  const cpuBefore = server?.cpuSeconds() ?? 0;
  const result = await autocannon({ url, connections: options.connections, duration: options.seconds, ...request });
  const cpuUs = server && ((server.cpuSeconds() - cpuBefore) / result.requests.total) * 1e6;
  const measured = { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUs };
  const bad = result.non2xx + result.errors + result.timeouts;
  const cpu = cpuUs === undefined ? '' : `, ${cpuUs.toFixed(0)} µs CPU a request`;
  log(`${name}: ${Math.round(measured.rps)} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms${cpu}${bad ? `, ${bad} non-2xx or errors` : ''}`);
  return measured;
}

/** Throughput and p99 of a load, as the table shows them. */
const figures = (l: Load) => `${Math.round(l.rps).toLocaleString('en')} req/s, p99 ${l.p99} ms`;
const cpu = (l: Load) => `${l.cpuUs?.toFixed(0)} µs CPU a request`;

export async function httpLoad(scratch: string, options: LoadOptions): Promise<void> {
  /** Requests sent through the proxy for its memory figure, and how many of them carry a large body. */
  const session = options.quick ? { requests: 20_000, large: 100 } : { requests: 1_000_000, large: 1_500 };
  const bare = await startProcess('bare node:http', ['bench/bare-server.mjs'], /^listening/);
  const sim = await simulate();
  const agent = urlIn(sim, /agent-server/);
  const plain = await startProcess('plain http-proxy', ['bench/plain-proxy.mjs', agent], /^listening/);
  const yardstick = await startProcess('plain http-proxy, busy', ['bench/plain-proxy.mjs', agent, String(YARDSTICK_BUSY_US)], /^listening/);
  const proxy = await startProcess('proxy', [CLI, 'proxy', '--target', agent, '--plane', 'agent-server', '--quiet', '--har', join(scratch, 'bench.har')], /→/);
  const proxied = urlIn(proxy, /→/);
  try {
    const thread = (await (
      await fetch(`${agent}/threads`, { method: 'POST', body: '{"metadata":{"bench":true}}', headers: { 'content-type': 'application/json' } })
    ).json()) as {
      thread_id: string;
    };
    const read = `/threads/${thread.thread_id}`;
    const post: Partial<autocannon.Options> = { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } };
    log(`autocannon: ${options.connections} connections, ${options.seconds} s each, loopback, Node ${process.version}`);
    // Bare is measured before and after, and the two averaged, so that drift falls on both sides.
    const bareBefore = await load('bare node:http', urlIn(bare, /listening/), options);
    const simGet = await load('simulator GET /threads/{id}', `${agent}${read}`, options);
    const simPost = await load('simulator POST /threads {}', `${agent}/threads`, options, post);
    const plainGet = await load('plain http-proxy → simulator GET /threads/{id}', `${urlIn(plain, /listening/)}${read}`, options, {}, plain);
    const proxyGet = await load('proxy → simulator GET /threads/{id}', `${proxied}${read}`, options, {}, proxy);
    const plainAgain = await load('plain http-proxy (again)', `${urlIn(plain, /listening/)}${read}`, options, {}, plain);
    const busyGet = await load(`plain http-proxy, ${YARDSTICK_BUSY_US} µs busy a request`, `${urlIn(yardstick, /listening/)}${read}`, options, {}, yardstick);
    const bareAfter = await load('bare node:http (again)', urlIn(bare, /listening/), options);
    const bareLoad = average(bareBefore, bareAfter);
    const plainLoad = average(plainGet, plainAgain);
    const share = (l: Load) => l.rps / bareLoad.rps;
    row(
      'simulator GET /threads/{id}, share of bare node:http',
      `${share(simGet).toFixed(2)}: ${figures(simGet)}; bare ${figures(bareLoad)}`,
      '≥ 0.60',
      share(simGet) >= 0.6,
    );
    row(
      'simulator POST /threads {}, share of bare node:http',
      `${share(simPost).toFixed(2)}: ${figures(simPost)}; bare ${figures(bareLoad)}`,
      '≥ 0.45',
      share(simPost) >= 0.45,
    );
    const added = proxyGet.p50 - Math.min(plainGet.p50, plainAgain.p50);
    row(
      'proxy against plain http-proxy (recording, validation on); added p50',
      `${(proxyGet.rps / plainLoad.rps).toFixed(2)}×: ${figures(proxyGet)}, p50 ${proxyGet.p50} ms, ${cpu(proxyGet)}; plain ${figures(plainLoad)}, p50 ${plainGet.p50} ms, ${cpu(plainLoad)}`,
      '≥ 0.90×; added p50 ≤ 1 ms',
      proxyGet.rps / plainLoad.rps >= 0.9 && added <= 1,
    );
    // No goal: it says what the goal above asks of the recording on this machine.
    row(
      `yardstick: plain http-proxy with ${YARDSTICK_BUSY_US} µs busy a request, against plain`,
      `${(busyGet.rps / plainLoad.rps).toFixed(2)}×: ${figures(busyGet)}, ${cpu(busyGet)}`,
      '–',
      undefined,
    );

    // The proxy's memory over a long session: large bodies first (clipped in the recording),
    // then many small requests; recording streams to the HAR file, so RSS should stay flat.
    const before = proxy.rss();
    const blob = JSON.stringify({ metadata: { blob: 'x'.repeat(LARGE_BODY_BYTES) }, limit: 1 });
    log(`proxy session: ${session.large} requests of ${mib(blob.length)}, then ${session.requests} small ones`);
    await autocannon({
      url: `${proxied}/threads/search`,
      connections: 4,
      amount: session.large,
      method: 'POST',
      body: blob,
      headers: { 'content-type': 'application/json' },
    });
    const afterLarge = proxy.rss();
    let peak = afterLarge;
    const sampler = setInterval(() => {
      peak = Math.max(peak, proxy.rss());
    }, 500);
    await autocannon({ url: `${proxied}${read}`, connections: options.connections, amount: session.requests - session.large });
    clearInterval(sampler);
    const after = proxy.rss();
    peak = Math.max(peak, after);
    log(`proxy RSS: ${mib(before)} at start, ${mib(afterLarge)} after the large bodies, ${mib(after)} at the end (peak ${mib(peak)})`);
    row(
      `proxy RSS over ${session.requests.toLocaleString('en')} requests (${session.large} of 3 MiB)`,
      `${mib(peak)} peak, ${mib(after)} at the end`,
      '< 300 MiB after 1M requests',
      options.quick ? undefined : peak < 300 * MiB,
    );
  } finally {
    await Promise.all([proxy.stop(), plain.stop(), yardstick.stop(), sim.stop(), bare.stop()]);
  }
}

/** Two measures of one server, one before and one after the others: throughput and p99 averaged. */
function average(a: Load, b: Load): Load {
  const cpuUs = a.cpuUs !== undefined && b.cpuUs !== undefined ? (a.cpuUs + b.cpuUs) / 2 : undefined;
  return { rps: (a.rps + b.rps) / 2, p50: (a.p50 + b.p50) / 2, p99: (a.p99 + b.p99) / 2, cpuUs };
}
