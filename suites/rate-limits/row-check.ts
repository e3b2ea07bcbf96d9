// The test of one rule of the §8 table: in each region, the limit-th request of a window is
// admitted and the next refused; other callers, and other methods of a row that names one, are
// counted apart; after the interval the caller is admitted again. Every form of the row's
// requests (methods, paths, /api/v1) fills one window. Exact on a virtual clock, bounded in
// real time (window.ts).
import type { Endpoint, RateLimitRow } from '../../specs/contract.ts';
import { contract } from '../../specs/contract.ts';
import { expectStatus } from '../../harness/checks/index.ts';
import { skipForPrecondition } from '../../harness/checks/attribution.ts';
import { clientWithKey, expect, test } from '../../harness/fixtures.ts';
import type { RunContext } from '../../harness/run-context.ts';
import type { Time } from '../../harness/time.ts';
import { RateWindow, requireRateLimitTraffic } from './window.ts';
import { caller, describeRefusal, fill, otherMethodSample, samplesFor, send } from './traffic.ts';

const regionOf = (endpoint: Endpoint) => (endpoint === 'platform-api-eu' ? 'eu' : 'us');

/** The rows of one rule: one, or the two entries of the first spec row. */
function rowsOf(rule: string): RateLimitRow[] {
  return contract().rateLimits.filter((r) => r.rule === rule);
}

/** The rules of the table, in table order. */
export function tableRules(): string[] {
  return [...new Set(contract().rateLimits.map((r) => r.rule))];
}

function describePath(match: NonNullable<RateLimitRow['match']['paths']>[number]): string {
  if (match.type === 'exact') return match.value;
  if (match.type === 'suffix') return `…${match.value}`;
  if (match.type === 'contains') return `paths containing ${match.value}`;
  return '/runs/{uuid}';
}

/** "POST /runs/query", "OPTIONS, /info, …/v1/metadata/submit", "any request with x-api-key". */
function describeMatch(rows: RateLimitRow[]): string {
  return rows
    .map((r) => {
      if (r.match.requires === 'api-key') return 'any request with x-api-key';
      if (r.match.requires === 'user-id') return 'any request with x-user-id';
      if (r.match.requires === 'none') return 'any other request';
      const paths = r.match.paths?.map(describePath).join(' or ');
      return [r.match.methods?.join(', '), paths].filter(Boolean).join(' ');
    })
    .join(', ');
}

const IDENTITY = { 'api-key': 'x-api-key', 'user-id+ip': 'x-user-id and client IP', ip: 'client IP' } as const;

export function rowTitle(rule: string): string {
  const rows = rowsOf(rule);
  const [row] = rows;
  const values = row.limit.us === row.limit.eu ? `${row.limit.us} requests` : `${row.limit.us} requests (US) or ${row.limit.eu} (EU)`;
  return (
    `${describeMatch(rows)}: ${values} per ${IDENTITY[row.identity]} in ${row.interval_seconds} s are admitted and the next is refused; ` +
    `other callers${row.match.methods ? ' and methods' : ''} count apart, and after ${row.interval_seconds} s the caller is admitted again`
  );
}

interface RowCheck {
  run: RunContext;
  time: Time;
  testId: string;
  scope: string;
}

/** Runs the test of `rule` against each of `endpoints` in turn: exact on a virtual clock, bounded in real time (window.ts). */
/** Real time allowed per request of a row's fill: about 30 times what a quiet machine takes. */
const BULK_MS_PER_REQUEST = 3;

export async function checkRow(rule: string, endpoints: Endpoint[], { run, time, testId, scope }: RowCheck): Promise<void> {
  requireRateLimitTraffic(run);
  for (const endpoint of endpoints) test.skip(!run.proxies[endpoint], `target '${run.target.name}' names no ${endpoint} URL`);
  const rows = rowsOf(rule);
  const [row] = rows;
  const samples = samplesFor(rows);
  const others = row.identity === 'user-id+ip' ? [1, 2] : [1];
  const otherMethod = rows.map(otherMethodSample).find((s) => s !== undefined);
  const window = new RateWindow(time);
  for (const endpoint of endpoints) {
    const region = regionOf(endpoint);
    const limit = row.limit[region];
    const where = `${endpoint} (${region.toUpperCase()}, limit ${limit} / ${row.interval_seconds} s)`;
    const client = clientWithKey(run, endpoint, testId, undefined, { rateLimited: 'answer' })!;
    const who = caller(row.identity, 0, { scope });

    // Thousands of requests: time for them on a loaded machine too, so that a timeout never judges a row.
    time.allowWall(limit * BULK_MS_PER_REQUEST);
    window.restart();
    const filled = await fill(run.target.planes[endpoint]!, samples, who, limit - 1);
    test.info().annotations.push({
      type: 'rate-limit-fill',
      description: `${limit - 1} requests as ${who.name} straight to ${endpoint} in ${Math.round(filled.ms)} ms`,
    });
    expect(filled.refused, filled.refused && `${where}: ${describeRefusal(filled, who)}, before the limit of ${limit}`).toBeUndefined();
    const last = await send(client, samples[(limit - 1) % samples.length], who);
    const over = await send(client, samples[limit % samples.length], who);
    window.mustShare(row.interval_seconds, `${limit + 1} requests as ${who.name}`);
    expect(last.status, last.describe(`${where}: request ${limit} of the window, the limit-th, is admitted`)).not.toBe(429);
    expectStatus(over, 429);

    for (const n of others) {
      const other = caller(row.identity, n, { scope });
      const res = await send(client, samples[0], other);
      if (res.status === 429 && row.identity === 'ip' && !window.exact) {
        skipForPrecondition(
          `precondition failed: ${other.name} was refused as well: the target may not take the client IP from X-Forwarded-For: ${res.describe()}`,
        );
      }
      expect(res.status, res.describe(`${where}: ${other.name} is counted apart from ${who.name}`)).not.toBe(429);
    }
    if (otherMethod) {
      const res = await send(client, otherMethod, who);
      expect(res.status, res.describe(`${where}: ${otherMethod.method} is not counted by a row for ${row.match.methods!.join(', ')}`)).not.toBe(429);
    }

    if (window.exact) {
      await window.advanceExactly(row.interval_seconds * 1000 - 1);
      const early = await send(client, samples[0], who);
      expect(early.status, early.describe(`${where}: 1 ms before the interval has passed the caller is still refused`)).toBe(429);
      await window.advanceExactly(1);
    } else if (window.canPass(row.interval_seconds)) {
      await window.pass(row.interval_seconds);
    } else {
      window.note(`${where}: recovery after ${row.interval_seconds} s (RATE-RECOVERY checks it on a shorter row)`);
      continue;
    }
    const again = await send(client, samples[0], who);
    expect(again.status, again.describe(`${where}: once ${row.interval_seconds} s have passed the caller is admitted again`)).not.toBe(429);
  }
}
