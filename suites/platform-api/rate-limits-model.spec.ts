// §8 as a whole: over any interleaving of callers, requests and pauses, each region admits and
// refuses exactly what the table's oracle (rate-limits/oracle.ts) does, with its Retry-After. The requests
// lean on the rows with small limits, so that windows fill and empty within a run. A step sends
// one request, or a burst of the same request at one virtual instant: its first request goes
// through the recording proxy, the rest of the burst straight to the target (see traffic.ts), in turn.
import fc from 'fast-check';
import { forRule, skipDeclared, skipForPrecondition } from '../../harness/checks/attribution.ts';
import { rulesOfStep } from '../../harness/checks/index.ts';
import { notJudged } from '../../harness/retry.ts';
import { adminOf, expect, requireCapability, test } from '../../harness/fixtures.ts';
import { assertProperty } from '../../harness/property.ts';
import { serves } from '../../harness/target.ts';
import { contract } from '../../specs/contract.ts';
import { TableOracle, type TableRequest } from '../rate-limits/oracle.ts';
import { ip, madeUpKey, Traffic, type Caller, type Sample } from '../rate-limits/traffic.ts';

const RUN = '0190a0d5-0a9c-7c3e-8d4f-2b6a1c9e5f01';
/** Real time allowed per request, sent one at a time: about ten times what a quiet machine takes, so that a busy one never times a property out. */
const MS_PER_REQUEST = 10;

const REQUESTS: Sample[] = [
  { method: 'POST', path: '/runs/stats' },
  { method: 'PATCH', path: '/runs/stats' },
  { method: 'POST', path: '/runs/query' },
  { method: 'GET', path: '/runs/query' },
  { method: 'DELETE', path: '/sessions' },
  { method: 'DELETE', path: '/apc/trigger' },
  { method: 'GET', path: `/runs/${RUN}` },
  { method: 'GET', path: `/api/v1/runs/${RUN}` },
  { method: 'PUT', path: '/generate' },
  { method: 'GET', path: '/apc/no-specific-row' },
  { method: 'OPTIONS', path: '/runs' },
];

interface Who {
  apiKey?: string;
  userId?: string;
  ip: number;
}

const CALLERS: Who[] = [
  { apiKey: 'a', ip: 0 },
  { apiKey: 'b', ip: 0 },
  { apiKey: 'a', ip: 1 },
  { userId: 'u', ip: 0 },
  { userId: 'u', ip: 1 },
  { userId: 'v', ip: 0 },
  { apiKey: 'b', userId: 'u', ip: 0 },
  { ip: 0 },
  { ip: 1 },
];

interface Step {
  advanceMs: number;
  request: Sample;
  who: Who;
  times: number;
}

const describe = (step: Step) =>
  `${step.advanceMs > 0 ? `+${step.advanceMs} ms, ` : ''}${step.times > 1 ? `${step.times} × ` : ''}${step.request.method} ${step.request.path} as ` +
  [step.who.apiKey && `x-api-key ${step.who.apiKey}`, step.who.userId && `x-user-id ${step.who.userId}`, ip(step.who.ip)].filter(Boolean).join(', ');

/** A step among a few callers and requests, so that windows fill within a run. */
const stepOf = (callers: Who[], requests: Sample[]): fc.Arbitrary<Step> =>
  fc
    .record({
      advanceMs: fc.oneof(
        { weight: 8, arbitrary: fc.constant(0) },
        { weight: 2, arbitrary: fc.integer({ min: 1, max: 12_000 }) },
        { weight: 1, arbitrary: fc.constantFrom(999, 1_000, 9_999, 10_000, 59_999, 60_000) },
      ),
      request: fc.constantFrom(...requests),
      who: fc.constantFrom(...callers),
      times: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.integer({ min: 2, max: 32 }) }),
    })
    .map((s) => Object.assign(s, { [fc.toStringMethod]: () => describe(s) }));

/** Steps over `requests`. */
const stepsOver = (requests: Sample[]): fc.Arbitrary<Step[]> =>
  fc
    .record({ callers: fc.subarray(CALLERS, { minLength: 1, maxLength: 3 }), requests: fc.subarray(requests, { minLength: 1, maxLength: 3 }) })
    .chain(({ callers, requests }) => fc.array(stepOf(callers, requests), { minLength: 5, maxLength: 30, size: 'max' }));

/** The operation the spec does not show that a request addresses, if any. */
const notShown = (request: Sample) => {
  const operation = contract().findOperation('platform-api', request.method, request.path)?.operation;
  return operation?.notShown ? operation : undefined;
};

