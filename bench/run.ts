// npm run bench [-- --quick] [-- --with-tests] [-- --with-ci] [-- --only http|ingestion|runs|tests] [-- --help]: every speed and memory figure of
// the project, measured in one run on this machine and printed as a ratio beside its goal. Each
// server runs in a process of its own, started as a user starts it (`simulate`, `proxy`); the
// baselines (bare node:http, plain http-proxy with a keep-alive agent, the run's recorded requests
// replayed without the harness) are measured in the same run, so a busy machine moves both sides.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ciOnFreshClone, timed } from './commands.ts';
import { httpLoad } from './http-load.ts';
import { ingest, lookups } from './ingest.ts';
import { CLI, type Server, simulate, urlIn } from './processes.ts';
import { runFloor } from './run-floor.ts';
import { log, MiB, mib, printTable, row } from './table.ts';

/** The groups of rows, in the order they run; `--only` picks some, to measure one change without the rest. */
const GROUPS = ['http', 'ingestion', 'runs', 'tests'] as const;
const USAGE = `Usage: npm run bench [-- options]

Measures every speed and memory figure of the project on this machine, each beside its goal and
a baseline measured in the same run.

Options:
  --quick          shorter loads, 100,000 runs instead of 1,000,000 (memory projected to 1M), no runs group
  --only <group>   measure one group of rows: ${GROUPS.join(', ')}; repeatable
  --with-tests     also time npm test (minutes)
  --with-ci        also time .ci/run on a fresh clone (minutes)
  -h, --help       this help

Environment: BENCH_SECONDS (each load's length, default 5, 2 with --quick), BENCH_CONNECTIONS (default 10).`;

/** The command line's flags; a usage error exits 2 with the usage, as the CLI's do. */
function readFlags() {
  try {
    return parseArgs({
      options: {
        quick: { type: 'boolean' },
        'with-tests': { type: 'boolean' },
        'with-ci': { type: 'boolean' },
        only: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    console.error(`bench: ${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}
const flags = readFlags();
if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}
const unknown = (flags.only ?? []).filter((group) => !(GROUPS as readonly string[]).includes(group));
if (unknown.length > 0) {
  console.error(`bench: unknown --only ${unknown.join(', ')}; the groups are ${GROUPS.join(', ')}`);
  process.exit(2);
}
const measures = (group: (typeof GROUPS)[number]) => !flags.only || flags.only.includes(group);
const QUICK = flags.quick === true;
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 2 : 5));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const INGEST_RUNS = QUICK ? 100_000 : 1_000_000;

const apiKeyOf = (sim: Server) => sim.lines.find((l) => l.startsWith('LANGSMITH_API_KEY='))!.split('=')[1];

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

/** The embedded run against its floor, and the rate-limit suites alone; not measured with --quick (minutes). */
async function runs(scratch: string): Promise<void> {
  const readme = 'first README command, embedded run of all planes';
  const floorMeasure = 'the run against its floor: its recorded requests replayed one at a time, keep-alive, fresh simulator';
  const rate = '`run --grep @RATE-` (the rate-limit suites alone)';
  if (QUICK) {
    row(readme, 'not measured with --quick', '≤ 25 s', undefined);
    row(floorMeasure, 'not measured with --quick', '≤ 10× the recorded floor', undefined);
    row(rate, 'not measured with --quick', '–', undefined);
    return;
  }
  const { run, floor, replayed, deliveries, elsewhere } = await runFloor(scratch);
  row(readme, `${run.seconds.toFixed(1)} s (exit ${run.status})`, '≤ 25 s', run.seconds <= 25 && run.status === 0);
  const ratio = run.seconds / floor.seconds;
  row(
    floorMeasure,
    `${ratio.toFixed(1)}×: floor ${floor.seconds.toFixed(2)} s for ${replayed.toLocaleString('en')} requests (${floor.sameStatus.toLocaleString('en')} answered with the recorded status, ${floor.timedOut} still waiting after 1 s, not counted; left out: ${deliveries} webhook deliveries, ${elsewhere} to other bases, the /__sim calls)`,
    '≤ 10× the recorded floor',
    ratio <= 10,
  );
  log('timing run --grep @RATE-');
  const rateRun = timed(process.execPath, [CLI, 'run', '--grep', '@RATE-', '--out', join(scratch, 'rate-report')]);
  row(rate, `${rateRun.seconds.toFixed(1)} s (exit ${rateRun.status})`, '–', undefined);
}

/** npm test with --with-tests, the whole of CI with --with-ci: each takes minutes. */
function tests(scratch: string): void {
  if (flags['with-tests']) {
    log('timing npm test');
    const test = timed('npm', ['test']);
    row('npm test', `${(test.seconds / 60).toFixed(1)} min (exit ${test.status})`, '≤ 5 min', test.seconds <= 300 && test.status === 0);
  } else {
    row('npm test', 'timed with --with-tests', '≤ 5 min', undefined);
  }
  if (flags['with-ci']) {
    log('timing bash .ci/run on a fresh clone');
    const ci = ciOnFreshClone(scratch);
    row(
      '`bash .ci/run` on a fresh clone (lint, npm test, all mutations)',
      `${(ci.seconds / 60).toFixed(1)} min (exit ${ci.status})`,
      '≤ 10 min',
      ci.seconds <= 600 && ci.status === 0,
    );
  } else {
    row('`bash .ci/run` on a fresh clone (lint, npm test, all mutations)', 'timed with --with-ci', '≤ 10 min', undefined);
  }
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'apc-bench-'));
  const started = performance.now();
  try {
    if (measures('http')) await httpLoad(scratch, { quick: QUICK, seconds: SECONDS, connections: CONNECTIONS });
    if (measures('ingestion')) await ingestion();
    if (measures('runs')) await runs(scratch);
    if (measures('tests')) tests(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  printTable(
    `bench${QUICK ? ' --quick' : ''}${flags.only ? ` --only ${flags.only.join(' ')}` : ''}: ${((performance.now() - started) / 1000).toFixed(0)} s, ${CONNECTIONS} connections, Node ${process.version}`,
  );
}

await main();
