// The §8 rate-limit table, enforced on the virtual clock. Pure: no HTTP, no real time. The
// simulator asks `admit` before it routes a request and refuses it with 429 when told to.
//
// Decisions (written down in specs/rate-limits.yaml and in the RATE-* rules):
// - Which rows count a request (RATE-COMBINE): every specific row (one without `requires`)
//   whose method and path match and whose identity the request carries: x-api-key for
//   api-key rows, x-user-id for user-id+ip rows, always for IP rows. A default row
//   (`requires: api-key` / `user-id`) counts a request carrying its header only when no
//   specific row keyed by the same identity does: "Default" is the fallback, which is what
//   lets POST /runs/multipart have its higher limit (§4.3). The catch-all (`requires: none`)
//   counts a request that no other row counts.
// - Paths are matched as the request sends them (RATE-PATH-PREFIX): no /api/v1 is removed and no
//   trailing slash folded, because §8 names the /api/v1 form where a row covers it (run lookup).
// - Windows are sliding (the reference says "rolling"): a counter admits a request when fewer
//   than `limit` requests were admitted in the last `interval_seconds`, i.e. in (now - interval,
//   now]. A refused request is counted by none of its rows.
// - Retry-After: the seconds until every exhausted row admits again, rounded up.
import type { RateLimitRow } from '../specs/contract.ts';

export type Region = 'us' | 'eu';

interface RateLimitClock {
  now(): number;
}

/** What the limiter sees of a request. */
export interface RateLimitRequest {
  method: string;
  /** The request path, without query string, as sent: rows match it literally (RATE-PATH-PREFIX). */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The client's address (see `clientIp`). */
  ip: string;
}

type Admission =
  | { admitted: true }
  | {
      admitted: false;
      /** Whole seconds, rounded up, until the request would be admitted. */
      retryAfterSeconds: number;
      /** The exhausted rows, the one that frees last first. */
      exhausted: RateLimitRow[];
    };

interface CompiledRow {
  row: RateLimitRow;
  counter: string;
  intervalMs: number;
  limit: number;
  methods?: ReadonlySet<string>;
  paths?: ((path: string) => boolean)[];
  /** Set for the fallback rows: default (api-key, user-id) and catch-all (none). */
  requires?: 'api-key' | 'user-id' | 'none';
}

/** The admitted requests of one counter in its rolling window, oldest first (RATE-RECOVERY). */
class SlidingLog {
  private times: number[] = [];
  private head = 0;

  /** Drops what left the window; answers how many admitted requests remain in it. */
  size(now: number, intervalMs: number): number {
    while (this.head < this.times.length && this.times[this.head] + intervalMs <= now) this.head++;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return this.times.length - this.head;
  }

  oldest(): number {
    return this.times[this.head];
  }

  add(now: number): void {
    this.times.push(now);
  }
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/i;

function bareAddress(address: string): string {
  const a = address.trim();
  return a.length > 7 && a[0] === ':' && a.slice(0, 7).toLowerCase() === '::ffff:' ? a.slice(7) : a;
}

/**
 * The client IP the IP-keyed rows count: the socket's peer, or, when the peer is a loopback
 * address (a proxy on this host, such as the harness's recording proxy), the nearest
 * address of X-Forwarded-For that is not loopback. Peers elsewhere are never trusted with it.
 */
export function clientIp(peer: string, forwardedFor: string | string[] | undefined): string {
  const direct = bareAddress(peer);
  if (forwardedFor === undefined || !LOOPBACK.test(direct)) return direct;
  if (typeof forwardedFor === 'string' && !forwardedFor.includes(',')) {
    const hop = bareAddress(forwardedFor);
    return hop !== '' && !LOOPBACK.test(hop) ? hop : direct;
  }
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = bareAddress(hops[i]);
    if (hop !== '' && !LOOPBACK.test(hop)) return hop;
  }
  return direct;
}

function pathMatcher(type: string, value: string): (path: string) => boolean {
  switch (type) {
    case 'exact':
      return (p) => p === value;
    case 'contains':
      return (p) => p.includes(value);
    case 'suffix':
      return (p) => p.endsWith(value);
    case 'pattern': {
      const re = new RegExp(value);
      return (p) => re.test(p);
    }
    default:
      throw new Error(`rate-limits.yaml: unknown path match type '${type}'`);
  }
}

function compile(row: RateLimitRow, region: Region): CompiledRow {
  return {
    row,
    counter: row.bucket ?? row.id,
    intervalMs: row.interval_seconds * 1000,
    limit: row.limit[region], // RATE-REGION-VALUES
    methods: row.match.methods ? new Set(row.match.methods.map((m) => m.toUpperCase())) : undefined,
    paths: row.match.paths?.map((p) => pathMatcher(p.type, p.value)),
    requires: row.match.requires,
  };
}

interface Counted {
  compiled: CompiledRow;
  key: string;
}

/** Adds a row's counter for one identity, once (the two entries of a bucket share it). */
function count(out: Counted[], compiled: CompiledRow, identity: string): void {
  const key = `${compiled.counter}\u0000${identity}`;
  for (const c of out) if (c.key === key) return;
  out.push({ compiled, key });
}

