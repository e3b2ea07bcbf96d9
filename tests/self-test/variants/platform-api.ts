// Conformant variants of the platform API: targets that differ from the simulator only where §2.4-§2.6
// and §4.2-§4.4 leave a choice open.
import type { MutableRequest, MutableResponse } from '../broken-target.ts';
import { calls, isRecord, json, object } from '../mutations/support.ts';
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

/** An upload's answer whose counters are not filled in yet: they are, in every later read. */
const countersLater: Variant = {
  endpoint: 'platform-api',
  description:
    "an upload's answer gives the dataset's session_count as null and example_count as 0, and the experiment's run_count as null: they fill in once the runs are persisted",
  allowedBy:
    '§2.6: the answer has these fields, with no value given; "Right after upload, latency and feedback statistics are null. They are filled in after a few seconds, when the runs are persisted"',
  response: (res: MutableResponse, req: MutableRequest) => {
    if (!calls(req, 'uploadExperiment') || res.status !== 200) return res;
    const { dataset, experiment } = object(res.body);
    return {
      ...res,
      body: {
        ...object(res.body),
        dataset: { ...object(dataset), session_count: null, example_count: 0 },
        experiment: { ...object(experiment), run_count: null },
      },
    };
  },
};

/** PATCH /runs (or under /api/v1) with the run id in the body: the update sent on to the path form the simulator serves. */
function updateInBody(req: MutableRequest): MutableRequest | undefined {
  const base = /^(\/api\/v1)?\/runs\/?(\?|$)/.exec(req.path);
  if (req.method !== 'PATCH' || !base || !isRecord(req.body) || typeof req.body.id !== 'string') return undefined;
  const { id, ...update } = req.body;
  return { ...req, path: `${base[1] ?? ''}/runs/${id}`, body: update };
}

/** A target that takes §4.3's PATCH /runs with the run id in the body, beside the service's PATCH /runs/{run_id} or instead of it. */
function updatesInBody(only: boolean): Variant {
  return {
    endpoint: 'platform-api',
    description: only
      ? 'PATCH /runs takes the run id in the body, and PATCH /runs/{run_id} is not served (404)'
      : 'PATCH /runs takes the run id in the body, beside PATCH /runs/{run_id}',
    allowedBy: '§4.3: the endpoint table writes "PATCH | /runs | Updates a run"; "Bodies of POST and PATCH runs ... : not shown"',
    request: (req: MutableRequest) => {
      if (only && calls(req, 'updateRun')) return json(404, { detail: 'Not Found' });
      return updateInBody(req) ?? req;
    },
  };
}

export const PLATFORM_API_VARIANTS: Record<string, Variant> = {
  'platform-api-patch-runs-id-in-body-beside-path': updatesInBody(false),
  'platform-api-patch-runs-id-in-body-only': updatesInBody(true),
  'platform-api-counters-fill-in-later': countersLater,
  'platform-api-authenticate-requires-every-field': authenticateRequires(AUTHENTICATE_FIELDS),
  'platform-api-authenticate-requires-agent-id': authenticateRequires(['provider', 'scopes', 'agent_id']),
};
