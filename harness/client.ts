// The suites' HTTP client (undici). Every request goes through the recording proxy and
// carries the test's id, so the report can show the exchanges that prove each verdict.
import type { Readable } from 'node:stream';
import { request } from 'undici';
import { contract, type Plane, type Violation } from '../specs/contract.ts';
import { describeAttempt, type ProxyFault, RequestNotJudged, type RequestKind, requestKind, type Sent, sendPastFaults } from './retry.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { isConnectError } from './connect-error.ts';
import { described } from './described-exchanges.ts';
import {
  exchangeMark,
  ATTEMPT_HEADER,
  EXCHANGE_HEADER,
  FAULT_HEADER,
  SEQUENCE_HEADER,
  TEST_HEADER,
  UNREACHABLE_HEADER,
  VIOLATIONS_HEADER,
  VIOLATIONS_WANTED,
} from '../specs/evidence-protocol.ts';

/** What an answer's description names when the proxy recorded no exchange for it (a client of something else). */
const NOT_RECORDED = '(not recorded)';

/** How the message of a request that could not reach the target begins, for its reader (the verdict rides on RequestNotJudged). */
export const TARGET_UNREACHABLE = '[target unreachable]';

/** The target could not be reached (the recording proxy could not, or the client could not reach the proxy): the request was not judged. */
class TargetUnreachable extends RequestNotJudged {
  constructor(what: string) {
    super(`${TARGET_UNREACHABLE} ${what}`);
  }
}

/** The connection to the proxy broke before the answer was whole; `headersSeen`: after the test was told it had begun. */
class BrokenAnswer extends Error {
  constructor(
    override readonly cause: Error,
    readonly headersSeen: boolean,
  ) {
    super(cause.message);
  }
}

/** How many requests each test (or shared step) has sent, by any client of this worker. */
const sentByTest = new Map<string, number>();

/** The headers that file a request under `testId` at its place among the test's requests (exchange ids). */
function testHeaders(testId: string): Record<string, string> {
  const sequence = (sentByTest.get(testId) ?? 0) + 1;
  sentByTest.set(testId, sequence);
  return { [TEST_HEADER]: testId, [SEQUENCE_HEADER]: String(sequence) };
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: T;
  /** The proxy's id for this exchange (shown in failure messages and the report). */
  exchange: string;
  /** Response contract violations the proxy found. */
  violations: Violation[];
  method: string;
  path: string;
  /** The plane the request went to, when the client knows it. */
  plane?: Plane;
  /** The documented operation the request addressed (its operationId), if any. */
  operation?: string;
  /** Set on the recording proxy's own answer when the target gave none: it dropped the connection or was silent. */
  fault?: ProxyFault;
  /** One line naming the exchange, for assertion messages. */
  describe(what?: string): string;
}

interface RequestOptions {
  body?: unknown;
  /**
   * Sent as is, instead of JSON-encoding `body`; a function gives a stream, sent chunked (a new one
   * for each attempt).
   */
  rawBody?: string | Buffer | (() => Readable);
  headers?: Record<string, string>;
  /**
   * Called once the status line and headers have arrived, before the body: a test can act
   * while a stream is still open, knowing the target has taken the request.
   */
  onHeaders?: () => void;
  /** Gives up on the request when it aborts (AbortSignal.timeout). */
  signal?: AbortSignal;
  /**
   * How safe sending the request again after a transient fault is, where the test knows better
   * than the contract (harness/retry.ts): `timed` when it judges when the answer comes, `counted`
   * for a request a rate limit counts.
   */
  kind?: 'counted' | 'timed';
}

const MAX_DESCRIBED_BODY = 600;

