// npm run long-run [-- --minutes 20 --latency 200 --workers 1]: a conformance run against a slow
// target, for as long as a user's run against a real service may take, and the memory of every
// process meanwhile. The target is `simulate` (real clock, no admin path: a target without capabilities,
// as in tests/real-target) with a `proxy --latency <ms>` in front of each plane, so that every answer
// comes that much later. `run --target` goes through those proxies; runs follow one another until
// --minutes have passed (the last one is stopped there by its --max-duration). Every 5 s the RSS of each process of the run's tree (the CLI, Playwright's
// main process, which holds the recording proxies and the exchanges, its workers) and of each proxy
// is sampled, beside the exchanges recorded so far (the proxies' HAR lines). Printed: RSS per
// process at each minute, then per process the medians of its first and last windows after a
// warm-up minute (bench/trend.ts), the slope per hour, the growth split between time and the
// exchanges recorded meanwhile (a least-squares fit over the second half of each life of 8 minutes
// or more), and the processes whose fit says time alone would add 10% in 4 hours, to look at in
// the table: a fit over minutes is no proof of hours (a one-off step, such as a 20 MiB request body
// held after its refusal, reads as a slope), so it names them and does not fail. Not part of CI: it
// takes as long as it is told.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify as toYaml } from 'yaml';
import { freePort } from '../harness/target.ts';
import { credentialsOf } from '../tests/self-test/stand-in.ts';
import { CLI, rssOf, type Server, startProcess, statFields, urlIn } from './processes.ts';
import { MiB } from './table.ts';
import { attribute, type Sample, type Trend, trend } from './trend.ts';

const { values } = parseArgs({ options: { minutes: { type: 'string' }, latency: { type: 'string' }, workers: { type: 'string' } } });
const MINUTES = Number(values.minutes ?? 20);
const LATENCY_MS = Number(values.latency ?? 200);
/** One worker by default: a run twice as long, and its tree measured over more of it. */
const WORKERS = values.workers ?? '1';
/** The simulator's time runs this much faster than the wall clock, as in tests/real-target: builds and cron minutes in seconds. */
const TIME_SCALE = 5;
const SAMPLE_MS = 5000;
const WARM_UP_MS = 60_000;
/** The shortest life whose growth with time is judged (its second half fitted). */
const MIN_JUDGED_MS = 8 * 60_000;
const log = (line: string) => console.log(`[long-run] ${line}`);
const mib = (bytes: number) => (bytes / MiB).toFixed(0);

/** A process measured: its samples from its first sight on. */
interface Measured {
  label: string;
  pid: number;
  samples: Sample[];
}

const began = Date.now();
const measured = new Map<number, Measured>();
/** Exchanges recorded by the proxies, at each sample. */
const recorded: { at: number; exchanges: number }[] = [];

/** Every process below `root` (Linux /proc), with its parent. */
function descendants(root: number): { pid: number; ppid: number }[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        return [{ pid: Number(name), ppid: Number(statFields(Number(name))[1]) }];
      } catch {
        return [];
      }
    });
  const below = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) if (below.has(p.ppid) && !below.has(p.pid)) grew = below.add(p.pid).size > 0;
  }
  return all.filter((p) => p.pid !== root && below.has(p.pid));
}

/** What a process of the run's tree is, from its command line. */
function roleOf(pid: number, parent: number, cli: number): string {
  let command = '';
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return 'gone';
  }
  if (parent === cli && command.includes('playwright')) return 'playwright';
  if (command.includes('node') && parent !== cli) return 'worker';
  return command.split(' ')[0]!.split('/').at(-1)!;
}

function sample(label: string, pid: number, at: number): void {
  let rss: number;
  try {
    rss = rssOf(pid);
  } catch {
    return; // It ended between the listing and the reading.
  }
  if (!Number.isFinite(rss)) return;
  const m = measured.get(pid) ?? { label, pid, samples: [] };
  measured.set(pid, m);
  m.samples.push({ at, rss });
}

/** Exchanges in a proxy's HAR so far: it writes one a line, after a line that opens the document. */
function harEntries(file: string): number {
  let buffer: Buffer;
  try {
    buffer = readFileSync(file);
  } catch {
    return 0;
  }
  let lines = 0;
  for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) lines++;
  return lines;
}

