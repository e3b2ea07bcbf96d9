// What the mutation catalogue's entries share. A mutation names the operation it breaks by
// the contract's operationId (the broken target looks it up for each request), so no path is
// written twice.
import { contract, matchServedPath, pathOf } from '../../../specs/contract.ts';
import { hostMatches } from '../../../specs/url-policy.ts';
import { EMBEDDED_URL_POLICY } from '../../../harness/target.ts';
import type { MutableRequest, MutableResponse } from '../broken-target.ts';

export type Json = Record<string, unknown>;

/** Whether the request addresses this documented operation of its plane. */
export const calls = (req: MutableRequest, ...operations: string[]): boolean => req.operation !== undefined && operations.includes(req.operation);

/** Whether a body is a JSON object (not an array, not null). */
export const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export const object = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});

export const jsonError = (status: number, detail: string): MutableResponse => ({ status, headers: { 'content-type': 'application/json' }, body: { detail } });

export const json = (status: number, body: unknown): MutableResponse => ({ status, headers: { 'content-type': 'application/json' }, body });

export const crash: MutableResponse = { status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' };

export const oneOf =
  (...values: unknown[]) =>
  (value: unknown) =>
    values.includes(value);

export const integerFrom = (min: number) => (value: unknown) => Number.isInteger(value) && (value as number) >= min;

/** The query string of a request path, with its `?` ('' when it has none). */
const queryOf = (path: string) => (path.includes('?') ? path.slice(path.indexOf('?')) : '');

/**
 * The request re-aimed at another operation of its plane: the path is that operation's
 * documented template, filled from the request's path parameters and `params`; the query stays.
 */
export function redirect(req: MutableRequest, operationId: string, params: Record<string, string> = {}): MutableRequest {
  const operation = contract().operation(req.plane!, operationId);
  const values: Record<string, string> = { ...req.params, ...params };
  return { ...req, method: operation.method, path: `${pathOf(operation, values)}${queryOf(req.path)}`, operation: operationId, params: values };
}

/** The request without one query parameter. */
export function withoutQuery(req: MutableRequest, name: string): MutableRequest {
  const query = new URLSearchParams(queryOf(req.path));
  query.delete(name);
  const rest = query.toString();
  return { ...req, path: `${req.path.split('?')[0]}${rest ? `?${rest}` : ''}` };
}

/** Whether the request came by one of its operation's aliases (`x-base-paths`), not the documented path. */
export function viaAlias(req: MutableRequest): boolean {
  if (!req.plane || !req.operation) return false;
  const operation = contract().operation(req.plane, req.operation);
  const bare = req.path.split('?')[0];
  return !matchServedPath(operation.served.find((s) => s.path === operation.path)!, bare);
}

/** The documented operation the request's path would address with this prefix in front (e.g. a version segment). */
export const addressedWith = (req: MutableRequest, prefix: string): string | undefined =>
  req.plane ? contract().findOperation(req.plane, req.method, `${prefix}${req.path}`)?.operation.operationId : undefined;

/** A path parameter of the request (the operation's template names it). */
export const param = (req: MutableRequest, name: string): string | undefined => req.params?.[name];

/** Whether the broken target's URL policy (the embedded simulator's) allows this host. */
export const allowedHost = (host: string) => EMBEDDED_URL_POLICY.allowed_domains.some((pattern) => hostMatches(host, pattern));

/** Drops a webhook the policy allows from these operations: accepted, never used (a bad one is still refused). */
export function dropsAllowedWebhook(...operations: string[]): (req: MutableRequest) => MutableRequest {
  return (req) => {
    const { webhook, ...body } = object(req.body);
    if (!calls(req, ...operations) || typeof webhook !== 'string' || !URL.canParse(webhook) || !allowedHost(new URL(webhook).hostname)) return req;
    return { ...req, body };
  };
}

/** A canonical UUID (ids the suites send are UUIDs; a malformed one is a test of its own). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
