// Red-team mutations of the agent server: breakages a server author could plausibly make that
// the suites once let through (a field wrong only in list answers, a filter ignored only in
// combination, a rule checked on one operation of several that share it).
import type { Mutation, MutableRequest } from '../broken-target.ts';
import { calls, integerFrom, isRecord, json, object, param, redirect, type Json } from './support.ts';

/** The query of a request path as a map, and the path rebuilt from one. */
const queryOf = (req: MutableRequest) => new URLSearchParams(req.path.includes('?') ? req.path.slice(req.path.indexOf('?') + 1) : '');
const withQuery = (req: MutableRequest, query: URLSearchParams): MutableRequest => {
  const rest = query.toString();
  return { ...req, path: `${req.path.split('?')[0]}${rest ? `?${rest}` : ''}` };
};

/** Where a webhook URL is delivered, as the relay sees the delivery's path (path and query). */
const deliveredAt = (webhook: unknown): string | undefined => {
  if (typeof webhook !== 'string' || !URL.canParse(webhook)) return undefined;
  const url = new URL(webhook);
  return `${url.pathname}${url.search}`;
};

/** Remembers the webhook URLs of requests to these operations, for a delivery mutation to recognise them. */
function webhooksOf(...operations: string[]): { seen: Set<string>; request: (req: MutableRequest) => MutableRequest } {
  const seen = new Set<string>();
  return {
    seen,
    request: (req) => {
      const at = calls(req, ...operations) ? deliveredAt(object(req.body).webhook) : undefined;
      if (at) seen.add(at);
      return req;
    },
  };
}

/** An event stream's blocks, and the text rebuilt from some of them. */
const blocks = (text: string) => text.split(/\r?\n\r?\n/).filter((b) => b.trim() !== '');
const isStateless = (headers: Record<string, string>) => (headers['content-location'] ?? '').startsWith('/runs/');

/** Rewrites each item of a 200 array answer of these operations. */
function eachItem(operations: string[], change: (item: Json) => Json): Mutation['response'] {
  return (res, req) =>
    calls(req, ...operations) && res.status === 200 && Array.isArray(res.body) ? { ...res, body: res.body.map((i) => change(object(i))) } : res;
}

const waitHooks = webhooksOf('waitRun');
const statelessStreamHooks = webhooksOf('streamStatelessRun');
const streamHooks = webhooksOf('streamRun', 'streamStatelessRun');
const deliveriesOfRun = new Map<string, number>();

