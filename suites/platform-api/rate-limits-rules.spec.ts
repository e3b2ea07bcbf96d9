// §5, §8: how the rate-limit table behaves as a whole: the refusal (429, JSON body,
// Retry-After), that it changes nothing, recovery, method scope, which /api/v1 forms a row
// counts, identity keys, how rows combine and the per-region values. Exact on a virtual clock;
// bounded in real time, where the requests that must share a window are timed (rate-limits/window.ts).
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { expectJsonError, expectStatus } from '../../harness/checks/index.ts';
import { expect, targetApiKey, test } from '../../harness/fixtures.ts';
import { caller, scopedIp, sendMany, Traffic, type Caller, type Sample } from '../rate-limits/traffic.ts';
import { RateWindow, requireRateLimitTraffic } from '../rate-limits/window.ts';
import { baseTime, isoWith, RunIds } from './traces.ts';

const STATS: Sample = { method: 'POST', path: '/runs/stats' };
const QUERY: Sample = { method: 'POST', path: '/runs/query' };
const GENERATE: Sample = { method: 'POST', path: '/generate' };
const NO_ROW: Sample = { method: 'GET', path: '/apc/no-specific-row' };
const LOOKUP = (prefix: '' | '/api/v1') => ({ method: 'GET', path: `${prefix}/runs/0190a0d5-0a9c-7c3e-8d4f-2b6a1c9e5f01` });

const key = (scope: string, n: number): Caller => caller('api-key', n, { scope });
const user = (scope: string, name: string, from: number): Caller => ({
  name: `x-user-id ${name} from ${scopedIp(scope, from)}`,
  headers: { 'x-user-id': `apc-rate-${scope}-${name}`, 'x-forwarded-for': scopedIp(scope, from) },
});
const both = (a: Caller, b: Caller): Caller => ({ name: `${a.name} and ${b.name}`, headers: { ...a.headers, ...b.headers } });
const notRefused = (status: number) => status !== 429;

// Each test's callers are its own: on a target whose time is real, the tests run side by side.
test.describe.configure({ mode: 'parallel' });

test.beforeEach(({ run }) => {
  requireRateLimitTraffic(run);
});

test('a request refused by a rate limit answers 429 with a JSON error body', { tag: '@RATE-429' }, async ({ run, scope, time }, testInfo) => {
  const traffic = new Traffic(run, testInfo.testId);
  const window = new RateWindow(time);
  for (const endpoint of ['platform-api', 'platform-api-eu'] as const) {
    const who = key(scope, 0);
    window.restart();
    await traffic.fill(endpoint, STATS, who, endpoint === 'platform-api' ? 1 : 20);
    const refused = await traffic.send(endpoint, STATS, who);
    window.mustShare(10, 'the run-stats requests');
    expectJsonError(refused, 429);
    expect(refused.violations, refused.describe('the 429 is documented for the operation')).toEqual([]);
  }
});

test(
  'Retry-After gives the whole seconds, rounded up, until the exhausted row admits the caller again',
  { tag: '@RATE-RETRY-AFTER' },
  async ({ run, scope, time }, testInfo) => {
    const traffic = new Traffic(run, testInfo.testId);
    const window = new RateWindow(time);
    const who = key(scope, 0);
    const first = await traffic.send('platform-api', STATS, who);
    expect(first.status, first.describe('the first request of the window is admitted')).not.toBe(429);
    if (window.exact) {
      await window.advanceExactly(3_500);
      const refused = await traffic.send('platform-api', STATS, who);
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
      expectStatus(refused, 429);
      const seconds = Number(refused.headers['retry-after']);
      expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= 10, refused.describe('Retry-After: whole seconds, at most the 10 s window')).toBe(true);
      await time.pass(seconds * 1000);
    }
    const after = await traffic.send('platform-api', STATS, who);
    expect(after.status, after.describe('admitted once Retry-After has passed')).not.toBe(429);

    const hourly = key(scope, 1);
    window.restart();
    await traffic.fill('platform-api', GENERATE, hourly, 30);
    const generate = await traffic.send('platform-api', GENERATE, hourly);
    expectStatus(generate, 429);
    const elapsed = Math.ceil(window.elapsed() / 1000);
    const retryAfter = Number(generate.headers['retry-after']);
    expect(
      retryAfter >= 3600 - elapsed && retryAfter <= 3600,
      generate.describe(`the 30 / 3600 row frees in an hour${elapsed ? `, less the ${elapsed} s its window is old` : ''}`),
    ).toBe(true);
  },
);

