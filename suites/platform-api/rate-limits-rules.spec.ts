// §5, §8: how the rate-limit table behaves as a whole: the refusal (429, JSON body,
// Retry-After), that it changes nothing, recovery, method scope, which /api/v1 forms a row
// counts, identity keys, how rows combine and the per-region values. Exact on a virtual clock;
// bounded in real time, where the requests that must share a window are timed and a check whose
// requests did not share one is tried again with callers of its own (rate-limits/window.ts). Only
// RATE-429 and RATE-RETRY-AFTER are about the 429 itself: the others know a refusal whatever its
// status (rate-limits/traffic.ts, Refusal).
import { skipDeclared, skipForMachine } from '../../harness/checks/attribution.ts';
import { expectJsonError, expectRefused, expectStatus, precondition } from '../../harness/checks/index.ts';
import { targetApiKey } from '../../harness/fixtures.ts';
import { expect, test } from './fixtures.ts';
import { serves } from '../../harness/target.ts';
import type { RateLimitRow } from '../../specs/contract.ts';
import { contract } from '../../specs/contract.ts';
import { caller, samplesFor, callerIp, Traffic, type Caller, type Sample } from '../rate-limits/traffic.ts';
import { requireRateLimitTraffic } from '../rate-limits/window.ts';
import { baseTime, isoWith } from './traces-steps.ts';

const STATS: Sample = { method: 'POST', path: '/runs/stats' };
const QUERY: Sample = { method: 'POST', path: '/runs/query' };
/** Single run ingest (§4.3, an operation every target serves): its row is keyed by x-api-key, for POST only. */
const INGEST: Sample = { method: 'POST', path: '/runs' };
/** OPTIONS of a path the spec shows (§4.3): the high-throughput row keyed by the client IP counts it, as it counts /info. */
const PREFLIGHT: Sample = { method: 'OPTIONS', path: '/runs' };
const GENERATE: Sample = { method: 'POST', path: '/generate' };
/** A request no specific row counts, to an operation the spec shows (§4.4): every target serves it. */
const NO_ROW: Sample = { method: 'POST', path: '/api/v1/datasets/upload-experiment' };
const LOOKUP = (prefix: '' | '/api/v1') => ({ method: 'GET', path: `${prefix}/runs/0190a0d5-0a9c-7c3e-8d4f-2b6a1c9e5f01` });

const key = (testKey: string, n: number): Caller => caller('api-key', n, { testKey });
const user = (testKey: string, name: string, from: number): Caller => ({
  name: `x-user-id ${name} from ${callerIp(testKey, from)}`,
  headers: { 'x-user-id': `apc-rate-${testKey}-${name}`, 'x-forwarded-for': callerIp(testKey, from) },
});
/**
 * Why a caller told apart only by its client IP, refused as well, leaves the check to another machine: this run shows
 * another address only in X-Forwarded-For, and a target need not take the client IP from that header (§8 keys on the
 * client IP).
 */
const notTheAddress = (res: { describe(): string }) =>
  `a caller from another X-Forwarded-For address was refused as well: the target may not take the client IP from that header, and this run can show it no other address: ${res.describe()}`;
const both = (a: Caller, b: Caller): Caller => ({ name: `${a.name} and ${b.name}`, headers: { ...a.headers, ...b.headers } });
const success = (status: number) => status >= 200 && status < 300;

/** The most requests a window of a row RATE-429 provokes a refusal on may take: the rows a refusal is cheap on. */
const CHEAP_LIMIT = 100;

/**
 * The platform API rows keyed by a caller's key or user id whose limit in `region` is cheap to reach (one row a
 * rule): where RATE-429 asks for the refusal's status. IP rows are left out, their callers being one address on
 * a target that does not take X-Forwarded-For.
 */
