// POST /v2/auth/authenticate broken, at the platform API and the control plane (§4.2, §2.4).
import type { Mutation } from '../broken-target.ts';
import { calls, isRecord, json, jsonError, object } from './support.ts';

/** The request's string ids that a sloppy schema types as anything. */
const UNTYPED = ['user_id', 'ls_user_id', 'agent_id'];

const STRINGS = ['provider', 'user_id', 'ls_user_id', 'agent_id', 'token_id'];
const BOOLEANS = ['use_agent_builder_public_oauth', 'force_new', 'is_default'];
const TRUE = ['true', 'yes', 'on', '1', 1];
const FALSE = ['false', 'no', 'off', '0', 0];

/** A value as a lax (coercing) validator takes it for a string: a number or a boolean becomes its text. */
const laxString = (value: unknown) => (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value);

/** A value as a lax validator takes it for a boolean: 'yes', 'on', 1 and the like. */
const laxBoolean = (value: unknown) => {
  const text = typeof value === 'string' ? value.toLowerCase() : value;
  return TRUE.includes(text as string | number) ? true : FALSE.includes(text as string | number) ? false : value;
};

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
  'authn-lax-validation': {
    endpoint: 'platform-api',
    // A value of the documented type's text form is no validation failure for a coercing validator: ERROR-422-AUTHN holds.
    breaks: [],
    description: "authenticate validates its body laxly, as a coercing validator does: 7 is the string '7', 'yes', 1 or 'false' a boolean",
    request: (req) => {
      const body = object(req.body);
      if (!calls(req, 'authenticate') || !isRecord(req.body)) return req;
      const coerced: Record<string, unknown> = { ...body };
      for (const field of STRINGS) if (field in body) coerced[field] = laxString(body[field]);
      for (const field of BOOLEANS) if (field in body) coerced[field] = laxBoolean(body[field]);
      if (Array.isArray(body.scopes)) coerced.scopes = body.scopes.map(laxString);
      return { ...req, body: coerced };
    },
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
