// Real targets first: every plane's suites against a target without simulator capabilities, as a
// user would point the harness at a hosted service. The stand-in is `simulate --clock real
// --no-admin`: time runs by itself (TIME_SCALE times faster than the wall clock), /__sim answers
// 404, and the harness knows only what a target config file tells it: the planes, the API key
// in an environment variable, `capabilities: []`, the time scale, the deployment configuration
// and the credentials of a second workspace and of an EU account. No test may fail, every skip
// must say its reason and kind, no failed precondition may go unexplained, no MUST rule may go
// unjudged but for what the target declares, and per plane at least 90% of the rules the suites
// test must get a verdict.
import { expect, test } from '@playwright/test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import type { ConformanceReport } from '../../reports/conformance-report.ts';
import { ROOT, runCli } from '../self-test/run-cli.ts';
import { credentialsOf, startStandIn, type StandIn } from '../self-test/stand-in.ts';
import { freePort } from '../../harness/target.ts';

/**
 * At 5, a 90 s build takes 18 s, a cron's minute 12 s and a 10 s rate-limit window 2 s: long
 * enough to send the 2000 requests of a row within one window on a busy 2-core machine.
 */
const TIME_SCALE = 5;
/** Files run in parallel, as on a real target: most of the time is spent waiting for it. */
const WORKERS = '4';
/**
 * The budget of the whole run, which only catches a hang: it takes about 4 min alone on a 2-core
 * machine and 6 within `npm test`, and a machine busy with other work slows it several times over.
 */
const BUDGET_MS = 25 * 60_000;
const OUT = join(ROOT, 'test-results', 'real-target-report');

let standIn: StandIn | undefined;
test.afterEach(async () => {
  await standIn?.stop();
  standIn = undefined;
});

