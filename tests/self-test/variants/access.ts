// Conformant variants of authentication and caller identity: what §5 and §8 leave open.
import type { Endpoint } from '../../../specs/contract.ts';
import { KNOWN_API_KEYS, type MutableRequest } from '../broken-target.ts';
import { jsonError } from '../mutations/support.ts';
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
