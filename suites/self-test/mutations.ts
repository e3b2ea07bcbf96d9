// Deliberately broken behaviours, one rule at a time. Each names the rules it breaks:
// the self-test runs the suites against it and expects exactly those to fail.
import { hostMatches } from '../../simulator/agent-server/webhook-policy.ts';
import { EMBEDDED_RECEIVER_URL, EMBEDDED_URL_POLICY } from '../target.ts';
import type { MutableRequest, MutableResponse, Mutation } from './broken-target.ts';

type Json = Record<string, unknown>;

const UUID = '[0-9a-f-]{36}';
const is = (req: MutableRequest, method: string, path: RegExp) => req.method === method && path.test(req.path.split('?')[0]);
const object = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const jsonError = (status: number, detail: string): MutableResponse => ({ status, headers: { 'content-type': 'application/json' }, body: { detail } });

const THREAD_READS = [new RegExp(`^/threads$`), new RegExp(`^/threads/${UUID}$`)];
const isThreadCreateOrGet = (req: MutableRequest) =>
  is(req, 'POST', THREAD_READS[0]) || is(req, 'GET', THREAD_READS[1]);

/** Rewrites a field of a thread answered by create or get. */
function threadField(breaks: string, description: string, change: (thread: Json) => Json): Mutation {
  return {
    breaks: [breaks],
    description,
    response: (res, req) => (isThreadCreateOrGet(req) && res.status < 300 ? { ...res, body: change(object(res.body)) } : res),
  };
}

/** Drops a valid field from the search request, so the target ignores it (invalid values are still refused). */
function searchIgnores(breaks: string[], field: string, valid: (value: unknown) => boolean, keep?: (value: unknown) => unknown): Mutation {
  return {
    breaks,
    description: `thread search ignores ${field}`,
    request: (req) => {
      if (!is(req, 'POST', /^\/threads\/search$/)) return req;
      const body = { ...object(req.body) };
      if (!(field in body) || !valid(body[field])) return req;
      if (keep) body[field] = keep(body[field]);
      else delete body[field];
      return { ...req, body };
    },
  };
}

const oneOf = (...values: unknown[]) => (value: unknown) => values.includes(value);
const integerFrom = (min: number) => (value: unknown) => Number.isInteger(value) && (value as number) >= min;

/** A webhook payload changed on its way to the receiver. */
const payload = (change: (payload: Json) => Json) => (req: MutableRequest): MutableRequest => ({ ...req, body: change(object(req.body)) });
const withoutHeader = (name: string) => (req: MutableRequest): MutableRequest => ({ ...req, headers: Object.fromEntries(Object.entries(req.headers).filter(([h]) => h !== name)) });
/** Whether the broken target's URL policy (the embedded simulator's) allows this host. */
const allowedHost = (host: string) => EMBEDDED_URL_POLICY.allowed_domains.some((pattern) => hostMatches(host, pattern));
const CRON_CREATE = new RegExp(`^/(threads/${UUID}/)?runs/crons$`);

/** Drops a webhook the policy allows from POSTs to `path`: accepted, never used (a bad one is still refused). */
function dropsAllowedWebhook(path: RegExp): (req: MutableRequest) => MutableRequest {
  return (req) => {
    const { webhook, ...body } = object(req.body);
    if (!is(req, 'POST', path) || typeof webhook !== 'string' || !URL.canParse(webhook) || !allowedHost(new URL(webhook).hostname)) return req;
    return { ...req, body };
  };
}

