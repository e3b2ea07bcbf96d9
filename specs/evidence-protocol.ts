// The protocol the suites' client, the recording proxy and the reporter share: the x-apc-* headers
// between client and proxy, the proxy's control path, the exchange the proxy records and the report
// keeps and the form of its id, the mark a failure names its exchange with for its reader, the tag that names a
// rule, and the kinds of skip. It sits in specs/, the bottom layer (tests/layout.test.ts), beside the
// report's JSON Schema (specs/schemas/) whose exchanges it types: the harness and the reports both
// build on it, and neither on the other for it.
import { createHash } from 'node:crypto';
import { ENDPOINTS, type Endpoint, type Plane, type Violation } from './contract.ts';

/** Header a suite sets to attribute a request to a test; removed before forwarding. */
export const TEST_HEADER = 'x-apc-test';
/**
 * Header the suites' client sets beside TEST_HEADER: the count of the test's requests, taken when
 * each is sent, so that concurrent requests keep the order they were made in; removed before forwarding.
 */
export const SEQUENCE_HEADER = 'x-apc-sequence';
/**
 * Header the suites' client sets when it sends a request again after a transient fault
 * (harness/retry.ts): the attempt's number, from 2. The exchange keeps the request's sequence
 * and records the attempt, so a retry leaves the ids of the test's other exchanges as they were.
 */
export const ATTEMPT_HEADER = 'x-apc-attempt';
/** On the proxy's own answer when the target gave none: `dropped` (502) or `silent` (504), a fault a client may retry. */
export const FAULT_HEADER = 'x-apc-fault';
/** Response header the proxy adds: the exchange's id, as recorded. */
export const EXCHANGE_HEADER = 'x-apc-exchange';
/**
 * The response's contract violations (URI-encoded JSON), for a client that asks for them by
 * sending this header with the value `trailer` (removed before forwarding): a trailer once the
 * body has been passed on, or a header on an answer without a body. Others get the answer as
 * soon as it has arrived, unvalidated yet.
 */
export const VIOLATIONS_HEADER = 'x-apc-violations';
/** The value of VIOLATIONS_HEADER on a request that asks for the violations. */
export const VIOLATIONS_WANTED = 'trailer';
/** On the proxy's own 502: the target could not be reached, so the answer is no answer of the target's. */
export const UNREACHABLE_HEADER = 'x-apc-unreachable';
/** How the proxy's own 502 begins when the target could not be reached (official clients show it in their errors). */
export const UNREACHABLE_TEXT = 'The recording proxy could not reach the target';
/** What the proxy answers when the target dropped a connection without an answer (a finding, unless the target went away). */
export const DROPPED_TEXT = 'The target closed the connection without answering';

/**
 * The proxy's own paths, never forwarded: `/exchanges[?test=ID]` answers the recordings (of one
 * test), `/chaos` the chaos mode's counts, and `POST /redact` a JSON list of texts with the secrets
 * the proxy knows redacted (what a test says, before its record is written).
 */
export const PROXY_CONTROL_PREFIX = '/__apc';

/** Where the proxy at `base` answers the exchanges of one test, in the order it sent them. */
export function testExchangesUrl(base: string, test: string): string {
  return `${base}${PROXY_CONTROL_PREFIX}/exchanges?test=${encodeURIComponent(test)}`;
}

/** Where the proxy at `base` redacts texts (POST a JSON list of strings; it answers the list redacted). */
export function redactUrl(base: string): string {
  return `${base}${PROXY_CONTROL_PREFIX}/redact`;
}

/**
 * An exchange's id: the endpoint (the proxy's name), a digest of the test and the request's place
 * among the test's (the client's sequence). Tests on parallel workers interleave, and a test's
 * concurrent requests may arrive in any order, but each is sent in its test's order: the same run
 * gives the same ids on any number of workers. A request sent again has its attempt after a dot
 * (`-5.2`). Undefined for a request without both, which the proxy numbers in its own count (`<name>-<n>`).
 */
export function exchangeId(name: string, test: string | undefined, sequence: string | undefined, attempt: number | undefined): string | undefined {
  if (test === undefined || sequence === undefined || !/^\d{1,9}$/.test(sequence)) return undefined;
  return `${name}-${createHash('sha256').update(test).digest('hex').slice(0, 8)}-${sequence}${attempt ? `.${attempt}` : ''}`;
}

/** A test's exchanges in the order it sent them (exchangeId's sequence), not the order concurrent ones arrived in. */
export function inSentOrder(exchanges: Exchange[]): Exchange[] {
  const sequence = (e: Exchange) => Number(/-[0-9a-f]{8}-(\d+)$/.exec(e.id)?.[1] ?? Number.POSITIVE_INFINITY);
  return exchanges.sort((a, b) => sequence(a) - sequence(b));
}

/** The endpoint an exchange went to, from its id (`<endpoint>-…`, exchangeId); none for a proxy named otherwise. */
export function endpointOfExchange(id: string): Endpoint | undefined {
  // Longest first: platform-api-eu-3 is not platform-api's.
  return [...ENDPOINTS].sort((a, b) => b.length - a.length).find((endpoint) => id.startsWith(`${endpoint}-`));
}

export interface Exchange {
  id: string;
  test?: string;
  /** The plane the request went to; for a delivery, the plane that sent it. */
  plane: Plane;
  /**
   * A webhook delivery (harness/webhook-evidence.ts): the request the target sent to the run's
   * receiver, and the receiver's answer. Other exchanges go from the suites to the target.
   */
  delivery?: true;
  /** The base URL the request went to (the target's; for a delivery, the receiver's); request.url is the path below it. */
  base: string;
  operation?: string;
  startedDateTime: string;
  time: number;
  request: { method: string; url: string; headers: [string, string][]; body?: string };
  response: { status: number; headers: [string, string][]; body?: string; contentType?: string };
  /** Response contract violations found by the proxy. */
  violations: Violation[];
  /** Why the exchange ended without the target's full answer (the target unreachable, silent or cut off, the client gone, a limit). */
  error?: string;
  /** The attempt's number (from 2) of a request the suites' client sent again after a transient fault. */
  attempt?: number;
}

/** The mark naming exchange `id` in a message (an answer through the proxy, a webhook delivery to the run's receiver), for its reader. */
export function exchangeMark(id: string): string {
  return `[exchange ${id}]`;
}

/** Whether the answer recorded is the proxy's own, because it could not reach the target: no answer of the target's. */
export function unreachableExchange(exchange: Exchange): boolean {
  return exchange.response.headers.some(([name]) => name === UNREACHABLE_HEADER);
}

/** A test's tag that names a rule it checks: `@RULE-ID`. */
export const RULE_TAG = /^@([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)$/;

/**
 * Why a test could not judge its rules:
 * - declared: what the target declares rules it out: a capability or a profile it lacks, a plane
 *   or configuration it does not name, a server version older than the feature;
 * - precondition: a step the test needs (not the request it judges) failed; it names the rules
 *   whose failure explains it, and the report checks that one of them failed;
 * - machine: this machine, or what the target holds, could not make the check (requests that could
 *   not share a rate-limit window, a compression this Node.js lacks, a single assistant to page):
 *   no rule's failure explains it, and the run cannot pass (exit 2).
 */
export type SkipKind = 'declared' | 'precondition' | 'machine';
