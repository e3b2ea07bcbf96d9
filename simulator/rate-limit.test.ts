import { expect, test } from '@playwright/test';
import { contract, type RateLimitRow } from '../specs/contract.ts';
import { VirtualClock } from './clock.ts';
import { clientIp, RateLimiter, type RateLimitRequest, type Region } from './rate-limit.ts';

const rows = contract().rateLimits;
const row = (id: string) => rows.find((r) => r.id === id)!;

/** A request that the row counts, from caller `who`. */
function requestFor(r: RateLimitRow, who = 'a'): RateLimitRequest {
  const method = r.match.methods?.[0] ?? 'GET';
  const m = r.match.paths?.[0];
  const path = !m
    ? `/nothing-specific/${who}`
    : m.type === 'exact'
      ? m.value
      : m.type === 'suffix'
        ? `/x${m.value}`
        : m.type === 'contains'
          ? `/x${m.value}/y`
          : '/runs/0190a0d5-0000-7000-8000-000000000001';
  const headers: Record<string, string> = {};
  if (r.identity === 'api-key') headers['x-api-key'] = `key-${who}`;
  if (r.identity === 'user-id+ip') headers['x-user-id'] = `user-${who}`;
  return { method, path, headers, ip: `198.51.100.${who.charCodeAt(0) % 200}` };
}

function limiter(region: Region = 'us') {
  const clock = new VirtualClock(0);
  return { clock, limiter: new RateLimiter(rows, region, clock) };
}

function admitMany(l: RateLimiter, request: RateLimitRequest, count: number): number {
  let admitted = 0;
  for (let i = 0; i < count; i++) if (l.admit(request).admitted) admitted++;
  return admitted;
}

for (const r of rows) {
  test(`${r.id}: the limit-th request is admitted, the next refused, and after ${r.interval_seconds} s admitted again (${r.rule})`, () => {
    for (const region of ['us', 'eu'] as const) {
      const { clock, limiter: l } = limiter(region);
      const request = requestFor(r);
      expect(
        l.rowsFor(request).map((x) => x.id),
        `${r.id} counts its own sample request`,
      ).toContain(r.id);
      expect(admitMany(l, request, r.limit[region]), `${region}: all ${r.limit[region]} admitted`).toBe(r.limit[region]);
      const refused = l.admit(request);
      expect(refused).toMatchObject({ admitted: false, retryAfterSeconds: r.interval_seconds });
      expect(l.admit(requestFor(r, 'b')).admitted, 'another caller is counted apart').toBe(true);
      clock.advance(r.interval_seconds * 1000 - 1);
      expect(l.admit(request)).toMatchObject({ admitted: false, retryAfterSeconds: 1 });
      clock.advance(1);
      expect(l.admit(request).admitted, 'admitted once the interval has passed').toBe(true);
    }
  });
}

test('each region counts with its own values: run stats 1 / 10 in US, 20 / 10 in EU; commits 10000 / 2000', () => {
  const us = limiter('us').limiter;
  const eu = limiter('eu').limiter;
  const stats = requestFor(row('runs-stats-api-key'));
  expect(admitMany(us, stats, 30)).toBe(1);
  expect(admitMany(eu, stats, 30)).toBe(20);
  const commits = requestFor(row('commits-user-ip'));
  expect(admitMany(us, commits, 10_001)).toBe(10_000);
  expect(admitMany(eu, commits, 10_001)).toBe(2_000);
});

test('a specific row replaces the default of its identity: 6000 multipart posts pass a default of 1000', () => {
  const { limiter: l } = limiter();
  const multipart = { method: 'POST', path: '/runs/multipart', headers: { 'x-api-key': 'k' }, ip: '198.51.100.1' };
  expect(l.rowsFor(multipart).map((r) => r.id)).toEqual(['runs-multipart-api-key']);
  expect(admitMany(l, multipart, 6001)).toBe(6000);
  // The default row has counted none of them.
  expect(admitMany(l, { ...multipart, method: 'GET', path: '/api/v1/sessions' }, 1001)).toBe(1000);
});

