// npm run bench [-- --quick] [-- --with-tests]: every speed and memory figure of the project,
// measured in one run on this machine and printed as a ratio beside its goal. Each server runs
// in a process of its own, started as a user starts it (`simulate`, `proxy`); the baselines
// (bare node:http, plain http-proxy with a keep-alive agent) are measured in the same run, so a
// busy machine moves both sides. Load comes from autocannon in this process, on loopback.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ingest, lookups } from './ingest.ts';
import { CLI, type Server, startProcess, urlIn } from './processes.ts';

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean' }, 'with-tests': { type: 'boolean' } } });
const QUICK = flags.quick === true;
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 2 : 5));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** Requests sent through the proxy for its memory figure, and how many of them carry a large body. */
const PROXY_SESSION = QUICK ? { requests: 20_000, large: 100 } : { requests: 1_000_000, large: 1_500 };
const LARGE_BODY_BYTES = 3 * 1024 * 1024;
const INGEST_RUNS = QUICK ? 100_000 : 1_000_000;
const MiB = 1024 * 1024;

interface Load {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  bad: number;
}

/** A row of the final table: what was measured, beside its goal. */
interface Row {
  measure: string;
  measured: string;
  goal: string;
  met: boolean | undefined;
}

const rows: Row[] = [];
const row = (measure: string, measured: string, goal: string, met: boolean | undefined) => rows.push({ measure, measured, goal, met });
const log = (line: string) => console.log(`[bench] ${line}`);
const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

/** Load for SECONDS after an untimed second of warm-up (the JIT, the keep-alive sockets). */
async function load(name: string, url: string, options: Partial<autocannon.Options> = {}): Promise<Load> {
  await autocannon({ url, connections: CONNECTIONS, duration: 1, ...options });
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, ...options });
  const measured = {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bad: result.non2xx + result.errors + result.timeouts,
  };
  log(`${name}: ${Math.round(measured.rps)} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms${measured.bad ? `, ${measured.bad} non-2xx or errors` : ''}`);
  return measured;
}

const simulate = (extra: string[] = []) => startProcess('simulate', [CLI, 'simulate', '--seed', 'bench', ...extra], /Ctrl-C to stop/);
const apiKeyOf = (sim: Server) => sim.lines.find((l) => l.startsWith('LANGSMITH_API_KEY='))!.split('=')[1];

/** Simulator and proxy throughput against bare node:http and plain http-proxy; then the proxy's memory over a long session. */
async function http(scratch: string): Promise<void> {
  const bare = await startProcess('bare node:http', ['bench/bare-server.mjs'], /^listening/);
  const sim = await simulate();
  const agent = urlIn(sim, /agent-server/);
  const plain = await startProcess('plain http-proxy', ['bench/plain-proxy.mjs', agent], /^listening/);
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
    log(`autocannon: ${CONNECTIONS} connections, ${SECONDS} s each, loopback, Node ${process.version}`);
    // Bare is measured before and after, and the two averaged, so that drift falls on both sides.
    const bareBefore = await load('bare node:http', urlIn(bare, /listening/));
    const simGet = await load('simulator GET /threads/{id}', `${agent}${read}`);
    const simPost = await load('simulator POST /threads {}', `${agent}/threads`, post);
    const plainGet = await load('plain http-proxy → simulator GET /threads/{id}', `${urlIn(plain, /listening/)}${read}`);
    const proxyGet = await load('proxy → simulator GET /threads/{id}', `${proxied}${read}`);
    const plainAgain = await load('plain http-proxy (again)', `${urlIn(plain, /listening/)}${read}`);
    const bareAfter = await load('bare node:http (again)', urlIn(bare, /listening/));
    const bareRps = (bareBefore.rps + bareAfter.rps) / 2;
    const plainRps = (plainGet.rps + plainAgain.rps) / 2;
    const share = (l: Load) => l.rps / bareRps;
    row('simulator GET /threads/{id}, share of bare node:http', share(simGet).toFixed(2), '≥ 0.60', share(simGet) >= 0.6);
    row('simulator POST /threads {}, share of bare node:http', share(simPost).toFixed(2), '≥ 0.45', share(simPost) >= 0.45);
    const added = proxyGet.p50 - Math.min(plainGet.p50, plainAgain.p50);
    row(
      'proxy against plain http-proxy (recording, validation on); added p50',
      `${(proxyGet.rps / plainRps).toFixed(2)}×; p50 ${proxyGet.p50} ms against ${plainGet.p50} ms`,
      '≥ 0.90×; added p50 ≤ 1 ms',
      proxyGet.rps / plainRps >= 0.9 && added <= 1,
    );

    // The proxy's memory over a long session: large bodies first (clipped in the recording),
    // then many small requests; recording streams to the HAR file, so RSS should stay flat.
    const before = proxy.rss();
    const blob = JSON.stringify({ metadata: { blob: 'x'.repeat(LARGE_BODY_BYTES) }, limit: 1 });
    log(`proxy session: ${PROXY_SESSION.large} requests of ${mib(blob.length)}, then ${PROXY_SESSION.requests} small ones`);
    await autocannon({
      url: `${proxied}/threads/search`,
      connections: 4,
      amount: PROXY_SESSION.large,
      method: 'POST',
      body: blob,
      headers: { 'content-type': 'application/json' },
    });
    const afterLarge = proxy.rss();
    let peak = afterLarge;
    const sampler = setInterval(() => {
      peak = Math.max(peak, proxy.rss());
    }, 500);
    await autocannon({ url: `${proxied}${read}`, connections: CONNECTIONS, amount: PROXY_SESSION.requests - PROXY_SESSION.large });
    clearInterval(sampler);
    const after = proxy.rss();
    peak = Math.max(peak, after);
    log(`proxy RSS: ${mib(before)} at start, ${mib(afterLarge)} after the large bodies, ${mib(after)} at the end (peak ${mib(peak)})`);
    row(
      `proxy RSS over ${PROXY_SESSION.requests.toLocaleString('en')} requests (${PROXY_SESSION.large} of 3 MiB)`,
      `${mib(peak)} peak, ${mib(after)} at the end`,
      '< 300 MiB after 1M requests',
      QUICK ? undefined : peak < 300 * MiB,
    );
  } finally {
    await Promise.all([proxy.stop(), plain.stop(), sim.stop(), bare.stop()]);
  }
}

