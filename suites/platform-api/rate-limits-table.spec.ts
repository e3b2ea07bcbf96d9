// §8: every row of the rate-limit table, exact on the virtual clock, in both regions. The
// /repos rows are tested on the control plane (control-plane/rate-limits-repos.spec.ts).
import { targetApiKey, test } from '../fixtures.ts';
import { checkRow, rowTitle, tableRules } from '../rate-limits/row-check.ts';

for (const rule of tableRules().filter((r) => !r.startsWith('RATE-REPOSITORY-'))) {
  test(rowTitle(rule), { tag: `@${rule}` }, async ({ run, clock, scope, simulatorCredentials }, testInfo) => {
    await checkRow(rule, ['platform-api', 'platform-api-eu'], { run, clock, scope, testId: testInfo.testId, apiKey: targetApiKey(run, simulatorCredentials) });
  });
}