test('a request carrying both headers counts against both identities; a refusal counts against neither', () => {
  const { limiter: l } = limiter();
  const byKey = { method: 'POST', path: '/runs/query', headers: { 'x-api-key': 'k' }, ip: '198.51.100.1' };
  const both = { ...byKey, headers: { 'x-api-key': 'k', 'x-user-id': 'u' } };
  expect(l.rowsFor(both).map((r) => r.id)).toEqual(['runs-query-api-key', 'runs-query-user-ip']);
  expect(admitMany(l, byKey, 15)).toBe(15);
  expect(admitMany(l, both, 50), 'refused by the exhausted api-key row').toBe(0);
  const byUser = { ...byKey, headers: { 'x-user-id': 'u' } };
  expect(admitMany(l, byUser, 301), 'the user row counted none of the 50 refusals').toBe(300);
});

test('the catch-all counts only requests no other row counts', () => {
  const { limiter: l } = limiter();
  const anonymous = { method: 'GET', path: '/api/v1/sessions', headers: {}, ip: '198.51.100.1' };
  expect(l.rowsFor(anonymous).map((r) => r.id)).toEqual(['catch-all-ip']);
  expect(l.rowsFor({ ...anonymous, path: '/info' }).map((r) => r.id)).toEqual(['high-throughput-meta-ip']);
  expect(l.rowsFor({ ...anonymous, headers: { 'x-api-key': 'k' } }).map((r) => r.id)).toEqual(['default-api-key']);
  expect(l.rowsFor({ ...anonymous, path: '/info', headers: { 'x-api-key': 'k' } }).map((r) => r.id)).toEqual(['high-throughput-meta-ip', 'default-api-key']);
  expect(admitMany(l, anonymous, 101)).toBe(100);
  expect(l.admit({ ...anonymous, path: '/info' }).admitted, 'the meta row is not the catch-all').toBe(true);
  expect(l.admit({ ...anonymous, ip: '198.51.100.2' }).admitted, 'another IP').toBe(true);
});

test('the OPTIONS entry and the /info entry share one counter', () => {
  const { limiter: l } = limiter();
  const ip = '198.51.100.9';
  expect(admitMany(l, { method: 'OPTIONS', path: '/runs', headers: {}, ip }, 1000)).toBe(1000);
  expect(admitMany(l, { method: 'GET', path: '/info', headers: {}, ip }, 999)).toBe(999);
  // OPTIONS /info matches both entries and is counted once.
  expect(l.admit({ method: 'OPTIONS', path: '/info', headers: {}, ip }).admitted).toBe(true);
  expect(l.admit({ method: 'POST', path: '/a/v1/metadata/submit', headers: {}, ip }).admitted).toBe(false);
});

test('rows with a method count that method only; rows without count every method together', () => {
  const { limiter: l } = limiter();
  const headers = { 'x-api-key': 'k' };
  const ip = '198.51.100.1';
  expect(admitMany(l, { method: 'POST', path: '/runs/query', headers, ip }, 15)).toBe(15);
  expect(l.rowsFor({ method: 'GET', path: '/runs/query', headers, ip }).map((r) => r.id)).toEqual(['default-api-key']);
  expect(l.admit({ method: 'GET', path: '/runs/query', headers, ip }).admitted).toBe(true);
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  let admitted = 0;
  for (let i = 0; i < 31; i++) if (l.admit({ method: methods[i % methods.length], path: '/generate', headers, ip }).admitted) admitted++;
  expect(admitted).toBe(30);
});