test(
  'a request refused by a rate limit changes no state',
  { tag: '@RATE-UNCHANGED-STATE' },
  async ({ run, scope, time, platform, targetCredentials }, testInfo) => {
    const traffic = new Traffic(run, testInfo.testId);
    const window = new RateWindow(time);
    const apiKey = targetApiKey(run, targetCredentials);
    test.skip(!apiKey, 'needs the target API key to create a run');
    const owner: Caller = { name: 'the target API key', headers: { 'x-api-key': apiKey! } };
    const u = user(scope, 'u', 0);
    // Exhaust the default user row, then create a run carrying that user: refused by that row.
    await traffic.fill('platform-api', NO_ROW, u, 1000);
    const id = new RunIds(scope, run).v7(baseTime(run));
    const body = { id, name: 'refused', run_type: 'chain', start_time: isoWith(baseTime(run)) };
    const refused = await traffic.send('platform-api', { method: 'POST', path: '/runs' }, both(owner, u), body);
    window.mustShare(10, `1001 requests as ${u.name}`);
    expectStatus(refused, 429);
    // Not created: the run cannot be read (whatever 4xx the target says for an unknown id).
    expectJsonError(await platform.get(`/runs/${id}`));
    // The same request once the window has passed creates the run: it was the limit that stopped it.
    await window.pass(10);
    expectStatus(await traffic.send('platform-api', { method: 'POST', path: '/runs' }, both(owner, u), body), '2xx');
    const created = await time.poll(
      () => platform.get(`/runs/${id}`),
      (res) => res.status === 200,
      { deadline: 'stats', first: 500 },
    );
    expectStatus(created.value, 200);
  },
);

test(
  'once the interval of an exhausted row has passed, the caller gets a whole new window',
  { tag: '@RATE-RECOVERY' },
  async ({ run, scope, time }, testInfo) => {
    const traffic = new Traffic(run, testInfo.testId);
    const window = new RateWindow(time);
    const who = key(scope, 0);
    await traffic.fill('platform-api-eu', STATS, who, 20);
    const refused = await traffic.send('platform-api-eu', STATS, who);
    window.mustShare(10, 'the 21 run-stats requests of the first window');
    expectStatus(refused, 429);
    await window.pass(10);
    await traffic.fill('platform-api-eu', STATS, who, 19);
    const last = await traffic.send('platform-api-eu', STATS, who);
    const over = await traffic.send('platform-api-eu', STATS, who);
    window.mustShare(10, 'the 21 run-stats requests of the new window');
    expect(last.status, last.describe('the 20th request of the new window is admitted')).not.toBe(429);
    expectStatus(over, 429);
  },
);

test(
  'a row without a method counts every method; a row with one counts only that method',
  { tag: '@RATE-METHOD-SCOPE' },
  async ({ run, scope, time }, testInfo) => {
    const traffic = new Traffic(run, testInfo.testId);
    const window = new RateWindow(time);
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
    const who = key(scope, 0);
    await traffic.fill(
      'platform-api',
      methods.map((method) => ({ method, path: GENERATE.path })),
      who,
      30,
    );
    for (const method of methods) {
      const res = await traffic.send('platform-api', { method, path: GENERATE.path }, who);
      expect(res.status, res.describe(`${method} is counted by the /generate row with the 30 others`)).toBe(429);
    }
    const other = key(scope, 1);
    window.restart();
    await traffic.fill('platform-api', QUERY, other, 15);
    const refused = await traffic.send('platform-api', QUERY, other);
    window.mustShare(10, 'the 16 run queries');
    expectStatus(refused, 429);
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const res = await traffic.send('platform-api', { method, path: QUERY.path }, other);
      expect(res.status, res.describe(`${method} is not counted by the POST /runs/query row`)).not.toBe(429);
    }
  },
);

const PATH_PREFIX_TITLE = 'a row counts the /api/v1 form of a path only where it names it or its */ or "containing" reaches it';

