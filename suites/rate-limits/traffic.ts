// Requests for the rate-limit suites: the callers (one identity each), requests that a row of
// the table counts, and `fill`, which sends the bulk of a window straight to the target.
//
// Why straight to the target: a 6000 / 10 row needs 5999 requests before the two that decide
// the verdict. Through the recording proxy they would be 5999 exchanges in the report and the
// HAR, and the proxy validates each one. The proxy forwards requests verbatim (xfwd off), so
// the target sees the same requests either way; the requests a verdict rests on (the limit-th,
// the refused one, the other caller's, the one after the window) go through the proxy and are
// recorded. A refusal inside the fill is reported with its index, status and body.
//
// §7 and §8 leave the status of a refusal not shown (RATE-429 asks for 429): the suites know a
// refusal as an answer that is no success and not what the same request answered within the limit
// (Refusal); only RATE-429 and RATE-RETRY-AFTER are about the 429 itself.
import { Pool } from 'undici';
import type { Endpoint, RateLimitRow } from '../../specs/contract.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { mayHaveLanded, notJudged, type Sent, sendPastFaults } from '../../harness/retry.ts';
import { allowWall } from '../../harness/time.ts';
import { clientWithKey, expect, test } from '../../harness/fixtures.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import { partitionHeaders, type Attribution } from '../../harness/partition.ts';

/** A request without identity: the identity headers come from the caller. */
export interface Sample {
  method: string;
  path: string;
}

/** One caller: the headers that carry its identity (and nothing else that a row keys on). */
export interface Caller {
  name: string;
  headers: Record<string, string>;
}

const UUID_1 = '0190a0d5-0a9c-7c3e-8d4f-2b6a1c9e5f01';

/** Documentation addresses (RFC 5737), one per caller number. */
export const ip = (n: number) => `198.51.100.${(n % 250) + 1}`;

/**
 * An address of the benchmarking range (RFC 2544, 198.18.0.0/15) for caller `n` of one test:
 * on a target whose counters are not reset between tests, tests (and runs) keep apart.
 */
export function scopedIp(scope: string, n: number): string {
  let hash = 2166136261;
  for (let i = 0; i < scope.length; i++) hash = Math.imul(hash ^ scope.charCodeAt(i), 16777619);
  const host = ((hash >>> 0) + n * 7919) % 131_072;
  return `198.${18 + (host >> 16)}.${(host >> 8) & 0xff}.${host & 0xff}`;
}

/**
 * Callers of one identity kind, numbered, with keys and user ids of the test's own (limits
 * count every value of x-api-key, not only valid keys, so the run's own key is never spent).
 * Callers keyed by the client IP send it in X-Forwarded-For: the simulator takes it from there
 * when the peer is loopback (the harness's proxy); another target may see the proxy's address
 * for every caller.
 */
export function caller(identity: RateLimitRow['identity'], n: number, options: { user?: string; scope: string }): Caller {
  if (identity === 'api-key') return { name: `x-api-key #${n}`, headers: { 'x-api-key': `apc-rate-${options.scope}-key-${n}` } };
  const address = scopedIp(options.scope, identity === 'user-id+ip' ? n & 1 : n);
  if (identity === 'user-id+ip') {
    const user = options.user ?? `apc-rate-${options.scope}-user`;
    return { name: `x-user-id ${user}-${n >> 1} from ${address}`, headers: { 'x-user-id': `${user}-${n >> 1}`, 'x-forwarded-for': address } };
  }
  return { name: `client IP ${address}`, headers: { 'x-forwarded-for': address } };
}

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Paths a row's path matcher selects, in the forms a client may send: an exact path only as
 * written, the others also after an /api/v1 prefix (RATE-PATH-PREFIX: rows match the path as sent).
 */
function pathsFor(match: NonNullable<RateLimitRow['match']['paths']>[number]): string[] {
  switch (match.type) {
    case 'exact':
      return [match.value];
    case 'contains':
      return [`/apc${match.value}`, `/api/v1/apc${match.value}/apc`];
    case 'suffix':
      return [match.value, `/api/v1/apc${match.value}`];
    case 'pattern':
      // The one pattern of the table is GET /runs/{uuid} or /api/v1/runs/{uuid}.
      return [`/runs/${UUID_1}`, `/api/v1/runs/${UUID_1}`];
  }
}

/**
 * Requests that the rows of one rule count, every form of each: each of its methods (all
 * methods for a row without one, RATE-METHOD-SCOPE) on each of its paths. Fallback rows get
 * paths that no specific row selects.
 */
