// The recording proxy: stands in front of any target, records every exchange (secrets
// redacted), validates every response against specs/, and hands the exchanges to the
// suites and the report. Streams (SSE) pass through as they flow.
import { Agent as HttpAgent, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import httpProxy from 'http-proxy';
import { contract, type Operation, type Plane, type Violation } from '../../specs/contract.ts';
import { Redaction } from './redact.ts';

/** Header a suite sets to attribute a request to a test; removed before forwarding. */
export const TEST_HEADER = 'x-apc-test';
/** Response headers the proxy adds for the suites. */
export const EXCHANGE_HEADER = 'x-apc-exchange';
export const VIOLATIONS_HEADER = 'x-apc-violations';
/** On the proxy's own 502: the target could not be reached, so the answer is no answer of the target's. */
export const UNREACHABLE_HEADER = 'x-apc-unreachable';
/** How the proxy's own 502 begins when the target could not be reached (official clients show it in their errors). */
export const UNREACHABLE_TEXT = 'The recording proxy could not reach the target';
/** What the proxy answers when the target dropped a connection without an answer (a finding, unless the target went away). */
export const DROPPED_TEXT = 'The target closed the connection without answering';
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);
/** Whether an error is a failure to connect at all (not an answer dropped once connected). */
export const isConnectError = (error: Error) => CONNECT_ERRORS.has((error as NodeJS.ErrnoException).code ?? '');
/** The proxy's own control path; never forwarded. */
const CONTROL_PREFIX = '/__apc';

/** Largest body kept in a recording; longer ones are cut (and say so). */
const MAX_RECORDED_BODY = 256 * 1024;

export interface Exchange {
  id: string;
  test?: string;
  plane: Plane;
  /** The target's base URL the request went to; request.url is the path below it. */
  base: string;
  operation?: string;
  startedDateTime: string;
  time: number;
  request: { method: string; url: string; headers: [string, string][]; body?: string };
  response: { status: number; headers: [string, string][]; body?: string; contentType?: string };
  /** Response contract violations found by the proxy. */
  violations: Violation[];
  /** Set when the target could not be reached. */
  error?: string;
}

interface Pending {
  id: string;
  started: number;
  requestChunks: Buffer[];
  test?: string;
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
  /** What is secret in a recording (default: the built-in list); proxies sharing one share the secrets it meets. */
  redaction?: Redaction;
}

export class RecordingProxy {
  readonly exchanges: Exchange[];
  url = '';
  private server?: Server;
  private counter = 0;
  private readonly pending = new WeakMap<IncomingMessage, Pending>();
  /** The target's base URL without a trailing slash, as recorded. */
  private readonly base: string;
  private readonly proxy: httpProxy;
  // Reusing upstream connections is most of the proxy's speed.
  private readonly upstream: HttpAgent;
  private readonly redaction: Redaction;

