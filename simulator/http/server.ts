// The HTTP glue of one plane: match the route, meet the faults set (wire-faults.ts), read the
// request and have it checked against specs/ (request-validation.ts), call the handler, and render
// replies and refusals (send-reply.ts). Handlers never see a request that the contract refuses, so
// such a refusal changes nothing (the state modules check before they write). A plane answers over
// a socket (its Node listener) or in process (`request`, like Hono's app.request): the same
// dispatch, with no port, for tests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { contract, type Api, type Operation, type Plane } from '../../specs/contract.ts';
import type { SpecMode } from '../../specs/types/simulator-admin.ts';
import { answerUnparsed } from '../../specs/unparsed-request.ts';
import type { FaultEffect } from '../faults.ts';
import type { Log } from '../log.ts';
import { ApiError, errorBody, type ErrorStyle } from './errors.ts';
import { logRequest, requestLevel, type LoggedRequest } from './request-log.ts';
import { checkedBody } from './request-validation.ts';
import { encodeRequestViolations, REQUEST_VIOLATIONS_HEADER, type RequestViolation } from './request-violations.ts';
import { isStream, RouteIndex, type Reply, type Request, type Route, type RouteMatch } from './router.ts';
import { send, toResponse } from './send-reply.ts';
import { afterLatency, faultRefusal, sendTruncated, truncatedResponse } from './wire-faults.ts';

interface PlaneOptions {
  plane: Plane;
  /** The plane's route table, and the admin protocol's where it is served. */
  routes: Route[];
  errorStyle: ErrorStyle;
  /** Largest accepted request body; larger ones are refused with 413. */
  maxBodyBytes?: number;
  /**
   * Called for every request before it is routed (rate limits): throws an ApiError to refuse
   * it. Unknown paths and methods count too, as at the real platform's load balancer, which
   * limits before routing. Requests to the admin path are never passed here.
   */
  admit?: (request: AdmissionRequest) => void;
  /**
   * Asked first for every request but the admin path's: the fault it meets (POST /__sim/faults),
   * which then answers in its place (status, reset), delays it or cuts its answer short.
   */
  fault?: (request: { method: string; path: string; operation?: string }) => FaultEffect | undefined;
  /** Told of a throw that is not an ApiError, and of a stream that broke: a simulator bug. */
  onInternalError: (error: unknown, request: { method: string; path: string }) => void;
  /**
   * Refuse a request with violations (request-violations.ts) with 422, as one the schemas refuse;
   * without it such a request is answered as usual, its violations in a header.
   */
  strict?: boolean;
  /**
   * `only`: every operation the contract marks beyond the spec (`x-spec: extra`, Operation.notShown)
   * answers 404 naming it, as a target that serves only what the spec shows; `all` (default) serves them.
   */
  spec?: SpecMode;
  /** Where each request is logged (request-log.ts). */
  log?: Log;
  /** Why a path that no route serves is not served, when the plane knows its clients call it: the 404 says so. */
  unserved?: (path: string) => string | undefined;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** One plane's request handling, over a socket or in process. */
export interface PlaneHandler {
  listener: RequestListener;
  /** Answers a request in process, as a fetch Response: `request('/threads', { method: 'POST', body })`, as from `ip` (default 127.0.0.1). */
  request(path: string, init?: RequestInit, ip?: string): Promise<Response>;
}

/** A request as dispatch sees it, from either transport; the body is read only once routed. */
interface Incoming {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  ip: string;
  /** Reads the body, refusing one over `limit` bytes with 413; a request that declares none answers at once. */
  body(limit: number): Buffer | Promise<Buffer>;
  /** Discards the body of a request that is refused before it is read. */
  discard(): Promise<void>;
  /** When it arrived (performance.now()), when requests are logged. */
  started: number;
  /** What its body does that the contract does not document, once read; the answer carries them. */
  violations?: RequestViolation[];
}

/** What an admission check sees of a request. */
export interface AdmissionRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The client's address as the socket gives it. */
  ip: string;
}