function cheapRows(region: 'us' | 'eu'): RateLimitRow[] {
  const rows = contract().rateLimits.filter(
    (r) => !r.rule.startsWith('RATE-REPOSITORY-') && r.identity !== 'ip' && r.match.paths !== undefined && r.limit[region] <= CHEAP_LIMIT,
  );
  return rows.filter((r, i) => rows.findIndex((o) => o.rule === r.rule) === i);
}

// Each test's callers are its own: on a target whose time is real, the tests run side by side.
test.describe.configure({ mode: 'parallel' });

test.beforeEach(({ conformanceRun }) => {
  requireRateLimitTraffic(conformanceRun);
});

test(
  'a request refused by a rate limit answers 429 with a JSON error body',
  { tag: '@RATE-429' },
  async ({ conformanceRun, testKey, time, targetCredentials }, testInfo) => {
    const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
    // At each address the target has, on the cheap rows whose requests it serves (a path the spec does not show may not be).
    for (const endpoint of (['platform-api', 'platform-api-eu'] as const).filter((e) => conformanceRun.proxies[e])) {
      const region = endpoint === 'platform-api' ? 'us' : 'eu';
      for (const row of cheapRows(region)) {
        const [sample] = samplesFor([row]);
        const operation = contract().findOperation('platform-api', sample.method, sample.path)?.operation;
        if (operation && !serves(conformanceRun.target, operation)) continue;
        await traffic.judge(time, `${testKey}-${row.id}`, async (window, testKey) => {
          const who = caller(row.identity, 0, { testKey });
          const admitted = await traffic.fill(endpoint, sample, who, row.limit[region]);
          const refused = await traffic.send(endpoint, sample, who);
          window.mustShare(row.interval_seconds, `the ${row.limit[region] + 1} requests ${sample.method} ${sample.path} (${row.rule})`);
          // Refused at all first (any status): then with the status this rule asks for.
          traffic.refusal().expect(refused, admitted, `request ${row.limit[region] + 1} of the window ${sample.method} ${sample.path} (${row.rule})`);
          expectJsonError(refused, 429);
          expect(refused.violations, refused.describe('the 429 is documented for the operation')).toEqual([]);
        });
      }
    }
  },
);

test(
  'Retry-After gives the whole seconds, rounded up, until the exhausted row admits the caller again',
  { tag: '@RATE-RETRY-AFTER' },
  async ({ conformanceRun, testKey, time, targetCredentials }, testInfo) => {
    const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
    await traffic.judge(time, testKey, async (window, testKey) => {
      const who = key(testKey, 0);
      const first = await traffic.send('platform-api', STATS, who);
      expect(first.status, first.describe('the first request of the window is admitted')).not.toBe(429);
      const refusal = traffic.refusal();
      if (window.exact) {
        await window.advanceExactly(3_500);
        const refused = await traffic.send('platform-api', STATS, who);
        refusal.expect(refused, first, 'the second run-stats request of the window');
        expectStatus(refused, 429);
        expect(refused.headers['retry-after'], refused.describe('6.5 s are left of the 10 s window')).toBe('7');
        await window.advanceExactly(6_000);
        const later = await traffic.send('platform-api', STATS, who);
        expectStatus(later, 429);
        expect(later.headers['retry-after'], later.describe('0.5 s are left')).toBe('1');
        await window.advanceExactly(1_000);
      } else {
        // In real time: a whole number of seconds no longer than the window, after which the caller is admitted.
        const refused = await traffic.send('platform-api', STATS, who);
        window.mustShare(10, 'the two run-stats requests');
        refusal.expect(refused, first, 'the second run-stats request of the window');
        expectStatus(refused, 429);
        const seconds = Number(refused.headers['retry-after']);
        expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= 10, refused.describe('Retry-After: whole seconds, at most the 10 s window')).toBe(true);
        await time.pass(seconds * 1000);
      }
      const after = await traffic.send('platform-api', STATS, who);
      expect(after.status, after.describe('admitted once Retry-After has passed')).not.toBe(429);

      const hourly = key(testKey, 1);
      window.restart();
      const admitted = await traffic.fill('platform-api', GENERATE, hourly, 30);
      const generate = await traffic.send('platform-api', GENERATE, hourly);
      refusal.expect(generate, admitted, 'the 31st generation request of the hour');
      expectStatus(generate, 429);
      const elapsed = Math.ceil(window.elapsed() / 1000);
      const retryAfter = Number(generate.headers['retry-after']);
      expect(
        retryAfter >= 3600 - elapsed && retryAfter <= 3600,
        generate.describe(`the 30 / 3600 row frees in an hour${elapsed ? `, less the ${elapsed} s its window is old` : ''}`),
      ).toBe(true);
    });
  },
);

