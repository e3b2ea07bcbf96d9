// The oracle of the §8 table: what a target must admit or refuse. Far simpler than a limiter, it
// keeps every admitted request and counts, for each question, the ones still inside each row's
// window. The properties compare a target against it; it reads the rows from
// specs/rate-limits.yaml and the combination rule from RATE-COMBINE, and shares no code with the simulator.
import { contract, type RateLimitRow } from '../../specs/contract.ts';

type Region = 'us' | 'eu';

/** One request as the table sees it. */
export interface TableRequest {
  method: string;
  path: string;
  apiKey?: string;
  userId?: string;
  ip: string;
}

/** Whether the table admits a request, and if not, when it would and which rows refuse it. */
type Decision = { admitted: true } | { admitted: false; retryAfterSeconds: number; rows: string[] };

interface Admitted {
  at: number;
  counters: string[];
}

/** The path a row matches: the request path as sent, without its query (RATE-PATH-PREFIX). */
function matchedPath(path: string): string {
  return path.split('?')[0];
}

function pathMatches(row: RateLimitRow, path: string): boolean {
  if (!row.match.paths) return true;
  return row.match.paths.some(({ type, value }) => {
    if (type === 'exact') return path === value;
    if (type === 'contains') return path.includes(value);
    if (type === 'suffix') return path.endsWith(value);
    return new RegExp(value).test(path);
  });
}

/** The rows that count a request (RATE-COMBINE): specific ones, else each identity's default, else the catch-all. */
export function countingRows(rows: RateLimitRow[], request: TableRequest): RateLimitRow[] {
  const path = matchedPath(request.path);
  const carries = (row: RateLimitRow) => row.identity === 'ip' || (row.identity === 'api-key' ? request.apiKey !== undefined : request.userId !== undefined);
  const specific = rows.filter(
    (row) => !row.match.requires && (!row.match.methods || row.match.methods.includes(request.method)) && pathMatches(row, path) && carries(row),
  );
  const fallback = rows.filter(
    (row) =>
      (row.match.requires === 'api-key' && request.apiKey !== undefined && !specific.some((s) => s.identity === 'api-key')) ||
      (row.match.requires === 'user-id' && request.userId !== undefined && !specific.some((s) => s.identity === 'user-id+ip')),
  );
  const counted = [...specific, ...fallback];
  return counted.length > 0 ? counted : rows.filter((row) => row.match.requires === 'none');
}

export class TableOracle {
  private admitted: Admitted[] = [];
  readonly rows: RateLimitRow[];

  constructor(
    readonly region: Region,
    rows: RateLimitRow[] = contract().rateLimits,
  ) {
    this.rows = rows;
  }

  /** What the table says of `request` at time `now` (ms); an admitted request is remembered. */
  decide(request: TableRequest, now: number): Decision {
    const counters = new Map<string, RateLimitRow>();
    for (const row of countingRows(this.rows, request)) {
      const identity = row.identity === 'api-key' ? request.apiKey : row.identity === 'ip' ? request.ip : `${request.userId}|${request.ip}`;
      counters.set(`${row.bucket ?? row.id}|${identity}`, row);
    }
    let wait = 0;
    const exhausted: string[] = [];
    for (const [counter, row] of counters) {
      const interval = row.interval_seconds * 1000;
      const inWindow = this.admitted.filter((a) => a.counters.includes(counter) && a.at > now - interval).map((a) => a.at);
      if (inWindow.length < row.limit[this.region]) continue;
      exhausted.push(row.id);
      wait = Math.max(wait, Math.min(...inWindow) + interval - now);
    }
    if (exhausted.length > 0) return { admitted: false, retryAfterSeconds: Math.ceil(wait / 1000), rows: exhausted };
    this.admitted.push({ at: now, counters: [...counters.keys()] });
    return { admitted: true };
  }
}
