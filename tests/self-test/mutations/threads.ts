// Threads broken at the agent server: create, read, copy, search, state and history.
import type { Mutation } from '../broken-target.ts';
import { calls, crash, json, jsonError, object, oneOf, param, redirect, UUID, type Json } from './support.ts';

/** Rewrites a field of a thread answered by create or get. */
function threadField(breaks: string, description: string, change: (thread: Json) => Json): Mutation {
  return {
    breaks: [breaks],
    description,
    response: (res, req) => (calls(req, 'createThread', 'getThread') && res.status < 300 ? { ...res, body: change(object(res.body)) } : res),
  };
}

export const THREAD_MUTATIONS: Record<string, Mutation> = {
  'create-refuses-empty-body': {
    breaks: ['THREAD-CREATE-EMPTY'],
    description: 'POST /threads refuses an empty object',
    request: (req) => (calls(req, 'createThread') && Object.keys(object(req.body)).length === 0 ? jsonError(422, 'metadata is required') : req),
  },
  'created-thread-busy': {
    breaks: ['THREAD-CREATE-IDLE'],
    description: 'a created thread reads busy',
    response: (res, req) => (calls(req, 'createThread') && res.status < 300 ? { ...res, body: { ...object(res.body), status: 'busy' } } : res),
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
    response: (res, req) =>
      calls(req, 'getThread') && res.status === 200 ? { ...res, body: { ...object(res.body), created_at: '2000-01-01T00:00:00.000Z' } } : res,
  },
  'unknown-thread-400': {
    breaks: ['THREAD-GET-UNKNOWN-404'],
    description: 'an unknown thread answers 400',
    response: (res, req) => (calls(req, 'getThread') && res.status === 404 ? { ...res, status: 400 } : res),
  },
  'malformed-id-500': {
    // ERROR-BAD-INPUT-AGENT is the general rule THREAD-ID-MALFORMED is a case of.
    breaks: ['THREAD-ID-MALFORMED', 'ERROR-BAD-INPUT-AGENT'],
    description: 'a malformed thread id crashes the server',
    request: (req) => (calls(req, 'getThread') && !UUID.test(param(req, 'thread_id') ?? '') ? crash : req),
  },
  'copy-answers-original': {
    breaks: ['THREAD-COPY-NEW', 'THREAD-COPY-INDEPENDENT'],
    description: 'copy answers the original thread instead of a new one',
    request: (req) => {
      return calls(req, 'copyThread') ? { ...redirect(req, 'getThread'), body: undefined } : req;
    },
  },
  'copy-loses-state': {
    breaks: ['THREAD-COPY-STATE'],
    description: "a copy's state reads empty",
    response: (res, req, memory) => {
      if (calls(req, 'copyThread') && res.status < 300) memory.set(String(object(res.body).thread_id), true);
      return calls(req, 'getThreadState') && memory.has(param(req, 'thread_id') ?? '') && res.status === 200
        ? { ...res, body: { ...object(res.body), values: {} } }
        : res;
    },
  },
  'copy-loses-state-supersteps-ignored': {
    breaks: ['THREAD-COPY-STATE', 'THREAD-CREATE-SUPERSTEPS'],
    description: "supersteps are accepted and ignored, and a copy's state reads empty",
    request: (req) => {
      const { supersteps: _, ...body } = object(req.body);
      return calls(req, 'createThread') ? { ...req, body } : req;
    },
    response: (res, req, memory) => {
      if (calls(req, 'copyThread') && res.status < 300) memory.set(String(object(res.body).thread_id), true);
      return calls(req, 'getThreadState') && memory.has(param(req, 'thread_id') ?? '') && res.status === 200
        ? { ...res, body: { ...object(res.body), values: {} } }
        : res;
    },
  },
  'copy-runs-write-original': {
    breaks: ['THREAD-COPY-INDEPENDENT'],
    description: "a run on a copy writes to its original's state, as a copy that shares its original's store would",
    request: (req, memory) => {
      const original = memory.get(`copy:${param(req, 'thread_id')}`);
      return calls(req, 'createRun', 'streamRun', 'waitRun') && typeof original === 'string' ? redirect(req, req.operation!, { thread_id: original }) : req;
    },
    response: (res, req, memory) => {
      if (calls(req, 'copyThread') && res.status < 300) memory.set(`copy:${String(object(res.body).thread_id)}`, param(req, 'thread_id'));
      return res;
    },
  },
  'copy-unknown-500': {
    breaks: ['THREAD-COPY-UNKNOWN'],
    description: 'copying an unknown thread crashes',
    response: (res, req) => (calls(req, 'copyThread') && res.status === 404 ? jsonError(500, 'boom') : res),
  },
  'search-wrapped': {
    breaks: ['THREAD-SEARCH-ARRAY'],
    description: 'search answers {threads: [...]} instead of an array',
    response: (res, req) => (calls(req, 'searchThreads') && res.status === 200 ? { ...res, body: { threads: res.body } } : res),
  },
  // A search that drops a field it is given is generated from the contract (ignores:agent-server:searchThreads:<field>);
  // this one keeps the test key and ignores only the other keys of the filter.
  'search-ignores-metadata': {
    breaks: ['THREAD-SEARCH-METADATA'],
    description: 'thread search filters by apc_test alone and ignores the other metadata keys',
    request: (req) => {
      const metadata = object(req.body).metadata;
      if (!calls(req, 'searchThreads') || typeof metadata !== 'object' || metadata === null) return req;
      const testKey = object(metadata).apc_test;
      return { ...req, body: { ...object(req.body), metadata: testKey === undefined ? {} : { apc_test: testKey } } };
    },
  },
  'search-accepts-bogus': {
    breaks: ['THREAD-SEARCH-INVALID', 'ERROR-BAD-INPUT-AGENT'],
    description: 'search answers 200 [] to invalid input',
    response: (res, req) => (calls(req, 'searchThreads') && res.status === 422 ? json(200, []) : res),
  },
  'thread-delete-keeps-thread': {
    breaks: ['THREAD-DELETE'],
    description: 'DELETE /threads/{thread_id} answers 204 and deletes nothing',
    request: (req) => (calls(req, 'deleteThread') ? { status: 204, headers: {}, body: '' } : req),
  },
  'thread-count-in-an-object': {
    breaks: ['THREAD-COUNT'],
    description: 'POST /threads/count answers {count: n} instead of a bare integer',
    response: (res, req) => (calls(req, 'countThreads') && res.status === 200 ? { ...res, body: { count: res.body } } : res),
  },
  'thread-update-replaces-metadata': {
    breaks: ['THREAD-UPDATE'],
    description: "PATCH /threads/{thread_id} replaces the thread's metadata with the one given",
    response: (res, req) =>
      calls(req, 'updateThread') && res.status < 300 ? { ...res, body: { ...object(res.body), metadata: object(req.body).metadata ?? {} } } : res,
  },
  'state-stale': {
    breaks: ['THREAD-STATE'],
    description: 'GET state answers the first checkpoint instead of the current one',
    response: (res, req) => {
      if (!calls(req, 'getThreadState') || res.status !== 200) return res;
      return { ...res, body: { ...object(res.body), values: {} } };
    },
  },
  'state-empty-supersteps-ignored': {
    breaks: ['THREAD-STATE', 'THREAD-CREATE-SUPERSTEPS'],
    description: 'supersteps are accepted and ignored, and GET state answers empty values',
    request: (req) => {
      const { supersteps: _, ...body } = object(req.body);
      return calls(req, 'createThread') ? { ...req, body } : req;
    },
    response: (res, req) => (calls(req, 'getThreadState') && res.status === 200 ? { ...res, body: { ...object(res.body), values: {} } } : res),
  },
  'state-without-next': {
    breaks: ['THREAD-STATE-SHAPE'],
    description: 'state snapshots come without next',
    response: (res, req) =>
      calls(req, 'getThreadState') && res.status === 200 ? { ...res, body: (({ next: _next, ...rest }) => rest)(object(res.body)) } : res,
  },
  'checkpoint-ignored': {
    breaks: ['THREAD-STATE-CHECKPOINT'],
    description: 'state at a checkpoint answers the current state',
    request: (req) => {
      return calls(req, 'getThreadStateAtCheckpoint') && param(req, 'checkpoint_id') !== '00000000-0000-4000-8000-000000000000'
        ? redirect(req, 'getThreadState')
        : req;
    },
  },
  'unknown-checkpoint-200': {
    breaks: ['THREAD-STATE-CHECKPOINT-UNKNOWN'],
    description: 'an unknown checkpoint answers 200 with empty state (as the JS server does)',
    response: (res, req) => (calls(req, 'getThreadStateAtCheckpoint') && res.status === 404 ? json(200, { values: {}, next: [] }) : res),
  },
  'history-object': {
    breaks: ['THREAD-HISTORY'],
    description: 'history answers only its newest snapshot, not an array',
    response: (res, req) => (calls(req, 'getThreadHistory') && Array.isArray(res.body) ? { ...res, body: res.body[0] ?? {} } : res),
  },
  'history-oldest-first': {
    breaks: ['THREAD-HISTORY-ORDER'],
    description: 'history is oldest first',
    response: (res, req) => (calls(req, 'getThreadHistory') && Array.isArray(res.body) ? { ...res, body: [...res.body].reverse() } : res),
  },
  'unknown-thread-state-empty': {
    breaks: ['THREAD-UNKNOWN-404'],
    description: 'state of an unknown thread answers 200 with empty state',
    response: (res, req) => (calls(req, 'getThreadState') && res.status === 404 ? json(200, { values: {} }) : res),
  },
  'bad-json-500': {
    breaks: ['THREAD-BAD-INPUT', 'ERROR-BAD-INPUT-AGENT'],
    description: 'malformed JSON crashes thread creation',
    request: (req) => (calls(req, 'createThread') && typeof req.body === 'string' ? { status: 500, headers: {}, body: '' } : req),
  },
  'supersteps-merged': {
    breaks: ['THREAD-SUPERSTEPS-HISTORY'],
    description: 'all supersteps are applied as one checkpoint',
    request: (req) => {
      const body = object(req.body);
      if (!calls(req, 'createThread') || !Array.isArray(body.supersteps) || body.supersteps.length < 2) return req;
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
      return calls(req, 'createThread') && only.includes('"as_node":"__start__"') ? jsonError(422, 'unknown node __start__') : req;
    },
  },
  'start-node-ignored': {
    breaks: ['THREAD-SUPERSTEPS-AS-NODE'],
    description: 'a superstep of __start__ alone is accepted and dropped: the thread is created empty',
    request: (req) => {
      const body = object(req.body);
      const steps = body.supersteps;
      const only = Array.isArray(steps) && steps.length === 1 ? JSON.stringify(steps[0]) : '';
      return calls(req, 'createThread') && only.includes('"as_node":"__start__"') ? { ...req, body: { ...body, supersteps: [] } } : req;
    },
  },
  'history-empty-state-without-checkpoint': {
    breaks: ['RUN-WRITES-THREAD-HISTORY', 'THREAD-HISTORY', 'THREAD-STATE-SHAPE', 'THREAD-SUPERSTEPS-HISTORY'],
    description: 'history answers an empty array, and a state snapshot names no checkpoint (checkpoint null, no checkpoint ids)',
    response: (res, req) => {
      if (calls(req, 'getThreadHistory') && Array.isArray(res.body)) return { ...res, body: [] };
      if (!calls(req, 'getThreadState') || res.status !== 200) return res;
      const { checkpoint_id: _, parent_checkpoint_id: __, ...state } = object(res.body);
      return { ...res, body: { ...state, checkpoint: null, parent_checkpoint: null } };
    },
  },
  'search-sorts-by-thread-id': {
    breaks: ['THREAD-SEARCH-SORT'],
    description: 'thread search sorts by thread_id whatever sort_by names',
    request: (req) => {
      const other = oneOf('status', 'created_at', 'updated_at')(object(req.body).sort_by);
      return calls(req, 'searchThreads') && other ? { ...req, body: { ...object(req.body), sort_by: 'thread_id' } } : req;
    },
  },
  'search-finds-nothing': {
    // THREAD-SEARCH-STATUS cannot be judged: its tests find the threads by search first, and skip.
    breaks: ['THREAD-SEARCH-ARRAY', 'THREAD-SEARCH-DEFAULTS', 'THREAD-SEARCH-LIMIT', 'THREAD-SEARCH-METADATA'],
    description: 'thread search answers an empty array',
    response: (res, req) => (calls(req, 'searchThreads') && Array.isArray(res.body) ? { ...res, body: [] } : res),
  },
  'search-busy-finds-none': {
    breaks: ['THREAD-SEARCH-STATUS'],
    description: 'a search for busy threads answers none',
    request: (req) => (calls(req, 'searchThreads') && object(req.body).status === 'busy' ? json(200, []) : req),
  },
  'refused-array-still-creates': {
    breaks: ['THREAD-BAD-INPUT'],
    description: 'a thread body that is an array is refused with 422, yet its first item is created',
    // The front forwards the first item and marks it, so the answer can still say 422.
    request: (req) => {
      if (!calls(req, 'createThread') || !Array.isArray(req.body)) return req;
      return { ...req, headers: { ...req.headers, 'x-apc-array': '1' }, body: req.body[0] };
    },
    response: (res, req) => (calls(req, 'createThread') && req.headers['x-apc-array'] ? jsonError(422, 'the body must be an object') : res),
  },
  'copy-metadata-null': {
    breaks: ['THREAD-SHAPE', 'THREAD-CREATE-VALUES-METADATA'],
    description: 'a copy reads metadata null',
    // memory: the copies made, by thread id.
    response: (res, req, memory) => {
      const copied = object(res.body).thread_id;
      if (calls(req, 'copyThread') && res.status < 300 && typeof copied === 'string') memory.set(`copy:${copied}`, true);
      const copy = calls(req, 'getThread') && res.status === 200 && memory.has(`copy:${param(req, 'thread_id')}`);
      return copy ? { ...res, body: { ...object(res.body), metadata: null } } : res;
    },
  },
  'thread-config-without-configurable': {
    breaks: [],
    description: "a thread's config never holds configurable (§2.7 allows it)",
    response: (res, req) => {
      if (!calls(req, 'createThread', 'getThread', 'copyThread') || res.status >= 300) return res;
      const { configurable: _configurable, ...config } = object(object(res.body).config);
      return { ...res, body: { ...object(res.body), config } };
    },
  },
  'history-empty': {
    breaks: ['RUN-WRITES-THREAD-HISTORY', 'THREAD-HISTORY', 'THREAD-SUPERSTEPS-HISTORY'],
    description: 'history answers an empty array',
    response: (res, req) => (calls(req, 'getThreadHistory') && Array.isArray(res.body) ? { ...res, body: [] } : res),
  },
  'thread-values-stale': threadField('THREAD-CREATE-SUPERSTEPS', "a thread's values stay empty after supersteps", (t) => ({ ...t, values: {} })),
};
