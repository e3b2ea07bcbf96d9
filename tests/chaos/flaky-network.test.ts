// A flaky network never turns into a failed rule. Every plane of the simulator is put behind the
// recording proxy's chaos mode (503s with Retry-After, resets and latency jitter, from a seed),
// and the suites (but the rate-limit table's rows, NARROWED) are run through it, each plane's proxy
// with a seed of its own. Each run must give the verdicts of the same run without chaos, except for
// rules it could not judge (`error`): a transient fault that the client could not safely send a
// request again past. No rule may fail that passes clean.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { ENDPOINTS, type Endpoint, planeOf } from '../../specs/contract.ts';
import type { ChaosCounts, ChaosOptions } from '../../harness/proxy/chaos.ts';
import { RecordingProxy } from '../../harness/proxy/recording-proxy.ts';
import { TRANSIENT_FAULT } from '../../harness/retry.ts';
import type { ConformanceReport, Verdict } from '../../reports/conformance-report.ts';
import { retriesLine } from '../../reports/retries.ts';
import { startSimulator } from '../../simulator/start-simulator.ts';
import { conformanceRun, SELF_TEST_RUN } from '../self-test/run-cli.ts';

/**
 * Twice the issue's floor (at least 2% 503s and 1% resets, with jitter), in one run of every plane,
 * each plane's proxy with a seed of its own: as many faults as two runs at the floor met, at the
 * cost of one. The 503s ask for Retry-After: 0, so the run is sent again at once: that the wait a
 * Retry-After asks for is waited is harness/retry.test.ts's to show, and a second per 503 made
 * this run wait minutes.
 */
const CHAOS = { unavailableRate: 0.04, resetRate: 0.02, jitterMs: 20, retryAfterSeconds: 0 } satisfies Omit<ChaosOptions, 'seed'>;
const SEEDS: { seed: string; args: string[] }[] = [{ seed: 'flaky-1', args: [] }];
/**
 * Both runs leave out the §8 table's rows: their fills, some 100,000 requests, were four fifths of the proof's
 * work, and they are the same code (Traffic.fill) as the fills of the rate-limit rules, which the chaos meets here.
 */
const NARROWED = ['--grep-invert', 'rate-limits-table'];

interface ChaosRun {
  report: ConformanceReport;
  /** What each plane's chaos mode did, summed; none for the clean run. */
  faults?: ChaosCounts;
  stdout: string;
  /** The run's report folder. */
  out: string;
  code: number | null;
}

/**
 * The suites against a fresh simulator (the same seed every time, on its virtual clock): with
 * `chaos`, every plane behind a recording proxy of its own in chaos mode; without, straight.
 */
async function runBehind(name: string, chaos: ChaosOptions | undefined, args: string[] = []): Promise<ChaosRun> {
  await using sim = await startSimulator({ seed: 'flaky-network', clock: 'virtual', logLevel: 'error' });
  const proxies = new Map<Endpoint, RecordingProxy>();
  try {
    for (const endpoint of chaos ? ENDPOINTS : []) {
      const proxy = new RecordingProxy({
        plane: planeOf(endpoint),
        name: endpoint,
        target: sim.urls[endpoint],
        keep: false,
        chaos: { ...chaos, seed: `${chaos!.seed}-${endpoint}` },
      });
      await proxy.start();
      proxies.set(endpoint, proxy);
    }
    const info = await sim.getSimulatorInfo();
    const dir = mkdtempSync(join(tmpdir(), 'apc-flaky-'));
    const config = join(dir, 'target.yaml');
    writeFileSync(
      config,
      toYaml({
        name,
        planes: chaos ? Object.fromEntries([...proxies].map(([endpoint, proxy]) => [endpoint, proxy.url])) : sim.urls,
        // Without bulk-requests: a rate-limit fill then goes request by request, each meeting the network's faults,
        // where batches would carry thousands past it in a few.
        capabilities: info.capabilities.filter((c) => c !== 'bulk-requests'),
      }),
    );
    // A fault fails a test on purpose: a self-test's run.
    const run = await conformanceRun(['--target', config, '--seed', '7', '--workers', '2', ...SELF_TEST_RUN, ...NARROWED, ...args]);
    const counts = [...proxies.values()].map((p) => p.chaosCounts()).filter((c) => c !== undefined);
    const faults = chaos
      ? counts.reduce((sum, c) => ({
          requests: sum.requests + c.requests,
          reset: sum.reset + c.reset,
          unavailable: sum.unavailable + c.unavailable,
          delayed: sum.delayed + c.delayed,
          delay_ms_total: sum.delay_ms_total + c.delay_ms_total,
        }))
      : undefined;
    return { report: run.report, faults, stdout: run.stdout, out: run.out, code: run.code };
  } finally {
    await Promise.all([...proxies.values()].map((p) => p.close()));
  }
}

