// POST /v2/auth/authenticate broken, at the platform API and the control plane (§4.2, §2.4).
import type { Mutation } from '../broken-target.ts';
import { calls, json, jsonError, object } from './support.ts';

/** The request's string ids that a sloppy schema types as anything. */
const UNTYPED = ['user_id', 'ls_user_id', 'agent_id'];

export const AUTHENTICATE_MUTATIONS: Record<string, Mutation> = {
  'cp-authn-not-served': {
    endpoint: 'control-plane',
    // Where the control plane serves no authentication, VERSION-CP-AUTHN-V2 has nothing to judge: skipped.
    breaks: ['AUTHN-CONTROL-PLANE'],
    description: 'the control plane does not serve POST /v2/auth/authenticate (404)',
    request: (req) => (calls(req, 'authenticate') ? jsonError(404, 'Not Found') : req),
  },
  'authn-malformed-json-400': {
    endpoint: 'platform-api',
    // Still a 4xx with a JSON error body; malformed JSON is no field's validation failure (ERROR-422-AUTHN holds).
    breaks: ['AUTHN-BAD-INPUT'],
    description: 'authenticate answers malformed JSON with 400 and a string detail, not 422',
    request: (req) => (calls(req, 'authenticate') && typeof req.body === 'string' ? jsonError(400, 'Request body is not valid JSON') : req),
  },
  'authn-ids-untyped': {
    endpoint: 'platform-api',
    breaks: ['ERROR-422-AUTHN'],
    description: 'authenticate takes user_id, ls_user_id and agent_id of any JSON type: a non-string one answers 200',
    request: (req) => {
      const body = object(req.body);
      const mistyped = UNTYPED.some((field) => field in body && typeof body[field] !== 'string');
      return calls(req, 'authenticate') && mistyped ? json(200, { status: 'pending', url: null, auth_id: null, token: null }) : req;
    },
  },
};
