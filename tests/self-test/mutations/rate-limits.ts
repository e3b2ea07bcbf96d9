// The rate-limit table broken (§8). The front sees every request, the bulk the suites send straight to the target
// included, and the simulator's 429 names the rule of the row that refused it: a row is broken by admitting what
// it refuses. The front cannot make up what a refused read would have answered: reads with the run's own key keep
// their limits, so that the tests that wait out a 429 of the run-lookup row still read real answers (the rate-limit
// suites probe with made-up keys, user ids and addresses). Each mutation needs the rate-limit suites (thousands of
// requests) and gets a run of its own.
import { contract } from '../../../specs/contract.ts';
import { WorkspaceDirectory } from '../../../simulator/auth/workspaces.ts';
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { calls, json, object } from './support.ts';

/** The rule of the row a simulator's 429 names ("… (rate-limits.yaml row <id>, <RULE>); retry after …"). */
const refusedBy = (res: MutableResponse) =>
  res.status === 429 ? /rate-limits\.yaml row [\w-]+, (RATE-[A-Z0-9-]+)\)/.exec(String(object(res.body).detail))?.[1] : undefined;

/** The API keys the simulator knows (its fixture's). */
const KNOWN_KEYS = new Set(
  WorkspaceDirectory.fromFixture()
    .describe()
    .api_keys.map((k) => k.key),
);
const knownKey = (req: MutableRequest) => KNOWN_KEYS.has(req.headers['x-api-key'] ?? '');

/** A refusal by `rule` (any row when undefined), answered as admitted, but for a read with a known key. */
const admits = (rule?: string) => (res: MutableResponse, req: MutableRequest) => {
  const by = refusedBy(res);
  return by && (rule === undefined || by === rule) && !(req.method === 'GET' && knownKey(req)) ? json(200, {}) : res;
};

/**
 * The table rules whose tests lean on a row, besides the row's own: measured, one run per row. RATE-429's test
 * provokes a refusal on every row keyed by a key or user id whose limit is at most 100 (rate-limits-rules.spec.ts).
 */
const ALSO_BROKEN: Record<string, string[]> = {
  'RATE-HIGH-THROUGHPUT-META-IP': ['RATE-IDENTITY-KEYS', 'RATE-PATH-PREFIX'],
  'RATE-RUN-QUERY-API-KEY': ['RATE-429', 'RATE-COMBINE'],
  'RATE-RUN-QUERY-USER-IP': ['RATE-COMBINE'],
  'RATE-GENERATION-API-KEY': ['RATE-429', 'RATE-COMBINE', 'RATE-METHOD-SCOPE', 'RATE-RETRY-AFTER'],
  'RATE-GENERATION-USER-IP': ['RATE-429'],
  'RATE-DELETION-API-KEY': ['RATE-429', 'RATE-COMBINE'],
  'RATE-DELETION-USER-IP': ['RATE-429', 'RATE-COMBINE', 'RATE-IDENTITY-KEYS'],
  'RATE-RUN-INGEST-CREATE-API-KEY': ['RATE-IDENTITY-KEYS', 'RATE-METHOD-SCOPE', 'TRACE-MULTIPART-HIGHER-LIMIT'],
  'RATE-RUN-INGEST-UPDATE-API-KEY': ['TRACE-MULTIPART-HIGHER-LIMIT'],
  'RATE-RUN-LOOKUP-API-KEY': ['RATE-429', 'RATE-COMBINE', 'RATE-PATH-PREFIX'],
  'RATE-DEFAULT-API-KEY': ['RATE-COMBINE'],
  'RATE-DEFAULT-USER-IP': ['RATE-UNCHANGED-STATE'],
  'RATE-STATS-API-KEY': ['RATE-429', 'RATE-COMBINE', 'RATE-PATH-PREFIX', 'RATE-REGION-VALUES', 'RATE-RETRY-AFTER'],
  'RATE-CATCH-ALL-IP': ['RATE-COMBINE', 'RATE-PATH-PREFIX'],
};

/** Row `rule` refuses nothing: the requests it alone would refuse are admitted. */
function unenforced(rule: string): Mutation {
  const [row] = contract().rateLimits.filter((r) => r.rule === rule);
  return {
    endpoint: rule.startsWith('RATE-REPOSITORY-') ? 'control-plane' : 'platform-api',
    rateLimits: true,
    breaks: [rule, ...(ALSO_BROKEN[rule] ?? [])],
    description: `the ${row.category} row (${rule}) is not enforced: what it refuses is admitted`,
    response: admits(rule),
  };
}

const ROW_RULES = [...new Set(contract().rateLimits.map((r) => r.rule))];

/** The rules of the US address's rate-limit tests (RATE-RECOVERY's test is the EU's, the /repos rows the control plane's). */
const US_RULES = [
  ...ROW_RULES.filter((rule) => !rule.startsWith('RATE-REPOSITORY-')),
  'RATE-429',
  'RATE-RETRY-AFTER',
  'RATE-UNCHANGED-STATE',
  'RATE-METHOD-SCOPE',
  'RATE-PATH-PREFIX',
  'RATE-IDENTITY-KEYS',
  'RATE-COMBINE',
  'RATE-REGION-VALUES',
  'TRACE-MULTIPART-HIGHER-LIMIT',
];

/** A refusal of the front's own, which knows no window: Retry-After is the run-stats row's interval. */
const refusal: MutableResponse = {
  status: 429,
  headers: { 'content-type': 'application/json', 'retry-after': '10' },
  body: { detail: 'Rate limit exceeded' },
};

