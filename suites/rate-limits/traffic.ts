// Requests for the rate-limit suites: the callers (one identity each), requests that a row of
// the table counts, and `Traffic`, a test's view of the target, which sends the bulk of a window
// straight to the target.
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
//
// Callers keyed by x-api-key send keys made up for the test, so that the run's own key is never
// spent. The spec leaves open whether a target authenticates before it counts (§5, §7: the status
// for invalid credentials is not shown): one that does answers a made-up key the same refusal
// within and beyond the limit. Where a request over a limit answers what it answered within it,
// and a key the target knows answers it otherwise, the check is made again with keys the target
// knows (Traffic.judge), on a target whose counters the run can keep to the test (rate-limit-reset);
// on another it is skipped, declared. Likewise a request to a path the spec does not show (an
// operation marked so, or a path only §8 names) that answers 404 or 405 within and beyond the limit
// is not served: the check is not judged there.
import { Pool } from 'undici';
import { contract, pathOf, planeOf, type Endpoint, type Plane, type RateLimitRow } from '../../specs/contract.ts';
import type { Credentials as PublishedCredentials } from '../../specs/types/simulator-admin.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { mayHaveLanded, notJudged, type Sent, sendPastFaults, wasNotJudged } from '../../harness/retry.ts';
import { allowWall, type Time } from '../../harness/time.ts';
import { adminOf, clientWithKey, expect, targetApiKey, test } from '../../harness/fixtures.ts';
import { skipDeclared, skipForPrecondition } from '../../harness/checks/attribution.ts';
import { rulesOfStep } from '../../harness/checks/index.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import { partitionHeaders, partitionOf, type Attribution } from '../../harness/partition.ts';
import { AdminClient } from '../../harness/admin-client.ts';
import { countingRows } from './oracle.ts';
import { inFreshWindows, type RateWindow } from './window.ts';

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
export function callerIp(testKey: string, n: number): string {
  let hash = 2166136261;
  for (let i = 0; i < testKey.length; i++) hash = Math.imul(hash ^ testKey.charCodeAt(i), 16777619);
  const host = ((hash >>> 0) + n * 7919) % 131_072;
  return `198.${18 + (host >> 16)}.${(host >> 8) & 0xff}.${host & 0xff}`;
}

/** What starts every key the suites make up: a key the target cannot know. */
const MADE_UP_KEY = 'apc-rate-';

/** A key made up for caller `name` of one test (its test key). */
export const madeUpKey = (testKey: string, name: string | number) => `${MADE_UP_KEY}${testKey}-key-${name}`;

const carriesMadeUpKey = (who: Caller) => who.headers['x-api-key']?.startsWith(MADE_UP_KEY) === true;

/**
 * Callers of one identity kind, numbered, with keys and user ids of the test's own: a key is made
 * up, and replaced by one the target knows where made-up keys meet a credential refusal (Traffic).
 * Callers keyed by the client IP send it in X-Forwarded-For: the simulator takes it from there
 * when the peer is loopback (the harness's proxy); another target may see the proxy's address
 * for every caller (§8 keys on the client IP, not on that header), and then this run can show it
 * no other address.
 */
