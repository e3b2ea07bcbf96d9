// The HTTP glue of one plane: match the route, read and validate the request against
// specs/, call the handler, and render replies and refusals. Handlers never see a
// request that the contract refuses, so such a refusal changes nothing (ERROR-REFUSED-UNCHANGED-CONTROL-PLANE,
// ERROR-REFUSED-UNCHANGED-PLATFORM, ERROR-REFUSED-UNCHANGED-AGENT; the state modules check before they write).
// A plane answers over a socket (its Node listener) or in
// process (`request`, like Hono's app.request): the same dispatch, with no port, for tests.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contract, type Api, type Operation, type Plane, type Violation } from '../../specs/contract.ts';
import { ApiError, errorBody, type ErrorStyle, type ValidationIssue } from './errors.ts';
import { byPrecedence, isStream, matchRoute, type Reply, type Request, type Route } from './router.ts';

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
  /** Called for a throw that is not an ApiError: a simulator bug. */
  onInternalError?: (error: unknown, request: { method: string; path: string }) => void;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** One plane's request handling, over a socket or in process. */
export interface PlaneHandler {
  listener: RequestListener;
  /** Answers a request in process, as a fetch Response: `request('/threads', { method: 'POST', body })`. */
  request(path: string, init?: RequestInit): Promise<Response>;
}

