// The platform API broken: tracing, experiment upload, authenticate, regions and rate limits.
import type { MutableRequest, Mutation } from '../broken-target.ts';
import { calls, crash, isRecord, json, jsonError, object, param, type Json } from './support.ts';

/** Notes the runs posted to POST /runs without a dotted_order: the service computes their lineage. */
function rememberServiceOrdered(req: MutableRequest, memory: Map<string, unknown>): MutableRequest {
  const { id, dotted_order: dotted } = object(req.body);
  if (calls(req, 'createRun') && typeof id === 'string' && dotted === undefined) memory.set(id.toLowerCase(), true);
  return req;
}

const TOKENS_AND_COST = ['total_tokens', 'prompt_tokens', 'completion_tokens', 'total_cost', 'prompt_cost', 'completion_cost'];

/** Rewrites the experiments (sessions) the platform API answers: the upload's, and those read by id or listed. */
function experiments(change: (experiment: Json) => Json): NonNullable<Mutation['response']> {
  return (res, req) => {
    if (res.status !== 200) return res;
    if (calls(req, 'uploadExperiment')) return { ...res, body: { ...object(res.body), experiment: change(object(object(res.body).experiment)) } };
    if (!calls(req, 'listSessions', 'readSession')) return res;
    return { ...res, body: Array.isArray(res.body) ? res.body.map((e) => change(object(e))) : change(object(res.body)) };
  };
}

