// §8: the two /repos rows of the rate-limit table on the control plane, whose repository
// listing they name, exact on the virtual clock. The control plane has one address: US values.
import { targetApiKey, test } from '../fixtures.ts';
import { checkRow, rowTitle, tableRules } from '../rate-limits/row-check.ts';

for (const rule of tableRules().filter((r) => r.startsWith('RATE-REPOSITORY-'))) {
  test(rowTitle(rule), { tag: `@${rule}` }, async ({ run, clock, scope, simulatorCredentials }, testInfo) => {
    await checkRow(rule, ['control-plane'], { run, clock, scope, testId: testInfo.testId, apiKey: targetApiKey(run, simulatorCredentials) });
  });
}