  constructor(private readonly options: ProxyOptions) {
    this.exchanges = options.store ?? [];
    this.redaction = options.redaction ?? new Redaction();
    this.base = options.target.replace(/\/+$/, '');
    this.upstream = options.target.startsWith('https:') ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.proxy = httpProxy.createProxyServer({
      target: options.target,
      changeOrigin: true,
      selfHandleResponse: true,
      xfwd: false,
      proxyTimeout: 10 * 60 * 1000,
      agent: this.upstream,
    });
    this.proxy.on('proxyRes', (proxyRes, req, res) => this.respond(proxyRes, req, res as ServerResponse));
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
    });
    const { address, port } = this.server.address() as AddressInfo;
    this.url = `http://${address}:${port}`;
    return this.url;
  }

  async close(): Promise<void> {
    this.proxy.close();
    this.upstream.destroy();
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if ((req.url ?? '').startsWith(CONTROL_PREFIX)) {
      this.control(req, res);
      return;
    }
    const pending: Pending = {
      id: `${this.options.name ?? this.options.plane}-${++this.counter}`,
      started: Date.now(),
      requestChunks: [],
      test: header(req, TEST_HEADER),
    };
    // The test attribution is ours: the target never sees it (but a broken target of the self-tests).
    if (!this.options.forwardTest) delete req.headers[TEST_HEADER];
    this.pending.set(req, pending);
    req.on('data', (chunk: Buffer) => pending.requestChunks.push(chunk));
    this.proxy.web(req, res, {}, (error: Error) => {
      // No connection at all says nothing about the target's behaviour; a connection it dropped
      // without an answer does (a crash on a request is a finding), so only the first is marked.
      const unreachable = isConnectError(error);
      const body = JSON.stringify({
        detail: unreachable ? `${UNREACHABLE_TEXT} ${this.options.target}: ${error.message}` : `${DROPPED_TEXT}: ${error.message}`,
      });
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json', [EXCHANGE_HEADER]: pending.id, ...(unreachable ? { [UNREACHABLE_HEADER]: '1' } : {}) });
        res.end(body);
      }
      this.record(
        this.exchange(
          req,
          pending,
          this.operationOf(req),
          502,
          [['content-type', 'application/json']],
          () => this.redaction.body(body, 'application/json'),
          [],
          error.message,
        ),
      );
    });
  }

  /** The response path: stream SSE through as it flows; buffer anything else to validate it first. */
  private respond(proxyRes: IncomingMessage, req: IncomingMessage, res: ServerResponse): void {
    const pending = this.pending.get(req);
    if (!pending) return;
    const status = proxyRes.statusCode ?? 502;
    const headers = flatHeaders(proxyRes);
    const contentType = header(proxyRes, 'content-type');
    const chunks: Buffer[] = [];
    if (/text\/event-stream/i.test(contentType ?? '')) {
      res.writeHead(status, { ...withoutHopHeaders(proxyRes), [EXCHANGE_HEADER]: pending.id });
      res.flushHeaders();
      proxyRes.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        res.write(chunk);
      });
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        const operation = this.operationOf(req);
        const { violations } = this.validate(operation, status, contentType, undefined);
        const body = () => this.redaction.body(Buffer.concat(chunks).toString('utf8'), contentType);
        this.record(this.exchange(req, pending, operation, status, headers, body, violations));
        if (!res.writableEnded) res.end();
      };
      proxyRes.on('end', finish);
      proxyRes.on('error', finish);
      proxyRes.on('close', finish);
      res.on('close', () => proxyRes.destroy());
      return;
    }
    proxyRes.on('data', (chunk: Buffer) => chunks.push(chunk));
    proxyRes.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = raw.length > 0 ? raw.toString('utf8') : undefined;
      const operation = this.operationOf(req);
      const { violations, json, parsed } = this.validate(operation, status, contentType, text);
      const out: Record<string, string | string[]> = { ...withoutHopHeaders(proxyRes), [EXCHANGE_HEADER]: pending.id };
      if (violations.length > 0) out[VIOLATIONS_HEADER] = encodeURIComponent(JSON.stringify(violations));
      out['content-length'] = String(raw.length);
      res.writeHead(status, out);
      res.end(raw);
      // A JSON body parsed for validation is redacted from that parse, not parsed again.
      const recorded = () => (json ? this.redaction.parsedJson(parsed) : text && this.redaction.body(text, contentType));
      this.record(this.exchange(req, pending, operation, status, headers, recorded, violations));
    });
  }

  private exchange(
    req: IncomingMessage,
    pending: Pending,
    operation: Operation | undefined,
    status: number,
    responseHeaders: [string, string][],
    /**
     * The response body as recorded, redacted: called once the request is, so that a secret the
     * request carried is known when the target reflects it.
     */
    body: () => string | undefined,
    violations: Violation[],
    error?: string,
  ): Exchange {
    this.pending.delete(req);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const requestBody = Buffer.concat(pending.requestChunks);
    const contentType = responseHeaders.find(([name]) => name === 'content-type')?.[1];
    const redaction = this.redaction;
    const request = {
      method,
      url: redaction.url(path),
      headers: Object.entries(req.headers).map(([name, value]): [string, string] => [name, redaction.header(name, String(value))]),
      body: requestBody.length > 0 ? clip(redaction.body(requestBody.toString('utf8'), header(req, 'content-type'))) : undefined,
    };
    const recordedHeaders = responseHeaders.map(([name, value]): [string, string] => [name, redaction.header(name, value)]);
    const recordedBody = body();
    return {
      id: pending.id,
      test: pending.test,
      plane: this.options.plane,
      base: this.base,
      operation: operation?.operationId,
      startedDateTime: new Date(pending.started).toISOString(),
      time: Date.now() - pending.started,
      request,
      response: {
        status,
        headers: recordedHeaders,
        body: recordedBody === undefined ? undefined : clip(recordedBody),
        contentType: contentType && redaction.text(contentType),
      },
      // A violation or an error may quote what the target sent.
      violations: violations.map((v) => ({ ...v, at: redaction.text(v.at), message: redaction.text(v.message) })),
      error: error && redaction.text(error),
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

  private record(exchange: Exchange): void {
    if (this.options.keep !== false) this.exchanges.push(exchange);
    this.options.onExchange?.(exchange);
  }

  /** GET /__apc/exchanges[?test=ID] answers the recordings (of one test). */
  private control(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://proxy.invalid');
    if (url.pathname === `${CONTROL_PREFIX}/exchanges` && req.method === 'GET') {
      const test = url.searchParams.get('test');
      const body = JSON.stringify(test ? this.exchanges.filter((e) => e.test === test) : this.exchanges);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ detail: `Unknown proxy control path ${url.pathname}` }));
  }
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

const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function withoutHopHeaders(message: IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name)) out[name] = value;
  }
  return out;
}

function clip(text: string): string {
  return text.length > MAX_RECORDED_BODY ? `${text.slice(0, MAX_RECORDED_BODY)}… [${text.length - MAX_RECORDED_BODY} more characters not recorded]` : text;
}