export function samplesFor(rows: RateLimitRow[]): Sample[] {
  const samples: Sample[] = [];
  for (const row of rows) {
    const methods = row.match.methods ?? ALL_METHODS;
    const paths = row.match.paths ? row.match.paths.flatMap(pathsFor) : ['/apc/no-specific-row', '/api/v1/datasets'];
    for (const path of paths) for (const method of methods) samples.push({ method, path });
  }
  const seen = new Set<string>();
  return samples.filter((s) => !seen.has(`${s.method} ${s.path}`) && seen.add(`${s.method} ${s.path}`));
}

/** A request on the row's first path with a method the row does not count (none for a row without methods). */
export function otherMethodSample(row: RateLimitRow): Sample | undefined {
  if (!row.match.methods) return undefined;
  const method = ['GET', 'POST', 'DELETE', 'PATCH'].find((m) => !row.match.methods!.includes(m))!;
  return { method, path: row.match.paths ? pathsFor(row.match.paths[0])[0] : '/apc/no-specific-row' };
}

/** Sends one sample through a client (the recording proxy) as `who`. */
export function send(client: ApiClient, sample: Sample, who: Caller): Promise<ApiResponse> {
  // Counted by a row: sent again only where the target cannot have counted the first.
  return client.request(sample.method, sample.path, { headers: who.headers, kind: 'counted' });
}

interface FillResult {
  sent: number;
  /** The first refused request of the fill, if any. */
  refused?: { index: number; sample: Sample; status: number; body: string };
  ms: number;
}

const pools = new Map<string, Pool>();

function pool(origin: string): Pool {
  let found = pools.get(origin);
  if (!found) pools.set(origin, (found = new Pool(origin, { connections: 16, pipelining: 1 })));
  return found;
}

/** What one request sent straight to the target answered. */
interface Answer {
  index: number;
  sample: Sample;
  status: number;
  retryAfter?: string;
  /** The body of a 429. */
  body?: string;
  /** Sent again after a fault that may have reached the target, which may then have counted it twice. */
  uncertain?: true;
}

/** Where requests sent past the recording proxy go: the plane's URL, and the headers each carries (its partition). */
interface Straight {
  url: string;
  headers: Record<string, string>;
}

/** Requests of `by`'s spec file straight to `endpoint` of the target. */
export function straightTo(conformanceRun: ConformanceRun, endpoint: Endpoint, by: Attribution): Straight {
  return { url: conformanceRun.target.planes[endpoint]!, headers: partitionHeaders(conformanceRun, by) };
}

/**
 * One request straight to the target, sent again after a transient fault as the suites' client
 * sends its own (harness/retry.ts): a fill must reach its count. Every request of a fill is one
 * the row counts whatever it does, so each is sent again as one with no effect; one sent again
 * after a fault that may have reached the target is marked `uncertain`: the target may have
 * counted it twice.
 */
async function sendStraight(target: Pool, index: number, sample: Sample, path: string, headers: Record<string, string>): Promise<Answer> {
  let uncertain = false;
  const answer = await sendPastFaults(
    'no-effect',
    `${sample.method} ${path} (request ${index + 1} of a fill sent straight to the target)`,
    async (): Promise<Sent<Answer>> => {
      try {
        const response = await target.request({ method: sample.method as 'GET', path, headers });
        const header = response.headers['retry-after'];
        const retryAfter = Array.isArray(header) ? header[0] : header;
        const answer: Answer = { index, sample, status: response.statusCode, retryAfter };
        if (response.statusCode === 429) answer.body = await response.body.text();
        else await response.body.dump();
        return { met: { kind: 'answer', status: answer.status, retryAfter }, answer };
      } catch (error) {
        return { met: { kind: 'broken', message: (error as Error).message }, broke: error as Error };
      }
    },
    { onRetry: (met) => (uncertain ||= mayHaveLanded(met)) },
  );
  return uncertain ? { ...answer, uncertain } : answer;
}

/**
 * Sends `count` requests of `samples` (in turn) as `who` straight to the target, many at a
 * time on kept-alive connections; answers every answer, in the order the requests were made.
 */
export async function sendMany(straight: Straight, samples: Sample[], who: Caller, count: number, concurrency = 48): Promise<Answer[]> {
  const url = new URL(straight.url);
  const headers = { ...straight.headers, ...who.headers };
  const prefix = url.pathname.replace(/\/+$/, '');
  const target = pool(url.origin);
  const answers: Answer[] = new Array(count);
  let next = 0;
  const workers = Math.min(concurrency, count);
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const sample = samples[index % samples.length];
      const started = performance.now();
      answers[index] = await sendStraight(target, index, sample, `${prefix}${sample.path}`, headers);
      // What a slow target, or a fault sent past, takes of the test's time is given back: the fill is
      // a step, not what the test judges. Once answered, so that a target that never answers still times out.
      allowWall((performance.now() - started) / workers);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return answers;
}