/** A caller's requests to one path, counted from its first refusal on (the front keeps no clock: windows are the simulator's). */
const since = (req: MutableRequest) => {
  const who = req.headers['x-api-key'] ?? req.headers['x-user-id'] ?? req.headers['x-forwarded-for'] ?? '';
  return `${who} ${req.method} ${req.path}`;
};

/**
 * Three runs for the whole table, one per address: every rule of its rate-limit tests fails together (the rows' own
 * mutations, RATE_ROW_MUTATIONS, show each row's test failing alone).
 */
export const RATE_LIMIT_MUTATIONS: Record<string, Mutation> = {
  'rate-limits-off': {
    endpoint: 'platform-api',
    rateLimits: true,
    breaks: US_RULES,
    description: 'the US address enforces no rate limit on callers it does not know: every request the table refuses is admitted',
    response: admits(),
  },
  'cp-rate-limits-off': {
    endpoint: 'control-plane',
    rateLimits: true,
    breaks: ['RATE-REPOSITORY-API-KEY', 'RATE-REPOSITORY-USER-IP'],
    description: 'the control plane enforces no rate limit on callers it does not know: every request the table refuses is admitted',
    response: admits(),
  },
  'eu-window-gives-way-after-refusal': {
    endpoint: 'platform-api-eu',
    rateLimits: true,
    // Only a caller refused twice in a row meets it: RATE-RECOVERY's test, which sends again while a window is
    // spent, and RATE-COMBINE's EU property, whose model keeps a refused caller refused.
    breaks: ['RATE-RECOVERY', 'RATE-COMBINE'],
    description: "at the EU address, a caller's request refused right after a refusal is admitted: its window gives way before its interval",
    response: (res, req, memory) => {
      const key = `refused ${since(req)}`;
      const refusedBefore = memory.get(key) === true;
      memory.set(key, res.status === 429 && !refusedBefore);
      return res.status === 429 && refusedBefore ? json(200, {}) : res;
    },
  },
  'eu-recovered-window-halved': {
    endpoint: 'platform-api-eu',
    rateLimits: true,
    // A row's own test sends one request once its window has passed: a whole new window shows the half, and so does
    // the table's oracle. The front refuses only what the oracle admits, so no Retry-After of a refusal the oracle
    // makes is wrong.
    breaks: ['RATE-RECOVERY', 'RATE-COMBINE'],
    description: 'once a refused caller recovers at the EU address, its row admits half its limit in each later window',
    response: (res, req, memory) => {
      const key = since(req);
      const rule = refusedBy(res);
      if (rule) {
        const [row] = contract().rateLimits.filter((r) => r.rule === rule);
        memory.set(key, { half: Math.max(1, Math.floor(row.limit.eu / 2)), admitted: 0 });
        return res;
      }
      const recovered = memory.get(key) as { half: number; admitted: number } | undefined;
      if (!recovered || res.status === 429) return res;
      if (recovered.admitted < recovered.half) {
        recovered.admitted += 1;
        return res;
      }
      return refusal;
    },
  },
};

/** Requests of one user (x-user-id and client IP) the simulator admitted, from the start of the run. */
const userOf = (req: MutableRequest) => `${req.headers['x-user-id']} ${req.headers['x-forwarded-for'] ?? ''}`;
const [DEFAULT_USER] = contract().rateLimits.filter((r) => r.rule === 'RATE-DEFAULT-USER-IP');
/** Marks a request the front let through past its exhausted user row. */
const PAST_LIMIT = 'x-apc-past-user-limit';

/**
 * A run each (about 100 s alone, 150 to 200 s on a busy machine): one per row, the refusal's body, and a refused
 * request that writes. Too slow for every CI run: APC_RATE_MUTATIONS=1 adds them to the catalogue (mutations/index.ts).
 */
export const RATE_ROW_MUTATIONS: Record<string, Mutation> = {
  ...Object.fromEntries(ROW_RULES.map((rule) => [`rate-row-unenforced:${rule}`, unenforced(rule)])),
  'rate-row-refuses-503:RATE-GENERATION-USER-IP': {
    endpoint: 'platform-api',
    rateLimits: true,
    // The row refuses what it should: its own rule judges a refusal whatever its status (§7, §8 leave it not shown),
    // and only the rule that asks for 429 fails. No other test leans on the row.
    breaks: ['RATE-429'],
    description: 'the Generation (user) row refuses with 503 Service Unavailable, not 429',
    response: (res) => (refusedBy(res) === 'RATE-GENERATION-USER-IP' ? { ...res, status: 503 } : res),
  },
  'rate-429-plain-text': {
    endpoint: 'platform-api',
    rateLimits: true,
    breaks: ['RATE-429'],
    description: 'a rate-limit refusal answers 429 with a plain-text body, not a JSON error',
    response: (res) => (refusedBy(res) ? { status: 429, headers: { ...res.headers, 'content-type': 'text/plain' }, body: 'Too Many Requests' } : res),
  },
  'rate-refused-run-written': {
    endpoint: 'platform-api',
    rateLimits: true,
    breaks: ['RATE-UNCHANGED-STATE'],
    description: 'POST /runs refused by an exhausted user row (429) is written all the same when it carries a known key',
    request: (req, memory) => {
      const spent = Number(memory.get(userOf(req)) ?? 0) >= DEFAULT_USER.limit.us;
      if (!calls(req, 'createRun') || !req.headers['x-user-id'] || !knownKey(req) || !spent) return req;
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'x-user-id'));
      return { ...req, headers: { ...headers, [PAST_LIMIT]: 'yes' } };
    },
    response: (res, req, memory) => {
      if (req.headers[PAST_LIMIT]) return refusal;
      if (req.headers['x-user-id'] && res.status !== 429) memory.set(userOf(req), Number(memory.get(userOf(req)) ?? 0) + 1);
      return res;
    },
  },
};
