// A route table entry reads like a row of the spec's endpoint tables: method, path,
// the OpenAPI operation it implements, and a small handler.
import type { IncomingHttpHeaders } from 'node:http';
import { templatePattern } from '../../specs/contract.ts';

export interface Request {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when the request had none), or the raw bytes for `body: 'raw'` routes. */
  body: unknown;
  raw?: Buffer;
}

export interface JsonReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A reply that writes its own body over time (server-sent events, long waits). */
export interface StreamReply {
  status?: number;
  headers: Record<string, string>;
  stream: (write: (chunk: string) => void, end: () => void, closed: Promise<void>) => void | Promise<void>;
}

export type Reply = JsonReply | StreamReply;
export type Handler = (request: Request) => Reply | Promise<Reply>;

export interface Route {
  method: string;
  path: string;
  /** The operationId in specs/openapi this route implements; its schemas validate the request. */
  operation?: string;
  body?: 'json' | 'raw';
  handler: Handler;
}

export interface CompiledRoute extends Route {
  pattern: RegExp;
  paramNames: string[];
  specificity: number;
}

export function route(method: string, path: string, operation: string | undefined, handler: Handler, options: { body?: 'json' | 'raw' } = {}): Route {
  return { method, path, operation, handler, ...options };
}

export function compileRoutes(routes: Route[]): CompiledRoute[] {
  return routes
    .map((r) => ({ ...r, ...templatePattern(r.path) }))
    .sort((a, b) => b.specificity - a.specificity);
}

export type RouteMatch =
  | { kind: 'found'; route: CompiledRoute; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

export function matchRoute(routes: CompiledRoute[], method: string, path: string): RouteMatch {
  const allow = new Set<string>();
  for (const candidate of routes) {
    const m = candidate.pattern.exec(path);
    if (!m) continue;
    if (candidate.method !== method) {
      allow.add(candidate.method);
      continue;
    }
    const params: Record<string, string> = {};
    candidate.paramNames.forEach((name, i) => {
      params[name] = decodeURIComponent(m[i + 1]);
    });
    return { kind: 'found', route: candidate, params };
  }
  return allow.size > 0 ? { kind: 'method-not-allowed', allow: [...allow] } : { kind: 'not-found' };
}

export function isStream(reply: Reply): reply is StreamReply {
  return 'stream' in reply;
}
