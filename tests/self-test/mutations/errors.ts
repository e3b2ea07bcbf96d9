// Errors, JSON payloads and refusals broken, on the control plane and the platform API (§4, §7).
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { calls, crash, json, jsonError, object, UUID } from './support.ts';

/** The caller a request acts as: its key and the workspace it names. */
const callerOf = (req: MutableRequest) => `${req.headers['x-api-key'] ?? ''}|${req.headers['x-tenant-id'] ?? ''}`;

/** Marks a request the front rewrote to do what it then answers it did not do. */
const REFUSED = 'x-apc-refused-after-all';

const queryOf = (path: string) => new URLSearchParams(path.split('?')[1] ?? '');

/** A Validation error answer with each of its ValidationError items changed. */
const withItems = (res: MutableResponse, change: (item: Record<string, unknown>) => Record<string, unknown>): MutableResponse => {
  const detail = object(res.body).detail;
  return Array.isArray(detail) ? { ...res, body: { ...object(res.body), detail: detail.map((item) => change(object(item))) } } : res;
};

export const ERROR_MUTATIONS: Record<string, Mutation> = {
  'cp-limit-not-a-number-500': {
    endpoint: 'control-plane',
    breaks: ['ERROR-BAD-INPUT-CONTROL-PLANE'],
    description: 'a deployment listing whose limit is not a number crashes the server (500)',
    request: (req) => {
      const limit = queryOf(req.path).get('limit');
      return calls(req, 'listDeployments') && limit !== null && Number.isNaN(Number(limit)) ? crash : req;
    },
  },
  'cp-patch-answers-text-json': {
    endpoint: 'control-plane',
    // The suites' client reads text/json as JSON: only the rule about the media type sees it.
    breaks: ['ERROR-JSON-PAYLOADS-CONTROL-PLANE'],
    description: 'PATCH /v2/deployments/{id} answers its JSON labelled text/json, not application/json',
    response: (res, req) => (calls(req, 'patchDeployment') ? { ...res, headers: { ...res.headers, 'content-type': 'text/json' } } : res),
  },
  'cp-patch-json-415': {
    endpoint: 'control-plane',
    // §4: requests with a body carry application/json; the refusal is a JSON error, so only taking the body is broken.
    breaks: ['ERROR-JSON-PAYLOADS-CONTROL-PLANE'],
    description: 'PATCH /v2/deployments/{id} refuses a body sent as application/json with 415 Unsupported Media Type',
    request: (req) => (calls(req, 'patchDeployment') ? jsonError(415, 'Unsupported Media Type: application/json') : req),
  },
  'cp-authenticate-422-msg-number': {
    endpoint: 'control-plane',
    // The repository listing's 422s stay whole: only the authenticate endpoint's shows the rule broken (§2.2, §7).
    breaks: ['ERROR-VALIDATION-MSG'],
    description: "the control plane's authenticate endpoint answers a 422 whose ValidationError msg is a number",
    response: (res, req) => (calls(req, 'authenticate') && res.status === 422 ? withItems(res, (item) => ({ ...item, msg: 422 })) : res),
  },
  'cp-authenticate-422-no-type': {
    endpoint: 'control-plane',
    breaks: ['ERROR-VALIDATION-TYPE'],
    description: "the control plane's authenticate endpoint answers a 422 whose ValidationError has no type",
    response: (res, req) => (calls(req, 'authenticate') && res.status === 422 ? withItems(res, ({ type: _, ...item }) => item) : res),
  },
  'cp-refused-create-creates': {
    endpoint: 'control-plane',
    breaks: ['ERROR-REFUSED-UNCHANGED-CONTROL-PLANE'],
    description: "a create naming an integration the workspace does not have is refused (400), but creates the deployment from the caller's last integration",
    request: (req, memory) => {
      const body = object(req.body);
      const known = memory.get(callerOf(req));
      const unknown = typeof body.integration_id === 'string' && UUID.test(body.integration_id) && body.integration_id !== known;
      if (!calls(req, 'createDeployment') || typeof known !== 'string' || !unknown) return req;
      return { ...req, headers: { ...req.headers, [REFUSED]: String(body.integration_id) }, body: { ...body, integration_id: known } };
    },
    response: (res, req, memory) => {
      if (!calls(req, 'createDeployment') || res.status >= 300) return res;
      const refused = req.headers[REFUSED];
      if (refused) return jsonError(400, `Integration ${refused} not found in this workspace.`);
      memory.set(callerOf(req), object(req.body).integration_id);
      return res;
    },
  },
  'repos-422-detail-string': {
    endpoint: 'control-plane',
    // Every check of the listing's 422 body reads detail: the rules asking for a Validation error there fail with it.
    breaks: ['ERROR-VALIDATION-DETAIL', 'ERROR-422-REPOS', 'ERROR-SHAPE-CONTROL-PLANE', 'ERROR-BAD-INPUT-CONTROL-PLANE'],
    description: 'a repository listing 422 answers detail as a string, not a ValidationError array',
    response: (res, req) => (calls(req, 'listRepositories') && res.status === 422 ? jsonError(422, 'integration_id is not a valid UUID') : res),
  },
  'examples-without-dataset-500': {
    endpoint: 'platform-api',
    breaks: ['ERROR-BAD-INPUT-PLATFORM'],
    description: 'GET /api/v1/examples without a dataset crashes the server (500)',
    request: (req) => (calls(req, 'listExamples') && !queryOf(req.path).has('dataset') ? crash : req),
  },
  'platform-patch-answers-text-json': {
    endpoint: 'platform-api',
    // The suites' client reads text/json as JSON: only the rule about the media type sees it.
    breaks: ['ERROR-JSON-PAYLOADS-PLATFORM'],
    description: 'PATCH /runs/{id} answers its JSON labelled text/json, not application/json',
    response: (res, req) => (calls(req, 'updateRun') ? { ...res, headers: { ...res.headers, 'content-type': 'text/json' } } : res),
  },
  'refused-patch-applies-outputs': {
    endpoint: 'platform-api',
    breaks: ['ERROR-REFUSED-UNCHANGED-PLATFORM'],
    description: 'PATCH /runs/{id} with an end_time that is no time is refused (422) after applying its outputs',
    request: (req) => {
      const { end_time: end, ...body } = object(req.body);
      if (!calls(req, 'updateRun') || typeof end !== 'string' || !Number.isNaN(Date.parse(end))) return req;
      return { ...req, headers: { ...req.headers, [REFUSED]: end }, body };
    },
    response: (res, req) => {
      const refused = req.headers[REFUSED];
      return refused ? json(422, { detail: [{ loc: ['body', 'end_time'], msg: `not a datetime: ${refused}`, type: 'datetime_parsing' }] }) : res;
    },
  },
  'run-404-message-body': {
    endpoint: 'platform-api',
    // expectJsonError takes message too: only the rule naming detail or error fails.
    breaks: ['ERROR-SHAPE-PLATFORM'],
    description: 'GET /runs/{id} of an unknown run answers {message}, neither detail nor error',
    response: (res, req) => (calls(req, 'readRun') && res.status === 404 ? json(404, { message: 'Run not found' }) : res),
  },
};
