// Red-team mutations of the control plane and the platform API: breakages an implementer could
// plausibly make that the suites did not catch when they were written, kept as regressions of the
// suite fixes that catch them now.
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { calls, crash, isRecord, json, jsonError, object, param, redirect, UUID, type Json } from './support.ts';

/** The simulator's credentials (fixtures/platform/workspaces.yaml): a key the broken target slips in for the caller. */
const KEYS = {
  primary: 'lsv2_sk_apcsim_alpha_0001',
  second: 'lsv2_sk_apcsim_beta_0001',
  multi: 'lsv2_pt_apcsim_multi_0001',
  org: 'lsv2_sk_apcsim_org_0001',
  eu: 'lsv2_sk_apcsim_eu_0001',
};
const KNOWN_KEYS = new Set(Object.values(KEYS));
/** The integrations of fixtures/platform/integrations.yaml, with the key of the one workspace that holds each. */
const INTEGRATION_OWNER: Record<string, string> = {
  'ff8dd8ac-5c61-4fda-9be9-5033939947d4': KEYS.primary,
  '956a9f85-f488-400f-bea7-a71d0a8c8215': KEYS.second,
};
/** Keys linked to one workspace only. */
const SINGLE_WORKSPACE = new Set([KEYS.primary, KEYS.second]);

/** A Validation error body (§2.2) with one item. */
const validation = (loc: (string | number)[], msg: string): MutableResponse => json(422, { detail: [{ loc, msg, type: 'value_error' }] });

/** Whether the request carries no credential the target knows (no key, or an invalid one, and no bearer token). */
const unauthenticated = (req: MutableRequest) => !req.headers.authorization && !KNOWN_KEYS.has(req.headers['x-api-key'] ?? '');

/** The request with a valid key slipped in: the target skips the credential check. */
const withKey = (req: MutableRequest, key: string): MutableRequest => ({ ...req, headers: { ...req.headers, 'x-api-key': key } });

/** The request without x-tenant-id. */
function withoutTenant(req: MutableRequest): MutableRequest {
  const { 'x-tenant-id': _tenant, ...headers } = req.headers;
  return { ...req, headers };
}

/** Records each deployment's revisions, and its latest, from the answers that name them; the answer goes on unchanged. */
function recordRevisions(res: MutableResponse, req: MutableRequest, memory: Map<string, unknown>): MutableResponse {
  if (!calls(req, 'createDeployment', 'patchDeployment', 'getDeployment') || res.status >= 300) return res;
  const { id, latest_revision_id: latest } = object(res.body);
  if (typeof id !== 'string' || typeof latest !== 'string') return res;
  memory.set(`latest:${id}`, latest);
  memory.set(`owner:${latest}`, id);
  memory.set(`deployment:${id}`, true);
  return res;
}

/** Whether an id is written with uppercase hex digits. */
const hasUppercase = (value: string | undefined) => value !== undefined && /[A-F]/.test(value);