const scratch = mkdtempSync(join(tmpdir(), 'apc-long-run-'));
const receiverPort = await freePort();
// The deployment's configuration lets the webhook rules run, with the run's receiver as an allowed destination.
writeFileSync(
  join(scratch, 'langgraph.json'),
  JSON.stringify({ webhooks: { url: { allowed_domains: ['127.0.0.1'], allowed_ports: [receiverPort], max_url_length: 2048, disable_loopback: true } } }),
);
const sim = await startProcess(
  'simulate',
  [
    CLI,
    'simulate',
    '--seed',
    'long-run',
    '--clock',
    'real',
    '--time-scale',
    String(TIME_SCALE),
    '--no-admin',
    '--log-level',
    'warn',
    '--config',
    join(scratch, 'langgraph.json'),
  ],
  /Ctrl-C to stop/,
);
const planes = ['agent-server', 'control-plane', 'platform-api', 'platform-api-eu'] as const;
const keyOf = (role: string) =>
  sim.lines
    .find((l) => l.includes(` ${role}: `))!
    .trim()
    .split(/\s+/)[1]!;
const workspaceOf = (name: string) => new RegExp(`${name} \\(([0-9a-f-]{36})\\)`).exec(sim.lines.join('\n'))![1]!;
const proxies: Server[] = [];
const target: Record<string, string> = {};
for (const plane of planes) {
  const har = join(scratch, `${plane}.har`);
  // The proxy knows one platform API plane, of either region.
  const args = ['proxy', '--target', urlIn(sim, new RegExp(`\\] ${plane} `)), '--plane', plane === 'platform-api-eu' ? 'platform-api' : plane];
  // --latency 0 measures the same run against a fast target, for comparison.
  const latency = LATENCY_MS > 0 ? ['--latency', String(LATENCY_MS)] : [];
  const proxy = await startProcess(`proxy ${plane}`, [CLI, ...args, ...latency, '--quiet', '--har', har], /→/);
  proxies.push(proxy);
  target[plane] = urlIn(proxy, /→/);
}
const printed = {
  keys: Object.fromEntries(['primary', 'second-workspace', 'multi-workspace', 'org-scoped', 'eu-primary'].map((role) => [role, keyOf(role)])),
  workspaces: Object.fromEntries(['apc-alpha', 'apc-beta', 'apc-eu'].map((name) => [name, workspaceOf(name)])),
  bearer: /Authorization: Bearer (\S+)/.exec(sim.lines.join('\n'))![1]!,
};
const { credentials, env } = credentialsOf(printed);
const config = join(scratch, 'target.yaml');
writeFileSync(
  config,
  toYaml({
    name: `simulate behind proxy --latency ${LATENCY_MS}`,
    planes: target,
    api_key_env: 'APC_KEY',
    capabilities: [],
    time_scale: TIME_SCALE,
    deployment_config: 'langgraph.json',
    credentials,
  }),
);

/** One `run --target`, its tree sampled with the proxies every 5 s until it exits. */
async function run(index: number): Promise<void> {
  const out = join(scratch, `report-${index}`);
  // A run still going at the end of the measurement is stopped there (it writes its partial report).
  const left = Math.max(60, Math.round((MINUTES * 60_000 - (Date.now() - began)) / 1000));
  const args = [
    CLI,
    'run',
    '--target',
    config,
    '--workers',
    WORKERS,
    '--webhook-receiver-port',
    String(receiverPort),
    '--max-duration',
    String(left),
    '--quiet',
    '--out',
    out,
  ];
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const tick = () => {
    const at = Date.now() - began;
    sample(`run ${index}: cli`, child.pid!, at);
    for (const p of descendants(child.pid!)) {
      let label = measured.get(p.pid)?.label ?? `run ${index}: ${roleOf(p.pid, p.ppid, child.pid!)}`;
      // Workers are numbered in the order they appeared: Playwright replaces one after a failed test.
      if (label === `run ${index}: worker`) label += ` ${[...measured.values()].filter((m) => m.label.startsWith(label)).length + 1}`;
      sample(label, p.pid, at);
    }
    for (const proxy of proxies) sample(proxy.name, proxy.child.pid!, at);
    recorded.push({ at, exchanges: planes.reduce((sum, plane) => sum + harEntries(join(scratch, `${plane}.har`)), 0) });
    // A line a minute, so that a run of hours shows its trend as it goes.
    if (Math.floor(at / 60_000) > Math.floor((recorded.at(-2)?.at ?? -1) / 60_000)) {
      const live = [...measured.values()].filter((m) => m.samples.at(-1)!.at === at);
      log(
        `min ${Math.floor(at / 60_000)}: ${recorded.at(-1)!.exchanges} exchanges; RSS MiB ${live.map((m) => `${m.label} ${mib(m.samples.at(-1)!.rss)}`).join(', ')}`,
      );
    }
  };
  tick();
  const sampler = setInterval(tick, SAMPLE_MS);
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  clearInterval(sampler);
  log(
    `run ${index} ended after ${((Date.now() - began) / 60_000).toFixed(1)} min (exit ${code})${code === 0 || code === 1 || code === 3 ? '' : `:\n${stderr.slice(-2000)}`}`,
  );
}