test(PATH_PREFIX_TITLE, { tag: '@RATE-PATH-PREFIX' }, async ({ run, scope, time }, testInfo) => {
  const traffic = new Traffic(run, testInfo.testId);
  const window = new RateWindow(time);
  // GET /runs/{uuid} or /api/v1/runs/{uuid}: one row, both forms.
  const who = key(scope, 0);
  await traffic.fill('platform-api', LOOKUP(''), who, 15);
  await traffic.fill('platform-api', LOOKUP('/api/v1'), who, 15);
  const answers = [];
  for (const prefix of ['', '/api/v1'] as const) answers.push(await traffic.send('platform-api', LOOKUP(prefix), who));
  window.mustShare(60, 'the 32 run lookups');
  for (const res of answers) expect(res.status, res.describe('the 31st run lookup in either form is refused')).toBe(429);
  // /runs/stats names no /api/v1 form: POST /api/v1/runs/stats leaves the 1 / 10 row unspent.
  const stats = key(scope, 1);
  window.restart();
  const prefixed = await traffic.send('platform-api', { method: 'POST', path: '/api/v1/runs/stats' }, stats);
  const first = await traffic.send('platform-api', STATS, stats);
  const second = await traffic.send('platform-api', STATS, stats);
  window.mustShare(10, 'the three run-stats requests');
  expect(notRefused(prefixed.status)).toBe(true);
  expect(first.status, first.describe('/runs/stats after /api/v1/runs/stats: the 1 / 10 row did not count the prefixed path')).not.toBe(429);
  expectStatus(second, 429);
  // */v1/metadata/submit reaches /api/v1/metadata/submit; /v1/beacon is a path of its own.
  const from: Caller = { name: scopedIp(scope, 2), headers: { 'x-forwarded-for': scopedIp(scope, 2) } };
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
  expect(submit.status, submit.describe('the 2001st metadata submission, in either form, is refused')).toBe(429);
  expect(beacon.status, beacon.describe('/api/v1/beacon is counted by the spent catch-all, not by the /v1/beacon row')).toBe(429);
  expect(bare.status, bare.describe('/v1/beacon has its own row')).not.toBe(429);
});

test(
  'callers are told apart by x-api-key, by x-user-id with the client IP, or by the client IP alone',
  { tag: '@RATE-IDENTITY-KEYS' },
  async ({ run, scope, time }, testInfo) => {
    const traffic = new Traffic(run, testInfo.testId);
    const window = new RateWindow(time);
    // x-api-key: another key is counted apart; the IP does not matter.
    const a = key(scope, 0);
    await traffic.fill('platform-api', QUERY, a, 15);
    const refused = [
      await traffic.send('platform-api', QUERY, a),
      await traffic.send('platform-api', QUERY, {
        name: `${a.name} from ${scopedIp(scope, 7)}`,
        headers: { ...a.headers, 'x-forwarded-for': scopedIp(scope, 7) },
      }),
    ];
    window.mustShare(10, 'the 17 run queries');
    for (const res of refused) expectStatus(res, 429);
    expect(notRefused((await traffic.send('platform-api', QUERY, key(scope, 1))).status), 'another key').toBe(true);
    // x-user-id + IP: the same user from another IP, or another user from the same IP, is counted apart.
    const deletion: Sample = { method: 'DELETE', path: '/sessions' };
    const u = user(scope, 'u', 0);
    window.restart();
    await traffic.fill('platform-api', deletion, u, 30);
    const over = await traffic.send('platform-api', deletion, u);
    window.mustShare(60, 'the 31 deletions');
    expectStatus(over, 429);
    for (const other of [user(scope, 'u', 1), user(scope, 'v', 0)]) {
      const res = await traffic.send('platform-api', deletion, other);
      expect(res.status, res.describe(`${other.name} is counted apart from ${u.name}`)).not.toBe(429);
    }
    // IP alone: another IP is counted apart; the key a request carries does not split an IP row.
    const info: Sample = { method: 'GET', path: '/info' };
    const from = (n: number, k?: number): Caller => ({
      name: `${scopedIp(scope, n)}${k === undefined ? '' : ` with key #${k}`}`,
      headers: { 'x-forwarded-for': scopedIp(scope, n), ...(k === undefined ? {} : key(scope, 10 + k).headers) },
    });
    window.restart();
    await traffic.fill('platform-api', info, from(0, 0), 1000);
    await traffic.fill('platform-api', info, from(0, 1), 1000);
    const third = await traffic.send('platform-api', info, from(0, 2));
    window.mustShare(10, 'the 2001 /info requests');
    expect(third.status, third.describe('the 2001st /info from one IP is refused whatever its key')).toBe(429);
    const another = await traffic.send('platform-api', info, from(1));
    if (another.status === 429 && !window.exact)
      skipForPrecondition(
        `precondition failed: another X-Forwarded-For address was refused too: the target may not take the client IP from it: ${another.describe()}`,
      );
    expect(notRefused(another.status), another.describe('another IP')).toBe(true);
  },
);

