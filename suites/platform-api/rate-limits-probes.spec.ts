// §8 on a target without a virtual clock: bounded, real-time probes of the rows with small
// limits. OFF BY DEFAULT (`run --rate-limit-probes`): they spend the target's real quota, about
// 85 requests with the target's API key, and wait up to about a minute in all. On a target
// with a virtual clock the exact tests (rate-limits-table.spec.ts) cover these rows instead.
//
// Rows with a 10 s window are probed strictly: one quiet interval first, so that earlier
// requests of the run have left the window; then the limit-th request must be admitted, the
// next refused with 429, and the caller admitted again once the interval has passed. Rows with
// a 60 s window are not waited for: a refusal before the limit (quota spent elsewhere in the
// window) skips the probe as a failed precondition instead of failing the row.
import { randomUUID } from 'node:crypto';
import type { Endpoint } from '../../specs/contract.ts';
import { expectStatus } from '../checks/index.ts';
import { skipForPrecondition } from '../checks/attribution.ts';
import { clientWithKey, expect, targetApiKey, test } from '../fixtures.ts';
import { regionOf, rowsOf } from '../rate-limits/row-check.ts';

interface Probe {
  rule: string;
  endpoint: Endpoint;
  method: string;
  path: () => string;
  body?: unknown;
  /** Wait out one interval before, and check recovery after. */
  strict: boolean;
}

const PROBES: Probe[] = [
  { rule: 'RATE-STATS-API-KEY', endpoint: 'platform-api', method: 'POST', path: () => '/api/v1/runs/stats', body: {}, strict: true },
  { rule: 'RATE-STATS-API-KEY', endpoint: 'platform-api-eu', method: 'POST', path: () => '/api/v1/runs/stats', body: {}, strict: true },
  { rule: 'RATE-RUN-QUERY-API-KEY', endpoint: 'platform-api', method: 'POST', path: () => '/runs/query', body: { limit: 1 }, strict: true },
  { rule: 'RATE-DELETION-API-KEY', endpoint: 'platform-api', method: 'DELETE', path: () => `/api/v1/sessions/${randomUUID()}`, strict: false },
  { rule: 'RATE-RUN-LOOKUP-API-KEY', endpoint: 'platform-api', method: 'GET', path: () => `/api/v1/runs/${randomUUID()}`, strict: false },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const probe of PROBES) {
  const [row] = rowsOf(probe.rule);
  const region = regionOf(probe.endpoint);
  const limit = row.limit[region];
  const interval = row.interval_seconds * 1000;
  test(
    `[real-time probe, spends real quota] ${region.toUpperCase()} ${probe.method} ${probe.path().replace(/[0-9a-f-]{36}$/, '{id}')}: ` +
      `request ${limit} of a ${row.interval_seconds} s window is admitted and request ${limit + 1} refused with 429` +
      (probe.strict ? `, and after ${row.interval_seconds} s the key is admitted again` : ''),
    { tag: [`@${probe.rule}`, '@RATE-EXCEEDED-BEHAVIOUR'], annotation: { type: 'rate-limit-probe', description: `spends up to ${limit + 2} requests of the target's real quota` } },
    async ({ run, rateLimitProbes, simulatorCredentials, observe }, testInfo) => {
      test.skip(run.target.capabilities.includes('virtual-clock'), 'the target has a virtual clock: the exact test of this row runs instead');
      test.skip(!rateLimitProbes, 'real-time probes spend the target\'s real quota: opt in with run --rate-limit-probes');
      test.setTimeout(3 * interval + 30_000);
      const apiKey = targetApiKey(run, simulatorCredentials);
      test.skip(!apiKey, `target '${run.target.name}' names no API key (api_key_env)`);
      const client = clientWithKey(run, probe.endpoint, testInfo.testId, apiKey);
      test.skip(!client, `target '${run.target.name}' names no ${probe.endpoint} URL`);
      if (probe.strict) await sleep(interval);
      for (let i = 1; i <= limit + 1; i++) {
        const res = await client!.request(probe.method, probe.path(), { body: probe.body });
        if (i <= limit && res.status === 429) {
          const message = res.describe(`request ${i} of ${limit + 1} was refused before the limit of ${limit}`);
          if (!probe.strict) skipForPrecondition(`precondition failed: the key's quota for this row was already partly spent in the window: ${message}`);
          expect(res.status, message).not.toBe(429);
        }
        if (i === limit + 1) {
          observe('RATE-EXCEEDED-BEHAVIOUR', `${probe.method} ${probe.path().replace(/[0-9a-f-]{36}$/, '{id}')} request ${i}: ${res.status}, retry-after ${res.headers['retry-after'] ?? '(none)'}, body ${res.text.slice(0, 200)}`);
          expectStatus(res, 429);
          if (probe.strict) {
            await sleep(interval + 250);
            const again = await client!.request(probe.method, probe.path(), { body: probe.body });
            expect(again.status, again.describe(`admitted again ${interval + 250} ms after the refusal`)).not.toBe(429);
          }
        }
      }
    },
  );
}
