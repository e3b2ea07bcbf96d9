// §8: the two /repos rows of the rate-limit table, on the control plane (the plane of their rules; one address,
// so US values), exact on a virtual clock, bounded in real time. They name the path /repos: the repository
// listing, /v1/integrations/sourcehost/{id}/repos, is another path, which the default rows count.
import { test } from '../../harness/fixtures.ts';
import { checkRow, rowTitle, tableRules } from '../rate-limits/row-check.ts';

for (const rule of tableRules().filter((r) => r.startsWith('RATE-REPOSITORY-'))) {
  test(rowTitle(rule), { tag: `@${rule}` }, async ({ conformanceRun, targetCredentials, time, testKey }, testInfo) => {
    await checkRow(rule, 'control-plane', { conformanceRun, credentials: targetCredentials, time, testKey, by: testInfo });
  });
}