/**
 * Multipart ingestion, then lookups at that size. Rate limits are off: the bench measures
 * the store, and §8's lookup row (30 per minute) would refuse most of the reads.
 */
async function ingestion(): Promise<void> {
  const sim = await simulate(['--no-rate-limits']);
  const target = { url: urlIn(sim, /platform-api /), apiKey: apiKeyOf(sim) };
  try {
    const warm = await ingest(target, 10_000);
    const small = await lookups(target, warm.sample);
    const rssBefore = sim.rss();
    log(`ingesting ${INGEST_RUNS.toLocaleString('en')} runs in batches of 100, 8 in flight`);
    const result = await ingest(target, INGEST_RUNS - warm.runs);
    const rssAfter = sim.rss();
    const large = await lookups(target, [...warm.sample, ...result.sample]);
    const perRun = (rssAfter - rssBefore) / result.runs;
    const total = warm.runs + result.runs;
    log(
      `ingestion: ${Math.round(result.runsPerSecond)} runs/s, p99 ${result.p99Ms.toFixed(1)} ms a batch, ${result.failures + warm.failures} failed batches${result.firstFailure ? ` (first: ${result.firstFailure})` : ''}; RSS ${mib(rssBefore)} → ${mib(rssAfter)}`,
    );
    log(
      `lookups at ${warm.runs.toLocaleString('en')} runs: read ${small.readMs.toFixed(2)} ms, trace query ${small.queryMs.toFixed(2)} ms; at ${total.toLocaleString('en')}: read ${large.readMs.toFixed(2)} ms, trace query ${large.queryMs.toFixed(2)} ms (${large.failures + small.failures} failed)`,
    );
    const projected = rssBefore + perRun * 1_000_000;
    row(
      'multipart ingestion, batches of 100, 8 in flight',
      `${Math.round(result.runsPerSecond).toLocaleString('en')} runs/s; p99 ${result.p99Ms.toFixed(1)} ms a batch`,
      '≥ 30k runs/s',
      result.runsPerSecond >= 30_000,
    );
    row(
      `RSS per run (${total.toLocaleString('en')} runs)`,
      `${(perRun / 1024).toFixed(2)} KB; ${mib(rssAfter)} at the end${QUICK ? `, ${mib(projected)} projected at 1M` : ''}`,
      '1M runs in ≤ 1 GiB',
      (QUICK ? projected : rssAfter) <= 1024 * MiB,
    );
    const slower = Math.max(large.readMs / small.readMs, large.queryMs / small.queryMs);
    row(
      `lookups at ${total.toLocaleString('en')} runs against 10,000 (read, trace query)`,
      `${large.readMs.toFixed(2)} / ${large.queryMs.toFixed(2)} ms against ${small.readMs.toFixed(2)} / ${small.queryMs.toFixed(2)} ms`,
      'stay fast (≤ 2× slower)',
      slower <= 2 && large.failures + small.failures === 0,
    );
  } finally {
    await sim.stop();
  }
}

/** A command's wall time, as a user runs it. */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv = {}): { seconds: number; status: number | null } {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: new URL('..', import.meta.url).pathname, stdio: 'ignore', env: { ...process.env, ...env } });
  return { seconds: (performance.now() - started) / 1000, status: result.status };
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'apc-bench-'));
  const started = performance.now();
  try {
    await http(scratch);
    await ingestion();
    if (QUICK) {
      row('first README command, embedded run of all planes', 'not measured with --quick', '≤ 25 s', undefined);
    } else {
      log('timing the first README command (embedded run of all planes)');
      const run = timed(process.execPath, [CLI, 'run', '--out', join(scratch, 'report')]);
      row(
        'first README command, embedded run of all planes',
        `${run.seconds.toFixed(1)} s (exit ${run.status})`,
        '≤ 25 s',
        run.seconds <= 25 && run.status === 0,
      );
    }
    if (flags['with-tests']) {
      log('timing npm test');
      const test = timed('npm', ['test']);
      row(
        'npm test',
        `${(test.seconds / 60).toFixed(1)} min (exit ${test.status})`,
        '≤ 12 min with the real-target run',
        test.seconds <= 720 && test.status === 0,
      );
    } else {
      row('npm test', 'timed with --with-tests', '≤ 12 min with the real-target run', undefined);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const mark = (met: boolean | undefined) => (met === undefined ? '–' : met ? 'met' : 'NOT MET');
  console.log(
    `\nbench${QUICK ? ' --quick' : ''}: ${((performance.now() - started) / 1000).toFixed(0)} s, ${CONNECTIONS} connections, Node ${process.version}\n`,
  );
  console.log('| measure | measured | goal | |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.measure} | ${r.measured} | ${r.goal} | ${mark(r.met)} |`);
}

await main();