try {
  log(
    `${MINUTES} min of runs (${WORKERS} worker(s)) against simulate --clock real --time-scale ${TIME_SCALE} behind proxy --latency ${LATENCY_MS}; RSS every ${SAMPLE_MS / 1000} s`,
  );
  for (let index = 1; index === 1 || Date.now() - began < (MINUTES - 1) * 60_000; index++) await run(index);
  report();
  log(`reports and the proxies' HARs: ${scratch}`);
} finally {
  await Promise.all([...proxies.map((p) => p.stop()), sim.stop()]);
}

function report(): void {
  const processes = [...measured.values()].filter((m) => m.samples.length > 1);
  const minutes = Math.floor(recorded.at(-1)!.at / 60_000);
  const at = (m: Measured, minute: number) => m.samples.find((s) => s.at >= minute * 60_000 && s.at < (minute + 1) * 60_000)?.rss;
  console.log(`\nRSS (MiB) at each minute, with the exchanges the proxies recorded so far\n`);
  console.log(`| min | exchanges | ${processes.map((m) => m.label).join(' | ')} |`);
  console.log(`|---:|---:|${processes.map(() => '---:|').join('')}`);
  for (let minute = 0; minute <= minutes; minute++) {
    const exchanges = recorded.find((r) => r.at >= minute * 60_000)?.exchanges ?? '';
    console.log(`| ${minute} | ${exchanges} | ${processes.map((m) => (at(m, minute) === undefined ? '' : mib(at(m, minute)!))).join(' | ')} |`);
  }
  console.log(`\nTrend after a warm-up minute: medians of the first and last windows (a minute each, or a quarter of a shorter life)\n`);
  // Growth per exchange recorded meanwhile tells what the run keeps of its own data (bounded by its
  // tests) from what grows with time.
  const exchangesAt = (at: number) => recorded.filter((r) => r.at <= at).at(-1)?.exchanges ?? 0;
  const sign = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(1)}`;
  const perExchanges = (t: Trend) => {
    const exchanges = exchangesAt(t.to) - exchangesAt(t.from);
    return exchanges > 0 ? `${sign((1000 * (t.end - t.start)) / exchanges / MiB)} MiB` : '–';
  };
  console.log(
    '| process | measured | first window | last window | growth | per hour | in 4 h at that slope | per 1,000 exchanges | second half: with time alone, per hour | second half: per 1,000 exchanges at a fixed time |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const growing: string[] = [];
  for (const m of processes) {
    const kept = m.samples.filter((s) => s.at >= m.samples[0]!.at + WARM_UP_MS);
    const span = kept.length > 1 ? kept.at(-1)!.at - kept[0]!.at : 0;
    if (span < 4 * SAMPLE_MS) {
      console.log(`| ${m.label} | ${(span / 60_000).toFixed(1)} min | too short a life for a trend | | | | | |`);
      continue;
    }
    const t = trend(kept, Math.min(60_000, span / 4));
    // Growing is what a session of hours would pile up with time alone: 10% or more in 4 hours, in
    // the second half of a life of MIN_JUDGED_MS or more (a warm-up settles in the first half; what
    // lasts goes on in the second; a few minutes' fit says nothing of hours).
    const half = kept.filter((s) => s.at >= kept[0]!.at + span / 2);
    const split = span >= MIN_JUDGED_MS ? attribute(half, exchangesAt) : undefined;
    if (split && 4 * split.perHour >= 0.1 * t.start) growing.push(m.label);
    const alone = split ? `${sign(split.perHour / MiB)} MiB | ${sign(split.perThousandExchanges / MiB)} MiB` : 'too short a life to judge | ';
    console.log(
      `| ${m.label} | ${(span / 60_000).toFixed(1)} min | ${mib(t.start)} MiB | ${mib(t.end)} MiB | ${sign(100 * t.growth)}% | ${sign(t.perHour / MiB)} MiB | ${mib(t.start + 4 * t.perHour)} MiB | ${perExchanges(t)} | ${alone} |`,
    );
  }
  const exchanges = recorded.at(-1)!.exchanges;
  log(`${exchanges} exchanges recorded in ${(recorded.at(-1)!.at / 60_000).toFixed(1)} min`);
  log(
    growing.length > 0
      ? `to look at in the table: ${growing.join(', ')} (a second-half fit gives 10% or more in 4 hours with time alone, the recordings held fixed)`
      : 'flat: with the recordings held fixed, no process would grow by 10% in 4 hours; what grows with the exchanges a run records is bounded by its tests',
  );
}