test('paths are matched as sent: /api/v1 counts only where a row names or reaches it, and a trailing slash is another path', () => {
  const { limiter: l } = limiter();
  const ids = (method: string, path: string, headers: Record<string, string> = { 'x-api-key': 'k' }) =>
    l.rowsFor({ method, path, headers, ip: '198.51.100.1' }).map((r) => r.id);
  expect(ids('POST', '/api/v1/runs/query'), 'the row names /runs/query only').toEqual(['default-api-key']);
  expect(ids('POST', '/runs/query/')).toEqual(['default-api-key']);
  expect(ids('POST', '/api/v1/metadata/submit', {}), '*/v1/metadata/submit reaches it').toEqual(['high-throughput-meta-ip']);
  expect(ids('POST', '/api/v1/beacon', {}), '/v1/beacon is a path of its own').toEqual(['catch-all-ip']);
  expect(ids('PATCH', '/api/v1/runs/0190a0d5-0000-7000-8000-000000000001'), 'containing /runs reaches it').toEqual(['runs-update-api-key']);
  const lookup = (path: string) => ({ method: 'GET', path, headers: { 'x-api-key': 'k' }, ip: '198.51.100.1' });
  const id = '0190a0d5-0000-7000-8000-000000000001';
  // The run-lookup row names both forms: they share its counter.
  expect(admitMany(l, lookup(`/runs/${id}`), 15) + admitMany(l, lookup(`/api/v1/runs/${id}`), 15)).toBe(30);
  expect(l.admit(lookup(`/api/v1/runs/${id}`)).admitted).toBe(false);
  expect(l.admit(lookup(`/runs/${id}/`)).admitted, 'another path, counted by the default row').toBe(true);
});

test('windows slide: what was admitted more than one interval ago no longer counts', () => {
  const { clock, limiter: l } = limiter();
  const query = { method: 'POST', path: '/runs/query', headers: { 'x-api-key': 'k' }, ip: '198.51.100.1' };
  expect(admitMany(l, query, 5)).toBe(5);
  clock.advance(5_000);
  expect(admitMany(l, query, 10)).toBe(10);
  expect(l.admit(query)).toMatchObject({ admitted: false, retryAfterSeconds: 5 });
  clock.advance(4_500);
  expect(l.admit(query)).toMatchObject({ admitted: false, retryAfterSeconds: 1 });
  clock.advance(500);
  expect(admitMany(l, query, 6), 'the first five left the window, the other ten did not').toBe(5);
  expect(l.admit(query)).toMatchObject({ admitted: false, retryAfterSeconds: 5 });
});

test('Retry-After is the longest wait of the exhausted rows, rounded up to whole seconds', () => {
  const { clock, limiter: l } = limiter();
  const byKey = { method: 'POST', path: '/runs/query', headers: { 'x-api-key': 'k' }, ip: '198.51.100.1' };
  const byUser = { ...byKey, headers: { 'x-user-id': 'u' } };
  const both = { ...byKey, headers: { 'x-api-key': 'k', 'x-user-id': 'u' } };
  expect(admitMany(l, byKey, 15)).toBe(15);
  clock.advance(2_300);
  expect(admitMany(l, byUser, 300)).toBe(300);
  // The api-key row frees in 7.7 s, the user row in 10 s.
  expect(l.admit(both)).toMatchObject({ admitted: false, retryAfterSeconds: 10 });
  expect(l.admit(byKey)).toMatchObject({ admitted: false, retryAfterSeconds: 8 });
  clock.advance(7_700);
  expect(l.admit(both)).toMatchObject({ admitted: false, retryAfterSeconds: 3 });
  clock.advance(2_300);
  expect(l.admit(both).admitted).toBe(true);
});

test('reset forgets every counter', () => {
  const { limiter: l } = limiter();
  const stats = requestFor(row('runs-stats-api-key'));
  expect(admitMany(l, stats, 2)).toBe(1);
  l.reset();
  expect(l.admit(stats).admitted).toBe(true);
});

test('the client IP is the socket peer, or the nearest non-loopback X-Forwarded-For hop behind a loopback peer', () => {
  expect(clientIp('198.51.100.1', undefined)).toBe('198.51.100.1');
  expect(clientIp('::ffff:127.0.0.1', '203.0.113.5')).toBe('203.0.113.5');
  expect(clientIp('127.0.0.1', '203.0.113.5, 198.51.100.7, 127.0.0.1')).toBe('198.51.100.7');
  expect(clientIp('::1', '127.0.0.2')).toBe('::1');
  expect(clientIp('198.51.100.1', '203.0.113.5'), 'a remote peer is not trusted with the header').toBe('198.51.100.1');
});