export function caller(identity: RateLimitRow['identity'], n: number, options: { user?: string; testKey: string }): Caller {
  if (identity === 'api-key') return { name: `x-api-key #${n}`, headers: { 'x-api-key': madeUpKey(options.testKey, n) } };
  const address = callerIp(options.testKey, identity === 'user-id+ip' ? n & 1 : n);
  if (identity === 'user-id+ip') {
    const user = options.user ?? `apc-rate-${options.testKey}-user`;
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
 * Requests to the operations the spec shows on `plane` that `row`, which names no path, counts (the
 * table's oracle says which): a row that counts any path is probed on paths every target serves.
 */
function shownRequestsFor(row: RateLimitRow, plane: Plane): Sample[] {
  const identity = {
    apiKey: row.identity === 'api-key' ? 'k' : undefined,
    userId: row.identity === 'user-id+ip' ? 'u' : undefined,
    ip: ip(0),
  };
  return contract()
    .operationsOf(plane)
    .filter((o) => !o.notShown)
    .flatMap((o) =>
      (row.match.methods ?? [o.method]).map((method) => ({
        method,
        path: pathOf(o, Object.fromEntries([...o.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name, UUID_1]))),
      })),
    )
    .filter((s) => countingRows(contract().rateLimits, { ...s, ...identity }).some((r) => r.id === row.id));
}

/**
 * Requests that the rows of one rule count, every form of each: each of its methods (all
 * methods for a row without one, RATE-METHOD-SCOPE) on each of its paths. A row that names no
 * path gets the requests of `plane`'s shown operations that it counts.
 */
export function samplesFor(rows: RateLimitRow[], plane: Plane = 'platform-api'): Sample[] {
  const samples: Sample[] = [];
  for (const row of rows) {
    if (!row.match.paths) {
      samples.push(...shownRequestsFor(row, plane));
      continue;
    }
    const methods = row.match.methods ?? ALL_METHODS;
    for (const path of row.match.paths.flatMap(pathsFor)) for (const method of methods) samples.push({ method, path });
  }
  const seen = new Set<string>();
  return samples.filter((s) => !seen.has(`${s.method} ${s.path}`) && seen.add(`${s.method} ${s.path}`));
}

/**
 * A request on the row's first path with a method the row does not count (none for a row without methods): one
 * that addresses no operation the spec does not show where there is one (GET /sessions would be a listing).
 */
export function otherMethodSample(row: RateLimitRow, plane: Plane = 'platform-api'): Sample | undefined {
  if (!row.match.methods) return undefined;
  const path = row.match.paths ? pathsFor(row.match.paths[0])[0] : samplesFor([row], plane)[0].path;
  const methods = ['GET', 'POST', 'DELETE', 'PATCH', 'PUT'].filter((m) => !row.match.methods!.includes(m));
  const method = methods.find((m) => !contract().findOperation(plane, m, path)?.operation.notShown) ?? methods[0];
  return { method, path };
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
  /** The plane's admin path, on a target that answers batches of requests in process (capability bulk-requests). */
  batches?: AdminClient;
}

/** Requests of `by`'s spec file straight to `endpoint` of the target. */
function straightTo(conformanceRun: ConformanceRun, endpoint: Endpoint, by: Attribution): Straight {
  const url = conformanceRun.target.endpoints[endpoint]!;
  const batches = conformanceRun.target.capabilities.includes('bulk-requests')
    ? new AdminClient(new URL(url).origin, { partition: partitionOf(conformanceRun, by) })
    : undefined;
  return { url, headers: partitionHeaders(conformanceRun, by), batches };
}

/** The requests of one sendRequests call: a fill of 10,000 takes four. */
const BATCH = 2_500;

/** What sendRequests answers having made no request: a fault in force (409), and no such operation or body (404, 405, 422). */
const MADE_NONE = [404, 405, 409, 422];

/**
 * Sends what `sendMany` would, as batches the target makes in process (sendRequests): on a simulator, a fill's
 * thousands of requests cost no socket writes, and each is still counted and answered as over HTTP. Answers what
 * it sent before a batch was refused, for the rest to go one by one.
 */
async function sendInBatches(batches: AdminClient, samples: Sample[], prefix: string, headers: Record<string, string>, count: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  while (answers.length < count) {
    const from = answers.length;
    const size = Math.min(BATCH, count - from);
    // Request i of the fill is samples[i % samples.length], across batches too.
    const turn = samples.map((_, k) => samples[(from + k) % samples.length]);
    const started = performance.now();
    const what = `a batch of ${size} requests (${from + 1} to ${from + size} of a fill) sent straight to the target`;
    const res = await batches
      .sendRequests({
        requests: turn.slice(0, Math.min(turn.length, size)).map((s) => ({ method: s.method, path: `${prefix}${s.path}`, headers })),
        count: size,
      })
      .catch((error: unknown) => {
        if (wasNotJudged(error)) throw error;
        throw notJudged(`${what} was not judged: the connection broke, and the target may have counted some of them (${(error as Error).message})`);
      });
    // Refused before any request was made (a fault in force, or no such operation): the rest go one by one. Any
    // other answer may come after some were counted, which sending them again would count twice.
    if (MADE_NONE.includes(res.status)) return answers;
    if (res.status !== 200) throw notJudged(res.describe(`${what} was not judged: the target may have counted some of them`));
    for (const [k, a] of res.json.answers.entries())
      answers.push({ index: from + k, sample: turn[k % turn.length], status: a.status, retryAfter: a.retry_after, body: a.body });
    allowWall(performance.now() - started);
  }
  return answers;
}

/**
 * One request straight to the target, sent again after a transient fault as the suites' client
 * sends its own (harness/retry.ts): a fill must reach its count. Every request of a fill is one
 * the row counts whatever it does, so each is sent again as one with no effect; one sent again
 * after a fault that may have reached the target is marked `uncertain`: the target may have
 * counted it twice. A fill is a step, not what the row's check judges: a connection that broke on
 * every attempt leaves the check unjudged, never failed.
 */
async function sendStraight(target: Pool, index: number, sample: Sample, path: string, headers: Record<string, string>): Promise<Answer> {
  let uncertain = false;
  const what = `${sample.method} ${path} (request ${index + 1} of a fill sent straight to the target)`;
  const answer = await sendPastFaults(
    'no-effect',
    what,
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
  ).catch((error: unknown) => {
    if (wasNotJudged(error)) throw error;
    throw notJudged(`${what} was not judged: the connection broke on every attempt (${(error as Error).message})`);
  });
  return uncertain ? { ...answer, uncertain } : answer;
}

/**
 * Sends `count` requests of `samples` (in turn) as `who` straight to the target: in batches where it makes them
 * (sendInBatches), else many at a time on kept-alive connections; answers every answer, in the order the requests were made.
 */
async function sendMany(straight: Straight, samples: Sample[], who: Caller, count: number, concurrency = 48): Promise<Answer[]> {
  const url = new URL(straight.url);
  const headers = { ...straight.headers, ...who.headers };
  const prefix = url.pathname.replace(/\/+$/, '');
  const batched = straight.batches ? await sendInBatches(straight.batches, samples, prefix, headers, count) : [];
  if (batched.length === count) return batched;
  const target = pool(url.origin);
  const answers: Answer[] = batched.concat(new Array(count - batched.length));
  let next = batched.length;
  const workers = Math.min(concurrency, count - next);
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

/** What `answers` of a fill of `count` say: its first refused request, if any. */
function fillResult(answers: Answer[], count: number, started: number): FillResult {
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
function describeRefusal(result: FillResult, who: Caller): string {
  const r = result.refused!;
  return `request ${r.index + 1} of ${result.sent} (${r.sample.method} ${r.sample.path} as ${who.name}, sent straight to the target) answered ${r.status} ${r.body.slice(0, 300)}`;
}

const success = (status: number) => status >= 200 && status < 300;

const sampleKey = (endpoint: Endpoint, sample: Sample) => `${endpoint} ${sample.method} ${sample.path}`;

/** Whether a request answered 404 or 405 only, as one to a path the target does not serve does. */
const answeredNotServed = (entry: { statuses: Set<number> }) => [...entry.statuses].every((s) => s === 404 || s === 405);

/** What a request sent through Traffic was: where, which request, as whom. */
interface SentAs {
  endpoint: Endpoint;
  sample: Sample;
  who: Caller;
}

/** A request over a limit answered, to a made-up key, what it answered within it: the key may have met a credential refusal. */
class MadeUpKeyRefused extends Error {
  constructor(
    readonly sent: SentAs,
    readonly over: ApiResponse,
    readonly failure: unknown,
  ) {
    super(`made-up key refused: ${over.describe()}`);
  }
}

/**
 * The request of `sample` in the form the spec's table writes, where the sample is the service's form of it
 * (updateRun's PATCH /runs/{run_id} for §4.3's PATCH /runs), under the same prefix.
 */
function specFormOf(plane: Plane, sample: Sample): Sample | undefined {
  const match = contract().findOperation(plane, sample.method, sample.path);
  if (!match?.operation.specForm) return undefined;
  const written = pathOf(match.operation, match.params);
  if (!sample.path.endsWith(written)) return undefined;
  const form = contract().operation(plane, match.operation.specForm);
  return { method: form.method, path: `${sample.path.slice(0, -written.length)}${pathOf(form, {})}` };
}

/** A check failed, and requests of it in the service's form of an operation answered 404 or 405 only: the target may serve the spec's form alone. */
class OtherForms extends Error {
  constructor(
    /** Each such request's key, with its request in the spec's form. */
    readonly forms: (readonly [string, Sample])[],
    readonly failure: unknown,
  ) {
    super(`other forms: ${OtherForms.describe(forms)}`);
  }

  static describe(forms: (readonly [string, Sample])[]): string {
    return forms.map(([key, form]) => `${key} as ${form.method} ${form.path}`).join('; ');
  }
}

/**
 * A check failed, and requests of it to paths the spec does not show answered 404 or 405 only: the target may not
 * serve them. Such a path is an operation of the contract marked not shown, or one that only §8 names (/auth,
 * /otel/v1/traces, a path containing /charts …), which no operation of the contract serves.
 */
class NotServed extends Error {
  constructor(
    /** The samples of those paths, each with its operation (none for a path only §8 names) and a status it answered. */
    readonly samples: { sample: Sample; res: { plane: Plane; operation?: string; status: number } }[],
    readonly failure: unknown,
  ) {
    super(
      `not served: ${samples.map(({ sample, res }) => `${sample.method} ${sample.path} (${res.operation ?? 'no operation'}) answered ${res.status}`).join('; ')}`,
    );
  }

  /** Whether every sample is to a path no operation of the contract serves: no rule says the service serves it. */
  get onlyTableNamed(): boolean {
    return this.samples.every(({ res }) => res.operation === undefined);
  }

  /** The paths not served, for a skip's reason. */
  describe(): string {
    return this.samples
      .map(
        ({ sample, res }) =>
          `${sample.method} ${sample.path} (${res.operation ? `${res.operation}, a path the spec does not show` : 'a path only the rate-limit table names, which §4 does not show'}) answered ${res.status} only`,
      )
      .join('; ');
  }
}

/**
 * A test's view of the target for rate-limit tests: one client per endpoint, sending no key of its
 * own; callers' made-up keys, on an endpoint that refuses them before it counts, replaced by keys
 * the target knows.
 */
export class Traffic {
  /** The endpoints judged with keys the target knows: each made-up key sent there, with the known key sent in its place. */
  private readonly knownKeys = new Map<Endpoint, Map<string, string>>();
  private readonly sentAs = new WeakMap<ApiResponse, SentAs>();
  /** The statuses each request answered in the current try of a check. */
  private readonly answered = new Map<string, { sent: SentAs; statuses: Set<number> }>();
  /** The requests of each fill of the current try, which share windows. */
  private readonly fills: Set<string>[] = [];
  /** Requests whose service's form the target does not serve, each with the spec's form sent in its place. */
  private readonly forms = new Map<string, Sample>();
  /** A try of a check ran and was set aside: the next starts on counters the run resets, where it can. */
  private retried = false;

  constructor(
    private readonly conformanceRun: ConformanceRun,
    private readonly by: Attribution,
    private readonly credentials: PublishedCredentials | undefined,
  ) {}

  client(endpoint: Endpoint): ApiClient {
    const client = clientWithKey(this.conformanceRun, endpoint, this.by, undefined, { rateLimited: 'answer' });
    skipDeclared(!client, `target '${this.conformanceRun.target.name}' names no ${endpoint} URL`);
    return client!;
  }

  /** Where this test's requests go past the recording proxy. */
  private straight(endpoint: Endpoint): Straight {
    return straightTo(this.conformanceRun, endpoint, this.by);
  }

  /** The API keys `endpoint` knows: the target's own first; on the EU platform API an EU account's (§1). */
  private keysOf(endpoint: Endpoint): string[] {
    // An org-scoped key is refused without x-tenant-id, which the callers do not send.
    const published = (this.credentials?.api_keys ?? []).filter((k) => k.role !== 'org-scoped');
    const eu = published.filter((k) => k.role === 'eu-primary').map((k) => k.key);
    const own = targetApiKey(this.conformanceRun, this.credentials);
    const keys = endpoint === 'platform-api-eu' && eu.length > 0 ? eu : [own, ...published.filter((k) => k.role !== 'eu-primary').map((k) => k.key)];
    return [...new Set(keys.filter((k): k is string => k !== undefined))];
  }

  /** Whether `who` can be sent to `endpoint`: its key made up where made-up keys count, or a known key left to send in its place. */
  canSend(endpoint: Endpoint, who: Caller): boolean {
    const known = this.knownKeys.get(endpoint);
    const key = who.headers['x-api-key'];
    return !known || !carriesMadeUpKey(who) || known.has(key) || known.size < this.keysOf(endpoint).length;
  }

  /** The API key `who` sends to `endpoint`: its own, or on an endpoint that refuses made-up keys the known key standing for it. */
  keySent(endpoint: Endpoint, who: Caller): string | undefined {
    const key = who.headers['x-api-key'];
    const known = this.knownKeys.get(endpoint);
    if (!known || key === undefined || !carriesMadeUpKey(who)) return key;
    let standIn = known.get(key);
    if (standIn === undefined) {
      const keys = this.keysOf(endpoint);
      skipDeclared(
        known.size >= keys.length,
        `${endpoint} refuses made-up keys before it counts them, and this check needs more callers keyed by x-api-key (${known.size + 1}) than the keys of target '${this.conformanceRun.target.name}' that ${endpoint} knows (${keys.length}: its API key and those its credentials name)`,
      );
      standIn = keys[known.size];
      known.set(key, standIn);
    }
    return standIn;
  }

  private headersOf(endpoint: Endpoint, who: Caller): Record<string, string> {
    const key = this.keySent(endpoint, who);
    return key === undefined ? who.headers : { ...who.headers, 'x-api-key': key };
  }

  /** The request sent for `sample`: the spec's form of it, where the target serves only that form. */
  private formSent(endpoint: Endpoint, sample: Sample): Sample {
    return this.forms.get(sampleKey(endpoint, sample)) ?? sample;
  }

  private record(sent: SentAs, status: number): void {
    const key = sampleKey(sent.endpoint, sent.sample);
    const entry = this.answered.get(key) ?? { sent, statuses: new Set<number>() };
    entry.statuses.add(status);
    this.answered.set(key, entry);
  }

  /** One request through the recording proxy. */
  async send(endpoint: Endpoint, asked: Sample, who: Caller, body?: unknown): Promise<ApiResponse> {
    const sample = this.formSent(endpoint, asked);
    // Counted by a row: sent again only where the target cannot have counted the first.
    const res = await this.client(endpoint).request(sample.method, sample.path, { headers: this.headersOf(endpoint, who), body, kind: 'counted' });
    const sent = { endpoint, sample, who };
    this.sentAs.set(res, sent);
    this.record(sent, res.status);
    return res;
  }

  /** `count` requests of `samples` (in turn) as `who` straight to the target, many at a time; every answer, in order. */
  async sendMany(endpoint: Endpoint, samples: Sample[], who: Caller, count: number, concurrency?: number): Promise<Answer[]> {
    const sent = samples.map((s) => this.formSent(endpoint, s));
    const answers = await sendMany(this.straight(endpoint), sent, { ...who, headers: this.headersOf(endpoint, who) }, count, concurrency);
    for (const a of answers) this.record({ endpoint, sample: a.sample, who }, a.status);
    return answers;
  }

  /**
   * `count` requests (at least one) of `samples` in turn as `who`, none of which may be refused: the first through
   * the recording proxy, the rest straight to the target. Answers the first: what the first sample answers admitted.
   */
  async fill(endpoint: Endpoint, samples: Sample | Sample[], who: Caller, count: number, where = ''): Promise<ApiResponse> {
    const [first, ...others] = Array.isArray(samples) ? samples : [samples];
    this.fills.push(new Set([first, ...others].map((s) => sampleKey(endpoint, this.formSent(endpoint, s)))));
    const admitted = await this.send(endpoint, first, who);
    const started = performance.now();
    const result = fillResult(await this.sendMany(endpoint, [...others, first], who, count - 1), count - 1, started);
    test.info().annotations.push({
      type: 'rate-limit-fill',
      description: `${count - 1} requests as ${who.name} straight to ${endpoint} in ${Math.round(result.ms)} ms, after one through the proxy`,
    });
    expect(result.refused, result.refused && `${where}${describeRefusal(result, who)}, within the limit`).toBeUndefined();
    return admitted;
  }

  /** A Refusal whose failures this traffic can explain (made-up keys refused, operations not served). */
  refusal(): Refusal {
    return new Refusal(this);
  }

  /**
   * `over` was not refused: thrown again as is, or, where requests the check sent with it to operations the spec
   * does not show answered 404 or 405 only, or its made-up key met what the same request met within the limit
   * (`admitted`, where the check knows it), as what `judge` acts on.
   */
  unrefused(over: ApiResponse, admitted: { status: number } | undefined, failure: unknown): never {
    const sent = this.sentAs.get(over);
    if (!sent) throw failure;
    // The requests that fill a window with over's: those of its fill, or over's own.
    const window = this.fills.find((f) => f.has(sampleKey(sent.endpoint, sent.sample))) ?? new Set([sampleKey(sent.endpoint, sent.sample)]);
    const otherForms = [...window].flatMap((key) => {
      const entry = this.answered.get(key);
      const form = entry && !this.forms.has(key) && specFormOf(planeOf(entry.sent.endpoint), entry.sent.sample);
      return form && answeredNotServed(entry) ? [[key, form] as const] : [];
    });
    if (otherForms.length > 0) throw new OtherForms(otherForms, failure);
    const notServed = [...window].flatMap((key) => {
      const entry = this.answered.get(key);
      if (!entry) return [];
      const { endpoint, sample } = entry.sent;
      const plane = planeOf(endpoint);
      const operation = contract().findOperation(plane, sample.method, sample.path)?.operation;
      if ((operation && !operation.notShown) || !answeredNotServed(entry)) return [];
      return [{ sample, res: { plane, operation: operation?.operationId, status: [...entry.statuses][0] } }];
    });
    if (notServed.length > 0) throw new NotServed(notServed, failure);
    if (carriesMadeUpKey(sent.who) && !this.knownKeys.has(sent.endpoint) && !success(over.status) && over.status === admitted?.status)
      throw new MadeUpKeyRefused(sent, over, failure);
    throw failure;
  }

  /**
   * Whether `endpoint` refused the made-up key of `refused` as a credential: a key the target knows meets another
   * answer to the same request. Then its checks are made with keys the target knows, where the run can keep their
   * windows to this test (rate-limit-reset); elsewhere the test is skipped, declared.
   */
  private async knownKeysFor({ sent, over }: MadeUpKeyRefused): Promise<boolean> {
    const { endpoint, sample } = sent;
    const seen = `${endpoint} answered ${sample.method} ${sample.path} with a made-up key ${over.status} within and beyond the limit [exchange ${over.exchange}]`;
    const why = `${seen}: it may refuse a key it does not know before any limit counts the request (§5, §7 leave the order open)`;
    skipDeclared(
      !this.conformanceRun.target.capabilities.includes('rate-limit-reset'),
      `${why}; a check with a key it knows needs the 'rate-limit-reset' capability (a window of that key holding this test's requests alone), which target '${this.conformanceRun.target.name}' does not have`,
    );
    const keys = this.keysOf(endpoint);
    skipDeclared(keys.length === 0, `${why}; target '${this.conformanceRun.target.name}' names no API key that ${endpoint} knows`);
    const known = await this.client(endpoint).request(sample.method, sample.path, {
      headers: { ...sent.who.headers, 'x-api-key': keys[0] },
      kind: 'counted',
    });
    if (known.status === over.status) return false;
    this.knownKeys.set(endpoint, new Map());
    test.info().annotations.push({
      type: 'rate-limit keys',
      description: `${why}; with a key it knows it answered ${known.status} [exchange ${known.exchange}]: checked with the ${keys.length} keys ${endpoint} knows`,
    });
    return true;
  }

  /**
   * Settles, before a check that cannot tell it apart itself (a property against the table's oracle), whether
   * `endpoint` counts made-up keys: on the run-stats row, the table's cheapest, the request over the limit answers a
   * made-up key what the one within it did, and a key the target knows otherwise. A row that refuses nothing settles
   * nothing: made-up keys stay, and the check judges the row.
   */
  async settleKeys(endpoint: Endpoint, testKey: string): Promise<void> {
    const [row] = contract().rateLimits.filter((r) => r.rule === 'RATE-STATS-API-KEY');
    const limit = row.limit[endpoint === 'platform-api-eu' ? 'eu' : 'us'];
    const sample = { method: 'POST', path: '/runs/stats' };
    const who = caller('api-key', 0, { testKey: `${testKey}-keys` });
    const admitted = await this.fill(endpoint, sample, who, limit);
    const over = await this.send(endpoint, sample, who);
    if (over.status === admitted.status && !success(over.status)) await this.knownKeysFor(new MadeUpKeyRefused({ endpoint, sample, who }, over, undefined));
  }

  /**
   * Whether `endpoint` takes the client IP from X-Forwarded-For, as far as this run can tell: once one address has
   * spent the catch-all row, another is admitted. A target that sees one address for all this run's callers (§8 keys
   * on the client IP, not on the header) refuses the other too. A row that refuses nothing tells nothing: true.
   */
  async takesForwardedFor(endpoint: Endpoint, testKey: string): Promise<boolean> {
    const [row] = contract().rateLimits.filter((r) => r.rule === 'RATE-CATCH-ALL-IP');
    const [sample] = samplesFor([row], planeOf(endpoint));
    const [a, b] = [0, 1].map((n) => caller('ip', n, { testKey: `${testKey}-address` }));
    const admitted = await this.fill(endpoint, sample, a, row.limit[endpoint === 'platform-api-eu' ? 'eu' : 'us']);
    const over = await this.send(endpoint, sample, a);
    const other = await this.send(endpoint, sample, b);
    return !(over.status !== admitted.status && !success(over.status) && other.status === over.status);
  }

  /**
   * Runs a check whose requests must share windows (window.ts, inFreshWindows). Where made-up keys meet a credential
   * refusal, it runs again with keys the target knows; each try with known keys starts on counters the run resets.
   * Where operations the spec does not show are not served, `withoutUnserved` says whether the check can do without
   * them (it is run again); else the test is skipped, explained by the rules that say the service serves them.
   */
  async judge(
    time: Time,
    testKey: string,
    check: (window: RateWindow, testKey: string) => Promise<void>,
    withoutUnserved: (error: NotServed) => boolean = () => false,
  ): Promise<void> {
    for (;;) {
      try {
        await inFreshWindows(time, testKey, async (window, testKey) => {
          this.answered.clear();
          this.fills.length = 0;
          for (const known of this.knownKeys.values()) known.clear();
          if ((this.retried || this.knownKeys.size > 0) && this.conformanceRun.target.capabilities.includes('rate-limit-reset')) {
            const reset = await adminOf(this.conformanceRun, this.by).resetRateLimits();
            expect(reset.status, reset.describe('resetting the rate-limit counters')).toBe(200);
          }
          await check(window, testKey);
        });
        return;
      } catch (error) {
        this.retried = true;
        if (error instanceof OtherForms) {
          // Judged again, on callers of their own, with the spec's form in place of each request the target does not serve.
          for (const [key, form] of error.forms) this.forms.set(key, form);
          test.info().annotations.push({
            type: 'rate-limit forms',
            description: `sent in the form §4's tables write, the service's form answering 404 or 405 only: ${OtherForms.describe(error.forms)}`,
          });
          testKey = `${testKey}-form`;
        } else if (error instanceof MadeUpKeyRefused) {
          if (!(await this.knownKeysFor(error))) throw error.failure;
        } else if (error instanceof NotServed) {
          if (!withoutUnserved(error)) {
            // A path only §8 names that the target answers 404 or 405 within and beyond the limit: it serves none of
            // the requests the row limits, which leaves the row nothing to judge (§4.3 leaves those endpoints not shown).
            skipDeclared(error.onlyTableNamed, `the target serves no request this check sends, so no limit of it can be seen: ${error.describe()}`);
            skipForPrecondition(`precondition failed: the target may not serve what this check sends: ${error.describe()}`, [
              ...new Set(error.samples.flatMap(({ res }) => (res.operation ? rulesOfStep({ ...res, operation: res.operation }) : []))),
            ]);
          }
          testKey = `${testKey}-served`;
        } else throw error;
      }
    }
  }
}

/**
 * How the target refuses a request over a limit, whatever its status (§7, §8 leave it not shown): a request is
 * refused when it answers no success and not what the same request answered within the limit. The first refusal
 * judged gives the status that tells the later answers of the test apart, refused or admitted.
 */
class Refusal {
  private status?: number;

  /** `traffic`: the one the judged requests went through, which explains a failure a made-up key or an unserved operation may cause. */
  constructor(private readonly traffic?: Traffic) {}

  /** `over` is refused: `admitted` is the same request's answer within the limit (the first of its window). */
  expect(over: ApiResponse, admitted: { status: number }, what: string): void {
    const refused = !success(over.status) && over.status !== admitted.status;
    try {
      expect(refused, over.describe(`${what} is refused: no success, and not the ${admitted.status} the same request answered within the limit`)).toBe(true);
    } catch (failure) {
      if (this.traffic) this.traffic.unrefused(over, admitted, failure);
      throw failure;
    }
    this.status ??= over.status;
  }

  /** Whether an answer is refused as the first refusal judged was. */
  refuses(status: number): boolean {
    if (this.status === undefined) throw new Error('Refusal.refuses: judge a refusal with expect() first');
    return status === this.status;
  }

  /** `res` is refused as the first refusal judged was. */
  expectAgain(res: ApiResponse, what: string): void {
    try {
      expect(this.refuses(res.status), res.describe(`${what} is refused (${this.status}, as the first refusal)`)).toBe(true);
    } catch (failure) {
      if (this.traffic) this.traffic.unrefused(res, undefined, failure);
      throw failure;
    }
  }

  /** `res` is admitted: it is not refused as the first refusal judged was. */
  expectAdmitted(res: ApiResponse, what: string): void {
    expect(this.refuses(res.status), res.describe(`${what} is admitted (not refused ${this.status}, as the first refusal)`)).toBe(false);
  }
}
