// npm run soak [-- --minutes 10]: mixed load for a long while against `simulate` and, at the same
// time, through `proxy` in front of it; each in a process of its own, as a user starts them.
// Passes with 0 errors (non-2xx, timeouts, dropped connections) and RSS growth under 10% per
// process. RSS is sampled every second after a warm-up minute; growth compares the median of the
// last minute's samples with the median of the first minute's (bench/trend.ts says why). Not part
// of CI: it takes minutes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { CLI, type Server, simulate, startProcess, urlIn } from './processes.ts';
import { median } from './trend.ts';

const { values } = parseArgs({ options: { minutes: { type: 'string' } } });
const MINUTES = Number(values.minutes ?? 10);
const WARM_UP_S = Math.min(60, MINUTES * 6);
const MiB = 1024 * 1024;
const log = (line: string) => console.log(`[soak] ${line}`);

/**
 * One client's round: a thread is created, read, run to the end, searched for and deleted, so
 * the simulator's state stays the same size and any growth is a leak.
 */
// autocannon's per-connection context is untyped; the round keeps the thread it created there.
type Context = { thread?: string };
const round: autocannon.Request[] = [
  {
    method: 'POST',
    path: '/threads',
    body: '{"metadata":{"soak":true}}',
    headers: { 'content-type': 'application/json' },
    onResponse: (_status, body, context) => {
      (context as Context).thread = (JSON.parse(body) as { thread_id: string }).thread_id;
    },
  },
  { method: 'GET', setupRequest: (req, context) => ({ ...req, path: `/threads/${(context as Context).thread}` }) },
  {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupRequest: (req, context) => ({
      ...req,
      path: `/threads/${(context as Context).thread}/runs/wait`,
      body: '{"assistant_id":"agent","input":{"topic":"soak"}}',
    }),
  },
  { method: 'GET', setupRequest: (req, context) => ({ ...req, path: `/threads/${(context as Context).thread}/state` }) },
  { method: 'POST', path: '/threads/search', body: '{"metadata":{"soak":true},"limit":5}', headers: { 'content-type': 'application/json' } },
  { method: 'DELETE', setupRequest: (req, context) => ({ ...req, path: `/threads/${(context as Context).thread}` }) },
];

/** One RSS sample a second for each process, taken once the warm-up is over. */
interface Sampled {
  server: Server;
  samples: number[];
}

async function soak(url: string, seconds: number): Promise<autocannon.Result> {
  return autocannon({ url, connections: 4, duration: seconds, requests: round });
}

const scratch = mkdtempSync(join(tmpdir(), 'apc-soak-'));
// Rate limits off: the load is far above §8's rows on purpose, and a 429 would count as an error.
const sim = await simulate(['--no-rate-limits'], 'soak');
const agent = urlIn(sim, /agent-server/);
const proxy = await startProcess('proxy', [CLI, 'proxy', '--target', agent, '--plane', 'agent-server', '--quiet', '--har', join(scratch, 'soak.har')], /→/);
const proxied = urlIn(proxy, /→/);
try {
  log(`${MINUTES} min of mixed load (4 connections direct, 4 through the proxy); warm-up ${WARM_UP_S} s`);
  await Promise.all([soak(agent, WARM_UP_S), soak(proxied, WARM_UP_S)]);
  const sampled: Sampled[] = [sim, proxy].map((server) => ({ server, samples: [server.rss()] }));
  const sampler = setInterval(() => {
    for (const s of sampled) s.samples.push(s.server.rss());
  }, 1000);
  const seconds = MINUTES * 60 - WARM_UP_S;
  // A minute at each end, or a quarter of the measured time on a short soak.
  const window = Math.max(1, Math.min(60, Math.floor(seconds / 4)));
  const [direct, through] = await Promise.all([soak(agent, seconds), soak(proxied, seconds)]);
  clearInterval(sampler);
  let failed = false;
  for (const [name, result] of [
    ['direct', direct],
    ['proxy', through],
  ] as const) {
    const errors = result.non2xx + result.errors + result.timeouts;
    failed ||= errors > 0;
    log(`${name}: ${result.requests.total} requests, ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, ${errors} errors`);
  }
  for (const s of sampled) {
    const start = median(s.samples.slice(0, window));
    const end = median(s.samples.slice(-window));
    const growth = (end - start) / start;
    failed ||= growth >= 0.1;
    const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;
    log(
      `${s.server.name} RSS, median of ${window} s: ${mib(start)} after warm-up, ${mib(end)} at the end (${(100 * growth).toFixed(1)}%); ` +
        `range ${mib(Math.min(...s.samples))} to ${mib(Math.max(...s.samples))} over ${s.samples.length} samples`,
    );
  }
  log(failed ? 'FAILED: errors, or RSS grew by 10% or more' : 'passed: 0 errors, RSS growth under 10%');
  process.exitCode = failed ? 1 : 0;
} finally {
  await Promise.all([proxy.stop(), sim.stop()]);
}