const verdicts = (report: ConformanceReport): Record<string, Verdict> => Object.fromEntries(report.rules.map((r) => [r.id, r.verdict]));

test('every plane behind 503s, resets and jitter, a seed for each: the clean verdicts, or error where a fault could not be sent past', async () => {
  // Runs, side by side, of about a minute each.
  test.setTimeout(40 * 60_000);
  const [clean, ...flaky] = await Promise.all([
    runBehind('clean', undefined),
    ...SEEDS.map(({ seed, args }) => runBehind(`chaos ${seed}`, { ...CHAOS, seed }, args)),
  ]);
  expect(clean.report.summary.verdicts.fail, clean.stdout).toBe(0);
  expect(clean.code, clean.stdout).toBe(0);
  expect(clean.report.summary.retries, 'the clean run sent no request again').toBeUndefined();
  const before = verdicts(clean.report);
  for (const [i, run] of flaky.entries()) {
    const after = verdicts(run.report);
    // A rule whose tests a run on fewer planes left out is compared in the runs that ran them.
    const left = (id: string) => after[id] === 'out-of-scope' || (run.report.run.narrowed !== undefined && after[id] === 'not-run');
    const changed = Object.keys(before).filter((id) => after[id] !== before[id] && !left(id));
    const retries = run.report.summary.retries;
    const line = `seed ${SEEDS[i]!.seed}${SEEDS[i]!.args.length ? ` (${SEEDS[i]!.args.join(' ')})` : ''} (report in ${run.out}): ${run.faults!.requests} requests, faults injected: ${run.faults!.unavailable} × 503, ${run.faults!.reset} resets, ${run.faults!.delayed} delayed (${run.faults!.delay_ms_total} ms); requests sent again: ${retries?.count ?? 0}; verdicts changed: ${changed.length}${changed.length ? ` (${changed.map((id) => `${id} ${before[id]} → ${after[id]}`).join(', ')})` : ''}`;
    console.log(line);
    test.info().annotations.push({ type: 'chaos', description: line });
    // The chaos was there, and the client met it.
    expect(run.faults!.unavailable, line).toBeGreaterThan(0);
    expect(run.faults!.reset, line).toBeGreaterThan(0);
    expect(retries?.count ?? 0, line).toBeGreaterThan(0);
    // Every output says how many requests were sent again; a run that could not judge a rule exits 2, never 1.
    expect(run.stdout, line).toContain(retriesLine(run.report)!);
    expect(readFileSync(join(run.out, 'summary.md'), 'utf8'), line).toContain(retriesLine(run.report)!);
    expect(run.code, `${line}\n${run.report.summary.gate.reasons.join('\n')}`).toBe(changed.length > 0 ? 2 : 0);
    // No rule fails that passes clean; a verdict that moved is an error, with the fault named.
    expect(
      changed.filter((id) => after[id] !== 'error').map((id) => `${id}: ${before[id]} → ${after[id]}`),
      line,
    ).toEqual([]);
    for (const id of changed) {
      const errors = run.report.rules
        .find((r) => r.id === id)!
        .tests.filter((t) => t.status === 'error')
        .map((t) => t.error ?? '');
      expect(
        errors.some((e) => e.includes(TRANSIENT_FAULT)),
        `${id}: ${errors.join('\n')}`,
      ).toBe(true);
    }
  }
});