test(
  'a request refused by a rate limit changes no state',
  { tag: '@RATE-UNCHANGED-STATE' },
  async ({ traceRunIds, conformanceRun, testKey, time, platform, targetCredentials }, testInfo) => {
    const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
    const apiKey = targetApiKey(conformanceRun, targetCredentials);
    skipDeclared(!apiKey, `target '${conformanceRun.target.name}' names no API key, which creating a run needs`);
    const owner: Caller = { name: 'the target API key', headers: { 'x-api-key': apiKey! } };
    await traffic.judge(time, testKey, async (window, testKey) => {
      const u = user(testKey, 'u', 0);
      // Exhaust the default user row, then create a run carrying that user: refused by that row.
      await traffic.fill('platform-api', NO_ROW, u, 1000);
      const id = traceRunIds.v7(baseTime(conformanceRun));
      const body = { id, name: 'refused', run_type: 'chain', start_time: isoWith(baseTime(conformanceRun)) };
      const refused = await traffic.send('platform-api', { method: 'POST', path: '/runs' }, both(owner, u), body);
      window.mustShare(10, `1001 requests as ${u.name}`);
      // Admitted, the request creates the run (below): refused, it answers no success, whatever the status.
      expect(success(refused.status), refused.describe('the run creation over the user row is refused')).toBe(false);
      // Not created: the run cannot be read (whatever 4xx the target says for an unknown id).
      expectRefused(await platform.get(`/runs/${id}`));
      // The same request once the window has passed creates the run: it was the limit that stopped it. The read
      // that shows it (a path the spec does not show) is a step: a target that serves none leaves the rule unjudged.
      await window.pass(10);
      expectStatus(await traffic.send('platform-api', { method: 'POST', path: '/runs' }, both(owner, u), body), '2xx');
      const created = await time.poll(
        () => platform.get(`/runs/${id}`),
        (res) => res.status === 200,
        { deadline: 'stats', first: 500 },
      );
      precondition(created.value, 'read the run created once the window had passed');
    });
  },
);

test(
  'an exhausted row refuses the caller until its interval has passed, then gives it a whole new window',
  { tag: '@RATE-RECOVERY' },
  async ({ conformanceRun, testKey, time, targetCredentials }, testInfo) => {
    // The EU run-stats row (20 / 10) is the cheapest whose window holds more than one request.
    skipDeclared(!conformanceRun.proxies['platform-api-eu'], `target '${conformanceRun.target.name}' names no platform-api-eu URL`);
    const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
    await traffic.judge(time, testKey, async (window, testKey) => {
      const refusal = traffic.refusal();
      const who = key(testKey, 0);
      const admitted = await traffic.fill('platform-api-eu', STATS, who, 20);
      const refused = await traffic.send('platform-api-eu', STATS, who);
      window.mustShare(10, 'the 21 run-stats requests of the first window');
      refusal.expect(refused, admitted, 'the 21st run-stats request of the window');
      if (window.exact) {
        // The window rolls: the caller is refused until the interval since the window's requests has passed.
        await window.advanceExactly(9_999);
        refusal.expectAgain(await traffic.send('platform-api-eu', STATS, who), '1 ms before the interval has passed, the caller');
        await window.advanceExactly(1);
      } else await window.pass(10);
      await traffic.fill('platform-api-eu', STATS, who, 19);
      const last = await traffic.send('platform-api-eu', STATS, who);
      const over = await traffic.send('platform-api-eu', STATS, who);
      window.mustShare(10, 'the 21 run-stats requests of the new window');
      refusal.expectAdmitted(last, 'the 20th request of the new window');
      refusal.expectAgain(over, 'the 21st request of the new window');
    });
  },
);

