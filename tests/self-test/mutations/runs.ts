// Runs broken at the agent server: creation, multitask strategies, waiting, assistants and streams.
import type { Mutation } from '../broken-target.ts';
import { calls, integerFrom, json, jsonError, object, param, redirect, withoutQuery } from './support.ts';

export const RUN_MUTATIONS: Record<string, Mutation> = {
  'reject-answers-422': {
    breaks: ['MULTITASK-REJECT-409'],
    description: 'reject refuses with 422, as the JS reference server does',
    response: (res) => (res.status === 409 ? { ...res, status: 422 } : res),
  },
  'multitask-ignored': {
    // The rules about the run a strategy deleted or interrupted, and those that read the strategy taken, are then not judged.
    breaks: [
      'MULTITASK-INTERRUPT-KEEPS',
      'MULTITASK-INVALID',
      'MULTITASK-REJECT-409',
      'MULTITASK-REJECT-NOT-CREATED',
      'MULTITASK-ROLLBACK-DELETES',
      'MULTITASK-ROLLBACK-STATE',
      'STREAM-ERRORS-BEFORE-STREAM',
      'WEBHOOK-PAYLOAD-MULTITASK-STRATEGY',
    ],
    description: 'multitask_strategy is ignored: every run is queued behind the one in progress (the default)',
    request: (req) => {
      const { multitask_strategy: strategy, ...body } = object(req.body);
      return calls(req, 'createRun', 'streamRun', 'waitRun') && strategy !== undefined ? { ...req, body } : req;
    },
  },
  'multitask-ignored-default-reject': {
    breaks: [
      'MULTITASK-DEFAULT',
      'MULTITASK-INTERRUPT-KEEPS',
      'MULTITASK-INVALID',
      'MULTITASK-ROLLBACK-DELETES',
      'STREAM-SSE-CLOSE-AT-END',
      'WEBHOOK-CONFIG-ALLOWED-DOMAINS',
      'WEBHOOK-CONFIG-ALLOWED-PORTS',
      'WEBHOOK-CONFIG-MAX-URL-LENGTH',
      'WEBHOOK-CONFIG-REQUIRE-HTTPS',
      'WEBHOOK-PAYLOAD-MULTITASK-STRATEGY',
    ],
    description: "multitask_strategy is ignored and every run is created with reject, the JS reference server's default",
    request: (req) => (calls(req, 'createRun', 'streamRun', 'waitRun') ? { ...req, body: { ...object(req.body), multitask_strategy: 'reject' } } : req),
  },
  'join-answers-at-once': {
    breaks: ['RUN-JOIN', 'RUN-JOIN-VALUES'],
    description: 'join answers at once with the run as it is, without waiting for it to complete',
    request: (req) => (calls(req, 'joinRun') ? redirect(req, 'getRun') : req),
  },
  'results-and-state-empty': {
    breaks: [
      'MULTITASK-DEFAULT',
      'MULTITASK-ENQUEUE-ORDER',
      'MULTITASK-INTERRUPT-KEEPS',
      'MULTITASK-REJECT-NOT-CREATED',
      'MULTITASK-REJECT-ORIGINAL-CONTINUES',
      'MULTITASK-ROLLBACK-STATE',
      'RUN-JOIN-VALUES',
      'RUN-WAIT',
      'RUN-WAIT-VALUES',
      'RUN-WRITES-THREAD-STATE',
    ],
    description: "join and wait answer {} for a run that succeeded, and the thread's values read empty after them: a run that writes nothing",
    response: (res, req, memory) => {
      const thread = param(req, 'thread_id');
      if (calls(req, 'joinRun', 'waitRun') && res.status === 200 && thread && !('__error__' in object(res.body))) {
        memory.set(thread, true);
        return { ...res, body: {} };
      }
      const remembered = thread !== undefined && memory.has(thread);
      return calls(req, 'getThread', 'getThreadState') && res.status === 200 && remembered ? { ...res, body: { ...object(res.body), values: {} } } : res;
    },
  },
  'wait-result-wrapped': {
    breaks: ['RUN-WAIT-VALUES'],
    description: 'wait answers its result wrapped as {output: ...} (§4.5 shows no format)',
    response: (res, req) => (calls(req, 'waitRun', 'waitStatelessRun') && res.status === 200 ? { ...res, body: { output: res.body } } : res),
  },
  'stream-ndjson': {
    breaks: ['STREAM-SSE-CONTENT-TYPE', 'STREAM-SSE-ERROR-EVENT', 'STREAM-SSE-FIRST-METADATA', 'STREAM-SSE-JSON-DATA', 'STREAM-SSE-MODE-EVENTS'],
    description: 'streams are newline-delimited JSON, not server-sent events (§4.5 shows no format)',
    stream: (text, headers) => ({
      text: text
        .split(/\n\n/)
        .filter((block) => block.trim() !== '')
        .map((block) => {
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join('\n');
          return JSON.stringify({ event, data: JSON.parse(data || 'null') as unknown });
        })
        .join('\n'),
      headers: { ...headers, 'content-type': 'application/x-ndjson' },
    }),
  },
  'stream-queued-answers-at-once': {
    breaks: ['STREAM-SSE-CLOSE-AT-END'],
    description: 'a stream queued behind a run in progress (enqueue) answers its metadata at once and closes, leaving the run queued',
    // Marked on its way, so that the run's answer is turned into the stream's.
    request: (req) => {
      if (!calls(req, 'streamRun') || object(req.body).multitask_strategy !== 'enqueue') return req;
      return { ...redirect(req, 'createRun'), headers: { ...req.headers, 'x-apc-queued-stream': '1' } };
    },
    response: (res, req) => {
      if (!req.headers['x-apc-queued-stream'] || res.status !== 200) return res;
      const metadata = JSON.stringify({ run_id: object(res.body).run_id, attempt: 1 });
      return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: `event: metadata\ndata: ${metadata}\n\n` };
    },
  },
  'assistant-search-without-graph-id': {
    // ASSISTANT-SHAPE (SHOULD, from the service's OpenAPI) names both operations that answer assistants.
    breaks: ['ASSISTANT-SHAPE'],
    description: 'assistant search answers assistants without graph_id',
    response: (res, req) => {
      if (!calls(req, 'searchAssistants') || !Array.isArray(res.body)) return res;
      return { ...res, body: res.body.map((a) => (({ graph_id: _graph, ...rest }) => rest)(object(a))) };
    },
  },
  'assistant-get-absent': {
    breaks: ['ASSISTANT-GET', 'ASSISTANT-SHAPE'],
    description: 'assistants cannot be read one by one (§4.5 shows only their search)',
    request: (req) => (calls(req, 'getAssistant') ? jsonError(404, 'Not Found') : req),
  },
  'assistant-created-at-null': {
    breaks: ['ASSISTANT-SHAPE'],
    description: 'an assistant read by id answers created_at null',
    response: (res, req) => (calls(req, 'getAssistant') && res.status === 200 ? { ...res, body: { ...object(res.body), created_at: null } } : res),
  },
  'assistant-search-empty': {
    breaks: ['ASSISTANT-SEARCH'],
    description: 'assistant search answers an empty array',
    response: (res, req) => (calls(req, 'searchAssistants') && Array.isArray(res.body) ? { ...res, body: [] } : res),
  },
  // The rules that read runs through the list take an empty one as a step that failed: only the list's own rules fail.
  'run-list-empty': {
    breaks: ['CRON-RUNS-ON-SCHEDULE', 'RUN-LIST'],
    description: "a thread's run list is always empty",
    response: (res, req) => (calls(req, 'listRuns') && Array.isArray(res.body) ? { ...res, body: [] } : res),
  },
  // Not a run's: the server's health check, beside the other answers of every run's server.
  'health-check-not-ok': {
    breaks: ['SERVER-OK'],
    description: 'GET /ok answers 200 {"ok": false} while the server is up',
    response: (res, req) => (calls(req, 'getOk') && res.status === 200 ? { ...res, body: { ok: false } } : res),
  },
  'success-203': {
    breaks: [
      'ASSISTANT-GET',
      'ASSISTANT-SHAPE',
      'CRON-SEARCH',
      'RUN-GET',
      'RUN-JOIN-VALUES',
      'RUN-LIST',
      'RUN-STATUS-VALUES',
      'RUN-WAIT-VALUES',
      'SERVER-OK',
      'VERSION-AGENT-SERVER-INFO',
      'WEBHOOK-FAILURE-NO-EFFECT',
    ],
    description: 'every 200 answer is a 203 (§4 names no success status)',
    response: (res, req) => (res.status === 200 && req.operation !== undefined ? { ...res, status: 203 } : res),
  },
  'run-metadata-null': {
    breaks: ['RUN-GET', 'RUN-SHAPE', 'WEBHOOK-PAYLOAD-RUN-RECORD'],
    description: 'a run reads back with metadata null',
    response: (res, req) => (calls(req, 'getRun') && res.status === 200 ? { ...res, body: { ...object(res.body), metadata: null } } : res),
  },
  'rollback-keeps-run': {
    // The rules about the run rollback deleted are not judged where it is still listed.
    breaks: ['MULTITASK-ROLLBACK-DELETES', 'MULTITASK-ROLLBACK-STATE'],
    description: 'rollback behaves as interrupt: nothing is deleted',
    request: (req) => (object(req.body).multitask_strategy === 'rollback' ? { ...req, body: { ...object(req.body), multitask_strategy: 'interrupt' } } : req),
  },
  'interrupted-reads-error': {
    breaks: ['MULTITASK-INTERRUPT-STATUS'],
    description: 'a run interrupted by a later run reads error, as the JS reference server says',
    response: (res) =>
      object(res.body).status === 'interrupted' && object(res.body).run_id ? { ...res, body: { ...object(res.body), status: 'error' } } : res,
  },
  'default-rejects': {
    breaks: ['MULTITASK-DEFAULT'],
    description: 'a run without multitask_strategy is created with reject',
    request: (req) =>
      calls(req, 'createRun', 'streamRun', 'waitRun') && !('multitask_strategy' in object(req.body))
        ? { ...req, body: { ...object(req.body), multitask_strategy: 'reject' } }
        : req,
  },
  'wait-error-500': {
    breaks: ['RUN-WAIT-VALUES'],
    description: 'waiting on a failing run answers 500',
    response: (res, req) => (calls(req, 'waitRun') && '__error__' in object(res.body) ? jsonError(500, 'run failed') : res),
  },
  'unknown-thread-run-422': {
    breaks: ['RUN-CREATE-UNKNOWN-THREAD-404'],
    description: 'a run on an unknown thread answers 422, as the JS reference server does',
    response: (res, req) => (calls(req, 'createRun') && res.status === 404 && /thread/i.test(String(object(res.body).detail)) ? { ...res, status: 422 } : res),
  },
  'run-list-ignores-status': {
    breaks: ['RUN-LIST'],
    description: 'the run list ignores its status filter',
    request: (req) => (calls(req, 'listRuns') ? withoutQuery(req, 'status') : req),
  },
  'thread-never-busy': {
    breaks: ['THREAD-STATUS-BUSY-DURING-RUN'],
    description: 'a thread reads idle while its run is in progress',
    response: (res, req) => (calls(req, 'getThread') && object(res.body).status === 'busy' ? { ...res, body: { ...object(res.body), status: 'idle' } } : res),
  },
  'assistant-search-ignores-offset': {
    breaks: ['ASSISTANT-SEARCH-OFFSET'],
    description: 'assistant search ignores offset',
    request: (req) => (calls(req, 'searchAssistants') && integerFrom(0)(object(req.body).offset) ? { ...req, body: { ...object(req.body), offset: 0 } } : req),
  },
  'assistant-config-string': {
    breaks: ['ASSISTANT-CONFIG', 'ASSISTANT-SHAPE'],
    description: "an assistant's config is a JSON string",
    response: (res, req) => {
      const change = (a: unknown) => (object(a).assistant_id ? { ...object(a), config: JSON.stringify(object(a).config) } : a);
      if (!calls(req, 'searchAssistants', 'getAssistant') || res.status !== 200) return res;
      return { ...res, body: Array.isArray(res.body) ? res.body.map(change) : change(res.body) };
    },
  },
  'join-unknown-run-values': {
    breaks: ['RUN-JOIN-UNKNOWN-404'],
    description: "joining an unknown run answers 200 with the thread's values: join looks up the thread, never the run",
    // The test's thread is new, so its values are empty.
    response: (res, req) => (calls(req, 'joinRun') && res.status === 404 ? json(200, {}) : res),
  },
  'assistant-search-limit-off-by-one': {
    breaks: ['ASSISTANT-SEARCH-LIMIT'],
    description: 'assistant search answers one assistant fewer than its limit allows (an off-by-one in paging)',
    response: (res, req) => {
      const limit = object(req.body).limit;
      return calls(req, 'searchAssistants') && res.status === 200 && Array.isArray(res.body) && integerFrom(1)(limit)
        ? { ...res, body: res.body.slice(0, (limit as number) - 1) }
        : res;
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
};
