// When a request is sent again. A real target sits behind gateways and load
// balancers that now and then answer a 502, 503 or 504, drop a connection or stay silent: such a
// transient fault is no answer of the target's, and must not turn into a failed rule. A request
// that met one is sent again, with backoff, where that is safe. Three outcomes:
// - an answer that is not a fault is judged, as are the same faults met on every attempt (a 5xx
//   or a dropped connection the target gives every time is a finding, not bad luck);
// - faults that differ from attempt to attempt, and a fault where sending again is not safe,
//   leave the check unjudged: the test's verdict is `error`, never `fail`.
// No HTTP here: the callers send (the suites' client, the rate-limit fills, the preflight, the
// cleanup, the target watch) and sendPastFaults decides what to do next.
import { type Api, contract, type Operation } from '../specs/contract.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** Told of each request that could not be judged; the suites' fixtures note it in the running test's evidence. */
let notJudgedListener: (() => void) | undefined;

/**
 * Where a request that could not be judged is told: in the suites' workers, the running test's
 * evidence. This module stays free of the test runner, which the CLI and the proxies never load.
 */
export function onNotJudged(listener: () => void): void {
  notJudgedListener = listener;
}

/**
 * A request that could not be judged: it met transient faults it could not be sent again past, or
 * the target could not be reached. Made in a test, it is noted in the test's evidence: a test that
 * then fails says nothing about its rules, and its verdict is `error`, never `fail`.
 */
export class RequestNotJudged extends Error {
  constructor(message: string) {
    super(message);
    notJudgedListener?.();
  }
}

/** Whether `error` is, or was caused by (a failed check quoting it), a request that could not be judged. */
export function wasNotJudged(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) if (e instanceof RequestNotJudged) return true;
  return false;
}

/** How the message of a request that met transient faults begins, for its reader (the verdict rides on RequestNotJudged). */
export const TRANSIENT_FAULT = '[transient fault]';

/** A request that met transient faults and could not be judged (`what` says why). */
export function notJudged(what: string): RequestNotJudged {
  return new RequestNotJudged(`${TRANSIENT_FAULT} ${what}`);
}

/** What one attempt met. */
export type Attempt =
  /** An answer: the target's, or the recording proxy's own when the target gave none (`fault`). */
  | { kind: 'answer'; status: number; retryAfter?: string; fault?: ProxyFault }
  /** The connection to the recording proxy broke before the answer was whole. */
  | { kind: 'broken'; message: string };

/** The recording proxy's own answers: the target dropped the connection, or was silent too long. */
export type ProxyFault = 'dropped' | 'silent';

/**
 * How safe sending a request again is:
 * - no-effect: it changes nothing (GET, a documented search, or a create the contract refuses,
 *   such as one with a malformed body): sent again after any fault;
 * - idempotent: sending it twice leaves what sending it once does (DELETE, PUT), but the second
 *   answer may differ (a 404 for what the first deleted);
 * - create: sending it twice may make two (a documented create, or an undocumented write).
 * The test may know better than the contract, and say so:
 * - counted: the target counts it (a rate limit's request): like a create, sent again only after
 *   a 503, which the target did not count;
 * - timed: the test judges when its answer comes (at once, while a run is in progress), which
 *   an answer to a later attempt cannot show: never sent again.
 */
export type RequestKind = 'no-effect' | 'idempotent' | 'create' | 'counted' | 'timed';

/** Methods that change nothing (RFC 9110 §9.2.1) and those that leave the same state however often sent (§9.2.2). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const IDEMPOTENT_METHODS = new Set(['PUT', 'DELETE']);

/**
 * What kind of request this is, from the contract: the operation it addresses (none when
 * undocumented) and its body (`unparsed` when it is no JSON at all). A documented operation that
 * creates nothing (`x-creates`) and is no DELETE or PUT is a read (the searches are POSTs); a create
 * whose body the contract refuses creates nothing on a conforming target; one whose body names
 * what it makes (`x-keyed-by`), or that the contract calls idempotent, cannot make two.
 */
export function requestKind(method: string, operation: Operation<Api> | undefined, body: { json: unknown } | 'unparsed' | undefined): RequestKind {
  const upper = method.toUpperCase();
  if (SAFE_METHODS.has(upper)) return 'no-effect';
  if (IDEMPOTENT_METHODS.has(upper)) return 'idempotent';
  if (!operation) return 'create';
  const { document } = operation;
  if (!document['x-creates']) return upper === 'POST' ? 'no-effect' : 'idempotent';
  const refused = body === 'unparsed' || (body !== undefined && contract().validateRequestBody(operation, body.json).length > 0);
  if (refused) return 'no-effect';
  const key = document['x-keyed-by'];
  const keyed = key !== undefined && body !== undefined && (body.json as Record<string, unknown> | null)?.[key] != null;
  return document['x-idempotent'] || keyed ? 'idempotent' : 'create';
}

export type Step =
  | { do: 'judge' }
  | { do: 'retry'; waitMs: number }
  /** Not judged: why, for the test's `error`. */
  | { do: 'give-up'; why: string };

/** Attempts in all, the first included. */
export const MAX_ATTEMPTS = 4;
/** The first backoff; each next one doubles. */
const BACKOFF_MS = 250;
/**
 * The longest wait a Retry-After may ask for: one that asks for more tells of an outage (or a
 * limit) that lasts, not of a blip, and the answer stands.
 */
const MAX_WAIT_MS = 5_000;
/** Past this many ms since the first attempt, no more attempts (the target's deadline for one request). */
export const RETRY_BUDGET_MS = 30_000;