/** Webhook deliveries broken between the server and the receiver. */
const WEBHOOK_MUTATIONS: Record<string, Mutation> = {
  'webhook-text-plain': {
    breaks: ['WEBHOOK-CONTENT-TYPE'],
    description: 'notifications are sent as text/plain',
    delivery: (req) => ({ ...req, headers: { ...req.headers, 'content-type': 'text/plain' } }),
  },
  'webhook-error-string': {
    breaks: ['WEBHOOK-PAYLOAD-ERROR'],
    description: "a failed run's error is a string, as the JS reference server sends it",
    delivery: payload((p) => (p.error ? { ...p, error: `${object(p.error).error}: ${object(p.error).message}` } : p)),
  },
  'webhook-values-on-stateless': {
    breaks: ['WEBHOOK-PAYLOAD-VALUES-STATELESS'],
    description: 'a stateless run notifies with values too',
    delivery: payload((p) => ('values' in p ? p : { ...p, values: {} })),
  },
  'webhook-assistant-as-given': {
    breaks: ['WEBHOOK-PAYLOAD-RUN-RECORD'],
    description: 'the payload names the assistant as the caller gave it (the graph id), not as the run holds it',
    delivery: payload((p) => ({ ...p, assistant_id: 'agent' })),
  },
  'webhook-no-ended-at': {
    breaks: ['WEBHOOK-PAYLOAD-RUN-ENDED-AT'],
    description: 'a finished run notifies without run_ended_at',
    delivery: payload(({ run_ended_at: _ended, ...p }) => p),
  },
  'webhook-query-dropped': {
    // The trigger test sends to a URL with a query and checks it arrives whole.
    breaks: ['AUTH-WEBHOOK-SECRET-QUERY', 'WEBHOOK-TRIGGER'],
    description: "the webhook URL's query string is dropped from the delivery",
    delivery: (req) => ({ ...req, path: req.path.split('?')[0] }),
  },
  'webhook-static-header-dropped': {
    // The version rule checks the same header as the feature it dates.
    breaks: ['WEBHOOK-CONFIG-HEADERS', 'VERSION-WEBHOOK-HEADERS-0-5-36'],
    description: 'the static header of webhooks.headers is not sent',
    delivery: withoutHeader('x-apc-conformance'),
  },
  'webhook-env-header-unresolved': {
    // A reference under the prefix that is not substituted breaks the prefix rule as well.
    breaks: ['WEBHOOK-CONFIG-HEADERS-ENV', 'WEBHOOK-CONFIG-ENV-PREFIX'],
    description: 'a ${{ env.VAR }} header value is sent unsubstituted',
    // Header names arrive lower-cased (node:http).
    delivery: (req) => ({ ...req, headers: { ...req.headers, 'x-apc-from-env': '${{ env.LG_WEBHOOK_APC_CONFORMANCE }}' } }),
  },
  'webhook-no-retry': {
    breaks: ['WEBHOOK-RETRY'],
    description: 'a receiver answering 5xx or 429 is not tried again',
    deliveryAnswer: (res) => (res.status >= 500 || res.status === 429 ? { status: 200, headers: {}, body: undefined } : res),
  },
  'webhook-domains-unchecked': {
    // A URL outside the allowlist is the violation the 422 rule is checked with.
    breaks: ['WEBHOOK-CONFIG-ALLOWED-DOMAINS', 'WEBHOOK-CONFIG-VIOLATION-422'],
    description: 'webhooks.url.allowed_domains is not enforced at run creation',
    // The run is created with an allowed URL instead, so the server accepts what it should refuse.
    request: (req) => {
      const body = object(req.body);
      if (req.method !== 'POST' || typeof body.webhook !== 'string' || !/^https?:/.test(body.webhook)) return req;
      const url = new URL(body.webhook);
      if (allowedHost(url.hostname)) return req;
      url.hostname = new URL(EMBEDDED_RECEIVER_URL).hostname;
      return { ...req, body: { ...body, webhook: url.toString() } };
    },
  },
};

/** Crons broken at the agent server. */
const CRON_MUTATIONS: Record<string, Mutation> = {
  'cron-delete-noop': {
    breaks: ['CRON-DELETE'],
    description: 'deleting a cron answers 204 and keeps it',
    request: (req) => (is(req, 'DELETE', new RegExp(`^/runs/crons/${UUID}$`)) ? { status: 204, headers: {}, body: undefined } : req),
  },
  'cron-search-ignores-offset': {
    breaks: ['CRON-SEARCH'],
    description: 'cron search ignores offset',
    request: (req) => (is(req, 'POST', /^\/runs\/crons\/search$/) && integerFrom(1)(object(req.body).offset) ? { ...req, body: { ...object(req.body), offset: 0 } } : req),
  },
  'cron-drops-webhook': {
    // The stateless cron's runs are seen through its notifications.
    breaks: ['WEBHOOK-EMIT-CRON', 'WEBHOOK-EMIT-THREAD-CRON', 'CRON-RUNS-ON-SCHEDULE'],
    description: "a cron's webhook is accepted and never used",
    request: dropsAllowedWebhook(CRON_CREATE),
  },
  'cron-next-run-now': {
    breaks: ['CRON-CREATE-SCHEDULE'],
    description: "a created cron's next_run_date is its creation time",
    response: (res, req) => (is(req, 'POST', CRON_CREATE) && res.status < 300 ? { ...res, body: { ...object(res.body), next_run_date: object(res.body).created_at } } : res),
  },
  'stateless-wait-drops-webhook': {
    breaks: ['WEBHOOK-EMIT-STATELESS-WAIT'],
    description: 'POST /runs/wait ignores webhook',
    request: dropsAllowedWebhook(/^\/runs\/wait$/),
  },
};

