// Conformant variants of the platform API: targets that differ from the simulator only where §2.4-§2.6
// and §4.2-§4.4 leave a choice open.
import type { MutableRequest } from '../broken-target.ts';
import { calls, isRecord, json } from '../mutations/support.ts';
import type { Variant } from './variant.ts';

/** The request fields of §2.4. */
const AUTHENTICATE_FIELDS = [
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

/** A target whose authenticate endpoint requires `required` of §2.4's fields: a body without one answers 422 with a Validation error (§2.2). */
function authenticateRequires(required: string[]): Variant {
  return {
    endpoint: 'platform-api',
    description: `POST /v2/auth/authenticate requires ${required.join(', ')}: a body without one answers 422 with a Validation error`,
    allowedBy: '§4.2: "Which request fields are required: not shown"; "Response 422: Validation error"',
    request: (req: MutableRequest) => {
      if (!calls(req, 'authenticate') || !isRecord(req.body)) return req;
      const body = req.body;
      const missing = required.filter((field) => !(field in body));
      return missing.length > 0 ? json(422, { detail: missing.map((field) => ({ loc: ['body', field], msg: 'Field required', type: 'missing' })) }) : req;
    },
  };
}

export const PLATFORM_API_VARIANTS: Record<string, Variant> = {
  'platform-api-authenticate-requires-every-field': authenticateRequires(AUTHENTICATE_FIELDS),
  'platform-api-authenticate-requires-agent-id': authenticateRequires(['provider', 'scopes', 'agent_id']),
};