export const RED_TEAM_AGENT_MUTATIONS: Record<string, Mutation> = {
  // ---------------------------------------------------------------- threads
  'red-search-values-emptied': {
    breaks: ['THREAD-SEARCH-ARRAY'],
    description: 'thread search answers every thread with empty values (state not loaded for lists)',
    response: eachItem(['searchThreads'], (t) => ({ ...t, values: {} })),
  },
  'red-search-status-stale': {
    breaks: ['THREAD-SEARCH-ARRAY'],
    description: 'thread search answers every thread as idle (a cached status), though the filter uses the real one',
    response: eachItem(['searchThreads'], (t) => ({ ...t, status: 'idle' })),
  },
  'red-search-metadata-strings-only': {
    breaks: ['THREAD-SEARCH-METADATA'],
    description: 'the metadata filter ignores keys whose value is not a string (numbers, booleans, objects)',
    request: (req) => {
      if (!calls(req, 'searchThreads') || !isRecord(object(req.body).metadata)) return req;
      const body = object(req.body);
      const metadata = Object.fromEntries(Object.entries(object(body.metadata)).filter(([, v]) => typeof v === 'string'));
      return { ...req, body: { ...body, metadata } };
    },
  },
  'red-search-offset-needs-limit': {
    breaks: ['THREAD-SEARCH-OFFSET'],
    description: 'thread search ignores offset unless limit is given too',
    request: (req) => {
      const body = object(req.body);
      if (!calls(req, 'searchThreads') || 'limit' in body || !integerFrom(0)(body.offset)) return req;
      const { offset: _offset, ...rest } = body;
      return { ...req, body: rest };
    },
  },
  'red-search-sort-order-thread-id-only': {
    breaks: ['THREAD-SEARCH-SORT-ORDER'],
    description: 'thread search honours sort_order only when sorting by thread_id (dates keep the default, newest first)',
    request: (req) => {
      const body = object(req.body);
      if (!calls(req, 'searchThreads') || !('sort_order' in body) || (body.sort_by ?? 'created_at') === 'thread_id') return req;
      const { sort_order: _order, ...rest } = body;
      return { ...req, body: rest };
    },
  },
  'red-history-empty-after-run': {
    breaks: ['THREAD-HISTORY', 'RUN-WRITES-THREAD-HISTORY'],
    description: "history answers [] for a thread a run has written (the run's checkpoints are not kept in the history), though its state holds them",
    response: (res, req, memory) => {
      const thread = param(req, 'thread_id');
      if (calls(req, 'createRun', 'waitRun', 'streamRun') && res.status < 300 && thread) memory.set(`ran:${thread}`, true);
      return calls(req, 'getThreadHistory') && res.status === 200 && memory.has(`ran:${thread}`) ? { ...res, body: [] } : res;
    },
  },
  'red-search-sort-status-ignored-updated-at-fixed': {
    breaks: ['THREAD-SEARCH-SORT'],
    description: "sort_by status is ignored (the default order answers), on a server whose threads' updated_at never moves",
    request: (req) => {
      const body = object(req.body);
      if (!calls(req, 'searchThreads')) return req;
      if (body.sort_by === 'updated_at') return { ...req, body: { ...body, sort_by: 'created_at' } };
      const { sort_by: _, ...rest } = body;
      return body.sort_by === 'status' ? { ...req, body: rest } : req;
    },
    response: (res, req) => {
      const fixed = (t: unknown) =>
        isRecord(t) && typeof t.thread_id === 'string' && !('run_id' in t) && 'updated_at' in t ? { ...t, updated_at: t.created_at } : t;
      if (!calls(req, 'createThread', 'getThread', 'searchThreads', 'copyThread')) return res;
      return { ...res, body: Array.isArray(res.body) ? res.body.map(fixed) : fixed(res.body) };
    },
  },
  'red-failed-run-reported-success': {
    // §3: success and error are the final values; §6: the payload's status is the final one; §7: a failed run is reported through error.
    breaks: ['RUN-FAILED-STATUS-ERROR', 'WEBHOOK-PAYLOAD-ERROR', 'WEBHOOK-PAYLOAD-STATUS'],
    description: 'a failed graph run is reported success: its reads and its notification say success, with no error',
    response: (res, req) => {
      if (!calls(req, 'createRun', 'getRun', 'listRuns') || res.status >= 300) return res;
      const asSuccess = (r: unknown) => (isRecord(r) && r.status === 'error' ? { ...r, status: 'success' } : r);
      return { ...res, body: Array.isArray(res.body) ? res.body.map(asSuccess) : asSuccess(res.body) };
    },
    delivery: (req) => {
      const { error: _, ...payload } = object(req.body);
      return payload.status === 'error' ? { ...req, body: { ...payload, status: 'success' } } : req;
    },
  },
  'red-failed-stateless-run-notified-success': {
    breaks: ['WEBHOOK-PAYLOAD-ERROR', 'WEBHOOK-PAYLOAD-STATUS'],
    description: 'a stateless run whose graph fails notifies success, with no error (its code path swallows the failure)',
    delivery: (req) => {
      const { error: _, ...payload } = object(req.body);
      return payload.status === 'error' && !('values' in payload) ? { ...req, body: { ...payload, status: 'success' } } : req;
    },
  },
  'red-checkpoint-of-other-thread': {
    breaks: ['THREAD-STATE-CHECKPOINT-UNKNOWN'],
    description: "state at a checkpoint finds the checkpoint in any thread: another thread's checkpoint answers that thread's snapshot",
    response: (res, req, memory) => {
      if (calls(req, 'getThreadHistory', 'getThreadState') && res.status === 200) {
        for (const s of Array.isArray(res.body) ? res.body : [res.body]) {
          const id = object(s).checkpoint_id ?? object(object(s).checkpoint).checkpoint_id;
          if (typeof id === 'string') memory.set(`checkpoint:${id}`, param(req, 'thread_id'));
        }
      }
      return res;
    },
    request: (req, memory) => {
      if (!calls(req, 'getThreadStateAtCheckpoint')) return req;
      const owner = memory.get(`checkpoint:${param(req, 'checkpoint_id')}`);
      return typeof owner === 'string' && owner !== param(req, 'thread_id') ? redirect(req, 'getThreadStateAtCheckpoint', { thread_id: owner }) : req;
    },
  },
  'red-metadata-dropped-with-supersteps': {
    breaks: ['THREAD-CREATE-METADATA'],
    description: 'a thread created with supersteps keeps only graph_id of its metadata',
    request: (req) => {
      const body = object(req.body);
      if (!calls(req, 'createThread') || !Array.isArray(body.supersteps) || !isRecord(body.metadata)) return req;
      const graphId = object(body.metadata).graph_id;
      return { ...req, body: { ...body, metadata: graphId === undefined ? {} : { graph_id: graphId } } };
    },
  },
  'red-thread-values-stale': {
    breaks: ['RUN-WRITES-THREAD-STATE'],
    description: "GET /threads/{id} answers the values the thread had at creation, not its current state's (runs update only the state)",
    response: (res, req, memory) => {
      if (calls(req, 'createThread', 'copyThread') && res.status === 200) memory.set(`values:${object(res.body).thread_id}`, object(res.body).values);
      const kept = memory.get(`values:${param(req, 'thread_id')}`);
      return calls(req, 'getThread') && res.status === 200 && kept !== undefined ? { ...res, body: { ...object(res.body), values: kept } } : res;
    },
  },

  // ---------------------------------------------------------------- runs
  'red-run-list-items-bare': {
    breaks: ['RUN-SHAPE'],
    description: 'the run list answers each run with run_id, thread_id, status and created_at only',
    response: eachItem(['listRuns'], (r) => ({ run_id: r.run_id, thread_id: r.thread_id, status: r.status, created_at: r.created_at })),
  },
  'red-run-times-epoch': {
    breaks: ['RUN-SHAPE', 'WEBHOOK-PAYLOAD-RUN-RECORD'],
    description: 'a run read back has created_at and updated_at as epoch milliseconds, not date-time strings',
    response: (res, req) => {
      if (!calls(req, 'getRun') || res.status !== 200) return res;
      const run = object(res.body);
      return { ...res, body: { ...run, created_at: Date.parse(String(run.created_at)), updated_at: Date.parse(String(run.updated_at)) } };
    },
  },
  'red-wait-drops-multitask-strategy': {
    breaks: ['MULTITASK-REJECT-409', 'MULTITASK-INVALID'],
    description: 'POST /threads/{id}/runs/wait ignores multitask_strategy (always enqueues; a bogus one is not refused)',
    request: (req) => {
      if (!calls(req, 'waitRun')) return req;
      const { multitask_strategy: _strategy, ...rest } = object(req.body);
      return { ...req, body: rest };
    },
  },
  'red-join-any-thread': {
    breaks: ['RUN-JOIN-UNKNOWN-404'],
    description: 'join finds the run whatever thread the path names',
    response: (res, req, memory) => {
      if (calls(req, 'createRun') && res.status === 200) memory.set(`run:${object(res.body).run_id}`, param(req, 'thread_id'));
      return res;
    },
    request: (req, memory) => {
      if (!calls(req, 'joinRun')) return req;
      const owner = memory.get(`run:${param(req, 'run_id')}`);
      return typeof owner === 'string' && owner !== param(req, 'thread_id') ? redirect(req, 'joinRun', { thread_id: owner }) : req;
    },
  },
  'red-run-list-filter-after-page': {
    breaks: ['RUN-LIST'],
    description: 'the run list pages first and filters by status after, so a page holds fewer matching runs than it could',
    request: (req) => {
      if (!calls(req, 'listRuns')) return req;
      const query = queryOf(req);
      const status = query.get('status');
      if (status === null || (!query.has('limit') && !query.has('offset'))) return req;
      query.delete('status');
      return { ...withQuery(req, query), headers: { ...req.headers, 'x-red-status': status } };
    },
    response: (res, req) => {
      const status = req.headers['x-red-status'];
      return calls(req, 'listRuns') && status && Array.isArray(res.body) ? { ...res, body: res.body.filter((r) => object(r).status === status) } : res;
    },
  },
  'red-stream-without-content-location': {
    breaks: ['RUN-CONTENT-LOCATION'],
    description: 'a thread stream answers no Content-Location (only create and wait do)',
    stream: (text, headers) => {
      if (isStateless(headers)) return { text, headers };
      const { 'content-location': _where, ...rest } = headers;
      return { text, headers: rest };
    },
  },

  // ---------------------------------------------------------------- assistants
  'red-assistant-offset-needs-limit': {
    breaks: ['ASSISTANT-SEARCH-OFFSET'],
    description: 'assistant search ignores offset unless limit is given too',
    request: (req) => {
      const body = object(req.body);
      if (!calls(req, 'searchAssistants') || 'limit' in body || !integerFrom(0)(body.offset)) return req;
      const { offset: _offset, ...rest } = body;
      return { ...req, body: rest };
    },
  },
  'red-assistant-search-items-bare': {
    breaks: ['ASSISTANT-SHAPE'],
    description: 'assistant search answers each assistant with assistant_id, graph_id and config only',
    response: eachItem(['searchAssistants'], (a) => ({ assistant_id: a.assistant_id, graph_id: a.graph_id, config: a.config })),
  },

  // ---------------------------------------------------------------- crons
  'red-cron-timezone-ignored': {
    breaks: ['CRON-RUNS-ON-SCHEDULE'],
    description: "a cron's timezone is accepted but its schedule is read in UTC",
    request: (req) => {
      if (!calls(req, 'createCron', 'createThreadCron') || !('timezone' in object(req.body))) return req;
      const { timezone: _tz, ...rest } = object(req.body);
      return { ...req, body: rest };
    },
  },

  // ---------------------------------------------------------------- streams
  'red-stateless-stream-no-metadata': {
    breaks: ['STREAM-SSE-FIRST-METADATA'],
    description: 'a stateless stream starts with its mode events, without the metadata event',
    stream: (text, headers) => {
      if (!isStateless(headers)) return { text, headers };
      const kept = blocks(text).filter((b) => !/^event: ?metadata\s*$/m.test(b));
      return { text: kept.map((b) => `${b}\n\n`).join(''), headers };
    },
  },
  'red-stateless-stream-text-plain': {
    breaks: ['STREAM-SSE-CONTENT-TYPE'],
    description: 'a stateless stream is answered as text/plain',
    stream: (text, headers) => (isStateless(headers) ? { text, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' } } : { text, headers }),
  },

  // ---------------------------------------------------------------- webhooks
  'red-wait-webhook-status-running': {
    breaks: ['WEBHOOK-PAYLOAD-STATUS'],
    description: 'the notification of a run made by POST /threads/{id}/runs/wait is built before the run is marked done: status running',
    request: waitHooks.request,
    delivery: (req) => (waitHooks.seen.has(req.path) ? { ...req, body: { ...object(req.body), status: 'running' } } : req),
  },
  'red-stateless-stream-webhook-values': {
    breaks: ['WEBHOOK-PAYLOAD-VALUES-STATELESS'],
    description: "the notification of a stateless stream run carries its temporary thread's values",
    request: statelessStreamHooks.request,
    delivery: (req) => (statelessStreamHooks.seen.has(req.path) ? { ...req, body: { ...object(req.body), values: { messages: [] } } } : req),
  },
  'red-stream-webhook-query-dropped': {
    breaks: ['AUTH-WEBHOOK-SECRET-QUERY'],
    description: 'the notification of a streamed run goes to the webhook URL without its query string',
    request: streamHooks.request,
    delivery: (req) => (streamHooks.seen.has(req.path) && req.path.includes('?') ? { ...req, path: req.path.split('?')[0] } : req),
  },
  'red-webhook-headers-first-attempt-only': {
    breaks: ['WEBHOOK-CONFIG-HEADERS'],
    description: 'the static webhooks.headers are added to the first attempt only, not to retries',
    delivery: (req) => {
      const runId = String(object(req.body).run_id);
      const attempt = (deliveriesOfRun.get(runId) ?? 0) + 1;
      deliveriesOfRun.set(runId, attempt);
      if (attempt === 1) return req;
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !name.toLowerCase().startsWith('x-apc-')));
      return { ...req, headers };
    },
  },
  'red-failed-run-no-ended-at': {
    breaks: ['WEBHOOK-PAYLOAD-RUN-ENDED-AT'],
    description: 'the notification of a failed run has no run_ended_at (only the success path sets it)',
    delivery: (req) => {
      const body = object(req.body);
      if (body.status !== 'error') return req;
      const { run_ended_at: _ended, ...rest } = body;
      return { ...req, body: rest };
    },
  },

  // ---------------------------------------------------------------- errors
  'red-404-message-key': {
    breaks: ['ERROR-SHAPE-AGENT'],
    description: 'unknown runs, assistants, checkpoints and crons answer 404 {message} instead of {detail}',
    response: (res, req) =>
      calls(req, 'getRun', 'joinRun', 'getAssistant', 'getThreadStateAtCheckpoint', 'deleteCron') && res.status === 404
        ? json(404, { message: String(object(res.body).detail ?? 'not found') })
        : res,
  },
  'red-422-detail-array': {
    breaks: ['ERROR-SHAPE-AGENT'],
    description: 'run and cron validation errors answer 422 with a detail array of {loc, msg, type}',
    response: (res, req) =>
      calls(req, 'createRun', 'waitRun', 'waitStatelessRun', 'createCron', 'createThreadCron') && res.status === 422
        ? json(422, { detail: [{ loc: ['body'], msg: String(object(res.body).detail ?? 'invalid'), type: 'value_error' }] })
        : res,
  },
};