export const MUTATIONS: Record<string, Mutation> = {
  'create-refuses-empty-body': {
    breaks: ['THREAD-CREATE-EMPTY'],
    description: 'POST /threads refuses an empty object',
    request: (req) => (is(req, 'POST', /^\/threads$/) && Object.keys(object(req.body)).length === 0 ? jsonError(422, 'metadata is required') : req),
  },
  'created-thread-busy': {
    breaks: ['THREAD-CREATE-IDLE'],
    description: 'a created thread reads busy',
    response: (res, req) => (is(req, 'POST', /^\/threads$/) && res.status < 300 ? { ...res, body: { ...object(res.body), status: 'busy' } } : res),
  },
  'metadata-loses-nested': threadField('THREAD-CREATE-METADATA', 'object-valued metadata keys are dropped', (t) => ({
    ...t,
    metadata: Object.fromEntries(Object.entries(object(t.metadata)).filter(([, v]) => typeof v !== 'object' || v === null)),
  })),
  'graph-id-renamed': threadField('THREAD-CREATE-GRAPH-ID', 'metadata.graph_id comes back as metadata.graph', (t) => {
    const { graph_id: graphId, ...rest } = object(t.metadata);
    return { ...t, metadata: graphId === undefined ? rest : { ...rest, graph: graphId } };
  }),
  'thread-without-config': threadField('THREAD-SHAPE', 'threads come without config', ({ config: _config, ...t }) => t),
  'empty-values-null': threadField('THREAD-VALUES-EMPTY', "an empty thread's values are null", (t) =>
    Object.keys(object(t.values)).length === 0 ? { ...t, values: null } : t,
  ),
  'get-wrong-created-at': {
    breaks: ['THREAD-GET'],
    description: 'GET /threads/{id} answers another created_at',
    response: (res, req) => (is(req, 'GET', new RegExp(`^/threads/${UUID}$`)) && res.status === 200 ? { ...res, body: { ...object(res.body), created_at: '2000-01-01T00:00:00.000Z' } } : res),
  },
  'unknown-thread-400': {
    breaks: ['THREAD-GET-UNKNOWN-404'],
    description: 'an unknown thread answers 400',
    response: (res, req) => (is(req, 'GET', new RegExp(`^/threads/${UUID}$`)) && res.status === 404 ? { ...res, status: 400 } : res),
  },
  'malformed-id-500': {
    // ERROR-BAD-INPUT-AGENT is the general rule THREAD-ID-MALFORMED is a case of.
    breaks: ['THREAD-ID-MALFORMED', 'ERROR-BAD-INPUT-AGENT'],
    description: 'a malformed thread id crashes the server',
    request: (req) => (is(req, 'GET', /^\/threads\/[^/]+$/) && !new RegExp(`^/threads/${UUID}$`).test(req.path) && req.path !== '/threads/search' ? { status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' } : req),
  },
  'copy-answers-original': {
    breaks: ['THREAD-COPY-NEW', 'THREAD-COPY-INDEPENDENT'],
    description: 'copy answers the original thread instead of a new one',
    request: (req) => {
      const m = new RegExp(`^/threads/(${UUID})/copy$`).exec(req.path);
      return m && req.method === 'POST' ? { ...req, method: 'GET', path: `/threads/${m[1]}`, body: undefined } : req;
    },
  },
  'copy-loses-state': {
    breaks: ['THREAD-COPY-STATE'],
    description: "a copy's state reads empty",
    response: (res, req, memory) => {
      if (is(req, 'POST', new RegExp(`^/threads/${UUID}/copy$`)) && res.status < 300) memory.set(String(object(res.body).thread_id), true);
      const m = new RegExp(`^/threads/(${UUID})/state$`).exec(req.path);
      return m && memory.has(m[1]) && res.status === 200 ? { ...res, body: { ...object(res.body), values: {} } } : res;
    },
  },
  'copy-unknown-500': {
    breaks: ['THREAD-COPY-UNKNOWN'],
    description: 'copying an unknown thread crashes',
    response: (res, req) => (is(req, 'POST', new RegExp(`^/threads/${UUID}/copy$`)) && res.status === 404 ? jsonError(500, 'boom') : res),
  },
  'search-wrapped': {
    breaks: ['THREAD-SEARCH-ARRAY'],
    description: 'search answers {threads: [...]} instead of an array',
    response: (res, req) => (is(req, 'POST', /^\/threads\/search$/) && res.status === 200 ? { ...res, body: { threads: res.body } } : res),
  },
  'search-ignores-status': searchIgnores(['THREAD-SEARCH-STATUS'], 'status', oneOf('idle', 'busy', 'interrupted', 'error')),
  'search-ignores-metadata': searchIgnores(['THREAD-SEARCH-METADATA'], 'metadata', (m) => typeof m === 'object' && m !== null, (m) => {
    // Keeps the test's scope, so only the other keys are ignored.
    const scope = object(m).apc_scope;
    return scope === undefined ? {} : { apc_scope: scope };
  }),
  'search-ignores-limit': searchIgnores(['THREAD-SEARCH-LIMIT'], 'limit', integerFrom(1)),
  'search-ignores-offset': searchIgnores(['THREAD-SEARCH-OFFSET'], 'offset', integerFrom(0)),
  'search-ignores-sort-by': searchIgnores(['THREAD-SEARCH-SORT'], 'sort_by', oneOf('thread_id', 'status', 'created_at', 'updated_at')),
  'search-ignores-sort-order': searchIgnores(['THREAD-SEARCH-SORT-ORDER'], 'sort_order', oneOf('asc', 'desc')),
  'search-accepts-bogus': {
    breaks: ['THREAD-SEARCH-INVALID', 'ERROR-BAD-INPUT-AGENT'],
    description: 'search answers 200 [] to invalid input',
    response: (res, req) => (is(req, 'POST', /^\/threads\/search$/) && res.status === 422 ? { status: 200, headers: { 'content-type': 'application/json' }, body: [] } : res),
  },
  'state-stale': {
    breaks: ['THREAD-STATE'],
    description: 'GET state answers the first checkpoint instead of the current one',
    response: (res, req) => {
      if (!is(req, 'GET', new RegExp(`^/threads/${UUID}/state$`)) || res.status !== 200) return res;
      return { ...res, body: { ...object(res.body), values: {} } };
    },
  },
  'state-without-next': {
    breaks: ['THREAD-STATE-SHAPE'],
    description: 'state snapshots come without next',
    response: (res, req) => (is(req, 'GET', new RegExp(`^/threads/${UUID}/state$`)) && res.status === 200 ? { ...res, body: (({ next: _next, ...rest }) => rest)(object(res.body)) } : res),
  },
  'checkpoint-ignored': {
    breaks: ['THREAD-STATE-CHECKPOINT'],
    description: 'state at a checkpoint answers the current state',
    request: (req) => {
      const m = new RegExp(`^/threads/(${UUID})/state/([^/]+)$`).exec(req.path);
      return m && m[2] !== '00000000-0000-4000-8000-000000000000' ? { ...req, path: `/threads/${m[1]}/state` } : req;
    },
  },
  'unknown-checkpoint-200': {
    breaks: ['THREAD-STATE-CHECKPOINT-UNKNOWN'],
    description: 'an unknown checkpoint answers 200 with empty state (as the JS server does)',
    response: (res, req) => (is(req, 'GET', new RegExp(`^/threads/${UUID}/state/[^/]+$`)) && res.status === 404 ? { status: 200, headers: { 'content-type': 'application/json' }, body: { values: {}, next: [] } } : res),
  },
  'history-object': {
    breaks: ['THREAD-HISTORY'],
    description: 'history answers only its newest snapshot, not an array',
    response: (res, req) => (is(req, 'POST', new RegExp(`^/threads/${UUID}/history$`)) && Array.isArray(res.body) ? { ...res, body: res.body[0] ?? {} } : res),
  },
  'history-oldest-first': {
    breaks: ['THREAD-HISTORY-ORDER'],
    description: 'history is oldest first',
    response: (res, req) => (is(req, 'POST', new RegExp(`^/threads/${UUID}/history$`)) && Array.isArray(res.body) ? { ...res, body: [...res.body].reverse() } : res),
  },
  'history-ignores-limit': {
    breaks: ['THREAD-HISTORY-LIMIT'],
    description: 'history ignores limit',
    request: (req) =>
      is(req, 'POST', new RegExp(`^/threads/${UUID}/history$`)) && integerFrom(1)(object(req.body).limit) ? { ...req, body: { ...object(req.body), limit: 1000 } } : req,
  },
  'unknown-thread-state-empty': {
    breaks: ['THREAD-UNKNOWN-404'],
    description: 'state of an unknown thread answers 200 with empty state',
    response: (res, req) => (is(req, 'GET', new RegExp(`^/threads/${UUID}/state$`)) && res.status === 404 ? { status: 200, headers: { 'content-type': 'application/json' }, body: { values: {} } } : res),
  },
  'bad-json-500': {
    breaks: ['THREAD-BAD-INPUT', 'ERROR-BAD-INPUT-AGENT'],
    description: 'malformed JSON crashes thread creation',
    request: (req) => (is(req, 'POST', /^\/threads$/) && typeof req.body === 'string' ? { status: 500, headers: {}, body: '' } : req),
  },
  'supersteps-merged': {
    breaks: ['THREAD-SUPERSTEPS-HISTORY'],
    description: 'all supersteps are applied as one checkpoint',
    request: (req) => {
      const body = object(req.body);
      if (!is(req, 'POST', /^\/threads$/) || !Array.isArray(body.supersteps) || body.supersteps.length < 2) return req;
      const updates = (body.supersteps as { updates: unknown[] }[]).flatMap((s) => s.updates);
      return { ...req, body: { ...body, supersteps: [{ updates }] } };
    },
  },
  'start-node-refused': {
    breaks: ['THREAD-SUPERSTEPS-AS-NODE'],
    description: 'a superstep of __start__ alone is refused',
    request: (req) => {
      const steps = object(req.body).supersteps;
      const only = Array.isArray(steps) && steps.length === 1 ? JSON.stringify(steps[0]) : '';
      return is(req, 'POST', /^\/threads$/) && only.includes('"as_node":"__start__"') ? jsonError(422, 'unknown node __start__') : req;
    },
  },
  'thread-values-stale': threadField('THREAD-CREATE-SUPERSTEPS', "a thread's values stay empty after supersteps", (t) => ({ ...t, values: {} })),
  'reject-answers-422': {
    breaks: ['MULTITASK-REJECT-409'],
    description: 'reject refuses with 422, as the JS reference server does',
    response: (res) => (res.status === 409 ? { ...res, status: 422 } : res),
  },
  'rollback-keeps-run': {
    breaks: ['MULTITASK-ROLLBACK-DELETES', 'MULTITASK-ROLLBACK-LOOKUP-FAILS', 'MULTITASK-ROLLBACK-LOOKUP-404', 'MULTITASK-ROLLBACK-STATE', 'MULTITASK-ROLLBACK-NO-RESTART'],
    description: 'rollback behaves as interrupt: nothing is deleted',
    request: (req) => (object(req.body).multitask_strategy === 'rollback' ? { ...req, body: { ...object(req.body), multitask_strategy: 'interrupt' } } : req),
  },
  'interrupted-reads-error': {
    breaks: ['MULTITASK-INTERRUPT-STATUS'],
    description: 'a run interrupted by a later run reads error, as the JS reference server says',
    response: (res) => (object(res.body).status === 'interrupted' && object(res.body).run_id ? { ...res, body: { ...object(res.body), status: 'error' } } : res),
  },
  'default-rejects': {
    breaks: ['MULTITASK-DEFAULT'],
    description: 'a run without multitask_strategy is created with reject',
    request: (req) =>
      req.method === 'POST' && new RegExp(`^/threads/${UUID}/runs(/stream|/wait)?$`).test(req.path) && !('multitask_strategy' in object(req.body))
        ? { ...req, body: { ...object(req.body), multitask_strategy: 'reject' } }
        : req,
  },
  'wait-error-500': {
    breaks: ['RUN-WAIT-VALUES'],
    description: 'waiting on a failing run answers 500',
    response: (res, req) => (is(req, 'POST', new RegExp(`^/threads/${UUID}/runs/wait$`)) && '__error__' in object(res.body) ? jsonError(500, 'run failed') : res),
  },
  'unknown-thread-run-422': {
    breaks: ['RUN-CREATE-UNKNOWN-THREAD-404'],
    description: 'a run on an unknown thread answers 422, as the JS reference server does',
    response: (res, req) =>
      is(req, 'POST', new RegExp(`^/threads/${UUID}/runs$`)) && res.status === 404 && /thread/i.test(String(object(res.body).detail)) ? { ...res, status: 422 } : res,
  },
  'run-list-ignores-status': {
    breaks: ['RUN-LIST'],
    description: 'the run list ignores its status filter',
    request: (req) => (req.method === 'GET' && new RegExp(`^/threads/${UUID}/runs\\?`).test(req.path) ? { ...req, path: req.path.replace(/status=[^&]*&?/, '') } : req),
  },
  'thread-never-busy': {
    breaks: ['THREAD-STATUS-BUSY-DURING-RUN'],
    description: 'a thread reads idle while its run is in progress',
    response: (res, req) => (is(req, 'GET', new RegExp(`^/threads/${UUID}$`)) && object(res.body).status === 'busy' ? { ...res, body: { ...object(res.body), status: 'idle' } } : res),
  },
  'assistant-search-ignores-offset': {
    breaks: ['ASSISTANT-SEARCH-OFFSET'],
    description: 'assistant search ignores offset',
    request: (req) => (is(req, 'POST', /^\/assistants\/search$/) && integerFrom(0)(object(req.body).offset) ? { ...req, body: { ...object(req.body), offset: 0 } } : req),
  },
  'assistant-config-string': {
    breaks: ['ASSISTANT-CONFIG', 'ASSISTANT-SHAPE'],
    description: "an assistant's config is a JSON string",
    response: (res, req) => {
      const change = (a: unknown) => (object(a).assistant_id ? { ...object(a), config: JSON.stringify(object(a).config) } : a);
      if (!req.path.startsWith('/assistants') || res.status !== 200) return res;
      return { ...res, body: Array.isArray(res.body) ? res.body.map(change) : change(res.body) };
    },
  },
  'join-unknown-run-values': {
    breaks: ['RUN-JOIN-UNKNOWN-404'],
    description: "joining an unknown run answers 200 with the thread's values: join looks up the thread, never the run",
    // The test's thread is new, so its values are empty.
    response: (res, req) => (is(req, 'GET', new RegExp(`^/threads/${UUID}/runs/${UUID}/join$`)) && res.status === 404 ? { status: 200, headers: { 'content-type': 'application/json' }, body: {} } : res),
  },
  'assistant-search-limit-off-by-one': {
    breaks: ['ASSISTANT-SEARCH-LIMIT'],
    description: 'assistant search answers one assistant fewer than its limit allows (an off-by-one in paging)',
    response: (res, req) => {
      const limit = object(req.body).limit;
      return is(req, 'POST', /^\/assistants\/search$/) && res.status === 200 && Array.isArray(res.body) && integerFrom(1)(limit) ? { ...res, body: res.body.slice(0, (limit as number) - 1) } : res;
    },
  },
  'stream-without-metadata': {
    breaks: ['STREAM-SSE-FIRST-METADATA'],
    description: 'streams start without the metadata event',
    stream: (text, headers) => ({ text: text.replace(/^event: metadata\n(data: .*\n)+(id: .*\n)?\n/, ''), headers }),
  },
  'stream-text-plain': {
    breaks: ['STREAM-SSE-CONTENT-TYPE'],
    description: 'streams are sent as text/plain',
    stream: (text, headers) => ({ text, headers: { ...headers, 'content-type': 'text/plain' } }),
  },
  'stream-drops-error-event': {
    breaks: ['STREAM-SSE-ERROR-EVENT'],
    description: 'a failing run streams no error event',
    stream: (text, headers) => ({ text: text.replace(/event: error\n(data: .*\n)+(id: .*\n)?\n/g, ''), headers }),
  },
  ...WEBHOOK_MUTATIONS,
  ...CRON_MUTATIONS,
};

/** Notes the runs posted to POST /runs without a dotted_order: the service computes their lineage. */
function rememberServiceOrdered(req: MutableRequest, memory: Map<string, unknown>): MutableRequest {
  const { id, dotted_order: dotted } = object(req.body);
  if (is(req, 'POST', /^(\/api\/v1)?\/runs$/) && typeof id === 'string' && dotted === undefined) memory.set(id.toLowerCase(), true);
  return req;
}

const SESSION_READ = new RegExp(`^/api/v1/sessions(/${UUID})?$`);
const TOKENS_AND_COST = ['total_tokens', 'prompt_tokens', 'completion_tokens', 'total_cost', 'prompt_cost', 'completion_cost'];

/** Rewrites the experiments (sessions) the platform API answers: the upload's, and those read by id or listed. */
function experiments(change: (experiment: Json) => Json): NonNullable<Mutation['response']> {
  return (res, req) => {
    if (res.status !== 200) return res;
    if (req.method === 'POST' && /upload-experiment$/.test(req.path.split('?')[0])) return { ...res, body: { ...object(res.body), experiment: change(object(object(res.body).experiment)) } };
    if (!is(req, 'GET', SESSION_READ)) return res;
    return { ...res, body: Array.isArray(res.body) ? res.body.map((e) => change(object(e))) : change(object(res.body)) };
  };
}

/** Mutations of the control plane and the platform API (US), judged by their planes' suites. */
export const PLANE_MUTATIONS: Record<string, Mutation> = {
  'repo-id-string': {
    endpoint: 'control-plane',
    // A repository with a string id is not a Repository, so the listing is wrong too.
    breaks: ['REPO-ID-INTEGER', 'REPO-LIST'],
    description: "a repository's id is a string",
    response: (res, req) =>
      req.method === 'GET' && /\/repos$/.test(req.path.split('?')[0]) && Array.isArray(res.body)
        ? { ...res, body: res.body.map((r) => ({ ...object(r), id: String(object(r).id) })) }
        : res,
  },
  'revision-never-deployed': {
    endpoint: 'control-plane',
    // DEPLOYED is the status the spec gives and the end of the §4.1 flow.
    breaks: ['REVISION-POLL-DEPLOYED', 'REVISION-STATUS', 'DEPLOY-FLOW'],
    description: 'a revision never reads DEPLOYED',
    response: (res, req) =>
      req.method === 'GET' && /\/revisions\/[^/]+$/.test(req.path.split('?')[0]) && object(res.body).status === 'DEPLOYED' ? { ...res, body: { ...object(res.body), status: 'DEPLOYING' } } : res,
  },
  'upload-not-externally-managed': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-DATASET-EXTERNALLY-MANAGED'],
    description: 'an uploaded dataset reads externally_managed false',
    response: (res, req) =>
      /upload-experiment$/.test(req.path) && res.status === 200 ? { ...res, body: { ...object(res.body), dataset: { ...object(object(res.body).dataset), externally_managed: false } } } : res,
  },
  'upload-rows-clamped': {
    endpoint: 'platform-api',
    // Rule 4's refusal is also the example of a refusal in the documented 4xx shape.
    breaks: ['UPLOAD-ROW-TIMES-WITHIN', 'UPLOAD-VIOLATION-4XX'],
    description: 'rows outside the experiment window are accepted (clamped into it)',
    request: (req) => {
      const body = object(req.body);
      if (!/upload-experiment$/.test(req.path) || !Array.isArray(body.results)) return req;
      const start = String(body.experiment_start_time);
      const end = String(body.experiment_end_time);
      const clamp = (t: unknown) => (Number.isNaN(Date.parse(String(t))) ? t : String(t) < start ? start : String(t) > end ? end : t);
      return { ...req, body: { ...body, results: body.results.map((r) => ({ ...object(r), start_time: clamp(object(r).start_time), end_time: clamp(object(r).end_time) })) } };
    },
  },
  'no-retry-after': {
    endpoint: 'platform-api',
    rateLimits: true,
    breaks: ['RATE-RETRY-AFTER'],
    description: 'a 429 comes without Retry-After',
    response: (res) => (res.status === 429 ? { ...res, headers: Object.fromEntries(Object.entries(res.headers).filter(([name]) => name !== 'retry-after')) } : res),
  },
  'trace-id-of-parent': {
    endpoint: 'platform-api',
    breaks: ['TRACE-TRACE-ID'],
    description: "a run posted to POST /runs reads back with its parent's id as trace_id, not its root's",
    // Only runs whose lineage the service computed: batch-ingested runs keep the caller's trace_id.
    request: rememberServiceOrdered,
    response: (res, req, memory) => {
      const run = object(res.body);
      return is(req, 'GET', new RegExp(`^(/api/v1)?/runs/${UUID}$`)) && memory.has(String(run.id)) && typeof run.parent_run_id === 'string' ? { ...res, body: { ...run, trace_id: run.parent_run_id } } : res;
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
      return is(req, 'GET', new RegExp(`^(/api/v1)?/runs/${UUID}$`)) && memory.has(String(run.id)) && typeof run.dotted_order === 'string'
        ? { ...res, body: { ...run, dotted_order: run.dotted_order.split('.').reverse().join('.') } }
        : res;
    },
  },
  'patch-replaces-extra': {
    endpoint: 'platform-api',
    breaks: ['TRACE-THREAD-ID'],
    description: 'PATCH /runs/{id} replaces extra instead of merging it, so the thread_id in its metadata is lost',
    response: (res, req, memory) => {
      const id = new RegExp(`^(?:/api/v1)?/runs/(${UUID})$`).exec(req.path.split('?')[0])?.[1].toLowerCase();
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
    response: (res, req) => (is(req, 'POST', /^(\/api\/v1)?\/runs$/) && res.status === 409 ? { ...res, status: 202, body: { message: 'Run created' } } : res),
  },
  'info-needs-key': {
    endpoint: 'platform-api',
    breaks: ['TRACE-INFO'],
    description: 'GET /info without X-Api-Key answers 401',
    request: (req) => (is(req, 'GET', /^(\/api\/v1)?\/info$/) && !req.headers['x-api-key'] ? jsonError(401, 'Missing API key') : req),
  },
  'force-new-ignored': {
    endpoint: 'platform-api',
    breaks: ['AUTHN-FORCE-NEW'],
    description: 'authenticate ignores force_new and answers the existing token',
    request: (req) => {
      const { force_new: forceNew, ...body } = object(req.body);
      return is(req, 'POST', /^\/v2\/auth\/authenticate$/) && forceNew === true ? { ...req, body } : req;
    },
  },
  'authn-missing-field-400': {
    endpoint: 'platform-api',
    // Only a missing field: a field of the wrong type still answers 422 (ERROR-422-AUTHN holds).
    breaks: ['AUTHN-REQUIRED-PROVIDER-SCOPES'],
    description: 'authenticate without provider or scopes answers 400 with a string detail',
    request: (req) => {
      const body = req.body;
      const missing = typeof body === 'object' && body !== null && !Array.isArray(body) && (!('provider' in body) || !('scopes' in body));
      return is(req, 'POST', /^\/v2\/auth\/authenticate$/) && missing ? jsonError(400, 'provider and scopes are required') : req;
    },
  },
  'tenant-id-ignored': {
    endpoint: 'platform-api',
    breaks: ['AUTH-PLATFORM-TENANT-ID'],
    description: 'x-tenant-id is ignored: a key always acts in its default workspace',
    request: (req) => ({ ...req, headers: Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'x-tenant-id')) }),
  },
  'patch-ignores-revision': {
    endpoint: 'control-plane',
    // No new revision starts, so the revision list holds the first one only.
    breaks: ['DEPLOY-PATCH', 'DEPLOY-PATCH-NEW-REVISION', 'REVISION-LIST'],
    description: 'PATCH /v2/deployments/{id} ignores a valid source_revision_config',
    request: (req) => {
      const { source_revision_config: revision, ...body } = object(req.body);
      return is(req, 'PATCH', new RegExp(`^/v2/deployments/${UUID}$`)) && typeof object(revision).repo_ref === 'string' ? { ...req, body } : req;
    },
  },
  'unknown-deployment-500': {
    endpoint: 'control-plane',
    // The lookup crashes only on ids that exist nowhere: another workspace's deployment still answers 404.
    // ERROR-SHAPE-CONTROL-PLANE takes its example of a string-detail error from an unknown deployment.
    breaks: ['DEPLOY-UNKNOWN-404', 'ERROR-SHAPE-CONTROL-PLANE'],
    description: 'a deployment id that exists in no workspace crashes the server',
    response: (res, req, memory) => {
      if (is(req, 'POST', /^\/v2\/deployments$/) && res.status < 300) memory.set(String(object(res.body).id).toLowerCase(), true);
      const id = new RegExp(`^/v2/deployments/(${UUID})$`).exec(req.path.split('?')[0])?.[1].toLowerCase();
      return id && res.status === 404 && !memory.has(id) ? { status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' } : res;
    },
  },
  'eu-runs-queued-in-us': {
    endpoint: 'platform-api-eu',
    // The front reaches the EU region only, so the US half (the runs arriving there) is not simulated; the EU half fails the rule.
    breaks: ['REGION-DATA-RESIDENCY'],
    description: 'the EU address acknowledges posted runs (202) but queues them for the US region: none lands in the EU',
    request: (req) => (is(req, 'POST', /^(\/api\/v1)?\/runs$/) ? { status: 202, headers: { 'content-type': 'application/json' }, body: { message: 'Run created' } } : req),
  },
  'upload-feedback-stats-never-filled': {
    endpoint: 'platform-api',
    // Latency is still filled in, so the suites' wait for persisted runs ends as usual.
    breaks: ['UPLOAD-STATS-FILLED-LATER'],
    description: "an uploaded experiment's feedback statistics stay null once its runs are persisted (the aggregation never runs)",
    response: experiments((e) => ({ ...e, feedback_stats: null, session_feedback_stats: null })),
  },
  'upload-tokens-cost-zero': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-TOKENS-COST-NULL'],
    description: "an uploaded experiment's token and cost fields read 0, a sum over no data, instead of null",
    response: experiments((e) => ({ ...e, ...Object.fromEntries(TOKENS_AND_COST.map((field) => [field, e[field] ?? 0])) })),
  },
  'latest-revision-is-active': {
    endpoint: 'control-plane',
    // GET must name the revision the create answered. (DEPLOY-FLOW, polling the revision GET names, is left unproved: skipped.)
    breaks: ['DEPLOY-LATEST-REVISION-ID', 'DEPLOY-GET'],
    description: 'GET /v2/deployments/{id} answers the active revision as latest_revision_id (null until one deploys)',
    response: (res, req) =>
      is(req, 'GET', new RegExp(`^/v2/deployments/${UUID}$`)) && res.status === 200 ? { ...res, body: { ...object(res.body), latest_revision_id: object(res.body).active_revision_id ?? null } } : res,
  },
  'repos-malformed-id-404': {
    endpoint: 'control-plane',
    // ERROR-SHAPE-CONTROL-PLANE takes its example of a 422 from the same malformed listing.
    breaks: ['ERROR-422-REPOS', 'ERROR-SHAPE-CONTROL-PLANE'],
    description: 'the repository listing looks a malformed integration_id up instead of refusing it: 404, not 422',
    response: (res, req) => (is(req, 'GET', /^\/v1\/integrations\/sourcehost\/[^/]+\/repos$/) && res.status === 422 ? jsonError(404, 'Integration not found') : res),
  },
};
