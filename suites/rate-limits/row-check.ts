// The test of one rule of the §8 table at one address: the limit-th request of a window is
// admitted and the next refused, whatever the status (RATE-429 is about it); other callers, and
// other methods of a row that names one, are counted apart; after the interval the caller is
// admitted again. Every form of the row's requests (methods, paths, /api/v1) fills one window.
// Exact on a virtual clock, bounded in real time (window.ts).
import type { Endpoint, RateLimitRow } from '../../specs/contract.ts';
import { contract, planeOf } from '../../specs/contract.ts';
import type { Credentials as PublishedCredentials } from '../../specs/types/simulator-admin.ts';
import { skipDeclared, skipForMachine } from '../../harness/checks/attribution.ts';
import { test } from '../../harness/fixtures.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import type { Attribution } from '../../harness/partition.ts';
import { serves } from '../../harness/target.ts';
import type { Time } from '../../harness/time.ts';
import { requireRateLimitTraffic } from './window.ts';
import { caller, otherMethodSample, samplesFor, Traffic, type Sample } from './traffic.ts';

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

/** The title of the test of `rule` at one address: in `region` its value there, else both regions' values. */
export function rowTitle(rule: string, region?: 'us' | 'eu'): string {
  const rows = rowsOf(rule);
  const [row] = rows;
  const values =
    region !== undefined
      ? `${row.limit[region]} requests`
      : row.limit.us === row.limit.eu
        ? `${row.limit.us} requests`
        : `${row.limit.us} requests (US) or ${row.limit.eu} (EU)`;
  return (
    `${region ? `${region.toUpperCase()}: ` : ''}${describeMatch(rows)}: ${values} per ${IDENTITY[row.identity]} in ${row.interval_seconds} s are admitted and the next is refused; ` +
    `other callers${row.match.methods ? ' and methods' : ''} count apart, and after ${row.interval_seconds} s the caller is admitted again`
  );
}

interface RowCheck {
  conformanceRun: ConformanceRun;
  credentials: PublishedCredentials | undefined;
  time: Time;
  by: Attribution;
  testKey: string;
}

/** Real time allowed per request of a row's fill: about 30 times what a quiet machine takes. */
const BULK_MS_PER_REQUEST = 3;

const describeSamples = (samples: Sample[]) => samples.map((s) => `${s.method} ${s.path}`).join(', ');

/**
 * Runs the test of `rule` at `endpoint`: exact on a virtual clock, bounded in real time (window.ts). The request over
 * the limit is refused whatever the status (§7, §8 leave it not shown; RATE-429 is about the 429): it answers no
 * success and not what the same request answered first in the window. The row is probed with the requests of it
 * the target serves: those to an operation the spec does not show that the target declares it does not serve, or
 * those to a path the spec does not show (such an operation, or a path only §8 names) that answer 404 or 405 only,
 * are left out, and a row with none left is not judged there.
 */
export async function checkRow(rule: string, endpoint: Endpoint, { conformanceRun, credentials, time, by, testKey }: RowCheck): Promise<void> {
  requireRateLimitTraffic(conformanceRun);
  skipDeclared(!conformanceRun.proxies[endpoint], `target '${conformanceRun.target.name}' names no ${endpoint} URL`);
  const plane = planeOf(endpoint);
  const rows = rowsOf(rule);
  const [row] = rows;
  const all = samplesFor(rows, plane);
  const declaredServed = (s: Sample) => {
    const operation = contract().findOperation(plane, s.method, s.path)?.operation;
    return !operation || serves(conformanceRun.target, operation);
  };
  let samples = all.filter(declaredServed);
  skipDeclared(
    samples.length === 0,
    `the row counts only ${describeSamples(all)}, which target '${conformanceRun.target.name}' declares it does not serve (its not_shown_operations)`,
  );
  const others = row.identity === 'user-id+ip' ? [1, 2] : [1];
  const otherMethod = rows.map((r) => otherMethodSample(r, plane)).find((s) => s !== undefined);
  const region = regionOf(endpoint);
  const limit = row.limit[region];
  const where = `${endpoint} (${region.toUpperCase()}, limit ${limit} / ${row.interval_seconds} s)`;
  const traffic = new Traffic(conformanceRun, by, credentials);
  const withoutUnserved = ({ samples: unserved }: { samples: { sample: Sample }[] }) => {
    const left = samples.filter((s) => !unserved.some(({ sample }) => sample.method === s.method && sample.path === s.path));
    if (left.length === 0 || left.length === samples.length) return false;
    test
      .info()
      .annotations.push({ type: 'not served', description: `${describeSamples(samples.filter((s) => !left.includes(s)))}: left out of the row's probes` });
    samples = left;
    return true;
  };
  await traffic.judge(
    time,
    testKey,
    async (window, testKey) => {
      const [sample] = samples;
      const who = caller(row.identity, 0, { testKey });
      // Thousands of requests: time for them on a loaded machine too, so that a timeout never judges a row.
      time.allowWall(limit * BULK_MS_PER_REQUEST);
      window.restart();
      // The first request of the window, admitted, shows what the row's requests answer within the limit; every
      // form of the row's requests fills the window; the limit-th and the one over it are the first's again.
      const first = await traffic.fill(endpoint, samples, who, Math.max(1, limit - 1), `${where}: `);
      const last = limit > 1 ? await traffic.send(endpoint, sample, who) : first;
      const over = await traffic.send(endpoint, sample, who);
      window.mustShare(row.interval_seconds, `${limit + 1} requests as ${who.name}`);
      const refusal = traffic.refusal();
      refusal.expect(over, first, `${where}: request ${limit + 1} of the window, over the limit,`);
      refusal.expectAdmitted(last, `${where}: request ${limit} of the window, the limit-th,`);

      for (const n of others) {
        const other = caller(row.identity, n, { testKey });
        if (!traffic.canSend(endpoint, other)) {
          window.note(`${where}: ${other.name}, counted apart: ${endpoint} refuses made-up keys and knows no other key of the target`);
          continue;
        }
        const res = await traffic.send(endpoint, sample, other);
        // A caller told apart only by its client IP sends it in X-Forwarded-For: a target that does not take it from
        // there sees one address for all of them (§8 keys on the client IP, not on the header), and this run, from one
        // machine, can show it no other.
        const byAddressAlone = row.identity === 'ip' || (row.identity === 'user-id+ip' && n === 1);
        skipForMachine(
          byAddressAlone && refusal.refuses(res.status),
          `${other.name} was refused as well: the target may not take the client IP from X-Forwarded-For, and this run can show it no other address: ${res.describe()}`,
        );
        refusal.expectAdmitted(res, `${where}: ${other.name}, counted apart from ${who.name},`);
      }
      if (otherMethod) {
        const res = await traffic.send(endpoint, otherMethod, who);
        refusal.expectAdmitted(res, `${where}: ${otherMethod.method}, which a row for ${row.match.methods!.join(', ')} does not count,`);
      }

      // That the caller stays refused until the interval has passed (windows roll) is RATE-RECOVERY's, a SHOULD:
      // "2000 / 10" does not say where a window starts.
      if (window.canPass(row.interval_seconds)) {
        await window.pass(row.interval_seconds);
      } else {
        window.note(`${where}: recovery after ${row.interval_seconds} s (RATE-RECOVERY checks it on a shorter row)`);
        return;
      }
      const again = await traffic.send(endpoint, sample, who);
      refusal.expectAdmitted(again, `${where}: once ${row.interval_seconds} s have passed, the caller`);
    },
    withoutUnserved,
  );
}
