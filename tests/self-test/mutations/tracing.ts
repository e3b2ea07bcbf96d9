// Trace ingestion broken (§2.5, §4.3). The front passes multipart bodies through unchanged, so the
// multipart mutations change what later JSON reads answer about runs no JSON request named.
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { calls, json, jsonError, object, param, UUID, type Json } from './support.ts';

const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Notes every id a JSON ingestion names (path or body, refused or not): runs with other ids came by multipart. */
function noteNamed(req: MutableRequest, memory: Map<string, unknown>): MutableRequest {
  if (!calls(req, 'createRun', 'updateRun', 'ingestRunsBatch')) return req;
  const text = `${req.path} ${typeof req.body === 'string' ? req.body : JSON.stringify(req.body ?? null)}`;
  for (const id of text.match(UUIDS) ?? []) memory.set(`named:${id.toLowerCase()}`, true);
  return req;
}

/** A run read back that only a multipart request can have ingested. */
function multipartRead(res: MutableResponse, req: MutableRequest, memory: Map<string, unknown>): Json | undefined {
  const run = object(res.body);
  if (!calls(req, 'readRun') || res.status !== 200 || typeof run.id !== 'string' || memory.has(`named:${run.id.toLowerCase()}`)) return undefined;
  return run;
}

/** Changes a multipart-ingested run as reads answer it. */
function multipartRuns(change: (run: Json) => Json): Pick<Mutation, 'request' | 'response'> {
  return {
    request: noteNamed,
    response: (res, req, memory) => {
      const run = multipartRead(res, req, memory);
      return run ? { ...res, body: change(run) } : res;
    },
  };
}

/**
 * A run persisted late: the first `reads` reads of a run `late` picks answer 404, then it reads as
 * stored. Reads are counted, not time, so it behaves the same on a virtual clock.
 */
function readableAfter(reads: number, late: (run: Json) => boolean): Pick<Mutation, 'response'> {
  return {
    response: (res, req, memory) => {
      const id = calls(req, 'readRun') ? param(req, 'run_id')?.toLowerCase() : undefined;
      if (!id || res.status !== 200 || !late(object(res.body))) return res;
      const seen = Number(memory.get(`reads:${id}`) ?? 0);
      if (seen >= reads) return res;
      memory.set(`reads:${id}`, seen + 1);
      return jsonError(404, 'Run not found');
    },
  };
}

/** Where a run's unreadable time is taken to be. */
const DEFAULT_TIME = '2026-01-01T00:00:00.000Z';

const segments = (run: Json) => (typeof run.dotted_order === 'string' ? run.dotted_order.split('.') : []);