for (const endpoint of ['platform-api', 'platform-api-eu'] as const) {
  const region = endpoint === 'platform-api' ? 'us' : 'eu';
  test(
    `${region.toUpperCase()}: any interleaving of callers, requests and pauses is admitted or refused as the model of the table says, with its Retry-After`,
    { tag: ['@RATE-COMBINE', '@RATE-RETRY-AFTER'] },
    async ({ conformanceRun, clock, testKey, time, targetCredentials }, testInfo) => {
      requireCapability(conformanceRun, 'rate-limit-reset');
      skipDeclared(!conformanceRun.proxies[endpoint], `target '${conformanceRun.target.name}' names no ${endpoint} URL`);
      const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
      const admin = adminOf(conformanceRun, testInfo);
      // Requests to operations the target declares it does not serve (its not_shown_operations) are left out.
      const requests = REQUESTS.filter((r) => !notShown(r) || serves(conformanceRun.target, notShown(r)!));
      // What the property cannot tell apart itself: whether made-up keys are counted, and whether the target takes
      // the client IP from X-Forwarded-For; if it does not, every caller comes from one address, as the oracle is told.
      await traffic.settleKeys(endpoint, testKey);
      const oneAddress = !(await traffic.takesForwardedFor(endpoint, testKey));
      if (oneAddress)
        testInfo.annotations.push({
          type: 'not checked',
          description: `${endpoint} saw one client address for every X-Forwarded-For this run sent: the model's callers share it`,
        });
      let round = 0;
      await assertProperty(
        fc.asyncProperty(stepsOver(requests), async (steps) => {
          const reset = await admin.resetRateLimits();
          expect(reset.status, reset.describe('resetting the rate-limit counters')).toBe(200);
          const oracle = new TableOracle(region);
          const prefix = `${testKey}-${round++}`;
          let now = 0;
          for (const s of steps) {
            if (s.advanceMs > 0) {
              await clock.advance(s.advanceMs);
              now += s.advanceMs;
            }
            const who: Caller = {
              name: describe(s),
              headers: {
                'x-forwarded-for': ip(s.who.ip),
                // The counters are reset each round: a key (made up, or one the target knows in its place) serves them all.
                ...(s.who.apiKey ? { 'x-api-key': madeUpKey(testKey, s.who.apiKey) } : {}),
                ...(s.who.userId ? { 'x-user-id': `${prefix}-${s.who.userId}` } : {}),
              },
            };
            const request: TableRequest = { ...s.request, apiKey: s.who.apiKey, userId: s.who.userId, ip: oneAddress ? 'one address' : ip(s.who.ip) };
            const expected = Array.from({ length: s.times }, () => oracle.decide(request, now));
            time.allowWall(s.times * MS_PER_REQUEST);
            const first = await traffic.send(endpoint, s.request, who);
            // One at a time: a shrinking replay must meet the same answers, which concurrent requests would
            // leave to the order the target happens to see them in.
            const rest = await traffic.sendMany(endpoint, [s.request], who, s.times - 1, 1);
            const answers = [{ status: first.status, retryAfter: first.headers['retry-after'] }, ...rest];
            const refusedByOracle = expected.filter((v) => !v.admitted);
            const at = `at +${now} ms, ${describe(s)} [first exchange ${first.exchange}]`;
            const refused = answers.filter((a) => a.status === 429).length;
            // A request sent again after a reset may have been counted twice: a count off then is no finding.
            if (refused !== refusedByOracle.length && rest.some((a) => a.uncertain))
              throw notJudged(
                `${at}: ${refused} refused where the oracle refuses ${refusedByOracle.length}, after requests sent again that the target may have counted twice`,
              );
            // An operation the spec does not show that answers 404 or 405 only is not served: nothing to count.
            if (refused !== refusedByOracle.length && notShown(s.request) && answers.every((a) => a.status === 404 || a.status === 405))
              skipForPrecondition(
                `precondition failed: ${at}: the target may not serve ${notShown(s.request)!.operationId}, a path the spec does not show`,
                rulesOfStep(first),
              );
            await forRule('RATE-COMBINE', () => {
              const rows = [...new Set(refusedByOracle.flatMap((v) => (v.admitted ? [] : v.rows)))];
              expect(
                refused,
                `${at}: the oracle refuses ${refusedByOracle.length} of ${s.times}${rows.length ? ` (exhausted: ${rows.join(', ')})` : ''}; answered ${answers.map((a) => a.status).join(' ')}`,
              ).toBe(refusedByOracle.length);
            });
            if (refusedByOracle.length > 0 && !refusedByOracle[0].admitted) {
              const retryAfter = String(refusedByOracle[0].retryAfterSeconds);
              await forRule('RATE-RETRY-AFTER', () => {
                for (const a of answers.filter((x) => x.status === 429))
                  expect(a.retryAfter, `${at}: the oracle says Retry-After ${retryAfter}`).toBe(retryAfter);
              });
            }
          }
        }),
        { numRuns: 20 },
      );
    },
  );
}
