// Faults on demand (POST /__sim/faults, or `faults:` in the simulate --config file): rules that
// make matching requests fail on purpose, so a client's retries can be seen working. This
// module only keeps the rules and picks the one a request meets; the HTTP layer applies its
// effect. Counts and windows run on the simulator's clock, so on the virtual clock a window
// ends only when the clock is advanced.
import { contract, splitPath, type Endpoint } from '../specs/contract.ts';
import type { ActiveFault, Fault } from '../specs/types/simulator-admin.ts';
import type { Clock } from './clock.ts';

export type { Fault };

/** What the HTTP layer knows of a request when it asks for a fault. */
export interface FaultedRequest {
  endpoint: Endpoint;
  method: string;
  path: string;
  /** The operationId the request routes to, if any. */
  operation?: string;
}

/** What a fault does to the one request it takes, and what set it (an answer it changes says so). */
export type FaultEffect = Pick<Fault, 'status' | 'retry_after' | 'latency_ms' | 'reset' | 'truncate'> & { setBy: string };

/** What set a fault: the admin path, unless `add` is told otherwise. */
const ADMIN = 'POST /__sim/faults';

interface Rule {
  fault: Fault;
  /** Requests left; Infinity without a count. */
  remaining: number;
  /** Simulated ms at which the window ends; Infinity without one. */
  until: number;
  /** The path pattern split into segments. */
  segments?: string[];
  /** What set it: POST /__sim/faults, or the faults list of the simulator's config. */
  setBy: string;
}

const OPERATIONS = new Set(contract().operations.map((op) => op.operationId));

/**
 * What is wrong with a fault the schema accepts, or undefined: the cross-field rules a schema
 * states badly (an effect is needed, and only one way of failing), and unknown operations.
 */
export function faultProblem(fault: Fault): string | undefined {
  const failures = (['status', 'reset', 'truncate'] as const).filter((k) => fault[k] !== undefined && fault[k] !== false);
  if (failures.length === 0 && fault.latency_ms === undefined) return 'a fault needs an effect: status, latency_ms, reset: true or truncate: true';
  if (failures.length > 1) return `a fault fails a request one way: ${failures.join(' and ')} cannot be combined`;
  if (fault.retry_after !== undefined && fault.status === undefined) return 'retry_after is sent with a status: give status too';
  if (fault.operation !== undefined && !OPERATIONS.has(fault.operation))
    return `no operation '${fault.operation}' in the plane documents (operationIds such as createThread, createRun)`;
  return undefined;
}

export class Faults {
  private rules: Rule[] = [];

  constructor(private readonly clock: Clock) {}

  /** Sets a fault (`setBy` names what set it), or answers what is wrong with it (faultProblem) and sets nothing. */
  add(fault: Fault, setBy = ADMIN): string | undefined {
    const problem = faultProblem(fault);
    if (problem) return problem;
    this.rules.push({
      fault,
      remaining: fault.count ?? Number.POSITIVE_INFINITY,
      until: fault.for_ms === undefined ? Number.POSITIVE_INFINITY : this.clock.now() + fault.for_ms,
      segments: fault.path === undefined ? undefined : splitPath(fault.path),
      setBy,
    });
    return undefined;
  }

  clear(): void {
    this.rules = [];
  }

  /** The faults in force, in the order they were set. */
  list(): ActiveFault[] {
    this.expire();
    return this.rules.map((r) => ({
      fault: r.fault,
      ...(Number.isFinite(r.remaining) ? { remaining: r.remaining } : {}),
      ...(Number.isFinite(r.until) ? { until: new Date(r.until).toISOString() } : {}),
    }));
  }

  /** The effect of the first fault in force that matches the request, which it uses up one of; undefined when none does. */
  take(request: FaultedRequest): FaultEffect | undefined {
    if (this.rules.length === 0) return undefined;
    this.expire();
    const rule = this.rules.find((r) => matches(r, request));
    if (!rule) return undefined;
    rule.remaining--;
    const { status, retry_after, latency_ms, reset, truncate } = rule.fault;
    return { status, retry_after, latency_ms, reset, truncate, setBy: rule.setBy };
  }

  private expire(): void {
    const now = this.clock.now();
    this.rules = this.rules.filter((r) => r.remaining > 0 && now < r.until);
  }
}

function matches(rule: Rule, request: FaultedRequest): boolean {
  const { endpoint, method, operation } = rule.fault;
  if (endpoint !== undefined && endpoint !== request.endpoint) return false;
  if (method !== undefined && method.toUpperCase() !== request.method.toUpperCase()) return false;
  if (operation !== undefined && operation !== request.operation) return false;
  return rule.segments === undefined || pathMatches(rule.segments, splitPath(request.path));
}

/** A segment `*` or `{name}` matches any one segment; a last `**` matches whatever follows, even nothing. */
function pathMatches(pattern: string[], segments: string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i];
    if (want === '**' && i === pattern.length - 1) return true;
    if (i >= segments.length) return false;
    if (want !== '*' && !(want.startsWith('{') && want.endsWith('}')) && want !== segments[i]) return false;
  }
  return pattern.length === segments.length;
}