export const PLATFORM_API_MUTATIONS: Record<string, Mutation> = {
  'upload-not-externally-managed': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-DATASET-EXTERNALLY-MANAGED'],
    description: 'an uploaded dataset reads externally_managed false',
    response: (res, req) =>
      calls(req, 'uploadExperiment') && res.status === 200
        ? { ...res, body: { ...object(res.body), dataset: { ...object(object(res.body).dataset), externally_managed: false } } }
        : res,
  },
  'upload-rows-clamped': {
    endpoint: 'platform-api',
    // Rule 4's refusal is also the example of a refusal in the documented 4xx shape.
    breaks: ['UPLOAD-ROW-TIMES-WITHIN', 'UPLOAD-VIOLATION-4XX'],
    description: 'rows outside the experiment window are accepted (clamped into it)',
    request: (req) => {
      const body = object(req.body);
      if (!calls(req, 'uploadExperiment') || !Array.isArray(body.results)) return req;
      const start = String(body.experiment_start_time);
      const end = String(body.experiment_end_time);
      const clamp = (t: unknown) => (Number.isNaN(Date.parse(String(t))) ? t : String(t) < start ? start : String(t) > end ? end : t);
      return {
        ...req,
        body: { ...body, results: body.results.map((r) => ({ ...object(r), start_time: clamp(object(r).start_time), end_time: clamp(object(r).end_time) })) },
      };
    },
  },
  'no-retry-after': {
    endpoint: 'platform-api',
    rateLimits: true,
    breaks: ['RATE-RETRY-AFTER'],
    description: 'a 429 comes without Retry-After',
    response: (res) =>
      res.status === 429 ? { ...res, headers: Object.fromEntries(Object.entries(res.headers).filter(([name]) => name !== 'retry-after')) } : res,
  },
  'trace-id-of-parent': {
    endpoint: 'platform-api',
    breaks: ['TRACE-TRACE-ID'],
    description: "a run posted to POST /runs reads back with its parent's id as trace_id, not its root's",
    // Only runs whose lineage the service computed: batch-ingested runs keep the caller's trace_id.
    request: rememberServiceOrdered,
    response: (res, req, memory) => {
      const run = object(res.body);
      return calls(req, 'readRun') && memory.has(String(run.id)) && typeof run.parent_run_id === 'string'
        ? { ...res, body: { ...run, trace_id: run.parent_run_id } }
        : res;
    },
  },
  'dotted-order-child-first': {
    endpoint: 'platform-api',
    // Child first, each segment is in the wrong place, no child extends its parent's order, and the generated order is wrong.
    breaks: ['TRACE-DOTTED-ORDER-SEGMENT', 'TRACE-DOTTED-ORDER-CHAIN', 'TRACE-CREATE-GENERATES-ORDER'],
    description: 'the service computes dotted_order child first for runs posted to POST /runs',
    request: rememberServiceOrdered,
    response: (res, req, memory) => {
      const run = object(res.body);
      return calls(req, 'readRun') && memory.has(String(run.id)) && typeof run.dotted_order === 'string'
        ? { ...res, body: { ...run, dotted_order: run.dotted_order.split('.').reverse().join('.') } }
        : res;
    },
  },
  'patch-replaces-extra': {
    endpoint: 'platform-api',
    breaks: ['TRACE-THREAD-ID'],
    description: 'PATCH /runs/{id} replaces extra instead of merging it, so the thread_id in its metadata is lost',
    response: (res, req, memory) => {
      const id = calls(req, 'updateRun', 'readRun') ? param(req, 'run_id')?.toLowerCase() : undefined;
      const extra = object(req.body).extra;
      if (id && req.method === 'PATCH' && res.status < 300 && typeof extra === 'object' && extra !== null) memory.set(id, extra);
      if (!id || req.method !== 'GET' || res.status !== 200 || !memory.has(id)) return res;
      const replaced = object(memory.get(id));
      const thread = object(replaced.metadata).thread_id;
      return { ...res, body: { ...object(res.body), extra: replaced, thread_id: typeof thread === 'string' ? thread : null } };
    },
  },
  'duplicate-run-accepted': {
    endpoint: 'platform-api',
    breaks: ['TRACE-DUPLICATE-409'],
    description: 'a run posted again with an existing id answers 202 (and is dropped)',
    response: (res, req) => (calls(req, 'createRun') && res.status === 409 ? { ...res, status: 202, body: { message: 'Run created' } } : res),
  },
  'info-needs-key': {
    endpoint: 'platform-api',
    breaks: ['TRACE-INFO'],
    description: 'GET /info without X-Api-Key answers 401',
    request: (req) => (calls(req, 'getInfo') && !req.headers['x-api-key'] ? jsonError(401, 'Missing API key') : req),
  },
  'force-new-ignored': {
    endpoint: 'platform-api',
    breaks: ['AUTHN-FORCE-NEW'],
    description: 'authenticate ignores force_new and answers the existing token',
    request: (req) => {
      const { force_new: forceNew, ...body } = object(req.body);
      return calls(req, 'authenticate') && forceNew === true ? { ...req, body } : req;
    },
  },
  'authn-missing-field-400': {
    endpoint: 'platform-api',
    // Only a missing field: a field of the wrong type still answers 422 (ERROR-422-AUTHN holds).
    breaks: ['AUTHN-REQUIRED-PROVIDER-SCOPES'],
    description: 'authenticate without provider or scopes answers 400 with a string detail',
    request: (req) => {
      const body = req.body;
      const missing = isRecord(body) && (!('provider' in body) || !('scopes' in body));
      return calls(req, 'authenticate') && missing ? jsonError(400, 'provider and scopes are required') : req;
    },
  },
  'tenant-id-ignored': {
    endpoint: 'platform-api',
    breaks: ['AUTH-PLATFORM-TENANT-ID'],
    description: 'x-tenant-id is ignored: a key always acts in its default workspace',
    request: (req) => ({ ...req, headers: Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'x-tenant-id')) }),
  },
  'eu-runs-queued-in-us': {
    endpoint: 'platform-api-eu',
    // The front reaches the EU region only, so the US half (the runs arriving there) is not simulated; the EU half fails the rule.
    breaks: ['REGION-DATA-RESIDENCY'],
    description: 'the EU address acknowledges posted runs (202) but queues them for the US region: none lands in the EU',
    request: (req) => (calls(req, 'createRun') ? json(202, { message: 'Run created' }) : req),
  },
  'upload-feedback-stats-never-filled': {
    endpoint: 'platform-api',
    // Latency is still filled in, so the suites' wait for persisted runs ends as usual.
    breaks: ['UPLOAD-STATS-FILLED-LATER'],
    description: "an uploaded experiment's feedback statistics stay null once its runs are persisted (the aggregation never runs)",
    response: experiments((e) => ({ ...e, feedback_stats: null, session_feedback_stats: null })),
  },
  'authn-no-auth-id': {
    endpoint: 'platform-api',
    // The flow rules read the auth_id of a started flow too.
    breaks: ['AUTHN-RESULT-AUTH-ID', 'AUTHN-TOKEN-OR-URL', 'AUTHN-FLOW-COMPLETES', 'AUTHN-FORCE-NEW'],
    description: 'a 200 authenticate answer carries no auth_id',
    response: (res, req) => {
      if (!calls(req, 'authenticate') || res.status !== 200) return res;
      const { auth_id: _dropped, ...body } = object(res.body);
      return { ...res, body };
    },
  },
  'authn-token-withheld': {
    endpoint: 'platform-api',
    // AUTHN-RESULT-TOKEN cannot be judged without a token: skipped, not passed.
    breaks: ['AUTHN-FLOW-COMPLETES'],
    description: 'authenticate never answers the token, not even once the flow is completed (token null)',
    response: (res, req) => (calls(req, 'authenticate') && res.status === 200 ? { ...res, body: { ...object(res.body), token: null } } : res),
  },
  'authn-422-empty-detail': {
    endpoint: 'platform-api',
    // §2.2 makes detail optional: an empty list of ValidationErrors breaks no rule.
    breaks: [],
    description: 'an authenticate 422 answers {detail: []}, naming no ValidationError',
    response: (res, req) => (calls(req, 'authenticate') && res.status === 422 ? { ...res, body: { detail: [] } } : res),
  },
  'run-lookup-400': {
    endpoint: 'platform-api',
    // The status for unknown ids is not shown (§7): only the rule that asks for 404 fails.
    breaks: ['TRACE-READ-UNKNOWN-404'],
    description: 'GET /runs/{id} answers 400 for a run it cannot show, whether it is in another workspace or nowhere',
    response: (res, req) => (calls(req, 'readRun') && res.status === 404 ? jsonError(400, 'No such run in this workspace') : res),
  },
  'end-time-reads-start-time': {
    endpoint: 'platform-api',
    // The layout rule reads the end time a patch part set.
    breaks: ['TRACE-UPDATE', 'TRACE-TIME-FORMATS', 'TRACE-MULTIPART-LAYOUT'],
    description: "a run's end_time reads back as its start_time",
    response: (res, req) => {
      const run = object(res.body);
      const ended = run.end_time !== null && run.end_time !== undefined;
      return calls(req, 'readRun') && res.status === 200 && ended ? { ...res, body: { ...run, end_time: run.start_time } } : res;
    },
  },
  'attachment-url-unreachable': {
    endpoint: 'platform-api',
    breaks: ['TRACE-MULTIPART-LAYOUT'],
    description: "a run's attachments name a download URL that answers nothing",
    response: (res, req) => {
      const run = object(res.body);
      if (!calls(req, 'readRun') || res.status !== 200 || !run.attachments) return res;
      const unreachable = (name: string, a: unknown) => ({ ...object(a), presigned_url: `http://127.0.0.1:9/apc-attachments/${name}` });
      const attachments = Object.fromEntries(Object.entries(object(run.attachments)).map(([name, a]) => [name, unreachable(name, a)]));
      return { ...res, body: { ...run, attachments } };
    },
  },
  'patch-events-dropped': {
    endpoint: 'platform-api',
    breaks: ['TRACE-MULTIPART-LAYOUT'],
    description: "the events a patch part carries are dropped: a run's events read back empty",
    response: (res, req) =>
      calls(req, 'readRun') && res.status === 200 && Array.isArray(object(res.body).events) ? { ...res, body: { ...object(res.body), events: [] } } : res,
  },
  'same-request-patch-lost': {
    endpoint: 'platform-api',
    // The multipart body passes the front untouched: the runs of the capture that posts and patches in one request are known by their start.
    breaks: ['TRACE-MULTIPART-LAYOUT'],
    description: 'a run posted and patched in one multipart request reads back with outputs null',
    response: (res, req) => {
      const run = object(res.body);
      const captured = String(run.start_time).startsWith('2026-11-22T05:01:53');
      return calls(req, 'readRun') && res.status === 200 && captured ? { ...res, body: { ...run, outputs: null } } : res;
    },
  },
  'dataset-read-500': {
    endpoint: 'platform-api',
    // The read's own rule fails, and bad input's (never a 5xx). The rules that read a dataset back as evidence
    // (UPLOAD-DATASET-EXTERNALLY-MANAGED, the isolation property) are not judged, explained by UPLOAD-READ-DATASETS.
    breaks: ['ERROR-BAD-INPUT-PLATFORM', 'UPLOAD-READ-DATASETS'],
    description: 'GET /api/v1/datasets/{id} answers 500',
    response: (res, req) => (calls(req, 'readDataset') ? crash : res),
  },
  'platform-reads-not-found': {
    endpoint: 'platform-api',
    breaks: ['TRACE-READ-RUN', 'UPLOAD-READ-DATASETS', 'UPLOAD-READ-EXPERIMENTS', 'VERSION-PLATFORM-API-V1-ALIAS'],
    // What a refused write left, another region's or workspace's data, an unknown run: an absence is shown by a read
    // that answers what exists, and these answer nothing.
    notJudged: [
      'TRACE-READ-UNKNOWN-404',
      'TRACE-MULTIPART-CONSISTENT',
      'TRACE-BAD-INPUT',
      'AUTH-PLATFORM-MISSING-CREDENTIALS',
      'AUTH-PLATFORM-WORKSPACE-ISOLATION',
      'REGION-DATA-RESIDENCY',
    ],
    description: 'GET /runs/{id}, /api/v1/datasets/{id} and /api/v1/sessions/{id} answer 404 for every id, also what exists',
    request: (req) => (calls(req, 'readRun', 'readDataset', 'readSession') ? jsonError(404, 'Not Found') : req),
  },
  'platform-lists-empty': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-READ-DATASETS', 'UPLOAD-READ-EXPERIMENTS'],
    // "Refused and creates nothing": an empty list shows it only where it lists what exists.
    notJudged: [
      'UPLOAD-DATASET-ID-OR-NAME',
      'UPLOAD-EXTERNAL-IDENTIFIER',
      'UPLOAD-EXTERNALLY-MANAGED-ONLY',
      'UPLOAD-VIOLATION-4XX',
      'ERROR-REFUSED-UNCHANGED-PLATFORM',
    ],
    description: 'GET /api/v1/datasets and /api/v1/sessions answer an empty list for every query, also one naming what exists',
    request: (req) => (calls(req, 'listDatasets', 'listSessions') ? json(200, []) : req),
  },
  'feedback-list-empty-for-posted-runs': {
    endpoint: 'platform-api',
    breaks: ['TRACE-READ-FEEDBACK'],
    // "Stores nothing": an empty feedback list shows it only where it lists the feedback that exists.
    notJudged: ['ERROR-REFUSED-UNCHANGED-PLATFORM'],
    description: 'GET /feedback?run= of a run posted with POST /runs answers an empty list, also when feedback was posted on it',
    request: (req, memory) => {
      const { id } = object(req.body);
      if (calls(req, 'createRun') && typeof id === 'string') memory.set(`posted:${id.toLowerCase()}`, true);
      const run = new URLSearchParams(req.path.split('?')[1] ?? '').get('run');
      return calls(req, 'listFeedback') && run !== null && memory.has(`posted:${run.toLowerCase()}`) ? json(200, []) : req;
    },
  },
  'upload-tokens-cost-zero': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-TOKENS-COST-NULL'],
    description: "an uploaded experiment's token and cost fields read 0, a sum over no data, instead of null",
    response: experiments((e) => ({ ...e, ...Object.fromEntries(TOKENS_AND_COST.map((field) => [field, e[field] ?? 0])) })),
  },
};
