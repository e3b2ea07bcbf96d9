// Runs broken at the agent server: what creation takes and answers, and how a run reads afterwards.
import { contract } from '../../../specs/contract.ts';
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { calls, crash, json, jsonError, object, param, redirect, UUID } from './support.ts';

const CREATES = ['createRun', 'streamRun', 'waitRun'];
/** The statuses the spec names final (success and error), which RUN-STATUS-FINAL says a run keeps. */
const FINAL: string[] = contract().runStatuses.final;

/** Run creation refuses a known assistant UUID with 404: it takes graph ids only. */
function byGraphIdOnly(req: MutableRequest): MutableRequest | MutableResponse {
  const id = object(req.body).assistant_id;
  return calls(req, ...CREATES) && typeof id === 'string' && UUID.test(id) && id !== '00000000-0000-4000-8000-000000000000'
    ? jsonError(404, `Assistant ${id} not found`)
    : req;
}

export const RUN_LIFECYCLE_MUTATIONS: Record<string, Mutation> = {
  'run-create-creates-nothing': {
    breaks: ['RUN-CREATE'],
    description: 'POST /threads/{thread_id}/runs answers a pending run under a run_id of its own, and creates none',
    request: (req) =>
      calls(req, 'createRun')
        ? json(200, {
            run_id: '11111111-1111-4111-8111-111111111111',
            thread_id: param(req, 'thread_id'),
            status: 'pending',
            metadata: {},
            multitask_strategy: 'enqueue',
          })
        : req,
  },
  'run-created-at-epoch': {
    // The shape test holds the created run to the Run schema.
    breaks: ['RUN-SHAPE'],
    description: "a created run's answer gives created_at in epoch milliseconds, not a date-time",
    response: (res, req) => {
      const run = object(res.body);
      return calls(req, 'createRun') && res.status < 300 ? { ...res, body: { ...run, created_at: Date.parse(String(run.created_at)) } } : res;
    },
  },
  'run-by-assistant-uuid-404': {
    breaks: ['RUN-CREATE-ASSISTANT-ID'],
    description: 'a run names its assistant by graph id only: a known assistant UUID answers 404',
    request: byGraphIdOnly,
  },
  'run-by-assistant-uuid-404-unreadable': {
    // Assistants are then known by their search alone (§4.5), which names their UUIDs.
    breaks: ['RUN-CREATE-ASSISTANT-ID', 'ASSISTANT-GET', 'ASSISTANT-SHAPE'],
    description: 'a run names its assistant by graph id only (a known assistant UUID answers 404), and no assistant can be read one by one',
    request: (req) => (calls(req, 'getAssistant') ? jsonError(404, 'Not Found') : byGraphIdOnly(req)),
  },
  'run-invalid-assistant-500': {
    breaks: ['RUN-CREATE-UNKNOWN-ASSISTANT'],
    description: 'an assistant_id that is neither a UUID nor a graph id crashes run creation',
    response: (res, req) => {
      const id = object(req.body).assistant_id;
      return calls(req, ...CREATES) && res.status === 422 && typeof id === 'string' && !UUID.test(id) && id !== 'agent' ? crash : res;
    },
  },
  'run-metadata-not-object-ignored': {
    breaks: ['RUN-CREATE-BAD-INPUT'],
    description: 'run metadata that is not an object is dropped and the run created',
    request: (req) => {
      const { metadata, ...body } = object(req.body);
      const notObject = metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata));
      return calls(req, ...CREATES) && notObject ? { ...req, body } : req;
    },
  },
  'run-get-loses-metadata': {
    // The payload test compares the notification with the run as read, whose metadata is then wrong.
    breaks: ['RUN-GET', 'WEBHOOK-PAYLOAD-RUN-RECORD'],
    description: "GET /threads/{thread_id}/runs/{run_id} answers the run with empty metadata, not the caller's",
    response: (res, req) => (calls(req, 'getRun') && res.status === 200 ? { ...res, body: { ...object(res.body), metadata: {} } } : res),
  },
  'run-get-without-kwargs': {
    breaks: ['RUN-SHAPE'],
    description: 'a run as read comes without kwargs',
    response: (res, req) => (calls(req, 'getRun') && res.status === 200 ? { ...res, body: (({ kwargs: _kwargs, ...run }) => run)(object(res.body)) } : res),
  },
  'run-created-status-queued': {
    breaks: ['RUN-STATUS-VALUES'],
    description: "a created run's answer gives its status as queued, which is no run status",
    response: (res, req) => (calls(req, 'createRun') && res.status < 300 ? { ...res, body: { ...object(res.body), status: 'queued' } } : res),
  },
  'run-status-regresses': {
    breaks: ['RUN-STATUS-FINAL'],
    description: 'a finished run reads pending again once a later run is created on its thread (its record is reused)',
    // memory: `created:<thread>` counts the runs created on a thread; `final:<run>` how many there were when it read final.
    response: (res, req, memory) => {
      const thread = param(req, 'thread_id') ?? '';
      const count = (memory.get(`created:${thread}`) as number | undefined) ?? 0;
      if (calls(req, ...CREATES) && res.status < 300) memory.set(`created:${thread}`, count + 1);
      if (!calls(req, 'getRun') || res.status !== 200 || !FINAL.includes(String(object(res.body).status))) return res;
      const key = `final:${param(req, 'run_id')}`;
      if (!memory.has(key)) memory.set(key, count);
      return count > (memory.get(key) as number) ? { ...res, body: { ...object(res.body), status: 'pending' } } : res;
    },
  },
  'run-get-ignores-thread': {
    breaks: ['RUN-GET-UNKNOWN-404'],
    description: 'a run is found by its id under any thread',
    request: (req, memory) => {
      const owner = memory.get(`thread-of:${param(req, 'run_id')}`);
      return calls(req, 'getRun') && typeof owner === 'string' ? redirect(req, 'getRun', { thread_id: owner }) : req;
    },
    response: (res, req, memory) => {
      const run = object(res.body);
      if (calls(req, ...CREATES) && res.status < 300 && typeof run.run_id === 'string') memory.set(`thread-of:${run.run_id}`, run.thread_id);
      return res;
    },
  },
  'malformed-run-id-500': {
    // ERROR-BAD-INPUT-AGENT is the general rule RUN-ID-MALFORMED is a case of.
    breaks: ['RUN-ID-MALFORMED', 'ERROR-BAD-INPUT-AGENT'],
    description: 'a malformed run id crashes the server',
    request: (req) => (calls(req, 'getRun') && !UUID.test(param(req, 'run_id') ?? '') ? crash : req),
  },
  'run-no-content-location': {
    breaks: ['RUN-CONTENT-LOCATION'],
    description: 'run-creating answers carry no Content-Location',
    response: (res, req) => {
      if (!calls(req, 'createRun', 'waitRun', 'waitStatelessRun')) return res;
      const { 'content-location': _location, ...headers } = res.headers;
      return { ...res, headers };
    },
  },
};
