// Conformant variants that a reading of MUST tests against the spec's words called for: forms the
// spec leaves open, each a target that differs from the simulator only there.
import type { MutableRequest, MutableResponse } from '../broken-target.ts';
import { isRecord, json } from '../mutations/support.ts';
import type { Variant } from './variant.ts';

/** A JSON value with the keys of every object in reverse order: the same value to JSON. */
function keysReversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keysReversed);
  if (isRecord(value))
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, keysReversed(v)]),
    );
  return value;
}

/** Every JSON answer of a plane with its objects' keys in reverse order, as a store that keeps JSON its own way (jsonb) answers them. */
function answersKeysReversed(endpoint: 'platform-api' | 'agent-server' | 'control-plane'): Variant {
  return {
    endpoint,
    description: `every JSON answer of the ${endpoint} lists the keys of its objects in reverse order (objects given in a request included)`,
    allowedBy: '§4: "Payloads are JSON unless stated"; a JSON object is an unordered collection of members (RFC 8259 §4): no order of its keys is given',
    response: (res: MutableResponse) => ({ ...res, body: keysReversed(res.body) }),
  };
}

/**
 * A platform API that routes a request before any rate limit counts it: a path no operation of the
 * contract serves answers 404, and is never counted. The paths §8 names and §4 does not show
 * (/auth, /otel/v1/traces, /charts …) are among them.
 */
const routesBeforeLimits: Variant = {
  endpoint: 'platform-api',
  rateLimits: true,
  description:
    'the platform API serves only the operations of its contract: any other path (those §8 names but §4 does not show) answers 404 before a rate limit counts it',
  allowedBy:
    '§4.3: "Other ingestion and query endpoints that appear only in the rate-limit table (`/runs/batch`, `/otel/v1/traces`, `/runs/query`, `/runs/stats`, `POST /feedback`, and others): not shown"; §8 limits the requests a path serves, and says nothing of paths a service does not serve',
  request: (req: MutableRequest) => (req.operation === undefined && !req.path.startsWith('/__sim') ? json(404, { detail: 'Not Found' }) : req),
};

export const OPEN_FORM_VARIANTS: Record<string, Variant> = {
  'platform-api-json-keys-reordered': answersKeysReversed('platform-api'),
  'control-plane-json-keys-reordered': answersKeysReversed('control-plane'),
  'agent-server-json-keys-reordered': answersKeysReversed('agent-server'),
  'platform-api-routes-before-limits': routesBeforeLimits,
};