export const RED_TEAM_PLATFORM_MUTATIONS: Record<string, Mutation> = {
  // ------------------------------------------------------------------ control plane
  'rt-deploy-get-stale-latest-revision': {
    endpoint: 'control-plane',
    breaks: ['DEPLOY-PATCH-NEW-REVISION'],
    description: 'GET /v2/deployments/{id} keeps answering the latest_revision_id of creation after a patch started a new revision',
    response: (res, req, memory) => {
      if (calls(req, 'createDeployment') && res.status < 300) memory.set(String(object(res.body).id), object(res.body).latest_revision_id);
      if (calls(req, 'getDeployment') && res.status === 200 && memory.has(param(req, 'deployment_id') ?? '')) {
        return { ...res, body: { ...object(res.body), latest_revision_id: memory.get(param(req, 'deployment_id')!) } };
      }
      return res;
    },
  },
  'rt-revision-get-answers-latest': {
    endpoint: 'control-plane',
    breaks: ['REVISION-GET'],
    description: "GET of any revision of a deployment answers the deployment's latest revision",
    request: (req, memory) => {
      if (!calls(req, 'getRevision')) return req;
      const deployment = param(req, 'deployment_id') ?? '';
      const latest = memory.get(`latest:${deployment}`) as string | undefined;
      const revision = param(req, 'revision_id') ?? '';
      return latest && revision !== latest && memory.get(`owner:${revision}`) === deployment ? redirect(req, 'getRevision', { revision_id: latest }) : req;
    },
    response: recordRevisions,
  },
  'rt-revision-get-any-deployment': {
    endpoint: 'control-plane',
    breaks: ['REVISION-UNKNOWN-404'],
    description: 'a revision is found by its id alone: read under another deployment of the workspace, it answers',
    request: (req, memory) => {
      if (!calls(req, 'getRevision')) return req;
      const owner = memory.get(`owner:${param(req, 'revision_id')}`) as string | undefined;
      return owner && owner !== param(req, 'deployment_id') ? redirect(req, 'getRevision', { deployment_id: owner }) : req;
    },
    response: recordRevisions,
  },
  'rt-revision-of-unknown-deployment-500': {
    endpoint: 'control-plane',
    breaks: ['DEPLOY-UNKNOWN-404'],
    description: 'reading a revision under a deployment id that does not exist crashes the server',
    request: (req, memory) => (calls(req, 'getRevision') && !memory.has(`deployment:${param(req, 'deployment_id')}`) ? crash : req),
    response: recordRevisions,
  },
  'rt-cp-key-checked-on-create-only': {
    endpoint: 'control-plane',
    keyedOnSecrets: true,
    breaks: ['AUTH-CP-MISSING-CREDENTIALS'],
    description: 'the API key is checked on listing and create only: reading, patching a deployment and reading its revisions need none',
    request: (req) =>
      calls(req, 'getDeployment', 'patchDeployment', 'getRevision', 'listRevisions') && unauthenticated(req) ? withKey(req, KEYS.primary) : req,
  },
  'rt-revision-list-ignores-workspace': {
    endpoint: 'control-plane',
    keyedOnSecrets: true,
    // It does not check the caller at all: a caller without credentials lists them too.
    breaks: ['AUTH-CP-WORKSPACE-ISOLATION', 'AUTH-CP-MISSING-CREDENTIALS'],
    description: "listing the revisions of a deployment acts with its creator's credentials: another workspace, or no key, lists them",
    request: (req, memory) => {
      if (!calls(req, 'listRevisions')) return req;
      const creator = memory.get(`creator:${param(req, 'deployment_id')}`) as Record<string, string> | undefined;
      return creator ? { ...req, headers: { ...withoutTenant(req).headers, ...creator } } : req;
    },
    response: (res, req, memory) => {
      if (calls(req, 'createDeployment') && res.status < 300) {
        const auth = Object.fromEntries(Object.entries(req.headers).filter(([name]) => ['x-api-key', 'x-tenant-id', 'authorization'].includes(name)));
        memory.set(`creator:${object(res.body).id}`, auth);
      }
      return res;
    },
  },
  'rt-cp-tenant-only-on-read-and-create': {
    endpoint: 'control-plane',
    breaks: ['AUTH-CP-TENANT-ID'],
    description: "x-tenant-id is honoured by list, get and create only: a patch and the revision reads act in the key's default workspace",
    request: (req) => (calls(req, 'patchDeployment', 'getRevision', 'listRevisions') ? withoutTenant(req) : req),
  },
  'rt-deploy-patch-partial-apply': {
    endpoint: 'control-plane',
    // The general rule DEPLOY-BAD-INPUT's "changes nothing" is a case of.
    breaks: ['DEPLOY-BAD-INPUT', 'ERROR-REFUSED-UNCHANGED-CONTROL-PLANE'],
    description: 'a patch with one invalid field applies its valid fields, then answers 422',
    request: (req) => {
      if (!calls(req, 'patchDeployment') || !isRecord(req.body)) return req;
      const { source_revision_config: revision, ...rest } = req.body;
      const ref = object(revision).repo_ref;
      const invalid = revision !== undefined && (!isRecord(revision) || (ref !== undefined && typeof ref !== 'string'));
      if (!invalid || Object.keys(rest).length === 0) return req;
      return { ...req, body: rest, headers: { ...req.headers, 'x-apc-partial': '1' } };
    },
    response: (res, req) =>
      req.headers['x-apc-partial'] && res.status < 300 ? validation(['body', 'source_revision_config', 'repo_ref'], 'Input should be a valid string') : res,
  },
  'rt-repos-later-branch-null': {
    endpoint: 'control-plane',
    // A repository without a string default_branch is no Repository: the listing's rule fails with the field's.
    breaks: ['REPO-DEFAULT-BRANCH', 'REPO-LIST'],
    description: 'the repositories after the first of a listing answer default_branch null',
    response: (res, req) =>
      calls(req, 'listRepositories') && res.status === 200 && Array.isArray(res.body)
        ? { ...res, body: res.body.map((repo: Json, i: number) => (i === 0 ? repo : { ...repo, default_branch: null })) }
        : res,
  },
  'rt-repos-later-url-number': {
    endpoint: 'control-plane',
    breaks: ['REPO-URL', 'REPO-LIST'],
    description: 'the repositories after the first of a listing answer url as a number (the host id)',
    response: (res, req) =>
      calls(req, 'listRepositories') && res.status === 200 && Array.isArray(res.body)
        ? { ...res, body: res.body.map((repo: Json, i: number) => (i === 0 ? repo : { ...repo, url: repo.id })) }
        : res,
  },
  'rt-repos-of-foreign-integration': {
    endpoint: 'control-plane',
    keyedOnSecrets: true,
    breaks: ['REPO-LIST-UNKNOWN-INTEGRATION'],
    description: "the repository listing does not check the integration's workspace: another workspace's integration lists its repositories",
    request: (req) => {
      if (!calls(req, 'listRepositories')) return req;
      const owner = INTEGRATION_OWNER[(param(req, 'integration_id') ?? '').toLowerCase()];
      const key = req.headers['x-api-key'] ?? '';
      return owner && SINGLE_WORKSPACE.has(key) && owner !== key ? withKey(req, owner) : req;
    },
  },
  'rt-repos-uppercase-integration-422': {
    endpoint: 'control-plane',
    breaks: ['REPO-LIST'],
    description: 'an integration id written in uppercase hex fails the UUID check (a lowercase-only pattern) and answers 422',
    request: (req) =>
      calls(req, 'listRepositories') && hasUppercase(param(req, 'integration_id'))
        ? validation(['path', 'integration_id'], 'Input should be a valid UUID')
        : req,
  },
  'rt-deploy-list-offset-past-end-500': {
    endpoint: 'control-plane',
    breaks: ['DEPLOY-LIST'],
    description: 'listing deployments with an offset past the last one crashes (indexing past the end)',
    response: (res, req) => {
      if (!calls(req, 'listDeployments') || res.status !== 200) return res;
      const offset = Number(new URLSearchParams(req.path.split('?')[1] ?? '').get('offset') ?? 0);
      return offset > 0 && Array.isArray(object(res.body).resources) && (object(res.body).resources as unknown[]).length === 0 ? crash : res;
    },
  },

  // ------------------------------------------------------------------ platform API
  'rt-platform-key-checked-on-create-only': {
    endpoint: 'platform-api',
    keyedOnSecrets: true,
    breaks: ['AUTH-PLATFORM-MISSING-CREDENTIALS'],
    description:
      'the API key is checked on POST /runs, upload and query only: PATCH /runs/{id}, POST /runs/batch and POST /feedback sent without one are taken',
    // Only for callers with no identity at all (no key, no x-user-id, no forwarded client): a key slipped in for the
    // made-up keys of the rate-limit suites would move their requests to another bucket, a breakage of its own.
    request: (req) =>
      calls(req, 'updateRun', 'ingestRunsBatch', 'createFeedback') && !req.headers['x-api-key'] && !req.headers['x-user-id'] && !req.headers['x-forwarded-for']
        ? withKey(req, KEYS.primary)
        : req,
  },
  'rt-platform-keyless-served': {
    endpoint: 'platform-api',
    keyedOnSecrets: true,
    // §5 says how a request authenticates, not what one without a key gets: the service's refusal is a SHOULD, and no MUST
    // fails. ERROR-SHAPE-PLATFORM's sample of error bodies holds a keyless query, answered now.
    breaks: ['AUTH-PLATFORM-MISSING-CREDENTIALS', 'ERROR-SHAPE-PLATFORM'],
    description: "a platform API request without X-Api-Key is served as the primary account's",
    request: (req) =>
      !req.headers['x-api-key'] && !req.headers.authorization && !req.headers['x-user-id'] && !req.headers['x-forwarded-for']
        ? withKey(req, KEYS.primary)
        : req,
  },
  'rt-platform-tenant-ignored-on-updates': {
    endpoint: 'platform-api',
    breaks: ['AUTH-PLATFORM-TENANT-ID'],
    description: "x-tenant-id is ignored by updates (PATCH /runs/{id}, PATCH /runs) and POST /runs/batch: they act in the key's default workspace",
    request: (req) => (calls(req, 'updateRun', 'updateRunInBody', 'ingestRunsBatch') ? withoutTenant(req) : req),
  },
  'rt-upload-times-compared-as-text': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-ROW-TIMES-WITHIN'],
    description: 'rule 4 compares the datetime strings, not the instants: a row written in another offset or precision is judged out of range',
    request: (req) => {
      if (!calls(req, 'uploadExperiment') || !isRecord(req.body)) return req;
      const { experiment_start_time: start, experiment_end_time: end, results } = req.body;
      if (typeof start !== 'string' || typeof end !== 'string' || !Array.isArray(results)) return req;
      const outside = results.some((row) => {
        const { start_time: s, end_time: e } = object(row);
        return typeof s === 'string' && typeof e === 'string' && (s < start || e > end);
      });
      return outside ? jsonError(400, 'every row must lie between experiment_start_time and experiment_end_time') : req;
    },
  },
  'rt-upload-offset-datetimes-refused': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-EXPERIMENT-START-TIME', 'UPLOAD-EXPERIMENT-END-TIME', 'UPLOAD-ROW-START-TIME', 'UPLOAD-ROW-END-TIME', 'UPLOAD-ROW-TIMES-WITHIN'],
    description: 'the upload accepts UTC datetimes ending in Z only: one written with an offset is refused as no datetime',
    request: (req) => {
      if (!calls(req, 'uploadExperiment') || !isRecord(req.body)) return req;
      const times = [req.body.experiment_start_time, req.body.experiment_end_time];
      for (const row of Array.isArray(req.body.results) ? req.body.results : []) times.push(object(row).start_time, object(row).end_time);
      return times.some((t) => typeof t === 'string' && /[+-]\d\d:?\d\d$/.test(t))
        ? validation(['body', 'experiment_start_time'], 'Input should be a valid datetime')
        : req;
    },
  },
  'rt-upload-dataset-id-case-sensitive': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-SAME-DATASET'],
    description: 'dataset_id is matched as text: the same UUID written in uppercase creates another dataset',
    request: (req) => {
      if (!calls(req, 'uploadExperiment') || !isRecord(req.body) || typeof req.body.dataset_id !== 'string' || !hasUppercase(req.body.dataset_id)) return req;
      // Another UUID: the hex digits of the given one, reversed.
      const hex = req.body.dataset_id.toLowerCase().replace(/-/g, '').split('').reverse().join('');
      const other = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
      return { ...req, body: { ...req.body, dataset_id: other } };
    },
  },
  'rt-upload-id-ignored-beside-name': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-DATASET-ID'],
    description: 'an upload naming a new dataset by dataset_id and dataset_name keeps the name and generates another id (a malformed id is still refused)',
    request: (req) => {
      if (!calls(req, 'uploadExperiment') || !isRecord(req.body) || !UUID.test(String(req.body.dataset_id)) || typeof req.body.dataset_name !== 'string')
        return req;
      const { dataset_id: _id, ...body } = req.body;
      return { ...req, body };
    },
  },
  'rt-upload-name-ignored-beside-id': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-DATASET-NAME'],
    description: 'an upload naming a new dataset by dataset_id and dataset_name keeps the id and generates a name',
    request: (req) => {
      if (!calls(req, 'uploadExperiment') || !isRecord(req.body) || typeof req.body.dataset_id !== 'string' || typeof req.body.dataset_name !== 'string')
        return req;
      const { dataset_name: _name, ...body } = req.body;
      return { ...req, body };
    },
  },
  'rt-upload-summary-scores-lose-values': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-SUMMARY-SCORES'],
    description: 'summary_experiment_scores are stored by key only: their score, value and comment are dropped',
    request: (req) => {
      if (!calls(req, 'uploadExperiment') || !isRecord(req.body) || !Array.isArray(req.body.summary_experiment_scores)) return req;
      const scores = req.body.summary_experiment_scores.map((f) =>
        // Only values of the right type are dropped: an invalid one is still refused.
        isRecord(f)
          ? Object.fromEntries(
              Object.entries(f).filter(([k, v]) => !(k === 'score' ? typeof v === 'number' : ['value', 'comment'].includes(k) && typeof v === 'string')),
            )
          : f,
      );
      return { ...req, body: { ...req.body, summary_experiment_scores: scores } };
    },
  },
  'rt-authn-public-oauth-true-refused': {
    endpoint: 'platform-api',
    breaks: ['AUTHN-REQ-USE-AGENT-BUILDER-PUBLIC-OAUTH'],
    description: 'use_agent_builder_public_oauth is taken to be always false (as illustrated): true is refused with 422',
    request: (req) =>
      calls(req, 'authenticate') && object(req.body).use_agent_builder_public_oauth === true
        ? validation(['body', 'use_agent_builder_public_oauth'], 'Input should be False')
        : req,
  },
  'rt-authn-is-default-false-refused': {
    endpoint: 'platform-api',
    breaks: ['AUTHN-REQ-IS-DEFAULT'],
    description: 'is_default is only accepted as true: false is refused with 422',
    request: (req) => (calls(req, 'authenticate') && object(req.body).is_default === false ? validation(['body', 'is_default'], 'Input should be True') : req),
  },
  'rt-authn-flow-keyed-without-provider': {
    endpoint: 'platform-api',
    breaks: ['AUTHN-FLOW-COMPLETES'],
    description: "flows are kept by user alone: a user's token for one provider is answered for any other provider",
    request: (req) =>
      calls(req, 'authenticate') && isRecord(req.body) && typeof req.body.provider === 'string'
        ? { ...req, body: { ...req.body, provider: 'apc-provider' } }
        : req,
  },
  'rt-read-run-uppercase-id-404': {
    endpoint: 'platform-api',
    breaks: ['TRACE-READ-RUN'],
    description: 'GET /runs/{id} matches the id as text: the same UUID in uppercase is not found',
    request: (req) => (calls(req, 'readRun') && hasUppercase(param(req, 'run_id')) ? jsonError(404, 'Run not found') : req),
  },
  'rt-batch-patch-ignores-end-time': {
    endpoint: 'platform-api',
    breaks: ['TRACE-BATCH'],
    description: "POST /runs/batch applies a patch's outputs but drops its end_time",
    request: (req) => {
      if (!calls(req, 'ingestRunsBatch') || !isRecord(req.body) || !Array.isArray(req.body.patch)) return req;
      return { ...req, body: { ...req.body, patch: req.body.patch.map((p) => (isRecord(p) ? { ...p, end_time: undefined } : p)) } };
    },
  },
  'rt-patch-run-ignores-error': {
    endpoint: 'platform-api',
    breaks: ['TRACE-UPDATE'],
    description: 'PATCH /runs/{id} applies outputs and end_time but drops error',
    request: (req) => {
      if (!calls(req, 'updateRun') || !isRecord(req.body) || req.body.error === undefined) return req;
      const { error: _error, ...body } = req.body;
      return { ...req, body };
    },
  },
  'rt-eu-accepts-us-key-for-writes': {
    endpoint: 'platform-api-eu',
    keyedOnSecrets: true,
    breaks: ['REGION-HOME-KEY-ONLY'],
    description: "the EU region refuses the US account's key on queries, but takes writes with it (into the EU account)",
    request: (req) =>
      calls(req, 'createRun', 'updateRun', 'ingestRunsBatch', 'uploadExperiment') && req.headers['x-api-key'] === KEYS.primary ? withKey(req, KEYS.eu) : req,
  },
};
