// The test of one rule of the §8 table: in each region, the limit-th request of a window is
// admitted and the next refused, whatever the status (RATE-429 is about it); other callers, and
// other methods of a row that names one, are counted apart; after the interval the caller is
// admitted again. Every form of the row's requests (methods, paths, /api/v1) fills one window.
// Exact on a virtual clock, bounded in real time (window.ts).
import type { Endpoint, RateLimitRow } from '../../specs/contract.ts';
import { contract } from '../../specs/contract.ts';
import { skipDeclared, skipForMachine } from '../../harness/checks/attribution.ts';
import { clientWithKey, expect, test } from '../../harness/fixtures.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import type { Attribution } from '../../harness/partition.ts';
import type { Time } from '../../harness/time.ts';
import { inFreshWindows, requireRateLimitTraffic } from './window.ts';
import { caller, describeRefusal, fill, otherMethodSample, Refusal, samplesFor, send, straightTo } from './traffic.ts';

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
  conformanceRun: ConformanceRun;
  time: Time;
  by: Attribution;
  scope: string;
}

/** Real time allowed per request of a row's fill: about 30 times what a quiet machine takes. */
const BULK_MS_PER_REQUEST = 3;

/**
 * Runs the test of `rule` against each of `endpoints` in turn: exact on a virtual clock, bounded in real time
 * (window.ts). The request over the limit is refused whatever the status (§7, §8 leave it not shown; RATE-429 is
 * about the 429): it answers no success and not what the same request answered first in the window.
 */
export async function checkRow(rule: string, endpoints: Endpoint[], { conformanceRun, time, by, scope }: RowCheck): Promise<void> {
  requireRateLimitTraffic(conformanceRun);
  for (const endpoint of endpoints) skipDeclared(!conformanceRun.proxies[endpoint], `target '${conformanceRun.target.name}' names no ${endpoint} URL`);
  const rows = rowsOf(rule);
  const [row] = rows;
  const samples = samplesFor(rows);
  const [sample] = samples;
  const others = row.identity === 'user-id+ip' ? [1, 2] : [1];
  const otherMethod = rows.map(otherMethodSample).find((s) => s !== undefined);
  for (const endpoint of endpoints) {
    const region = regionOf(endpoint);
    const limit = row.limit[region];
    const where = `${endpoint} (${region.toUpperCase()}, limit ${limit} / ${row.interval_seconds} s)`;
    const client = clientWithKey(conformanceRun, endpoint, by, undefined, { rateLimited: 'answer' })!;
    await inFreshWindows(time, scope, async (window, scope) => {
      const who = caller(row.identity, 0, { scope });
      // Thousands of requests: time for them on a loaded machine too, so that a timeout never judges a row.
      time.allowWall(limit * BULK_MS_PER_REQUEST);
      window.restart();
      // The first request of the window, admitted, shows what the row's requests answer within the limit; every
      // form of the row's requests fills the window; the limit-th and the one over it are the first's again.
      const first = await send(client, sample, who);
      const filled = await fill(straightTo(conformanceRun, endpoint, by), [...samples.slice(1), sample], who, Math.max(0, limit - 2));
      test.info().annotations.push({
        type: 'rate-limit-fill',
        description: `${Math.max(0, limit - 2)} requests as ${who.name} straight to ${endpoint} in ${Math.round(filled.ms)} ms`,
      });
      expect(filled.refused, filled.refused && `${where}: ${describeRefusal(filled, who)}, before the limit of ${limit}`).toBeUndefined();
      const last = limit > 1 ? await send(client, sample, who) : first;
      const over = await send(client, sample, who);
      window.mustShare(row.interval_seconds, `${limit + 1} requests as ${who.name}`);
      const refusal = new Refusal();
      refusal.expect(over, first, `${where}: request ${limit + 1} of the window, over the limit,`);
      refusal.expectAdmitted(last, `${where}: request ${limit} of the window, the limit-th,`);

      for (const n of others) {
        const other = caller(row.identity, n, { scope });
        const res = await send(client, sample, other);
        // Callers keyed by the client IP send it in X-Forwarded-For: a target that does not take it from there sees
        // one address for all of them, and this run cannot show it another.
        const sameAddress = row.identity === 'ip' && !window.exact && refusal.refuses(res.status);
        skipForMachine(sameAddress, `${other.name} was refused as well: the target may not take the client IP from X-Forwarded-For: ${res.describe()}`);
        refusal.expectAdmitted(res, `${where}: ${other.name}, counted apart from ${who.name},`);
      }
      if (otherMethod) {
        const res = await send(client, otherMethod, who);
        refusal.expectAdmitted(res, `${where}: ${otherMethod.method}, which a row for ${row.match.methods!.join(', ')} does not count,`);
      }

      if (window.exact) {
        await window.advanceExactly(row.interval_seconds * 1000 - 1);
        const early = await send(client, sample, who);
        refusal.expectAgain(early, `${where}: 1 ms before the interval has passed, the caller`);
        await window.advanceExactly(1);
      } else if (window.canPass(row.interval_seconds)) {
        await window.pass(row.interval_seconds);
      } else {
        window.note(`${where}: recovery after ${row.interval_seconds} s (RATE-RECOVERY checks it on a shorter row)`);
        return;
      }
      const again = await send(client, sample, who);
      refusal.expectAdmitted(again, `${where}: once ${row.interval_seconds} s have passed, the caller`);
    });
  }
}