function matchesAny(paths: ((path: string) => boolean)[], path: string): boolean {
  for (const matches of paths) if (matches(path)) return true;
  return false;
}

function header(headers: RateLimitRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text === undefined || text.trim() === '' ? undefined : text;
}

export class RateLimiter {
  /** Specific rows by method; `anyMethod` for a method no row names. A row without methods counts every method (RATE-METHOD-SCOPE). */
  private readonly specific = new Map<string, CompiledRow[]>();
  private readonly anyMethod: CompiledRow[];
  private readonly defaultApiKey: CompiledRow[];
  private readonly defaultUser: CompiledRow[];
  private readonly catchAll: CompiledRow[];
  private readonly logs = new Map<string, SlidingLog>();

  constructor(
    rows: RateLimitRow[],
    readonly region: Region,
    private readonly clock: RateLimitClock,
  ) {
    const compiled = rows.map((row) => compile(row, region));
    const specific = compiled.filter((c) => c.requires === undefined);
    this.anyMethod = specific.filter((c) => !c.methods);
    for (const method of new Set(specific.flatMap((c) => [...(c.methods ?? [])]))) {
      this.specific.set(
        method,
        specific.filter((c) => !c.methods || c.methods.has(method)),
      );
    }
    this.defaultApiKey = compiled.filter((c) => c.requires === 'api-key');
    this.defaultUser = compiled.filter((c) => c.requires === 'user-id');
    this.catchAll = compiled.filter((c) => c.requires === 'none');
  }

  /** Counts the request and answers admitted, or refuses it and counts nothing. */
  admit(request: RateLimitRequest): Admission {
    const now = this.clock.now();
    const counted = this.counters(request);
    let wait = 0;
    let exhausted: { row: RateLimitRow; wait: number }[] | undefined;
    for (const { compiled, key } of counted) {
      const log = this.logs.get(key);
      if (!log || log.size(now, compiled.intervalMs) < compiled.limit) continue;
      const rowWait = log.oldest() + compiled.intervalMs - now;
      (exhausted ??= []).push({ row: compiled.row, wait: rowWait });
      if (rowWait > wait) wait = rowWait;
    }
    // Retry-After: whole seconds, rounded up, until every exhausted row admits again (RATE-RETRY-AFTER).
    if (exhausted) {
      exhausted.sort((a, b) => b.wait - a.wait);
      return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)), exhausted: exhausted.map((e) => e.row) };
    }
    for (const { key } of counted) {
      let log = this.logs.get(key);
      if (!log) this.logs.set(key, (log = new SlidingLog()));
      log.add(now);
    }
    return { admitted: true };
  }

  /** The rows that would count this request, without counting it (RATE-COMBINE). */
  rowsFor(request: RateLimitRequest): RateLimitRow[] {
    return this.counters(request).map((c) => c.compiled.row);
  }

  /** Forgets every counter. */
  reset(): void {
    this.logs.clear();
  }

  /** The caller's identities: x-api-key, x-user-id with the client IP, or the client IP alone (RATE-IDENTITY-KEYS). */
  private counters(request: RateLimitRequest): Counted[] {
    const method = request.method.toUpperCase();
    const apiKey = header(request.headers, 'x-api-key');
    const userId = header(request.headers, 'x-user-id');
    const user = userId === undefined ? undefined : `${userId}\u0000${request.ip}`;
    const out: Counted[] = [];
    let byApiKey = false;
    let byUser = false;
    for (const c of this.specific.get(method) ?? this.anyMethod) {
      if (c.paths && !matchesAny(c.paths, request.path)) continue;
      if (c.row.identity === 'api-key') {
        if (apiKey === undefined) continue;
        byApiKey = true;
        count(out, c, apiKey);
      } else if (c.row.identity === 'user-id+ip') {
        if (user === undefined) continue;
        byUser = true;
        count(out, c, user);
      } else {
        count(out, c, request.ip);
      }
    }
    // Default rows are the fallback, so POST /runs/multipart keeps its higher limit (TRACE-MULTIPART-HIGHER-LIMIT).
    if (apiKey !== undefined && !byApiKey) for (const c of this.defaultApiKey) count(out, c, apiKey);
    if (user !== undefined && !byUser) for (const c of this.defaultUser) count(out, c, user);
    if (out.length === 0) for (const c of this.catchAll) count(out, c, request.ip);
    return out;
  }
}

/** The sentence a 429 says: which row, its limit and when to come back. */
export function refusalMessage(refusal: Extract<Admission, { admitted: false }>, region: Region): string {
  const row = refusal.exhausted[0];
  const who = row.identity === 'api-key' ? 'x-api-key' : row.identity === 'user-id+ip' ? 'x-user-id and client IP' : 'client IP';
  return (
    `Rate limit exceeded: ${row.category} allows ${row.limit[region]} requests per ${row.interval_seconds} s per ${who} ` +
    `(rate-limits.yaml row ${row.id}, ${row.rule}); retry after ${refusal.retryAfterSeconds} s`
  );
}
