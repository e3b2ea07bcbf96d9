// Conformant variants of threads, runs, streams and assistants: what §2.7–§2.10, §3 and §4.5 leave open.
import { contract } from '../../../specs/contract.ts';
import type { MutableRequest, MutableResponse } from '../broken-target.ts';
import { calls, isRecord, json, jsonError, object, param } from '../mutations/support.ts';
import type { Variant } from './variant.ts';

const STREAMS = ['streamRun', 'streamStatelessRun'];
/** The operations that answer a run record, or a list of them. */
const RUN_RECORDS = ['createRun', 'getRun', 'listRuns'];

/** A run record (or each of a list) with its status renamed where `rename` names it. */
function renamedStatus(body: unknown, rename: Record<string, string>): unknown {
  const one = (run: unknown) => (isRecord(run) && typeof run.status === 'string' && run.status in rename ? { ...run, status: rename[run.status] } : run);
  return Array.isArray(body) ? body.map(one) : one(body);
}

/** A stream request whose stream_mode is given in the form `refused` (a string, or a list), answered 422. */
function streamModeOnly(refused: 'string' | 'list'): (req: MutableRequest) => MutableRequest | MutableResponse {
  return (req) => {
    const mode = isRecord(req.body) ? req.body.stream_mode : undefined;
    const form = typeof mode === 'string' ? 'string' : Array.isArray(mode) ? 'list' : undefined;
    return calls(req, ...STREAMS) && form === refused ? jsonError(422, `stream_mode must be ${refused === 'string' ? 'a list' : 'a string'}`) : req;
  };
}

/** The id of an assistant another client of the deployment makes, and deletes again, while one search runs. */
const PASSING_ASSISTANT = '00000000-0000-4000-8000-0000000000c3';

/**
 * Assistants search as on a deployment another client shares: the second search of each test that answers
 * fewer assistants than its limit also answers, last, an assistant that client made just before and deleted
 * just after (the searches before and after it do not hold it). A test's searches are told by its partition.
 */
const answersAPassingAssistant: NonNullable<Variant['response']> = (res, req, memory) => {
  const limit = isRecord(req.body) ? req.body.limit : undefined;
  if (!calls(req, 'searchAssistants') || res.status !== 200 || !Array.isArray(res.body) || res.body.length === 0) return res;
  if (typeof limit !== 'number' || res.body.length >= limit) return res;
  const key = `searches ${req.headers[contract().partitionHeader.name] ?? ''}`;
  const searches = ((memory.get(key) as number | undefined) ?? 0) + 1;
  memory.set(key, searches);
  const last = res.body[res.body.length - 1];
  return searches === 2 && isRecord(last) ? { ...res, body: [...res.body, { ...last, assistant_id: PASSING_ASSISTANT, name: 'another client' }] } : res;
};

export const AGENT_SERVER_RUN_VARIANTS: Record<string, Variant> = {
  'agent-server-assistant-passes-during-search': {
    description: 'the second search of each test also answers an assistant that another client made just before it and deleted just after',
    allowedBy:
      "§4.5: a search answers the assistants there are; a deployment is shared by its clients, which create and delete assistants (the service's POST and DELETE /assistants, which §4.5 does not show) at any time",
    response: answersAPassingAssistant,
  },
  'agent-server-stream-mode-list-only': {
    description: 'the streaming endpoints take stream_mode only as a list of modes: a string is refused with 422',
    allowedBy: '§4.5: "Stream `stream_mode` value `events` is used with streaming" names the value, not its type; the stream body is "same body as create run"',
    request: streamModeOnly('string'),
  },
  'agent-server-stream-mode-string-only': {
    description: 'the streaming endpoints take stream_mode only as one mode, a string: a list is refused with 422',
    allowedBy: '§4.5: "Stream `stream_mode` value `events` is used with streaming" names one value, and no list of them',
    request: streamModeOnly('list'),
  },
  'agent-server-join-answers-run-record': {
    description: 'join answers, once the run has ended, a summary of the run (run_id, thread_id, status), not the thread values',
    allowedBy: '§4.5: "Returns once the run has completed"; "Response formats of copy, stream, wait, join and assistants search: not shown"',
    response: (res, req) =>
      calls(req, 'joinRun') && res.status === 200
        ? json(200, { run_id: param(req, 'run_id'), thread_id: param(req, 'thread_id'), status: '__error__' in object(res.body) ? 'error' : 'success' })
        : res,
  },
  'agent-server-wait-answers-wrapped': {
    description: 'wait, stateful and stateless, answers its result wrapped as {output: <values>}',
    allowedBy: '§4.5: wait answers the "result after completion"; "Response formats of copy, stream, wait, join and assistants search: not shown"',
    response: (res, req) => (calls(req, 'waitRun', 'waitStatelessRun') && res.status === 200 ? { ...res, body: { output: res.body } } : res),
  },
  'agent-server-copy-answers-id-only': {
    description: 'copy answers only the new thread id, {thread_id}',
    allowedBy: '§4.5: copy answers "a new, independent thread"; "Response formats of copy, stream, wait, join and assistants search: not shown"',
    response: (res, req) => (calls(req, 'copyThread') && res.status === 200 ? { ...res, body: { thread_id: object(res.body).thread_id } } : res),
  },
  'agent-server-unknown-ids-400': {
    description: 'an id that names nothing (thread, run, checkpoint, assistant) is answered 400, not 404',
    allowedBy: '§7: "Status codes for missing or invalid credentials, unknown ids and rate-limit rejections: not shown"',
    response: (res, req) => (req.operation !== undefined && res.status === 404 ? { ...res, status: 400 } : res),
  },
  'agent-server-run-answer-id-only': {
    description: 'run creation answers only {run_id}',
    allowedBy: '§4.5: "Run including `run_id`"; "the run response beyond `run_id`: not shown"',
    response: (res, req) => (calls(req, 'createRun') && res.status === 200 ? { ...res, body: { run_id: object(res.body).run_id } } : res),
  },
  'agent-server-run-statuses-renamed': {
    description: 'a run waiting to start reads queued, not pending, and a running run reads in_progress',
    allowedBy: '§3: "Run `status`: success and error are given as final values"; "Run: the complete set of statuses ...: not shown"',
    response: (res, req) =>
      calls(req, ...RUN_RECORDS) && res.status === 200 ? { ...res, body: renamedStatus(res.body, { pending: 'queued', running: 'in_progress' }) } : res,
  },
  'agent-server-assistants-id-and-config-only': {
    description: 'the assistants search answers each assistant with assistant_id and config only',
    allowedBy: '§2.10: "Assistants have a `config` field (null or an object). Other fields of an assistant: not shown"',
    response: (res, req) =>
      calls(req, 'searchAssistants') && Array.isArray(res.body)
        ? { ...res, body: res.body.map((a) => ({ assistant_id: object(a).assistant_id, config: object(a).config })) }
        : res,
  },
  'agent-server-creates-201': {
    description: 'a request that creates a thread, a copy or a run answers 201 Created',
    allowedBy: '§4.5 names no success status for any endpoint',
    response: (res, req) => (calls(req, 'createThread', 'copyThread', 'createRun') && res.status === 200 ? { ...res, status: 201 } : res),
  },
};
