// Principle 7: a suite is only as good as what it catches. Each deliberately broken target
// must fail exactly the rules its mutation breaks, with the exchange that shows it.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { planeOf } from '../../specs/contract.ts';
import type { ConformanceReport } from '../../reports/model.ts';
import { affectedFiles } from './affected.ts';
import { startBrokenTarget, type Mutation } from './broken-target.ts';
import { MUTATIONS, PLANE_MUTATIONS } from './mutations.ts';
import { CLEAN_RUN, conformanceRun, failedRules } from './run-cli.ts';

test.describe.configure({ mode: 'parallel' });

let clean: ConformanceReport | undefined;
/** The clean run's report, read once per worker (it holds every exchange of the run). */
function cleanRun(): ConformanceReport {
  clean ??= JSON.parse(readFileSync(CLEAN_RUN, 'utf8')) as ConformanceReport;
  return clean;
}

/**
 * Leaves out the files the mutation cannot reach, and the rate-limit suites unless it touches
 * rate limits (their traffic goes straight to the target, so the clean run shows none of it).
 * APC_MUTANTS_WHOLE_PLANE=1 runs the whole plane instead (worth it for a new mutation: it shows
 * what reaches other tests through the state the mutation leaves behind).
 */
function ignored(mutation: Mutation): string {
  if (process.env.APC_MUTANTS_WHOLE_PLANE === '1') return mutation.rateLimits ? '^$' : 'rate-limits';
  const files = affectedFiles(mutation, cleanRun()).map((file) => file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (mutation.rateLimits) files.push('[^/]+/rate-limits[^/]*');
  return `^(?!.*/suites/(${files.join('|')})$)`;
}

for (const [name, mutation] of Object.entries({ ...MUTATIONS, ...PLANE_MUTATIONS })) {
  test(`${name}: ${mutation.description} fails exactly ${mutation.breaks.join(', ')}`, async () => {
    const target = await startBrokenTarget(mutation);
    try {
      const plane = planeOf(mutation.endpoint ?? 'agent-server');
      const { report, code, stdout } = await conformanceRun(['--target', target.config, '--plane', plane], { ...target.env, APC_TEST_IGNORE: ignored(mutation) });
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