/**
 * What a write answers when an earlier send of it took effect: not found (deleted), conflict
 * (exists), gone, or unprocessable (the agent server's conflicts). Other 4xx are about the
 * request itself (its credentials, its method, its body), which the first send met as well.
 */
const ALREADY_DONE_STATUSES = new Set([404, 409, 410, 422]);

/** Gateway statuses (RFC 9110 §15.6): the answer of something in front of the target, now and then. */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

/** Whether an attempt met a transient fault rather than the target's answer. */
function isFault(attempt: Attempt): boolean {
  return attempt.kind === 'broken' || attempt.fault !== undefined || GATEWAY_STATUSES.has(attempt.status);
}

/**
 * Whether the request may have reached the target before the fault. A 503 says the request was
 * not handled (RFC 9110 §15.6.4); a reset, a 502, a 504 and silence leave it open.
 */
export function mayHaveLanded(attempt: Attempt): boolean {
  return !(attempt.kind === 'answer' && attempt.status === 503 && attempt.fault === undefined);
}

/** One short phrase for what an attempt met, as the report and the `error` show it. */
export function describeAttempt(attempt: Attempt): string {
  if (attempt.kind === 'broken') return `a broken connection (${attempt.message})`;
  if (attempt.fault === 'dropped') return 'a connection dropped without an answer';
  if (attempt.fault === 'silent') return 'no answer in time';
  return `${attempt.status}`;
}

/** The same outcome: the target answers that every time. */
function same(a: Attempt, b: Attempt): boolean {
  if (a.kind === 'broken' || b.kind === 'broken') return a.kind === b.kind;
  return a.status === b.status && a.fault === b.fault;
}

/** The wait before attempt number `attempts.length + 1`: the Retry-After a gateway asked for, else exponential backoff. */
function waitBefore(attempts: Attempt[]): number {
  const last = attempts.at(-1)!;
  const seconds = last.kind === 'answer' && last.retryAfter !== undefined ? Number(last.retryAfter) : Number.NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : BACKOFF_MS * 2 ** (attempts.length - 1);
}

/**
 * What to do after `attempts` (oldest first), the request being of `kind`, `elapsedMs` after
 * the first attempt began.
 */
export function nextStep(kind: RequestKind, attempts: Attempt[], elapsedMs: number): Step {
  const last = attempts.at(-1)!;
  const faults = attempts.slice(0, -1);
  if (!isFault(last)) {
    // An earlier attempt may have done what this one was refused for (a 404 for a thread the
    // first DELETE deleted): after a fault that may have landed, only the answer of a request with
    // no effect stands, or a refusal that is no sign of an earlier send.
    const landed = faults.find(mayHaveLanded);
    if (kind !== 'no-effect' && landed && last.kind === 'answer' && ALREADY_DONE_STATUSES.has(last.status))
      return { do: 'give-up', why: `it answered ${last.status} once sent again after ${describeAttempt(landed)}, which may have reached the target` };
    return { do: 'judge' };
  }
  if (kind === 'timed')
    return {
      do: 'give-up',
      why: `it met ${describeAttempt(last)} and is not sent again: the test judges when its answer comes, which a later attempt cannot show`,
    };
  if (kind === 'create' && mayHaveLanded(last))
    return { do: 'give-up', why: `it met ${describeAttempt(last)} and is not sent again: a create that may have reached the target could be made twice` };
  if (kind === 'counted' && mayHaveLanded(last))
    return { do: 'give-up', why: `it met ${describeAttempt(last)} and is not sent again: the target may have counted it already` };
  const wait = waitBefore(attempts);
  if (attempts.length < MAX_ATTEMPTS && wait <= MAX_WAIT_MS && elapsedMs + wait <= RETRY_BUDGET_MS) return { do: 'retry', waitMs: wait };
  if (attempts.every((attempt) => same(attempt, last))) return { do: 'judge' };
  return { do: 'give-up', why: `it met transient faults on all ${attempts.length} attempts: ${attempts.map(describeAttempt).join(', ')}` };
}

/** What one attempt came to: an answer, or a connection that broke (`broke`, thrown if it stands). */
export type Sent<T> = { met: Attempt; answer: T } | { met: Attempt; broke: Error };

/**
 * Sends a request of `kind` with `send` (given the attempt's number, from 1) until its answer can
 * be judged, waiting between attempts as nextStep says; answers that answer, or throws the broken
 * connection that stands, or a notJudged error naming `what` (with `mark`'s words for the last answer).
 */
export async function sendPastFaults<T>(
  kind: RequestKind,
  what: string,
  send: (attempt: number) => Promise<Sent<T>>,
  options: { mark?: (answer: T) => string; onRetry?: (met: Attempt, waitMs: number) => void } = {},
): Promise<T> {
  const attempts: Attempt[] = [];
  const started = Date.now();
  for (;;) {
    const sent = await send(attempts.length + 1);
    attempts.push(sent.met);
    const step = nextStep(kind, attempts, Date.now() - started);
    if (step.do === 'judge') {
      if ('broke' in sent) throw sent.broke;
      return sent.answer;
    }
    if (step.do === 'give-up') {
      const mark = 'answer' in sent && options.mark ? ` ${options.mark(sent.answer)}` : '';
      throw notJudged(`${what} was not judged: ${step.why}${mark}`);
    }
    options.onRetry?.(sent.met, step.waitMs);
    await sleep(step.waitMs);
  }
}