/** `sendMany`, answering only the first refused request. */
export async function fill(straight: Straight, samples: Sample[], who: Caller, count: number): Promise<FillResult> {
  const started = performance.now();
  const answers = await sendMany(straight, samples, who, count);
  const first = answers.find((a) => a.status === 429);
  const uncertain = answers.filter((a) => a.uncertain && (!first || a.index < first.index)).length;
  if (first && uncertain > 0)
    throw notJudged(
      `request ${first.index + 1} of a fill of ${count} was refused, after ${uncertain} requests of it were sent again after a fault that may have reached the target, which may have counted them twice`,
    );
  const refused = first && { index: first.index, sample: first.sample, status: first.status, body: first.body ?? '' };
  return { sent: count, refused, ms: performance.now() - started };
}

/** One line for a fill that was refused early. */
export function describeRefusal(result: FillResult, who: Caller): string {
  const r = result.refused!;
  return `request ${r.index + 1} of ${result.sent} (${r.sample.method} ${r.sample.path} as ${who.name}, sent straight to the target) answered ${r.status} ${r.body.slice(0, 300)}`;
}

/** A test's view of the target for exact rate-limit tests: one client per endpoint, sending no key of its own. */
export class Traffic {
  constructor(
    private readonly conformanceRun: ConformanceRun,
    private readonly by: Attribution,
  ) {}

  client(endpoint: Endpoint): ApiClient {
    return clientWithKey(this.conformanceRun, endpoint, this.by, undefined, { rateLimited: 'answer' })!;
  }

  /** Where this test's requests go past the recording proxy. */
  straight(endpoint: Endpoint): Straight {
    return straightTo(this.conformanceRun, endpoint, this.by);
  }

  /** One request through the recording proxy. */
  send(endpoint: Endpoint, sample: Sample, who: Caller, body?: unknown): Promise<ApiResponse> {
    return this.client(endpoint).request(sample.method, sample.path, { headers: who.headers, body, kind: 'counted' });
  }

  /**
   * `count` requests (at least one) of `samples` in turn as `who`, none of which may be refused: the first through
   * the recording proxy, the rest straight to the target. Answers the first: what the first sample answers admitted.
   */
  async fill(endpoint: Endpoint, samples: Sample | Sample[], who: Caller, count: number): Promise<ApiResponse> {
    const [first, ...others] = Array.isArray(samples) ? samples : [samples];
    const admitted = await this.send(endpoint, first, who);
    const result = await fill(this.straight(endpoint), [...others, first], who, count - 1);
    test.info().annotations.push({
      type: 'rate-limit-fill',
      description: `${count - 1} requests as ${who.name} straight to ${endpoint} in ${Math.round(result.ms)} ms, after one through the proxy`,
    });
    expect(result.refused, result.refused && `${describeRefusal(result, who)}, within the limit`).toBeUndefined();
    return admitted;
  }
}

const success = (status: number) => status >= 200 && status < 300;

/**
 * How the target refuses a request over a limit, whatever its status (§7, §8 leave it not shown): a request is
 * refused when it answers no success and not what the same request answered within the limit. The first refusal
 * judged gives the status that tells the later answers of the test apart, refused or admitted.
 */
export class Refusal {
  private status?: number;

  /** `over` is refused: `admitted` is the same request's answer within the limit (the first of its window). */
  expect(over: ApiResponse, admitted: { status: number }, what: string): void {
    const refused = !success(over.status) && over.status !== admitted.status;
    expect(refused, over.describe(`${what} is refused: no success, and not the ${admitted.status} the same request answered within the limit`)).toBe(true);
    this.status ??= over.status;
  }

  /** Whether an answer is refused as the first refusal judged was. */
  refuses(status: number): boolean {
    if (this.status === undefined) throw new Error('Refusal.refuses: judge a refusal with expect() first');
    return status === this.status;
  }

  /** `res` is refused as the first refusal judged was. */
  expectAgain(res: ApiResponse, what: string): void {
    expect(this.refuses(res.status), res.describe(`${what} is refused (${this.status}, as the first refusal)`)).toBe(true);
  }

  /** `res` is admitted: it is not refused as the first refusal judged was. */
  expectAdmitted(res: ApiResponse, what: string): void {
    expect(this.refuses(res.status), res.describe(`${what} is admitted (not refused ${this.status}, as the first refusal)`)).toBe(false);
  }
}