test(
  'a row without a method counts every method; a row with one counts only that method',
  { tag: '@RATE-METHOD-SCOPE' },
  async ({ conformanceRun, testKey, time, targetCredentials }, testInfo) => {
    const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
    // /generate is a path only §8 names: a target that serves it in no method (404 or 405 only, within and beyond
    // the limit) leaves the half about a row without a method nothing to judge, not the half on POST /runs.
    let probeGenerate = true;
    const withoutGenerate = ({ samples }: { samples: { sample: Sample }[] }) => {
      if (!probeGenerate || !samples.every(({ sample }) => sample.path === GENERATE.path)) return false;
      probeGenerate = false;
      testInfo.annotations.push({
        type: 'not served',
        description: `${GENERATE.path}: the target serves it in no method; the row without a method is left out`,
      });
      return true;
    };
    await traffic.judge(
      time,
      testKey,
      async (window, testKey) => {
        const refusal = traffic.refusal();
        if (probeGenerate) {
          const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
          const who = key(testKey, 0);
          const forms = methods.map((method) => ({ method, path: GENERATE.path }));
          const admitted = await traffic.fill('platform-api', forms, who, 30);
          for (const [i, form] of forms.entries()) {
            const res = await traffic.send('platform-api', form, who);
            const what = `${form.method}, counted by the /generate row with the 30 others,`;
            if (i === 0) refusal.expect(res, admitted, what);
            else refusal.expectAgain(res, what);
          }
        }
        // A row with a method, on an operation the spec shows: POST /runs. The other methods on /runs address none.
        const other = key(testKey, 1);
        window.restart();
        const ingested = await traffic.fill('platform-api', INGEST, other, 2000);
        const refused = await traffic.send('platform-api', INGEST, other);
        window.mustShare(10, 'the 2001 single run ingests');
        refusal.expect(refused, ingested, 'the 2001st POST /runs of the window');
        for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
          const res = await traffic.send('platform-api', { method, path: INGEST.path }, other);
          refusal.expectAdmitted(res, `${method}, which the POST /runs row does not count,`);
        }
      },
      withoutGenerate,
    );
  },
);

const PATH_PREFIX_TITLE = 'a row counts the /api/v1 form of a path only where it names it or its */ or "containing" reaches it';