test(
  "a request counts against its specific rows and, only where none is keyed by an identity it carries, that identity's default row; a refused request counts against none",
  { tag: '@RATE-COMBINE' },
  async ({ run, scope, time }, testInfo) => {
    const traffic = new Traffic(run, testInfo.testId);
    const window = new RateWindow(time);
    // A specific row replaces the default of its identity.
    const a = key(scope, 0);
    await traffic.fill('platform-api', NO_ROW, a, 1000);
    const spent = await traffic.send('platform-api', NO_ROW, a);
    const query = await traffic.send('platform-api', QUERY, a);
    window.mustShare(10, `1001 requests as ${a.name}`);
    expectStatus(spent, 429);
    expect(query.status, query.describe('POST /runs/query has a row of its own: the spent default does not apply')).not.toBe(429);
    // A request carrying both identities is counted by both rows; a refusal by one counts in neither.
    const b = key(scope, 1);
    const u = user(scope, 'u', 0);
    window.restart();
    await traffic.fill('platform-api', QUERY, b, 15);
    const refusedBoth = [];
    for (let i = 0; i < 10; i++) refusedBoth.push(await traffic.send('platform-api', QUERY, both(b, u)));
    await traffic.fill('platform-api', QUERY, u, 299);
    const last = await traffic.send('platform-api', QUERY, u);
    const over = await traffic.send('platform-api', QUERY, u);
    window.mustShare(10, 'the 326 run queries');
    for (const res of refusedBoth) expectStatus(res, 429);
    expect(last.status, last.describe('the user row counted none of the 10 refused requests: its 300th is admitted')).not.toBe(429);
    expectStatus(over, 429);
    // The catch-all counts only what no other row counts.
    const anonymous: Caller = { name: scopedIp(scope, 3), headers: { 'x-forwarded-for': scopedIp(scope, 3) } };
    window.restart();
    await traffic.fill('platform-api', NO_ROW, anonymous, 100);
    const catchAll = await traffic.send('platform-api', NO_ROW, anonymous);
    window.mustShare(60, `101 requests from ${anonymous.name}`);
    expectStatus(catchAll, 429);
    const info = await traffic.send('platform-api', { method: 'GET', path: '/info' }, anonymous);
    expect(info.status, info.describe('/info has an IP row of its own: the spent catch-all does not apply')).not.toBe(429);
    const keyed = await traffic.send('platform-api', NO_ROW, both(anonymous, key(scope, 2)));
    expect(keyed.status, keyed.describe('a request with x-api-key is counted by the default row, not the catch-all')).not.toBe(429);
  },
);

test(
  'each region enforces its own value with its own counters: run stats 1 / 10 in US, 20 / 10 in EU',
  { tag: '@RATE-REGION-VALUES' },
  async ({ run, scope, time }, testInfo) => {
    const traffic = new Traffic(run, testInfo.testId);
    const window = new RateWindow(time);
    const who = key(scope, 0);
    await traffic.fill('platform-api', STATS, who, 1);
    const us = await traffic.send('platform-api', STATS, who);
    await traffic.fill('platform-api-eu', STATS, who, 19);
    const twentieth = await traffic.send('platform-api-eu', STATS, who);
    const eu = await traffic.send('platform-api-eu', STATS, who);
    window.mustShare(10, 'the 23 run-stats requests');
    expectStatus(us, 429);
    expect(twentieth.status, twentieth.describe('the EU admits 20 of the same key, whatever the US counted')).not.toBe(429);
    expectStatus(eu, 429);
  },
);

test(
  'POST /runs/multipart admits more requests per window than POST and PATCH /runs do',
  { tag: '@TRACE-MULTIPART-HIGHER-LIMIT' },
  async ({ run, scope, time }, testInfo) => {
    const traffic = new Traffic(run, testInfo.testId);
    const window = new RateWindow(time);
    const who = key(scope, 0);
    const basic: Sample[] = [
      { method: 'POST', path: '/runs' },
      { method: 'PATCH', path: '/runs/0190a0d5-0a9c-7c3e-8d4f-2b6a1c9e5f01' },
    ];
    const admitted: Record<string, number> = {};
    let last: Awaited<ReturnType<Traffic['send']>> | undefined;
    for (const sample of basic) {
      window.restart();
      const answers = await sendMany(run.target.planes['platform-api']!, [sample], who, 2_500);
      // The exchange that shows the limit: one more, through the recording proxy.
      if (sample.method === 'POST') last = await traffic.send('platform-api', sample, who);
      window.mustShare(10, `2500 requests ${sample.method} ${sample.path}`);
      admitted[sample.method] = answers.filter((a) => a.status !== 429).length;
    }
    window.restart();
    const multipart = await sendMany(run.target.planes['platform-api']!, [{ method: 'POST', path: '/runs/multipart' }], who, 2_500);
    window.mustShare(10, '2500 multipart requests');
    const overMultipart = multipart.filter((a) => a.status !== 429).length;
    const limits = `of 2500 requests in one window, POST /runs had ${admitted.POST} admitted, PATCH /runs ${admitted.PATCH}, POST /runs/multipart ${overMultipart}`;
    expect(admitted.POST, `${limits}: basic tracing is limited`).toBeLessThan(2_500);
    expect(admitted.PATCH, `${limits}: basic tracing is limited`).toBeLessThan(2_500);
    expect(overMultipart, `${limits}: multipart has the higher limit`).toBeGreaterThan(Math.max(admitted.POST, admitted.PATCH));
    expectStatus(last!, 429);
  },
);
