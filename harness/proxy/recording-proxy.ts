// The recording proxy: stands in front of any target, records every exchange (secrets
// redacted), validates every response against specs/, and hands the exchanges to the
// suites and the report. Streams (SSE) pass through as they flow; any other answer is passed
// on as soon as it has arrived whole, and validated and recorded after that, off its path.
import {
  type ClientRequest,
  Agent as HttpAgent,
  createServer,
  type IncomingMessage,
  request as httpRequest,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { contract, type Operation, type Plane, type Violation } from '../../specs/contract.ts';
import {
  ATTEMPT_HEADER,
  DROPPED_TEXT,
  type Exchange,
  EXCHANGE_HEADER,
  exchangeId,
  FAULT_HEADER,
  inSentOrder,
  PROXY_CONTROL_PREFIX,
  SEQUENCE_HEADER,
  TEST_HEADER,
  UNREACHABLE_HEADER,
  UNREACHABLE_TEXT,
  VIOLATIONS_HEADER,
  VIOLATIONS_WANTED,
} from '../../specs/evidence-protocol.ts';
import { answerUnparsed } from '../../specs/unparsed-request.ts';
import { isConnectError } from '../connect-error.ts';
import { BodyClip, clip } from './body-clip.ts';
import { Chaos, type ChaosCounts, type ChaosDecision, type ChaosOptions } from './chaos.ts';
import { Redaction } from './redact.ts';

/** What the proxy answers when the target stayed silent past the proxy's timeout. */
const SILENT_TEXT = 'The target did not answer in time';
/** A stream the target cut off (recorded; the client's stream is cut too). */
const CUT_TEXT = 'The target closed the connection in the middle of its answer';
/** An exchange whose client went away before the answer (recorded with status 0, as browsers record it). */
const CLIENT_GONE_TEXT = 'The client closed the connection before the answer';
/** What the chaos mode's own 503 says (the client meets it as a gateway's). */
export const CHAOS_UNAVAILABLE_TEXT = "The recording proxy's chaos mode answered 503 in place of the target";
/** The error recorded for a connection the chaos mode reset (the client met a reset, the target nothing). */
export const CHAOS_RESET_TEXT = "The recording proxy's chaos mode reset the connection before forwarding";

interface Pending {
  id: string;
  started: number;
  /** What the recording keeps of the request body. */
  requestBody: BodyClip;
  test?: string;
  /** The request to the target, once made: abandoned with the client's. */
  upstream?: ClientRequest;
  /** Set once recorded: an exchange is recorded once, however it ends. */
  recorded?: boolean;
  /** The client asked for the violations (VIOLATIONS_HEADER). */
  wantsViolations: boolean;
  /** The attempt's number when the client sent the request again (ATTEMPT_HEADER). */
  attempt?: number;
  /** When the answer was handed to the client, for an exchange recorded after that. */
  answered?: number;
}

/** How an exchange ended, as recorded. */
interface Outcome {
  operation?: Operation;
  /** The answer's status; 0 when the client went away before any. */
  status: number;
  headers?: [string, string][];
  /**
   * The response body as recorded, redacted: called once the request is, so that a secret the
   * request carried is known when the target reflects it.
   */
  body?: () => string | undefined;
  violations?: Violation[];
  /** Why the exchange ended without the target's full answer. */
  error?: string;
}

interface ProxyOptions {
  /** The plane whose OpenAPI document validates the responses. */
  plane: Plane;
  /** Names the exchanges (default: the plane), e.g. platform-api-eu. */
  name?: string;
  target: string;
  host?: string;
  port?: number;
  /** Called once per completed exchange. */
  onExchange?: (exchange: Exchange) => void;
  /** Keep recordings in memory for /__apc/exchanges (default true). */
  keep?: boolean;
  /** Where recordings are kept: proxies sharing one answer each other's (one request per test). */
  store?: Exchange[];
  /**
   * Forward the test attribution to the target instead of removing it: the project's broken
   * targets apply each mutation to the requests of the tests it is tried on.
   */
  forwardTest?: boolean;
  /** Largest request body forwarded (413 above it), and largest response body buffered to validate (502 above it). */
  maxBodyBytes?: number;
  /** Largest request head accepted (431 above it). */
  maxHeaderBytes?: number;
  /** How long the target may stay silent, before or while answering (504, or a cut stream, after it). */
  timeoutMs?: number;
  /** What is secret in a recording (default: the built-in list); proxies sharing one share the secrets it meets. */
  redaction?: Redaction;
  /** Faults to inject from a seed (resets, 503s, delays): the proxy as a flaky network in front of the target. */
  chaos?: ChaosOptions;
}

export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_HEADER_BYTES = 32 * 1024;
export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
/** The code of the error a request to the target ends with when the target stays silent too long. */
const TIMEOUT_CODE = 'APC_TARGET_TIMEOUT';

/** How long an idle connection to the target is kept for reuse. */
const UPSTREAM_IDLE_MS = 4_000;

export class RecordingProxy {
  readonly exchanges: Exchange[];
  url = '';
  private server?: Server;
  private counter = 0;
  private readonly pending = new WeakMap<IncomingMessage, Pending>();
  /** The target's base URL without a trailing slash, as recorded. */
  private readonly base: string;
  /** Where each request goes: the target's host, and its path before the request's own. */
  private readonly to: { protocol: string; hostname: string; port: string; host: string; path: string };
  private readonly send: typeof httpRequest;
  // Reusing upstream connections is most of the proxy's speed.
  private readonly upstream: HttpAgent;
  private readonly maxBody: number;
  private readonly maxHeader: number;
  private readonly timeout: number;
  private readonly redaction: Redaction;
  private readonly chaos?: Chaos;

  constructor(private readonly options: ProxyOptions) {
    this.exchanges = options.store ?? [];
    this.redaction = options.redaction ?? new Redaction();
    this.base = options.target.replace(/\/+$/, '');
    this.maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.maxHeader = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
    this.timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.chaos = options.chaos && new Chaos(options.chaos);
    // An idle connection is let go after 4 s, before a server closes it (Node's default, and many
    // others', is 5 s): reusing one the server is closing resets the request, which the target never saw.
    const agent = { keepAlive: true, timeout: UPSTREAM_IDLE_MS };
    this.upstream = options.target.startsWith('https:') ? new HttpsAgent(agent) : new HttpAgent(agent);
    // Parsed once: the proxy's own forwarding on node:http, where http-proxy's per-request
    // machinery cost more CPU than the forwarding itself (bench: proxy against plain http-proxy).
    const target = new URL(options.target);
    this.to = { protocol: target.protocol, hostname: target.hostname, port: target.port, host: target.host, path: target.pathname.replace(/\/+$/, '') };
    this.send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  }

  async start(): Promise<string> {
    this.server = createServer({ maxHeaderSize: this.maxHeader }, (req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 5000;
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerUnparsed(error, socket, this.maxHeader, "the proxy's"));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
    });
    const { address, port } = this.server.address() as AddressInfo;
    this.url = `http://${address}:${port}`;
    return this.url;
  }

  /** What the chaos mode did so far; none when it is off. */
  chaosCounts(): ChaosCounts | undefined {
    return this.chaos?.counts();
  }

  /** The client connections open now (a leak shows here). */
  connections(): Promise<number> {
    return new Promise((resolve, reject) => this.server!.getConnections((error, count) => (error ? reject(error) : resolve(count))));
  }

  async close(): Promise<void> {
    this.upstream.destroy();
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    // The exchanges answered last are recorded in an immediate each (respond): theirs run first.
    await new Promise((resolve) => setImmediate(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if ((req.url ?? '').startsWith(PROXY_CONTROL_PREFIX)) {
      this.control(req, res);
      return;
    }
    const test = header(req, TEST_HEADER);
    const wantsViolations = req.headers[VIOLATIONS_HEADER] === VIOLATIONS_WANTED;
    const attempt = Number(header(req, ATTEMPT_HEADER) ?? 1);
    const retry = Number.isInteger(attempt) && attempt > 1 ? attempt : undefined;
    const id = this.exchangeId(test, header(req, SEQUENCE_HEADER), retry);
    const pending: Pending = { id, started: Date.now(), requestBody: new BodyClip(), test, wantsViolations, attempt: retry };
    // The test attribution and the request for violations are ours: the target never sees them
    // (but the test attribution a broken target of the self-tests).
    if (!this.options.forwardTest) delete req.headers[TEST_HEADER];
    delete req.headers[SEQUENCE_HEADER];
    delete req.headers[ATTEMPT_HEADER];
    delete req.headers[VIOLATIONS_HEADER];
    // Node's server has answered the client's Expect: 100-continue already; forwarded, it would
    // make the target wait for a go-ahead that no one would give.
    delete req.headers.expect;
    this.pending.set(req, pending);
    // A client gone before its answer abandons the target's work too (a stream under way is the response path's).
    res.on('close', () => {
      if (pending.recorded || res.headersSent) return;
      pending.upstream?.destroy();
      this.record(req, pending, { status: 0, error: CLIENT_GONE_TEXT });
    });
    // Decided on arrival, so that the seed's faults fall on the requests in the order they came. A
    // simulator's admin path is the test's own control, not the API under test: never met by chaos.
    const decision = (req.url ?? '').startsWith(contract().adminPathPrefix) ? undefined : this.chaos?.next();
    if (!decision) this.forward(req, res, pending);
    else if (decision.delayMs === 0) this.inflict(decision, req, res, pending);
    // The request waits unread (paused), as it would in a slow network.
    else setTimeout(() => this.inflict(decision, req, res, pending), decision.delayMs);
  }

  /** Carries out the chaos mode's decision on a request, unless its client has gone meanwhile. */
  private inflict(decision: ChaosDecision, req: IncomingMessage, res: ServerResponse, pending: Pending): void {
    if (pending.recorded) return;
    if (decision.action === 'forward') this.forward(req, res, pending);
    else if (decision.action === 'reset') {
      // Recorded first: the close that follows is the chaos mode's doing, not the client's.
      this.record(req, pending, { status: 0, error: CHAOS_RESET_TEXT });
      req.socket.destroy();
    } else {
      // The body is read (and recorded) before the answer, so that the connection stays usable, as a gateway's would.
      req.on('data', (chunk: Buffer) => pending.requestBody.add(chunk));
      req.on('end', () => this.unavailable(req, res, pending));
    }
  }

  /** The chaos mode's 503, with a Retry-After, recorded with its headers as the client met it. */
  private unavailable(req: IncomingMessage, res: ServerResponse, pending: Pending): void {
    if (pending.recorded || res.destroyed) return;
    const body = JSON.stringify({ detail: CHAOS_UNAVAILABLE_TEXT });
    const headers: [string, string][] = [
      ['content-type', 'application/json'],
      ['retry-after', String(this.chaos!.retryAfterSeconds)],
    ];
    this.record(req, pending, { status: 503, headers, body: () => this.redaction.body(body, 'application/json'), error: CHAOS_UNAVAILABLE_TEXT });
    res.writeHead(503, { ...Object.fromEntries(headers), [EXCHANGE_HEADER]: pending.id });
    res.end(body);
  }

  /** Hands the request on to the target, its body piped there as it comes. */
  private forward(req: IncomingMessage, res: ServerResponse, pending: Pending): void {
    const tooLarge = () => `Request body exceeds the proxy's limit of ${this.maxBody} bytes`;
    if (Number(req.headers['content-length'] ?? 0) > this.maxBody) {
      // Read and dropped, never forwarded: the client gets its 413 on a connection still usable.
      req.resume();
      this.refuse(req, res, pending, 413, tooLarge());
      return;
    }
    req.on('data', (chunk: Buffer) => {
      pending.requestBody.add(chunk);
      if (pending.requestBody.size <= this.maxBody || pending.recorded) return;
      // A body longer than it is allowed (chunked, so undeclared): the target gets none of the rest.
      this.refuse(req, res, pending, 413, tooLarge());
      pending.upstream?.destroy();
      req.resume();
    });
    let upstream: ClientRequest;
    try {
      upstream = this.send({
        protocol: this.to.protocol,
        hostname: this.to.hostname,
        port: this.to.port,
        method: req.method,
        path: this.to.path + (req.url ?? '/'),
        // As the target's own client would send it: its Host, the client's other headers as they came.
        headers: { ...req.headers, host: this.to.host },
        agent: this.upstream,
      });
    } catch (error) {
      // Node refuses to send some requests its server accepted (a path it will not write).
      this.refuse(req, res, pending, 400, `The recording proxy cannot forward this request: ${(error as Error).message}`);
      return;
    }
    this.forwarded(upstream, pending);
    upstream.on('response', (answer) => this.respond(answer, req, res));
    upstream.on('error', (error) => this.failed(req, res, pending, error));
    req.pipe(upstream);
  }

  /** An exchange's id (exchangeId), or the next of the proxy's own count for a request the suites did not number. */
  private exchangeId(test: string | undefined, sequence: string | undefined, attempt: number | undefined): string {
    const name = this.options.name ?? this.options.plane;
    return exchangeId(name, test, sequence, attempt) ?? `${name}-${++this.counter}`;
  }

  /** The request to the target is under way: it may stay silent only so long. */
  private forwarded(proxyReq: ClientRequest, pending: Pending): void {
    pending.upstream = proxyReq;
    proxyReq.setTimeout(this.timeout, () => {
      proxyReq.destroy(Object.assign(new Error(`the target sent nothing for ${this.timeout} ms`), { code: TIMEOUT_CODE }));
    });
  }

  /** The request to the target failed before its answer began. */
  private failed(req: IncomingMessage, res: ServerResponse, pending: Pending, error: Error): void {
    // No connection at all says nothing about the target's behaviour; a connection it dropped
    // without an answer does (a crash on a request is a finding), so only the first is marked.
    if (isConnectError(error)) {
      // Recorded as the socket's own message: a run stopped for it quotes that (target-watch.ts).
      const headers = { [UNREACHABLE_HEADER]: '1' };
      this.refuse(req, res, pending, 502, `${UNREACHABLE_TEXT} ${this.options.target}: ${error.message}`, { headers, error: error.message });
    } else if ((error as NodeJS.ErrnoException).code === TIMEOUT_CODE) {
      this.refuse(req, res, pending, 504, `${SILENT_TEXT}: ${error.message}`, { headers: { [FAULT_HEADER]: 'silent' } });
    } else {
      this.refuse(req, res, pending, 502, `${DROPPED_TEXT}: ${error.message}`, { headers: { [FAULT_HEADER]: 'dropped' } });
    }
  }

  /** The proxy's own answer, `{"detail": ...}`, when it has none of the target's to give; recorded with `error` (default: the detail). */
  private refuse(
    req: IncomingMessage,
    res: ServerResponse,
    pending: Pending,
    status: number,
    detail: string,
    { headers: extra = {}, error = detail }: { headers?: Record<string, string>; error?: string } = {},
  ): void {
    if (pending.recorded) return;
    const body = JSON.stringify({ detail });
    // Its own headers too: the exchange shows the answer the client got (unreachable, a fault).
    this.record(req, pending, {
      status,
      headers: [['content-type', 'application/json'], ...Object.entries(extra)],
      body: () => this.redaction.body(body, 'application/json'),
      error,
    });
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', [EXCHANGE_HEADER]: pending.id, ...extra });
    res.end(body);
  }

  /**
   * The response path: stream SSE through as it flows; hold anything else only until it has
   * arrived (so that a cut or oversized answer still gets the proxy's 502), pass it on, then
   * validate and record it.
   */
  private respond(proxyRes: IncomingMessage, req: IncomingMessage, res: ServerResponse): void {
    const pending = this.pending.get(req);
    if (!pending || pending.recorded) {
      proxyRes.destroy();
      return;
    }
    const status = proxyRes.statusCode ?? 502;
    const headers = flatHeaders(proxyRes);
    const contentType = header(proxyRes, 'content-type');
    const operation = this.operationOf(req);
    // Why the answer broke off, if it did (without an 'error' listener, Node keeps it to itself).
    let broke = 'closed';
    proxyRes.on('error', (error) => {
      broke = error.message;
    });
    if (/text\/event-stream/i.test(contentType ?? '')) {
      res.writeHead(status, { ...withoutHopHeaders(proxyRes), [EXCHANGE_HEADER]: pending.id });
      res.flushHeaders();
      const body = new BodyClip();
      let clientGone = false;
      proxyRes.on('data', (chunk: Buffer) => {
        body.add(chunk);
        res.write(chunk);
      });
      proxyRes.on('close', () => {
        const { violations } = this.validate(operation, status, contentType, undefined);
        const error = proxyRes.complete ? undefined : clientGone ? CLIENT_GONE_TEXT : `${CUT_TEXT}: ${broke}`;
        this.record(req, pending, { operation, status, headers, body: () => body.recorded(contentType, this.redaction), violations, error });
        // A stream the target cut is cut for the client too, not ended as if complete.
        if (error) res.destroy();
        else res.end();
      });
      res.on('close', () => {
        clientGone = !proxyRes.complete && !proxyRes.destroyed;
        proxyRes.destroy();
      });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    proxyRes.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= this.maxBody) chunks.push(chunk);
      else {
        this.refuse(req, res, pending, 502, `The target's answer exceeds the proxy's limit of ${this.maxBody} bytes to validate`);
        proxyRes.destroy();
      }
    });
    proxyRes.on('close', () => {
      if (!proxyRes.complete) this.refuse(req, res, pending, 502, `${DROPPED_TEXT}: ${broke}`);
    });
    proxyRes.on('end', () => {
      if (pending.recorded) return;
      const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const text = raw.length > 0 ? raw.toString('utf8') : undefined;
      const out: Record<string, string | string[]> = { ...withoutHopHeaders(proxyRes), [EXCHANGE_HEADER]: pending.id };
      const validate = () => this.validate(operation, status, contentType, text);
      // Recorded once the answer is written, in an immediate: the rest of the loop's turn (other
      // answers to pass on, requests to forward) goes first, and no client waits for a recording.
      // A busy proxy forwards about a fifth more for it (bench: proxy against plain http-proxy).
      const recordLater = (checked: ReturnType<typeof validate> | undefined) => {
        pending.answered = Date.now();
        setImmediate(() => {
          const { violations, json, parsed } = checked ?? validate();
          // A JSON body parsed for validation is redacted from that parse, not parsed again.
          const recorded = () => (json ? this.redaction.parsedJson(parsed) : text && this.redaction.body(text, contentType));
          this.record(req, pending, { operation, status, headers, body: recorded, violations });
        });
      };
      if (!pending.wantsViolations) {
        out['content-length'] = String(raw.length);
        res.writeHead(status, out);
        res.end(raw);
        // No one waits for the violations: validated after the answer too.
        recordLater(undefined);
      } else if (req.method === 'HEAD' || status === 204 || status === 304 || req.httpVersion === '1.0') {
        // No body, so nothing to hold up (or HTTP/1.0, which has no trailers): validated first, the violations in a header.
        const checked = validate();
        if (checked.violations.length > 0) out[VIOLATIONS_HEADER] = encodeViolations(checked.violations);
        out['content-length'] = String(raw.length);
        res.writeHead(status, out);
        res.end(raw);
        recordLater(checked);
      } else {
        // Chunked, so that the violations can follow the body as a trailer.
        out.trailer = VIOLATIONS_HEADER;
        res.writeHead(status, out);
        if (raw.length > 0) res.write(raw);
        const checked = validate();
        if (checked.violations.length > 0) res.addTrailers({ [VIOLATIONS_HEADER]: encodeViolations(checked.violations) });
        res.end();
        recordLater(checked);
      }
    });
  }

  private record(req: IncomingMessage, pending: Pending, outcome: Outcome): void {
    if (pending.recorded) return;
    pending.recorded = true;
    this.pending.delete(req);
    const exchange = this.exchange(req, pending, outcome);
    if (this.options.keep !== false) this.exchanges.push(exchange);
    this.options.onExchange?.(exchange);
  }

  private exchange(req: IncomingMessage, pending: Pending, outcome: Outcome): Exchange {
    const responseHeaders = outcome.headers ?? [];
    const redaction = this.redaction;
    // The request first: the secrets it carries are then known when the answer reflects them.
    const request: Exchange['request'] = {
      method: req.method ?? 'GET',
      url: redaction.url(req.url ?? '/'),
      headers: Object.entries(req.headers).map(([name, value]): [string, string] => [name, redaction.header(name, String(value))]),
      body: pending.requestBody.recorded(header(req, 'content-type'), redaction),
    };
    const body = outcome.body?.();
    const contentType = responseHeaders.find(([name]) => name === 'content-type')?.[1];
    return {
      id: pending.id,
      test: pending.test,
      plane: this.options.plane,
      base: this.base,
      operation: (outcome.operation ?? this.operationOf(req))?.operationId,
      startedDateTime: new Date(pending.started).toISOString(),
      time: (pending.answered ?? Date.now()) - pending.started,
      request,
      response: {
        status: outcome.status,
        headers: responseHeaders.map(([name, value]): [string, string] => [name, redaction.header(name, value)]),
        body: body === undefined ? undefined : clip(body),
        contentType: contentType && redaction.text(contentType),
      },
      // A violation or an error may quote what the target sent.
      violations: (outcome.violations ?? []).map((v) => ({ ...v, at: redaction.text(v.at), message: redaction.text(v.message) })),
      error: outcome.error && redaction.text(outcome.error),
      ...(pending.attempt ? { attempt: pending.attempt } : {}),
    };
  }

  /** The documented operation a request addresses, if any. */
  private operationOf(req: IncomingMessage): Operation | undefined {
    return contract().findOperation(this.options.plane, req.method ?? 'GET', req.url ?? '/')?.operation;
  }

  /** The response's contract violations, and its body parsed when it is JSON. */
  private validate(
    operation: Operation | undefined,
    status: number,
    contentType: string | undefined,
    body: string | undefined,
  ): { violations: Violation[]; json: boolean; parsed?: unknown } {
    let value: unknown = body;
    const json = body !== undefined && /json/i.test(contentType ?? '');
    if (json) {
      try {
        value = JSON.parse(body);
      } catch {
        return { violations: operation ? [{ at: '', message: 'the body is not valid JSON although its content-type says JSON' }] : [], json: false };
      }
    }
    const violations = operation ? contract().validateResponse(operation, status, contentType, value) : [];
    return { violations, json, parsed: value };
  }

  /** GET /__apc/exchanges[?test=ID] answers the recordings (of one test); GET /__apc/chaos the chaos mode's counts; POST /__apc/redact redacts texts. */
  private control(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://proxy.invalid');
    if (url.pathname === `${PROXY_CONTROL_PREFIX}/chaos` && req.method === 'GET' && this.chaos) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(this.chaos.counts()));
      return;
    }
    if (url.pathname === `${PROXY_CONTROL_PREFIX}/exchanges` && req.method === 'GET') {
      // In an immediate too, so that the recordings of the answers sent before it come first.
      setImmediate(() => {
        const test = url.searchParams.get('test');
        const body = JSON.stringify(test ? inSentOrder(this.exchanges.filter((e) => e.test === test)) : this.exchanges);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      });
      return;
    }
    if (url.pathname === `${PROXY_CONTROL_PREFIX}/redact` && req.method === 'POST') {
      this.redactTexts(req, res);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ detail: `Unknown proxy control path ${url.pathname}` }));
  }

  /** POST /__apc/redact: a JSON list of texts, answered with the secrets this proxy knows redacted. */
  private redactTexts(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= this.maxBody) chunks.push(chunk);
    });
    req.on('end', () => {
      let texts: unknown;
      try {
        texts = size <= this.maxBody ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      } catch {
        texts = undefined;
      }
      if (!Array.isArray(texts) || !texts.every((t) => typeof t === 'string')) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ detail: `POST ${PROXY_CONTROL_PREFIX}/redact takes a JSON list of strings, of at most ${this.maxBody} bytes` }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(texts.map((text: string) => this.redaction.words(text))));
    });
  }
}

function encodeViolations(violations: Violation[]): string {
  return encodeURIComponent(JSON.stringify(violations));
}

function header(message: IncomingMessage, name: string): string | undefined {
  const value = message.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function flatHeaders(message: IncomingMessage): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < message.rawHeaders.length; i += 2) out.push([message.rawHeaders[i].toLowerCase(), message.rawHeaders[i + 1]]);
  return out;
}

// The target's Trailer header goes too: its trailers are not passed on (and a declared trailer
// on an answer with a content-length makes Node throw).
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'trailer']);

function withoutHopHeaders(message: IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name)) out[name] = value;
  }
  return out;
}