test(PATH_PREFIX_TITLE, { tag: '@RATE-PATH-PREFIX' }, async ({ conformanceRun, testKey, time, targetCredentials }, testInfo) => {
  const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
  await traffic.judge(time, testKey, async (window, testKey) => {
    const refusal = traffic.refusal();
    // GET /runs/{uuid} or /api/v1/runs/{uuid}: one row, both forms.
    const who = key(testKey, 0);
    const admitted = [await traffic.fill('platform-api', LOOKUP(''), who, 15), await traffic.fill('platform-api', LOOKUP('/api/v1'), who, 15)];
    const answers = [];
    for (const prefix of ['', '/api/v1'] as const) answers.push(await traffic.send('platform-api', LOOKUP(prefix), who));
    window.mustShare(60, 'the 32 run lookups');
    for (const [i, res] of answers.entries()) refusal.expect(res, admitted[i], 'the 31st run lookup, in either form,');
    // /runs/stats names no /api/v1 form: POST /api/v1/runs/stats leaves the 1 / 10 row unspent.
    const stats = key(testKey, 1);
    window.restart();
    const prefixed = await traffic.send('platform-api', { method: 'POST', path: '/api/v1/runs/stats' }, stats);
    const first = await traffic.send('platform-api', STATS, stats);
    const second = await traffic.send('platform-api', STATS, stats);
    window.mustShare(10, 'the three run-stats requests');
    refusal.expectAdmitted(prefixed, 'POST /api/v1/runs/stats');
    refusal.expectAdmitted(first, '/runs/stats after /api/v1/runs/stats (the 1 / 10 row did not count the prefixed path)');
    refusal.expectAgain(second, 'the second /runs/stats');
    // */v1/metadata/submit reaches /api/v1/metadata/submit; /v1/beacon is a path of its own.
    const from: Caller = { name: callerIp(testKey, 2), headers: { 'x-forwarded-for': callerIp(testKey, 2) } };
    window.restart();
    const submissions: Sample[] = [
      { method: 'POST', path: '/v1/metadata/submit' },
      { method: 'POST', path: '/api/v1/metadata/submit' },
    ];
    await traffic.fill('platform-api', submissions, from, 2000);
    const submit = await traffic.send('platform-api', submissions[1], from);
    await traffic.fill('platform-api', NO_ROW, from, 100);
    const beacon = await traffic.send('platform-api', { method: 'POST', path: '/api/v1/beacon' }, from);
    const bare = await traffic.send('platform-api', { method: 'POST', path: '/v1/beacon' }, from);
    window.mustShare(10, `2103 requests from ${from.name}`);
    refusal.expectAgain(submit, 'the 2001st metadata submission, in either form,');
    refusal.expectAgain(beacon, '/api/v1/beacon, counted by the spent catch-all, not by the /v1/beacon row,');
    refusal.expectAdmitted(bare, '/v1/beacon, which has its own row,');
  });
});

test(
  'callers are told apart by x-api-key, by x-user-id with the client IP, or by the client IP alone',
  { tag: '@RATE-IDENTITY-KEYS' },
  async ({ conformanceRun, testKey, time, targetCredentials }, testInfo) => {
    const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
    await traffic.judge(time, testKey, async (window, testKey) => {
      const refusal = traffic.refusal();
      // x-api-key, on an operation the spec shows (POST /runs): another key is counted apart; the IP does not matter.
      const a = key(testKey, 0);
      const admitted = await traffic.fill('platform-api', INGEST, a, 2000);
      const refused = [
        await traffic.send('platform-api', INGEST, a),
        await traffic.send('platform-api', INGEST, {
          name: `${a.name} from ${callerIp(testKey, 7)}`,
          headers: { ...a.headers, 'x-forwarded-for': callerIp(testKey, 7) },
        }),
      ];
      window.mustShare(10, 'the 2002 single run ingests');
      refusal.expect(refused[0], admitted, `the 2001st POST /runs as ${a.name}`);
      refusal.expectAgain(refused[1], `the 2002nd, as the same key from another IP,`);
      refusal.expectAdmitted(await traffic.send('platform-api', INGEST, key(testKey, 1)), 'another key');
      // x-user-id + IP: the same user from another IP, or another user from the same IP, is counted apart.
      const deletion: Sample = { method: 'DELETE', path: '/sessions' };
      const u = user(testKey, 'u', 0);
      window.restart();
      const deleted = await traffic.fill('platform-api', deletion, u, 30);
      const over = await traffic.send('platform-api', deletion, u);
      window.mustShare(60, 'the 31 deletions');
      refusal.expect(over, deleted, `the 31st deletion as ${u.name}`);
      for (const other of [user(testKey, 'u', 1), user(testKey, 'v', 0)]) {
        const res = await traffic.send('platform-api', deletion, other);
        skipForMachine(other.headers['x-user-id'] === u.headers['x-user-id'] && refusal.refuses(res.status), notTheAddress(res));
        refusal.expectAdmitted(res, `${other.name}, counted apart from ${u.name},`);
      }
      // IP alone: another IP is counted apart; the key a request carries does not split an IP row. Each key's 1000
      // requests fill its default row to the limit, not beyond.
      const from = (n: number, k?: number): Caller => ({
        name: `${callerIp(testKey, n)}${k === undefined ? '' : ` with key #${k}`}`,
        headers: { 'x-forwarded-for': callerIp(testKey, n), ...(k === undefined ? {} : key(testKey, k).headers) },
      });
      window.restart();
      const seen = await traffic.fill('platform-api', PREFLIGHT, from(0, 0), 1000);
      await traffic.fill('platform-api', PREFLIGHT, from(0, 1), 1000);
      const third = await traffic.send('platform-api', PREFLIGHT, from(0, 2));
      window.mustShare(10, 'the 2001 OPTIONS /runs requests');
      refusal.expect(third, seen, 'the 2001st OPTIONS /runs from one IP, whatever its key,');
      const another = await traffic.send('platform-api', PREFLIGHT, from(1));
      skipForMachine(refusal.refuses(another.status), notTheAddress(another));
      refusal.expectAdmitted(another, 'another IP');
    });
  },
);

