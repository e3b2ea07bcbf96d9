// The suites against the embedded simulator: every tested rule passes, the same seed gives the
// same report on one worker and on several (each test in a partition of its own), and the run of every plane split into three shards and merged gives the same verdicts.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadReport, reportProblems } from '../../reports/load.ts';
import type { ConformanceReport } from '../../reports/conformance-report.ts';
import { conformanceRun, failedRules, runCli } from './run-cli.ts';

const RUN = ['--plane', 'agent-server', '--seed', '7'];

test('every rule the suites test passes against the simulator, on one worker and on three with the same report', async () => {
  // Generous: on a busy 2-core machine each run can take several times its 20 s.
  test.setTimeout(20 * 60_000);
  const first = await conformanceRun([...RUN, '--workers', '1']);
  expect(failedRules(first.report), first.stdout).toEqual([]);
  expect(first.code).toBe(0);
  expect(reportProblems(first.report), 'report.json matches specs/schemas/report.schema.json').toEqual([]);
  const tested = first.report.rules.filter((r) => r.tests.length > 0 && r.area !== 'runs');
  expect(tested.length).toBeGreaterThan(30);
  for (const rule of tested.filter((r) => r.area === 'threads' || r.area === 'state')) {
    expect(['pass', 'observed'], `${rule.id}: ${rule.verdict}`).toContain(rule.verdict);
  }
  // Webhook deliveries are evidence: a webhook rule whose tests got one (the HAR says which) lists
  // it among its exchanges, and every rule of the webhooks area judged got one.
  const har = JSON.parse(readFileSync(join(first.out, 'exchanges.har'), 'utf8')) as { log: { entries: { _delivery?: true; _test?: string }[] } };
  const delivered = new Set(har.log.entries.filter((e) => e._delivery).map((e) => e._test));
  const webhookRules = first.report.rules.filter((r) => r.area === 'webhooks' || r.area === 'webhook-config');
  const received = webhookRules.filter((r) => r.tests.some((t) => delivered.has(t.id)));
  const listing = received.filter((r) => r.tests.some((t) => t.exchanges.some((id) => first!.report.exchanges[id]?.delivery)));
  expect(received.length).toBeGreaterThan(30);
  expect(received.filter((r) => !listing.includes(r)).map((r) => r.id)).toEqual([]);
  expect(webhookRules.filter((r) => r.area === 'webhooks' && r.tests.length > 0 && !received.includes(r)).map((r) => r.id)).toEqual([]);
  const second = await conformanceRun([...RUN, '--workers', '3']);
  expect(readFileSync(join(second.out, 'report.json'), 'utf8')).toBe(readFileSync(join(first.out, 'report.json'), 'utf8'));
});

/** Every rule's verdict, and every test's status, by rule: what a shard merge must keep. */
const verdicts = (report: ConformanceReport) =>
  Object.fromEntries(report.rules.map((r) => [r.id, { verdict: r.verdict, tests: r.tests.map((t) => `${t.title}: ${t.status}`).sort() }]));

test('three shards of a run of every plane, merged, give the verdicts of the run in one piece', async () => {
  test.setTimeout(30 * 60_000);
  const EVERY_PLANE = ['--seed', '7'];
  const run = await conformanceRun(EVERY_PLANE);
  const whole = run.report;
  expect(Object.keys(whole.summary.byPlane).sort(), 'every plane is in the run').toEqual(['agent-server', 'control-plane', 'platform-api']);
  // The reference simulator judges every MUST rule a running target can show, with no step failing.
  expect(failedRules(whole), run.stdout).toEqual([]);
  expect(
    whole.summary.mustNotJudged.filter((n) => n.cause !== 'unobservable').map((n) => `${n.id} (${n.cause}): ${n.why}`),
    'MUST rules the embedded run did not judge',
  ).toEqual([]);
  const preconditions = whole.rules.flatMap((r) => r.tests.filter((t) => t.skip?.kind === 'precondition').map((t) => `${r.id}: ${t.reason}`));
  expect(preconditions, 'precondition skips on the reference simulator').toEqual([]);
  expect(run.code, run.stdout.split('\n').slice(-10).join('\n')).toBe(0);
  const shards = await Promise.all([1, 2, 3].map((i) => conformanceRun([...EVERY_PLANE, '--shard', `${i}/3`, '--quiet'])));
  for (const [i, shard] of shards.entries()) {
    expect(shard.code, shard.stdout).toBe(0);
    expect(shard.report.run.shard).toBe(`${i + 1}/3`);
    expect(shard.report.summary.verdicts['not-run'], 'rules tested in the other shards are not-run in this one').toBeGreaterThan(0);
  }
  const out = mkdtempSync(join(tmpdir(), 'apc-merged-'));
  const merge = await runCli(['merge', ...shards.map((s) => s.out), '--out', out]);
  expect(merge.code, merge.stderr).toBe(0);
  const merged = loadReport(out);
  expect(merged.run.shard).toBeUndefined();
  expect(verdicts(merged)).toEqual(verdicts(whole));
  expect(merged.summary).toEqual(whole.summary);
  // Every exchange a test cites is in the merged report and in its HAR.
  const cited = merged.rules.flatMap((r) => r.tests.flatMap((t) => t.exchanges));
  expect(cited.length).toBeGreaterThan(100);
  expect(cited.filter((id) => !merged.exchanges[id])).toEqual([]);
  const har = JSON.parse(readFileSync(join(out, 'exchanges.har'), 'utf8')) as { log: { entries: { _id: string }[] } };
  const inHar = new Set(har.log.entries.map((e) => e._id));
  expect(cited.filter((id) => !inHar.has(id))).toEqual([]);
});
