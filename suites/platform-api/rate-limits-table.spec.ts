// §8: every row of the rate-limit table, exact on a virtual clock and bounded in real time, in each region apart
// (a target without the EU address is judged in the US). The /repos rows are tested on the control plane
// (control-plane/rate-limits-repos.spec.ts).
import { test } from '../../harness/fixtures.ts';
import { checkRow, rowTitle, tableRules } from '../rate-limits/row-check.ts';

// Each row's callers are its own: on a target whose time is real, the rows run side by side.
test.describe.configure({ mode: 'parallel' });

for (const rule of tableRules().filter((r) => !r.startsWith('RATE-REPOSITORY-'))) {
  for (const [endpoint, region] of [
    ['platform-api', 'us'],
    ['platform-api-eu', 'eu'],
  ] as const) {
    test(rowTitle(rule, region), { tag: `@${rule}` }, async ({ conformanceRun, targetCredentials, time, testKey }, testInfo) => {
      await checkRow(rule, endpoint, { conformanceRun, credentials: targetCredentials, time, testKey, by: testInfo });
    });
  }
}
