// What the mutation catalogue's entries share. A mutation names the operation it breaks by
// the contract's operationId (the broken target looks it up for each request), so no path is
// written twice.
import { hostMatches } from '../../../simulator/agent-server/webhook-policy.ts';
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

export const oneOf = (...values: unknown[]) => (value: unknown) => values.includes(value);

export const integerFrom = (min: number) => (value: unknown) => Number.isInteger(value) && (value as number) >= min;

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