/** A request as dispatch sees it, from either transport; the body is read only once routed. */
interface Incoming {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  ip: string;
  /** Reads the body, refusing one over `limit` bytes with 413. */
  body(limit: number): Promise<Buffer>;
  /** Discards the body of a request that is refused before it is read. */
  discard(): Promise<void>;
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

/** The admin protocol's paths share one prefix (/__sim/), taken from its document. */
const ADMIN_PREFIX = `/${contract().adminOperations[0].path.split('/')[1]}/`;
const isAdminPath = (path: string) => path.startsWith(ADMIN_PREFIX);

export function createPlaneHandler(options: PlaneOptions): PlaneHandler {
  const routes = byPrecedence(options.routes);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const onInternalError =
    options.onInternalError ?? ((error, request) => console.error(`[simulator] internal error on ${request.method} ${request.path}:`, error));

  /** The reply to a request: a refusal (ApiError) is rendered in the plane's error style, any other throw is a 500. */
  async function answer(incoming: Incoming): Promise<Reply> {
    try {
      return await dispatch(incoming);
    } catch (error) {
      if (error instanceof ApiError) return { status: error.status, body: errorBody(error, options.errorStyle), headers: error.headers };
      onInternalError(error, { method: incoming.method, path: incoming.path });
      return { status: 500, body: { detail: 'Internal simulator error; this is a bug in the simulator.' } };
    }
  }

  async function dispatch(incoming: Incoming): Promise<Reply> {
    const { method, path, query, headers } = incoming;
    // Rate limits refuse before routing, so a refused request changes nothing (RATE-UNCHANGED-STATE).
    if (options.admit && !isAdminPath(path)) options.admit({ method, path, headers, ip: incoming.ip });
    const match = matchRoute(routes, method, path);
    if (match.kind === 'not-found') {
      await incoming.discard();
      throw new ApiError(404, `No route ${method} ${path} on the ${options.plane} plane`);
    }
    if (match.kind === 'method-not-allowed') {
      await incoming.discard();
      throw new ApiError(405, `Method ${method} not allowed on ${path}`, undefined, { allow: match.allow.join(', ') });
    }
    const { route, params } = match;
    const raw = await incoming.body(maxBody);
    route.handler.authenticate?.(headers);
    const body = route.body === 'raw' ? raw : parseJsonBody(headers, raw);
    validateRequest(route.operation, params, query, body);
    const request: Request = { method, path, params, query, headers, body, raw };
    return route.handler(request);
  }

  const listener: RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const incoming: Incoming = {
      method: (req.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      ip: req.socket.remoteAddress ?? '',
      body: (limit) => readBody(req, limit),
      discard: () => drain(req),
    };
    void answer(incoming)
      .then((reply) => send(res, reply))
      .catch((error: unknown) => onInternalError(error, { method: incoming.method, path: incoming.path }));
  };

  async function request(path: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(path, 'http://in-process.invalid');
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const bytes = init.body === undefined || init.body === null ? Buffer.alloc(0) : Buffer.from(await new Response(init.body).arrayBuffer());
    if (bytes.length > 0) headers['content-length'] ??= String(bytes.length);
    const incoming: Incoming = {
      method: (init.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: url.searchParams,
      headers,
      ip: '127.0.0.1',
      body: async (limit) => {
        if (bytes.length > limit) throw new ApiError(413, `Request body of ${bytes.length} bytes exceeds the limit of ${limit} bytes`);
        return bytes;
      },
      discard: async () => {},
    };
    return toResponse(await answer(incoming));
  }

  return { listener, request };
}

/**
 * Refuses with 422 what the operation's schema refuses, before any handler runs: bad input is a
 * 4xx in the plane's error shape and reaches no state (ERROR-BAD-INPUT-CONTROL-PLANE,
 * ERROR-BAD-INPUT-PLATFORM, ERROR-BAD-INPUT-AGENT; per operation DEPLOY-BAD-INPUT, AUTHN-BAD-INPUT,
 * TRACE-BAD-INPUT, THREAD-BAD-INPUT, RUN-CREATE-BAD-INPUT, CRON-BAD-INPUT).
 */
function validateRequest(operation: Operation<Api>, params: Record<string, string>, query: URLSearchParams, body: unknown): void {
  const issues: ValidationIssue[] = [];
  const add = (prefix: (string | number)[], violations: Violation[]) => {
    for (const v of violations) {
      // A missing field is named in its location, as FastAPI does (§2.2).
      const loc = [...prefix, ...pointerSegments(v.at), ...(v.missing === undefined ? [] : [v.missing])];
      issues.push({ loc, msg: v.message, type: v.missing === undefined ? 'value_error' : 'missing' });
    }
  };
  for (const [name, value] of Object.entries(params)) {
    add(['path', name], contract().validateParameter(operation, 'path', name, value));
  }
  for (const parameter of operation.document.parameters ?? []) {
    if (parameter.in !== 'query') continue;
    const value = query.get(parameter.name);
    if (value === null) {
      if (parameter.required) issues.push({ loc: ['query', parameter.name], msg: 'Field required', type: 'missing' });
      continue;
    }
    add(['query', parameter.name], contract().validateParameter(operation, 'query', parameter.name, coerceQuery(value, parameter.schema)));
  }
  const requestBody = operation.document.requestBody;
  if (body === undefined) {
    if (requestBody?.required) issues.push({ loc: ['body'], msg: 'a JSON body is required', type: 'missing' });
  } else if (!Buffer.isBuffer(body)) {
    add(['body'], contract().validateRequestBody(operation, body));
  }
  if (issues.length > 0) {
    const summary = issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
    throw new ApiError(422, `Invalid request: ${summary}`, issues);
  }
}

function pointerSegments(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function coerceQuery(value: string, schema: unknown): unknown {
  const type = (schema as { type?: unknown } | undefined)?.type;
  if ((type === 'integer' || type === 'number') && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/**
 * Bodies are JSON, accepted as application/json; multipart ones arrive raw (ERROR-JSON-PAYLOADS-CONTROL-PLANE,
 * ERROR-JSON-PAYLOADS-PLATFORM, ERROR-JSON-PAYLOADS-AGENT).
 */
function parseJsonBody(headers: IncomingMessage['headers'], raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const type = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type && type !== 'application/json' && !type.endsWith('+json') && type !== 'text/plain') {
    throw new ApiError(415, `Unsupported Content-Type '${type}': send the body as application/json`);
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new ApiError(422, `Invalid JSON in request body: ${(error as Error).message}`, [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
  }
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      req.resume();
      reject(new ApiError(413, `Request body of ${declared} bytes exceeds the limit of ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit && !refused) {
        refused = true;
        reject(new ApiError(413, `Request body exceeds the limit of ${limit} bytes`));
      }
      if (!refused) chunks.push(chunk);
    });
    req.on('end', () => {
      if (!refused) resolve(Buffer.concat(chunks));
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

function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (isStream(reply)) {
    res.writeHead(reply.status ?? 200, reply.headers);
    res.flushHeaders();
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
    const write = (chunk: string) => {
      if (!res.writableEnded) res.write(chunk);
    };
    const end = () => {
      if (!res.writableEnded) res.end();
    };
    Promise.resolve(reply.stream(write, end, closed)).catch((error: unknown) => {
      console.error('[simulator] stream failed:', error);
      end();
    });
    return;
  }
  const status = reply.status ?? 200;
  const headers: Record<string, string> = { ...(reply.headers ?? {}) };
  if (reply.body === undefined || status === 204) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(reply.body);
  headers['content-type'] ??= 'application/json';
  headers['content-length'] = String(Buffer.byteLength(text));
  res.writeHead(status, headers);
  res.end(text);
}

/** A reply as a fetch Response; a stream reply becomes a body that the handler writes into until it ends or the reader cancels. */
function toResponse(reply: Reply): Response {
  if (isStream(reply)) {
    let cancelled!: () => void;
    const closed = new Promise<void>((resolve) => {
      cancelled = resolve;
    });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        let open = true;
        const end = () => {
          if (open) controller.close();
          open = false;
          cancelled();
        };
        const write = (chunk: string) => {
          if (open) controller.enqueue(new TextEncoder().encode(chunk));
        };
        Promise.resolve(reply.stream(write, end, closed)).catch(end);
      },
      cancel() {
        cancelled();
      },
    });
    return new Response(body, { status: reply.status ?? 200, headers: reply.headers });
  }
  const status = reply.status ?? 200;
  const headers = new Headers(reply.headers ?? {});
  if (reply.body === undefined || status === 204) return new Response(null, { status, headers });
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return new Response(JSON.stringify(reply.body), { status, headers });
}