interface ClientOptions {
  /** The plane the client talks to: each answer then names its documented operation. */
  plane?: Plane;
  /** Attributes the client's requests to a test (or a step tests share). */
  testId?: string;
  /** Sent as X-Api-Key unless a request sets its own. */
  apiKey?: string;
  /** Called before each request is sent; may refuse it by throwing (the run profile does). */
  guard?: (method: string, path: string) => void;
  /**
   * Answers how long to wait before sending a request again that a rate limit refused (429),
   * as a user's client does, or undefined to hand the 429 to the caller.
   */
  retryAfter?: (res: ApiResponse, attempt: number) => number | undefined;
  /** Told of each request sent again after a transient fault (harness/retry.ts), and the wait before it. */
  onRetry?: (what: string, waitMs: number) => void;
  /** The metadata that marks what the conformance run creates, so that it can be found again (conformanceMarkOf). */
  conformanceMark?: Record<string, string>;
  /** The partition every request names (harness/partition.ts), on a target that has them. */
  partition?: string;
  /** Whether the target serves an operation of the plane (by operationId); every one when not given. */
  served?: (operationId: string) => boolean;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly options: ClientOptions = {},
  ) {}

  /** The metadata to put on what a step creates: the conformance run's mark (`{apc_run: <run key>}`). */
  get conformanceMark(): Record<string, string> {
    return this.options.conformanceMark ?? {};
  }

  /**
   * Whether the target serves the operation (an operationId of the client's plane): one the spec does
   * not show may be declared not served (its config's not_shown_operations), and a request to it then
   * skips the test. A test that has other evidence asks first, and sends such a read only where it is.
   */
  serves(operationId: string): boolean {
    return this.options.served?.(operationId) ?? true;
  }

  /**
   * Fetches a URL the target answered with (a flow's url to visit, an attachment's download) as a
   * browser would, past the recording proxy, in this client's partition.
   */
  follow(url: string): Promise<Response> {
    return fetch(url, { headers: this.options.partition ? { [contract().partitionHeader.name]: this.options.partition } : {} });
  }

  get<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }

  post<T = unknown>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }

  patch<T = unknown>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('PATCH', path, { ...options, body });
  }

  delete<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    this.options.guard?.(method, path);
    // Every attempt keeps the request's place among the test's (its exchange id), numbered apart.
    const place: Record<string, string> = this.options.testId ? testHeaders(this.options.testId) : {};
    let sent = 0;
    const attempt = async (): Promise<Sent<ApiResponse<T>>> => {
      for (let rateLimited = 1; ; rateLimited++) {
        const headers = ++sent > 1 ? { ...place, [ATTEMPT_HEADER]: String(sent) } : place;
        let res: ApiResponse<T>;
        try {
          res = await this.send<T>(method, path, options, headers);
        } catch (error) {
          // The test has acted on the headers of an answer that then broke off: it cannot start over.
          if (!(error instanceof BrokenAnswer) || error.headersSeen) throw error instanceof BrokenAnswer ? error.cause : error;
          return { met: { kind: 'broken', message: error.cause.message }, broke: error.cause };
        }
        const wait = res.status === 429 ? this.options.retryAfter?.(res, rateLimited) : undefined;
        if (wait === undefined) return { met: { kind: 'answer', status: res.status, retryAfter: res.headers['retry-after'], fault: res.fault }, answer: res };
        await sleep(wait);
      }
    };
    return sendPastFaults(this.kindOf(method, path, options), `${method} ${path}`, attempt, {
      mark: (res) => described(exchangeMark(res.exchange), res.exchange === NOT_RECORDED ? undefined : res.exchange),
      onRetry: (met, waitMs) => this.options.onRetry?.(`${method} ${path} met ${describeAttempt(met)}; sent again after ${waitMs} ms`, waitMs),
    });
  }

  /** How safe sending this request again is (harness/retry.ts), from the operation it addresses and its body. */
  private kindOf(method: string, path: string, options: RequestOptions): RequestKind {
    if (options.kind) return options.kind;
    const operation = this.options.plane && contract().findOperation(this.options.plane, method, path)?.operation;
    if (options.rawBody === undefined) return requestKind(method, operation, options.body === undefined ? undefined : { json: options.body });
    // A stream is not read ahead of sending: taken as the valid body it is meant to be.
    if (typeof options.rawBody === 'function') return requestKind(method, operation, undefined);
    try {
      return requestKind(method, operation, { json: JSON.parse(String(options.rawBody)) });
    } catch {
      return requestKind(method, operation, 'unparsed');
    }
  }

  /** Sends one attempt; `ours` are the headers that file it (test, place, attempt). */
  private async send<T>(method: string, path: string, options: RequestOptions, ours: Record<string, string>): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}), ...ours };
    if (this.options.partition) headers[contract().partitionHeader.name] = this.options.partition;
    // The proxy then sends the response's violations, as a trailer (read below).
    headers[VIOLATIONS_HEADER] = VIOLATIONS_WANTED;
    if (this.options.apiKey && !Object.keys(headers).some((h) => h.toLowerCase() === 'x-api-key')) headers['x-api-key'] = this.options.apiKey;
    let body: string | Buffer | Readable | undefined = typeof options.rawBody === 'function' ? options.rawBody() : options.rawBody;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(`${this.baseUrl}${path}`, { method: method as 'GET', headers, body, signal: options.signal });
    } catch (error) {
      // Only no connection at all is unreachable; a dropped answer is what the target did.
      if (isConnectError(error as Error)) throw new TargetUnreachable(`${method} ${path}: ${(error as Error).message}`);
      throw options.signal?.aborted ? error : new BrokenAnswer(error as Error, false);
    }
    if (response.headers[UNREACHABLE_HEADER]) throw new TargetUnreachable(`${method} ${path}: ${await response.body.text()}`);
    options.onHeaders?.();
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw options.signal?.aborted ? error : new BrokenAnswer(error as Error, options.onHeaders !== undefined);
    }
    const flat: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    // A trailer after a body, a header on an answer without one.
    const violationsText = response.trailers[VIOLATIONS_HEADER] ?? flat[VIOLATIONS_HEADER];
    const violations = violationsText ? (JSON.parse(decodeURIComponent(violationsText)) as Violation[]) : [];
    const recorded = flat[EXCHANGE_HEADER];
    const exchange = recorded ?? NOT_RECORDED;
    const fault = flat[FAULT_HEADER] as ProxyFault | undefined;
    // The proxy's own headers are no part of the target's answer.
    delete flat[VIOLATIONS_HEADER];
    delete flat[EXCHANGE_HEADER];
    delete flat[FAULT_HEADER];
    if (flat.trailer === VIOLATIONS_HEADER) delete flat.trailer;
    let json: unknown;
    if (/json/i.test(flat['content-type'] ?? '') && text.trim() !== '') {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    const status = response.statusCode;
    const plane = this.options.plane;
    return {
      status,
      headers: flat,
      text,
      json: json as T,
      exchange,
      violations,
      method,
      path,
      plane,
      operation: plane && contract().findOperation(plane, method, path)?.operation.operationId,
      ...(fault ? { fault } : {}),
      describe(what?: string) {
        const shown = text.length > MAX_DESCRIBED_BODY ? `${text.slice(0, MAX_DESCRIBED_BODY)}…` : text;
        return described(`${what ? `${what}: ` : ''}${method} ${path} answered ${status} ${shown} ${exchangeMark(exchange)}`, recorded);
      },
    };
  }
}