test(
  "a request counts against its specific rows and, only where none is keyed by an identity it carries, that identity's default row; a refused request counts against none",
  { tag: '@RATE-COMBINE' },
  async ({ conformanceRun, testKey, time, targetCredentials }, testInfo) => {
    const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
    await traffic.judge(time, testKey, async (window, testKey) => {
      const refusal = traffic.refusal();
      // A specific row replaces the default of its identity.
      const a = key(testKey, 0);
      const admitted = await traffic.fill('platform-api', NO_ROW, a, 1000);
      const spent = await traffic.send('platform-api', NO_ROW, a);
      const query = await traffic.send('platform-api', QUERY, a);
      window.mustShare(10, `1001 requests as ${a.name}`);
      refusal.expect(spent, admitted, `the 1001st request as ${a.name}`);
      refusal.expectAdmitted(query, 'POST /runs/query, which has a row of its own (the spent default does not apply),');
      // A request carrying both identities is counted by both rows; a refusal by one counts in neither.
      const b = key(testKey, 1);
      const u = user(testKey, 'u', 0);
      window.restart();
      await traffic.fill('platform-api', QUERY, b, 15);
      const refusedBoth = [];
      for (let i = 0; i < 10; i++) refusedBoth.push(await traffic.send('platform-api', QUERY, both(b, u)));
      await traffic.fill('platform-api', QUERY, u, 299);
      const last = await traffic.send('platform-api', QUERY, u);
      const over = await traffic.send('platform-api', QUERY, u);
      window.mustShare(10, 'the 326 run queries');
      for (const res of refusedBoth) refusal.expectAgain(res, `a run query as ${b.name}, over its key's row,`);
      refusal.expectAdmitted(last, 'the 300th run query of the user, whose row counted none of the 10 refused requests,');
      refusal.expectAgain(over, 'the 301st run query of the user');
      // The catch-all counts only what no other row counts.
      const anonymous: Caller = { name: callerIp(testKey, 3), headers: { 'x-forwarded-for': callerIp(testKey, 3) } };
      window.restart();
      await traffic.fill('platform-api', NO_ROW, anonymous, 100);
      const catchAll = await traffic.send('platform-api', NO_ROW, anonymous);
      window.mustShare(60, `101 requests from ${anonymous.name}`);
      refusal.expectAgain(catchAll, `the 101st request from ${anonymous.name}`);
      const info = await traffic.send('platform-api', { method: 'GET', path: '/info' }, anonymous);
      refusal.expectAdmitted(info, '/info, which has an IP row of its own (the spent catch-all does not apply),');
      const keyed = await traffic.send('platform-api', NO_ROW, both(anonymous, key(testKey, 2)));
      refusal.expectAdmitted(keyed, 'a request with x-api-key, counted by the default row, not the catch-all,');
    });
  },
);

