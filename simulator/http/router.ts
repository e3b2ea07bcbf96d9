// A route table reads like the spec's endpoint tables: one handler per operationId of an
// OpenAPI document. Method and path come from the document, so they are written once; the
// table's type (generated from the same document) makes a missing or unknown operation a
// compile error, and compileTable checks it again at startup.
import type { IncomingHttpHeaders } from 'node:http';
import { contract, matchSegments, splitPath, type Api, type Operation, type ServedPath } from '../../specs/contract.ts';
import type { RequestViolation } from './request-violations.ts';

export interface Request<Body = unknown> {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, validated against the operation's schema (undefined when the request had none). */
  body: Body;
  /** The body's bytes, as sent. */
  raw?: Buffer;
  /** The client's address as the socket gives it (in process: 127.0.0.1 unless given). */
  ip?: string;
}

export interface JsonReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** What the handler accepted though an interpretation would refuse it: told in the violations header with the body's. */
  violations?: RequestViolation[];
}

/** A reply that writes its own body over time (server-sent events, long waits). */
export interface StreamReply {
  status?: number;
  headers: Record<string, string>;
  stream: (write: (chunk: string) => void, end: () => void, closed: Promise<void>) => void | Promise<void>;
}

export type Reply = JsonReply | StreamReply;
export type Handler<Body = unknown> = ((request: Request<Body>) => Reply | Promise<Reply>) & {
  /**
   * Refuses a request without acceptable credentials (throws an ApiError), run before the body
   * is validated: a caller without credentials learns nothing of the schema (AUTH-*-MISSING-CREDENTIALS).
   */
  authenticate?: (headers: IncomingHttpHeaders) => void;
};

/** The JSON body an operation documents (undefined when it is optional), from the generated types. */
type JsonBody<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : Op extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : unknown;

/** One handler per operation of a document, keyed by operationId (`operations` of specs/types). */
export type RouteTable<Operations> = { [K in keyof Operations]: Handler<JsonBody<Operations[K]>> };

/** A table row bound to its operation and one path it is served at: what the server matches requests against. */
export interface Route {
  operation: Operation<Api>;
  served: ServedPath;
  /** A body that is not JSON (multipart) reaches the handler as raw bytes only. */
  body: 'json' | 'raw';
  handler: Handler;
}

/** Binds each handler to its documented operation; refuses a table that misses or invents one. */
export function compileTable<Operations>(api: Api, table: RouteTable<Operations>): Route[] {
  const handlers = table as Record<string, Handler>;
  const operations = contract().operationsOf(api);
  const unknown = Object.keys(handlers).filter((id) => !operations.some((op) => op.operationId === id));
  const missing = operations.filter((op) => !handlers[op.operationId]).map((op) => op.operationId);
  if (unknown.length > 0 || missing.length > 0) {
    throw new Error(`The ${api} route table does not match its document: no handler for [${missing.join(', ')}], no operation for [${unknown.join(', ')}]`);
  }
  return operations.flatMap((operation) =>
    operation.served.map((served): Route => ({ operation, served, body: jsonBody(operation) ? 'json' : 'raw', handler: handlers[operation.operationId] })),
  );
}

function jsonBody(operation: Operation<Api>): boolean {
  const content = operation.document.requestBody?.content;
  return !content || 'application/json' in content;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/** The routes of one path length: by first segment, and those whose first segment is a parameter. */
interface LengthGroup {
  /** For each literal first segment, the routes that can match a path starting with it, most specific first. */
  byFirst: Map<string, Route[]>;
  /** The routes whose first segment is a parameter: all a path can match whose first segment no route names. */
  anyFirst: Route[];
}

/**
 * Routes grouped by their number of path segments, then by their first segment, each list most
 * specific first (/threads/search before /threads/{thread_id}): a request is compared only with
 * the routes of its own length and first segment, segment by segment, with no regular expression.
 */
export class RouteIndex {
  private readonly byLength = new Map<number, LengthGroup>();

  constructor(routes: Route[]) {
    const sorted = [...routes].sort((a, b) => b.served.specificity - a.served.specificity);
    for (const route of sorted) {
      const [first] = route.served.segments;
      const group = this.group(route.served.segments.length);
      if (first !== null && !group.byFirst.has(first)) group.byFirst.set(first, []);
    }
    // A route whose first segment is a parameter joins every list of its length, in its place by specificity.
    for (const route of sorted) {
      const [first] = route.served.segments;
      const group = this.group(route.served.segments.length);
      if (first !== null) group.byFirst.get(first)!.push(route);
      else {
        group.anyFirst.push(route);
        for (const list of group.byFirst.values()) list.push(route);
      }
    }
  }

  private group(length: number): LengthGroup {
    let group = this.byLength.get(length);
    if (!group) this.byLength.set(length, (group = { byFirst: new Map(), anyFirst: [] }));
    return group;
  }

  /** The route a request addresses, or why there is none (405 lists the methods the path allows). */
  match(method: string, path: string): RouteMatch {
    const segments = splitPath(path);
    const group = this.byLength.get(segments.length);
    if (!group) return NOT_FOUND;
    let allow: Set<string> | undefined;
    for (const candidate of group.byFirst.get(segments[0]) ?? group.anyFirst) {
      const params = matchSegments(candidate.served, segments);
      if (!params) continue;
      if (candidate.operation.method !== method) {
        (allow ??= new Set()).add(candidate.operation.method);
        continue;
      }
      return { kind: 'found', route: candidate, params };
    }
    return allow ? { kind: 'method-not-allowed', allow: [...allow] } : NOT_FOUND;
  }
}

const NOT_FOUND: RouteMatch = { kind: 'not-found' };

export function isStream(reply: Reply): reply is StreamReply {
  return 'stream' in reply;
}
