// §8: every row of the rate-limit table, exact on a virtual clock and bounded in real time, in both regions. The
// /repos rows are tested on the control plane (control-plane/rate-limits-repos.spec.ts).
import { test } from '../../harness/fixtures.ts';
import { checkRow, rowTitle, tableRules } from '../rate-limits/row-check.ts';

// Each row's callers are its own: on a target whose time is real, the rows run side by side.
test.describe.configure({ mode: 'parallel' });

for (const rule of tableRules().filter((r) => !r.startsWith('RATE-REPOSITORY-'))) {
  test(rowTitle(rule), { tag: `@${rule}` }, async ({ conformanceRun, time, scope }, testInfo) => {
    await checkRow(rule, ['platform-api', 'platform-api-eu'], { conformanceRun, time, scope, by: testInfo });
  });
}
