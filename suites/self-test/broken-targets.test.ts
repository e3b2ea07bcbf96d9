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
      const plane = planeOf(mutation.endpoint ?? 'agent-server');
      const left = [...(mutation.suites?.includes('webhooks') ? [] : ['agent-server/(webhook|crons|versioning)']), ...(mutation.suites?.includes('rate-limits') ? [] : ['rate-limits'])];
      const { report, code, stdout } = await conformanceRun(['--target', target.config, '--plane', plane], { ...target.env, ...(left.length > 0 ? { APC_TEST_IGNORE: left.join('|') } : {}) });
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