export const TRACING_MUTATIONS: Record<string, Mutation> = {
  'create-requires-id': {
    endpoint: 'platform-api',
    breaks: ['TRACE-CREATE-GENERATES-ID'],
    description: 'POST /runs refuses a named run without an id (422)',
    // A named run: the rate-limit suites' bodiless requests still reach the target and are counted there.
    request: (req) =>
      calls(req, 'createRun') && typeof object(req.body).name === 'string' && object(req.body).id === undefined ? jsonError(422, 'a run needs its id') : req,
  },
  'stats-count-all-runs': {
    endpoint: 'platform-api',
    breaks: ['TRACE-STATS'],
    description: 'POST /runs/stats counts one run more than its query selects',
    response: (res, req) =>
      calls(req, 'runStats') && res.status === 200 && typeof object(res.body).run_count === 'number'
        ? { ...res, body: { ...object(res.body), run_count: (object(res.body).run_count as number) + 1 } }
        : res,
  },
  'runs-v2-query-answers-none': {
    endpoint: 'platform-api',
    breaks: ['TRACE-RUNS-V2'],
    description: 'POST /api/v2/runs/query answers no run, whatever it selects',
    response: (res, req) => (calls(req, 'queryRunsV2') && res.status === 200 ? { ...res, body: { items: [], next_cursor: null } } : res),
  },
  'project-delete-ignored': {
    endpoint: 'platform-api',
    breaks: ['TRACE-PROJECTS'],
    description: 'DELETE /sessions/{id} answers 202 and deletes nothing',
    request: (req) => (calls(req, 'deleteSession') ? json(202, { message: 'Session deleted' }) : req),
  },
  'create-drops-string-inputs': {
    endpoint: 'platform-api',
    breaks: ['TRACE-CREATE'],
    description: 'POST /runs keeps only the inputs whose values are not strings',
    request: (req) => {
      const body = object(req.body);
      if (!calls(req, 'createRun') || typeof body.inputs !== 'object' || body.inputs === null) return req;
      return { ...req, body: { ...body, inputs: Object.fromEntries(Object.entries(object(body.inputs)).filter(([, v]) => typeof v !== 'string')) } };
    },
  },
  'tool-runs-without-lineage': {
    endpoint: 'platform-api',
    breaks: ['TRACE-READ-RUN'],
    description: 'a tool run reads back without trace_id and dotted_order: the service computes them for chain and llm runs only',
    response: (res, req) => {
      const { trace_id: _t, dotted_order: _d, ...run } = object(res.body);
      return calls(req, 'readRun') && res.status === 200 && run.run_type === 'tool' ? { ...res, body: run } : res;
    },
  },
  'batch-answers-200': {
    endpoint: 'platform-api',
    breaks: ['TRACE-ACCEPTED-202'],
    description: 'POST /runs/batch answers 200, not 202',
    response: (res, req) => (calls(req, 'ingestRunsBatch') && res.status === 202 ? { ...res, status: 200 } : res),
  },
  'batch-ignores-patch': {
    endpoint: 'platform-api',
    breaks: ['TRACE-BATCH'],
    description: 'POST /runs/batch ingests its post list and ignores its patch list',
    request: (req) => {
      const { patch: _ignored, ...body } = object(req.body);
      return calls(req, 'ingestRunsBatch') && Array.isArray(object(req.body).patch) ? { ...req, body } : req;
    },
  },
  'feedback-drops-score': {
    endpoint: 'platform-api',
    breaks: ['TRACE-FEEDBACK'],
    description: 'POST /feedback accepts a feedback and drops its score',
    request: (req) => {
      const { score: _dropped, ...body } = object(req.body);
      return calls(req, 'createFeedback') && 'score' in object(req.body) ? { ...req, body } : req;
    },
  },
  'run-id-v7-only': {
    endpoint: 'platform-api',
    breaks: ['TRACE-RUN-ID-UUID'],
    description: 'POST /runs refuses a run id that is a UUID of another version than 7',
    request: (req) => {
      const id = object(req.body).id;
      return calls(req, 'createRun') && typeof id === 'string' && UUID.test(id) && id[14] !== '7' ? jsonError(422, 'run id must be a UUID v7') : req;
    },
  },
  'patch-of-parent-dropped': {
    endpoint: 'platform-api',
    breaks: ['TRACE-FLOW-BASIC'],
    description: 'PATCH /runs/{id} of a run that has a child answers 202 and drops the update',
    request: (req, memory) => {
      const parent = object(req.body).parent_run_id;
      if (calls(req, 'createRun') && typeof parent === 'string') memory.set(`parent:${parent.toLowerCase()}`, true);
      const id = calls(req, 'updateRun') ? req.params?.run_id?.toLowerCase() : undefined;
      return id && memory.has(`parent:${id}`) ? json(202, { message: 'Run updated' }) : req;
    },
  },
  'create-takes-bad-time-as-now': {
    endpoint: 'platform-api',
    breaks: ['TRACE-BAD-INPUT'],
    description: 'POST /runs replaces a start_time that is no time with a default time instead of refusing it',
    request: (req) => {
      const body = object(req.body);
      const bad = typeof body.start_time === 'string' && Number.isNaN(Date.parse(body.start_time));
      return calls(req, 'createRun') && bad ? { ...req, body: { ...body, start_time: DEFAULT_TIME } } : req;
    },
  },
  'multipart-grandchildren-lose-inputs': {
    endpoint: 'platform-api',
    breaks: ['TRACE-MULTIPART'],
    description: 'a multipart request applies the inputs parts of runs up to one level below the root: deeper runs read back with inputs null',
    ...multipartRuns((run) => (segments(run).length > 2 ? { ...run, inputs: null } : run)),
  },
  'multipart-trace-id-of-parent': {
    endpoint: 'platform-api',
    breaks: ['TRACE-MULTIPART-CALLER-ORDER'],
    description: "a multipart run below a child reads back with its parent's id as trace_id, not the caller's",
    ...multipartRuns((run) => (typeof run.parent_run_id === 'string' && run.parent_run_id !== run.trace_id ? { ...run, trace_id: run.parent_run_id } : run)),
  },
  'multipart-fraction-padded': {
    endpoint: 'platform-api',
    breaks: ['TRACE-DOTTED-ORDER-FRACTION'],
    description: 'a multipart dotted_order segment with 1 or 2 fraction digits reads back padded to milliseconds, not as sent',
    ...multipartRuns((run) =>
      typeof run.dotted_order === 'string'
        ? { ...run, dotted_order: run.dotted_order.replace(/(\d{8}T\d{6})(\d{1,2})Z/g, (_, whole: string, f: string) => `${whole}${f.padEnd(3, '0')}Z`) }
        : run,
    ),
  },
  'multipart-patch-outputs-lost': {
    endpoint: 'platform-api',
    // The layout tests post, then patch too: they lose the same outputs.
    breaks: ['TRACE-FLOW-BATCH', 'TRACE-MULTIPART-LAYOUT'],
    description: 'a multipart patch sets end_time but drops its outputs part',
    ...multipartRuns((run) => (run.end_time !== null && run.end_time !== undefined ? { ...run, outputs: null } : run)),
  },
  'unknown-runs-found': {
    endpoint: 'platform-api',
    // A refused multipart request's runs are unknown ids like the EU region's: the front cannot tell them apart.
    breaks: ['TRACE-MULTIPART-CONSISTENT', 'TRACE-BAD-INPUT', 'REGION-DATA-RESIDENCY'],
    description: 'a read of a UUID v7 run that no JSON ingestion named answers a run, as if a refused multipart request had ingested it',
    request: noteNamed,
    response: (res, req, memory) => {
      const id = calls(req, 'readRun') ? req.params?.run_id?.toLowerCase() : undefined;
      if (!id || res.status !== 404 || !UUID.test(id) || id[14] !== '7' || memory.has(`named:${id}`)) return res;
      return json(200, { id, trace_id: id, name: 'ingested', run_type: 'chain', inputs: {}, outputs: null });
    },
  },
  'runs-readable-late': {
    endpoint: 'platform-api',
    // Reads of what a test wrote poll as a user of an eventually consistent service does: a run persisted a moment late breaks nothing.
    breaks: [],
    description: 'a trace run is readable only a moment after it was written: the first two reads of each run answer 404',
    ...readableAfter(2, () => true),
  },
  'session-feedback-unreadable-by-id': {
    endpoint: 'platform-api',
    breaks: ['TRACE-READ-FEEDBACK'],
    description: 'GET /feedback/{id} answers 404 for feedback that GET /feedback?session= lists: it reads only feedback of runs',
    response: (res, req, memory) => {
      if (calls(req, 'listFeedback') && /[?&]session=/.test(req.path) && Array.isArray(res.body))
        for (const f of res.body) memory.set(`session-feedback:${String(object(f).id).toLowerCase()}`, true);
      const id = calls(req, 'readFeedback') ? param(req, 'feedback_id')?.toLowerCase() : undefined;
      return id && memory.has(`session-feedback:${id}`) ? jsonError(404, 'Feedback not found') : res;
    },
  },
  'tool-runs-never-readable': {
    endpoint: 'platform-api',
    // The same lag that never ends, for tool runs (only TRACE-READ-RUN's test posts one): polling gives up at the deadline and fails the rule.
    breaks: ['TRACE-READ-RUN'],
    description: 'a tool run is never readable: every read of it answers 404',
    ...readableAfter(Number.POSITIVE_INFINITY, (run) => run.run_type === 'tool'),
  },
};