test('every plane against a real-time simulator without capabilities: no failure, every skip explained, 90% of the tested rules judged', async () => {
  test.setTimeout(BUDGET_MS + 60_000);
  rmSync(OUT, { recursive: true, force: true });
  const dir = mkdtempSync(join(tmpdir(), 'apc-real-target-'));
  const receiverPort = await freePort();
  const secrets = { LG_WEBHOOK_APC_TEST: 'from-the-environment' };
  // The deployment's configuration, as its owner would write it: headers, and a URL policy that admits the receiver.
  const deploymentConfig = {
    webhooks: {
      headers: { 'X-Apc-Static': 'on', 'X-Apc-Token': 'Bearer ${{ env.LG_WEBHOOK_APC_TEST }}' },
      url: { allowed_domains: ['127.0.0.1', '*.apc-allowed.test'], allowed_ports: [receiverPort, 443], max_url_length: 2048, disable_loopback: true },
    },
  };
  writeFileSync(join(dir, 'langgraph.json'), JSON.stringify(deploymentConfig, null, 2));
  standIn = await startStandIn(['--clock', 'real', '--time-scale', String(TIME_SCALE), '--no-admin', '--config', join(dir, 'langgraph.json')], secrets);
  expect(Object.keys(standIn.planes).sort()).toEqual(['agent-server', 'control-plane', 'platform-api', 'platform-api-eu']);
  expect((await fetch(`${standIn.planes['agent-server']}/__sim/info`)).status, 'the admin path is hidden').toBe(404);

  const { credentials, env: keys } = credentialsOf(standIn);
  const env = { ...keys, ...secrets };
  const config = join(dir, 'target.yaml');
  writeFileSync(
    config,
    toYaml({
      name: `simulate --clock real --time-scale ${TIME_SCALE} --no-admin`,
      planes: standIn.planes,
      api_key_env: 'APC_KEY',
      capabilities: [],
      time_scale: TIME_SCALE,
      deployment_config: 'langgraph.json',
      credentials,
    }),
  );

  const started = Date.now();
  const run = await runCli(
    [
      'run',
      '--target',
      config,
      '--webhook-receiver-port',
      String(receiverPort),
      '--profile',
      'full',
      '--workers',
      WORKERS,
      '--max-duration',
      String(BUDGET_MS / 1000),
      '--out',
      OUT,
    ],
    env,
  );
  const took = Date.now() - started;
  const reportFile = join(OUT, 'report.json');
  expect(existsSync(reportFile), `no report (exit ${run.code}):\n${run.stdout}\n${run.stderr}`).toBe(true);
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ConformanceReport;

  expect(report.run.status, `the run finished within its budget of ${BUDGET_MS / 60_000} min`).toBe('complete');
  const failed = report.rules.filter((r) => r.verdict === 'fail').map((r) => `${r.id}: ${r.tests.find((t) => t.error)?.error?.split('\n')[0]}`);
  expect(failed, `failures (report: ${join(OUT, 'report.html')})`).toEqual([]);
  const skips = report.rules.flatMap((r) => r.tests.filter((t) => t.status === 'skipped').map((t) => ({ rule: r.id, test: t })));
  expect(
    skips.filter(({ test: t }) => !t.reason || t.reason === 'skipped' || t.skip?.kind === 'unclassified').map(({ rule, test: t }) => `${rule}: ${t.title}`),
    'skips without a reason or a kind',
  ).toEqual([]);
  const unexplained = report.rules.flatMap((r) => r.tests.filter((t) => t.unexplained).map((t) => `${r.id}: ${t.title}: ${t.unexplained}`));
  expect(unexplained, 'failed preconditions that no failed rule explains').toEqual([]);
  // A busy machine may keep a rate-limit row's requests from sharing one window even after retries:
  // that is no verdict (exit 2), never a pass; any other MUST rule left unjudged fails this test.
  const notJudged = report.summary.mustNotJudged.filter((n) => n.counted);
  expect(
    notJudged.filter((n) => n.cause !== 'machine').map((n) => `${n.id} (${n.cause}): ${n.why}`),
    'MUST rules not judged for a reason the target did not declare',
  ).toEqual([]);
  expect(run.code, run.stderr).toBe(notJudged.length > 0 ? 2 : 0);
  const preconditions = skips.filter(({ test: t }) => t.skip?.kind === 'precondition');
  console.log(
    `[real-target] MUST rules not judged: ${report.summary.mustNotJudged.map((n) => `${n.id} (${n.counted ? 'counted' : 'not counted'}, ${n.cause}): ${n.why}`).join('; ') || 'none'}`,
  );
  console.log(`[real-target] precondition skips: ${preconditions.length}${preconditions.map(({ rule, test: t }) => `\n  ${rule}: ${t.reason}`).join('')}`);
  const deletableLeft = Object.entries(report.run.left).flatMap(([endpoint, kinds]) =>
    Object.entries(kinds ?? {})
      .filter(([kind]) => ['thread', 'cron', 'deployment'].includes(kind))
      .map(([kind, n]) => `${endpoint}: ${n} ${kind}`),
  );
  expect(deletableLeft, 'the cleanup deletes every thread, cron and deployment the run created').toEqual([]);
  const judged = (verdict: string) => verdict === 'pass' || verdict === 'fail' || verdict === 'observed';
  // What the share measures is the suites, not the machine: a rule the machine kept from a verdict
  // (allowed above) is left out of it, as it would have one on a machine less busy.
  const keptByMachine = new Set(notJudged.filter((n) => n.cause === 'machine').map((n) => n.id));
  const figure = Object.entries(report.summary.byPlane).map(([plane, p]) => {
    const rules = report.rules.filter((r) => r.plane === plane);
    const machine = rules.filter((r) => keptByMachine.has(r.id)).length;
    return { plane, judged: rules.filter((r) => judged(r.verdict)).length, tested: p.covered - machine, machine };
  });
  console.log(
    `[real-target] ${(took / 60_000).toFixed(1)} min; rules with a verdict: ${figure.map((f) => `${f.plane} ${f.judged} of ${f.tested} tested (and ${f.machine} the machine kept from one)`).join(', ')}`,
  );
  for (const f of figure)
    expect(
      f.judged / f.tested,
      `${f.plane}: ${f.judged} of ${f.tested} tested rules judged, besides ${f.machine} the machine kept from a verdict`,
    ).toBeGreaterThanOrEqual(0.9);
});
