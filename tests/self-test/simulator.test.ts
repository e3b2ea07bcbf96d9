// The suites against the embedded simulator: every tested rule passes, the same seed gives the
// same report, and the same run split into three shards and merged gives the same verdicts.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadReport, reportProblems } from '../../reports/load.ts';
import type { ConformanceReport } from '../../reports/model.ts';
import { conformanceRun, failedRules, runCli, type CliRun } from './run-cli.ts';

// The second test compares with the first one's run: they run in order, in one worker.
test.describe.configure({ mode: 'serial' });

const RUN = ['--plane', 'agent-server', '--seed', '7'];
let first: (CliRun & { report: ConformanceReport; out: string }) | undefined;

test('every rule the suites test passes against the simulator, twice with the same report', async () => {
  // Generous: on a busy 2-core machine each run can take several times its 20 s.
  test.setTimeout(6 * 60_000);
  first = await conformanceRun(RUN);
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
  const second = await conformanceRun(RUN);
  expect(readFileSync(join(second.out, 'report.json'), 'utf8')).toBe(readFileSync(join(first.out, 'report.json'), 'utf8'));
});

/** Every rule's verdict, and every test's status, by rule: what a shard merge must keep. */
const verdicts = (report: ConformanceReport) =>
  Object.fromEntries(report.rules.map((r) => [r.id, { verdict: r.verdict, tests: r.tests.map((t) => `${t.title}: ${t.status}`).sort() }]));

test('three shards of the run, merged, give the verdicts of the run in one piece', async () => {
  test.setTimeout(6 * 60_000);
  const whole = first!.report;
  const shards = await Promise.all([1, 2, 3].map((i) => conformanceRun([...RUN, '--shard', `${i}/3`, '--quiet'])));
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
