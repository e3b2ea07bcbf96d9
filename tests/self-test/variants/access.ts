// Conformant variants of authentication and caller identity: what §5 and §8 leave open.
import type { Endpoint } from '../../../specs/contract.ts';
import { KNOWN_API_KEYS, type MutableRequest } from '../broken-target.ts';
import { calls, isRecord, json, jsonError } from '../mutations/support.ts';
import type { Variant } from './variant.ts';

/** A target that authenticates before it counts: an API key it does not know meets 401, and no rate limit sees it. */
function unknownKeyFirst(endpoint: Endpoint): Variant {
  return {
    endpoint,
    description: `the ${endpoint} refuses an API key it does not know with 401 before any rate limit counts the request`,
    allowedBy:
      '§5 and §7: "Status codes for missing or invalid credentials ... : not shown"; §8 says which requests count, not whether authentication comes first',
    rateLimits: true,
    keyedOnSecrets: true,
    request: (req: MutableRequest, memory) => {
      const key = req.headers['x-api-key'];
      const known = memory.get(KNOWN_API_KEYS) as string[] | undefined;
      return key !== undefined && known !== undefined && !known.includes(key) ? jsonError(401, 'Invalid API key') : req;
    },
  };
}

/** The request fields of §2.4. */
export const AUTHENTICATE_FIELDS = [
  'provider',
  'scopes',
  'user_id',
  'ls_user_id',
  'agent_id',
  'use_agent_builder_public_oauth',
  'force_new',
  'token_id',
  'is_default',
];

/**
 * A target whose authenticate endpoint (§4.2 on the platform API; under v2 on the control plane, §9)
 * requires `required` of §2.4's fields: a body without one answers 422 with a Validation error (§2.2).
 * It runs the rate-limit suites too, whose probes of each plane reach the endpoint.
 */
export function authenticateRequires(endpoint: Endpoint, required: string[]): Variant {
  return {
    endpoint,
    description: `POST /v2/auth/authenticate of the ${endpoint} requires ${required.join(', ')}: a body without one answers 422 with a Validation error`,
    allowedBy: '§4.2: "Which request fields are required: not shown"; "Response 422: Validation error"',
    rateLimits: true,
    request: (req: MutableRequest) => {
      if (!calls(req, 'authenticate') || !isRecord(req.body)) return req;
      const body = req.body;
      const missing = required.filter((field) => !(field in body));
      return missing.length > 0 ? json(422, { detail: missing.map((field) => ({ loc: ['body', field], msg: 'Field required', type: 'missing' })) }) : req;
    },
  };
}

export const ACCESS_VARIANTS: Record<string, Variant> = {
  'platform-api-unknown-key-401-first': unknownKeyFirst('platform-api'),
  'control-plane-unknown-key-401-first': unknownKeyFirst('control-plane'),
  'platform-api-ignores-forwarded-for': {
    endpoint: 'platform-api',
    description: 'the platform-api takes the client IP from the connection, never from X-Forwarded-For: every caller of the run is one address',
    allowedBy: '§5 and §8: rate limits identify callers "by client IP alone" or with x-user-id; the spec names no header that carries the client IP',
    rateLimits: true,
    request: (req: MutableRequest) => ({
      ...req,
      headers: Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'x-forwarded-for')),
    }),
  },
};
