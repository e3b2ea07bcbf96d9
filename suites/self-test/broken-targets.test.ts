// Principle 7: a suite is only as good as what it catches. Each deliberately broken target
// must fail exactly the rules its mutation breaks, with the exchange that shows it.
import { expect, test } from '@playwright/test';
import { planeOf } from '../../specs/contract.ts';
import { startBrokenTarget } from './broken-target.ts';
import { MUTATIONS, PLANE_MUTATIONS } from './mutations.ts';
import { conformanceRun, failedRules } from './run-cli.ts';

test.describe.configure({ mode: 'parallel' });

for (const [name, mutation] of Object.entries({ ...MUTATIONS, ...PLANE_MUTATIONS })) {
  test(`${name}: ${mutation.description} fails exactly ${mutation.breaks.join(', ')}`, async () => {
    const target = await startBrokenTarget(mutation);
    try {
      // Webhook, cron and version suites wait in real time for deliveries, and no mutation here
      // touches what they check: leaving them out keeps each broken target's run short.
      // The rate-limit suites send thousands of requests; no mutation here touches them either.
      const plane = planeOf(mutation.endpoint ?? 'agent-server');
      const { report, code, stdout } = await conformanceRun(['--target', target.url, '--plane', plane], { APC_TEST_IGNORE: mutation.rateLimits ? 'agent-server/(webhook|crons|versioning)' : 'agent-server/(webhook|crons|versioning)|rate-limits' });
      expect(failedRules(report), stdout).toEqual([...mutation.breaks].sort());
      for (const rule of report.rules.filter((r) => r.verdict === 'fail')) {
        const failing = rule.tests.filter((t) => t.status === 'failed');
        expect(failing.length, `${rule.id} names its failing test`).toBeGreaterThan(0);
        expect(failing.some((t) => t.exchanges.length > 0), `${rule.id} shows the recorded exchanges`).toBe(true);
      }
      const mustBroken = report.rules.some((r) => r.verdict === 'fail' && r.level === 'MUST');
      expect(code, 'exit code: 1 when a MUST rule fails, else 0').toBe(mustBroken ? 1 : 0);
    } finally {
      await target.close();
    }
  });
}
