// §8: the two /repos rows of the rate-limit table on the control plane, whose repository
// listing they name, exact on a virtual clock, bounded in real time. The control plane has one address: US values.
import { test } from '../fixtures.ts';
import { checkRow, rowTitle, tableRules } from '../rate-limits/row-check.ts';

for (const rule of tableRules().filter((r) => r.startsWith('RATE-REPOSITORY-'))) {
  test(rowTitle(rule), { tag: `@${rule}` }, async ({ run, time, scope }, testInfo) => {
    await checkRow(rule, ['control-plane'], { run, time, scope, testId: testInfo.testId });
  });
}