test(
  'each region enforces its own value with its own counters: run stats 1 / 10 in US, 20 / 10 in EU',
  { tag: '@RATE-REGION-VALUES' },
  async ({ conformanceRun, testKey, time, targetCredentials }, testInfo) => {
    const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
    await traffic.judge(time, testKey, async (window, testKey) => {
      const refusal = traffic.refusal();
      const who = key(testKey, 0);
      const admittedUs = await traffic.fill('platform-api', STATS, who, 1);
      const us = await traffic.send('platform-api', STATS, who);
      const admittedEu = await traffic.fill('platform-api-eu', STATS, who, 19);
      const twentieth = await traffic.send('platform-api-eu', STATS, who);
      const eu = await traffic.send('platform-api-eu', STATS, who);
      window.mustShare(10, 'the 23 run-stats requests');
      refusal.expect(us, admittedUs, 'the second run-stats request in the US');
      refusal.expect(eu, admittedEu, 'the 21st run-stats request in the EU');
      refusal.expectAdmitted(twentieth, 'the 20th in the EU, whatever the US counted of the same key,');
      if (traffic.keySent('platform-api', who) !== traffic.keySent('platform-api-eu', who))
        window.note('the same key in both regions: the US and the EU know no key in common, so each region was sent a key of its own');
    });
  },
);

test(
  'POST /runs/multipart admits more requests per window than POST and PATCH /runs do',
  { tag: '@TRACE-MULTIPART-HIGHER-LIMIT' },
  async ({ conformanceRun, testKey, time, targetCredentials }, testInfo) => {
    const traffic = new Traffic(conformanceRun, testInfo, targetCredentials);
    await traffic.judge(time, testKey, async (window, testKey) => {
      const who = key(testKey, 0);
      const basic: Sample[] = [
        { method: 'POST', path: '/runs' },
        { method: 'PATCH', path: '/runs/0190a0d5-0a9c-7c3e-8d4f-2b6a1c9e5f01' },
      ];
      // A request is admitted when it answers as the first of its burst did, well within every limit: the
      // refusal's status is not shown (§7, §8).
      const admittedOf = (answers: { status: number }[]) => answers.filter((a) => a.status === answers[0].status).length;
      const admitted: Record<string, number> = {};
      const refusal = traffic.refusal();
      for (const sample of basic) {
        window.restart();
        const answers = await traffic.sendMany('platform-api', [sample], who, 2_500);
        // The exchange that shows the limit: one more, through the recording proxy. Where PATCH /runs/{run_id} is not
        // served, the refusal's check has the traffic try again with §4.3's PATCH /runs.
        const last = await traffic.send('platform-api', sample, who);
        window.mustShare(10, `2500 requests ${sample.method} ${sample.path}`);
        refusal.expect(last, answers[0], `${sample.method} ${sample.path} after 2500 in one window`);
        admitted[sample.method] = admittedOf(answers);
      }
      window.restart();
      const multipart = await traffic.sendMany('platform-api', [{ method: 'POST', path: '/runs/multipart' }], who, 2_500);
      window.mustShare(10, '2500 multipart requests');
      const overMultipart = admittedOf(multipart);
      const limits = `of 2500 requests in one window, POST /runs had ${admitted.POST} admitted, PATCH /runs ${admitted.PATCH}, POST /runs/multipart ${overMultipart}`;
      expect(admitted.POST, `${limits}: basic tracing is limited`).toBeLessThan(2_500);
      expect(admitted.PATCH, `${limits}: basic tracing is limited`).toBeLessThan(2_500);
      expect(overMultipart, `${limits}: multipart has the higher limit`).toBeGreaterThan(Math.max(admitted.POST, admitted.PATCH));
    });
  },
);