// RATE-MAX-SIZES: the simulator's choice of a maximum request size (413 above it).
const DEFAULT_MAX_BODY = 16 * 1024 * 1024;
// And of a maximum request head (431 above it): Node's default, made explicit.
const MAX_HEADER_BYTES = 16 * 1024;

/** The admin protocol's paths share one prefix (/__sim/), taken from its document. */
const ADMIN_PREFIX = contract().adminPathPrefix;
const isAdminPath = (path: string) => path.startsWith(ADMIN_PREFIX);

export function createPlaneHandler(options: PlaneOptions): PlaneHandler {
  const routes = new RouteIndex(options.routes);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const onInternalError = options.onInternalError;
  // A quiet log (--log-level error, the harness's) costs a request not even a clock reading.
  const log = options.log?.shows('warn') ? options.log : undefined;
  const arrival = log ? () => performance.now() : () => 0;

  /** A refusal (ApiError) rendered in the plane's error style; any other throw is a 500. */
  function refusal(error: unknown, incoming: Incoming): Reply {
    if (error instanceof ApiError) return { status: error.status, body: errorBody(error, options.errorStyle), headers: error.headers };
    onInternalError(error, { method: incoming.method, path: incoming.path });
    return { status: 500, body: { detail: 'Internal simulator error; this is a bug in the simulator.' } };
  }

  /**
   * The reply to a request. It stays synchronous as long as nothing waits (no body to read, a
   * handler that answers at once): most requests then cost no promise at all.
   */
  function answer(incoming: Incoming, match: RouteMatch, fault: FaultEffect | undefined): Reply | Promise<Reply> {
    try {
      const reply = fault?.status === undefined ? dispatch(incoming, match) : refuseByFault(incoming, fault.status, fault.retry_after, fault.setBy);
      return reply instanceof Promise ? reply.catch((error: unknown) => refusal(error, incoming)) : reply;
    } catch (error) {
      return refusal(error, incoming);
    }
  }

  /** The fault a request meets, if any; the admin path never meets one. */
  function faultOf(incoming: Incoming, match: RouteMatch): FaultEffect | undefined {
    if (!options.fault || isAdminPath(incoming.path)) return undefined;
    return options.fault({ method: incoming.method, path: incoming.path, operation: match.kind === 'found' ? match.route.operation.operationId : undefined });
  }

  /** A status fault, answered in the plane's error shape once the body is discarded. */
  function refuseByFault(incoming: Incoming, status: number, retryAfter: number | undefined, setBy: string): Promise<Reply> {
    return incoming.discard().then(() => {
      throw faultRefusal(incoming.method, incoming.path, status, retryAfter, setBy);
    });
  }

  /** `match` is the route the path addresses, looked up once per request (routing is pure, so early) and acted on only here. */
  function dispatch(incoming: Incoming, match: RouteMatch): Reply | Promise<Reply> {
    const { method, path } = incoming;
    // Rate limits refuse before routing, so a refused request changes nothing (RATE-UNCHANGED-STATE).
    if (options.admit && !isAdminPath(path)) options.admit({ method, path, headers: incoming.headers, ip: incoming.ip });
    if (match.kind === 'not-found') {
      return incoming.discard().then(() => {
        const why = options.unserved?.(path);
        if (why) throw new ApiError(404, `No route ${method} ${path} on the ${options.plane} plane: ${why}`);
        // A client library may call endpoints the contract does not document: say that the simulator has none of those.
        throw new ApiError(404, `No route ${method} ${path} on the ${options.plane} plane: the simulator serves the operations its contract documents`);
      });
    }
    // The one place a 405 is written, for every plane: it names what the contract documents (the
    // spec's tables and the operations beyond them, x-spec: extra), not "the spec".
    if (match.kind === 'method-not-allowed') {
      return incoming.discard().then(() => {
        throw new ApiError(405, `Method ${method} not allowed on ${path}: the contract documents ${match.allow.join(', ')} there`, undefined, {
          allow: match.allow.join(', '),
        });
      });
    }
    if (options.spec === 'only' && match.route.operation.notShown) {
      const { operation } = match.route;
      return incoming.discard().then(() => {
        throw beyondTheSpec(operation);
      });
    }
    const raw = incoming.body(maxBody);
    return raw instanceof Promise ? raw.then((bytes) => handle(incoming, match.route, match.params, bytes)) : handle(incoming, match.route, match.params, raw);
  }

  /**
   * Credentials and the contract are checked before the handler runs, so a refused request changes nothing
   * (ERROR-REFUSED-UNCHANGED-CONTROL-PLANE, ERROR-REFUSED-UNCHANGED-PLATFORM, ERROR-REFUSED-UNCHANGED-AGENT).
   */
  function handle(incoming: Incoming, route: Route, params: Record<string, string>, raw: Buffer): Reply | Promise<Reply> {
    const { method, path, query, headers, ip } = incoming;
    route.handler.authenticate?.(headers);
    const body = checkedBody(route.operation, headers, params, query, raw, route.body === 'raw', incoming, options.strict);
    const request: Request = { method, path, params, query, headers, body, raw, ip };
    return route.handler(request);
  }

  const listener: RequestListener = (req, res) => {
    const incoming = new SocketIncoming(req, arrival());
    const match = routes.match(incoming.method, incoming.path);
    const fault = faultOf(incoming, match);
    if (!fault) {
      respond(res, incoming, match, undefined);
      return;
    }
    // Latency is real time even on the virtual clock: it is there for clients' timeouts.
    afterLatency(fault, () => {
      if (!fault.reset) respond(res, incoming, match, fault);
      else {
        req.socket.destroy();
        logged(incoming, 'reset');
      }
    });
  };

  // No closure is made per request on this path: under tsx (keepNames) each named one costs a defineProperty.
  function respond(res: ServerResponse, incoming: Incoming, match: RouteMatch, fault: FaultEffect | undefined): void {
    const reply = answer(incoming, match, fault);
    if (!(reply instanceof Promise)) deliver(res, incoming, reply, fault);
    else
      reply.then(
        (settled) => deliver(res, incoming, settled, fault),
        (error: unknown) => failed(incoming, error),
      );
  }

  function deliver(res: ServerResponse, incoming: Incoming, reply: Reply, fault: FaultEffect | undefined): void {
    const told = withViolations(reply, noted(incoming, reply));
    if (fault?.truncate) sendTruncated(res, told, (error) => failed(incoming, error));
    else send(res, told, (error) => failed(incoming, error));
    logged(incoming, told.status ?? 200);
  }

  function logged(incoming: Incoming, status: LoggedRequest['status']): void {
    if (!log?.shows(requestLevel(incoming.violations))) return;
    const { method, path, violations } = incoming;
    logRequest(log, { method, path, status, ms: performance.now() - incoming.started, violations });
  }

  function failed(incoming: Incoming, error: unknown): void {
    onInternalError(error, { method: incoming.method, path: incoming.path });
  }

  async function request(path: string, init: RequestInit = {}, ip = '127.0.0.1'): Promise<Response> {
    const url = new URL(path, 'http://in-process.invalid');
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const bytes = init.body === undefined || init.body === null ? EMPTY : Buffer.from(await new Response(init.body).arrayBuffer());
    if (bytes.length > 0) headers['content-length'] ??= String(bytes.length);
    const incoming: Incoming = {
      method: (init.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: url.searchParams,
      headers,
      ip,
      body: (limit) => {
        if (bytes.length > limit) throw new ApiError(413, `Request body of ${bytes.length} bytes exceeds the limit of ${limit} bytes`);
        return bytes;
      },
      discard: async () => {},
      started: arrival(),
    };
    const match = routes.match(incoming.method, incoming.path);
    const fault = faultOf(incoming, match);
    if (fault) await new Promise<void>((resolve) => afterLatency(fault, resolve));
    // A reset fails the call as fetch fails on a connection closed without an answer.
    if (fault?.reset) {
      logged(incoming, 'reset');
      throw new TypeError('fetch failed', { cause: new Error(`connection reset by a fault set by ${fault.setBy}`) });
    }
    const answered = await answer(incoming, match, fault);
    const reply = withViolations(answered, noted(incoming, answered));
    logged(incoming, reply.status ?? 200);
    return fault?.truncate ? truncatedResponse(reply) : toResponse(reply);
  }

  return { listener, request };
}

const EMPTY = Buffer.alloc(0);

/** Spec-only mode's answer to an operation beyond the spec: 404, naming it (the plane renders it in its error shape). */
function beyondTheSpec(operation: Operation<Api>): ApiError {
  return new ApiError(
    404,
    `${operation.operationId} (${operation.method} ${operation.path}) is beyond the spec: the contract marks it x-spec: extra, and this simulator serves only what the spec shows (spec-only mode)`,
  );
}

/** A request's violations: its body's, then what its handler accepted though an interpretation would refuse it (kept for the log). */
function noted(incoming: Incoming, reply: Reply): RequestViolation[] | undefined {
  if (isStream(reply) || !reply.violations?.length) return incoming.violations;
  incoming.violations = [...(incoming.violations ?? []), ...reply.violations];
  return incoming.violations;
}

/** Every answer to a request with violations carries them, refusals included. */
function withViolations(reply: Reply, violations: RequestViolation[] | undefined): Reply {
  if (!violations) return reply;
  const { violations: _told, ...rest } = reply as Reply & { violations?: unknown };
  return { ...rest, headers: { ...reply.headers, [REQUEST_VIOLATIONS_HEADER]: encodeRequestViolations(violations) } };
}

/** A request that came over a socket, as dispatch sees it: fields and methods, so that no closure is made per request. */
class SocketIncoming implements Incoming {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly ip: string;
  readonly query: URLSearchParams;
  violations?: RequestViolation[];

  constructor(
    private readonly req: IncomingMessage,
    readonly started: number,
  ) {
    // The raw path, as a server routes it: no URL parsing, no dot-segment normalisation.
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.method = req.method ?? 'GET';
    this.path = q < 0 ? url : url.slice(0, q);
    this.query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    this.headers = req.headers;
    this.ip = req.socket.remoteAddress ?? '';
  }

  body(limit: number): Buffer | Promise<Buffer> {
    return declaresNoBody(this.req) ? EMPTY : readBody(this.req, limit);
  }

  discard(): Promise<void> {
    return drain(this.req);
  }
}

/**
 * A plane's HTTP server: request heads over MAX_HEADER_BYTES get 431 and requests Node cannot
 * parse 400, in the plane's error shape (`{"detail": "..."}` for both styles), not Node's bare status line.
 */
export function createPlaneServer(listener: RequestListener, { holdsProcess = true }: { holdsProcess?: boolean } = {}): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, listener);
  server.keepAliveTimeout = 5000;
  if (!holdsProcess) {
    // Neither the server nor its connections keep the process running (startSimulator: a test file's own work does).
    server.unref();
    server.on('connection', (socket: Duplex & { unref(): void }) => socket.unref());
  }
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerUnparsed(error, socket, MAX_HEADER_BYTES, 'the'));
  return server;
}

/** A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112 §6.3): nothing to wait for. */
function declaresNoBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      // Refused once the body is read: answered while the client still sends, the connection
      // closes after the answer, and a client that reuses it sees a reset on its next request.
      void drain(req).then(() => reject(new ApiError(413, `Request body of ${declared} bytes exceeds the limit of ${limit} bytes`)));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) refused = true;
      if (!refused) chunks.push(chunk);
    });
    // Refused at the end too, for the same reason, keeping none of the rest.
    req.on('end', () => {
      if (refused) reject(new ApiError(413, `Request body exceeds the limit of ${limit} bytes`));
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on('error', (error) => {
      if (!refused) reject(new ApiError(400, `Could not read the request body: ${error.message}`));
    });
  });
}

function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    req.resume();
    req.on('end', () => resolve());
    req.on('error', () => resolve());
    if (req.readableEnded) resolve();
  });
}
