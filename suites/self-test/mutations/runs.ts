// Runs broken at the agent server: creation, multitask strategies, waiting, assistants and streams.
import type { Mutation } from '../broken-target.ts';
import { calls, integerFrom, json, jsonError, object } from './support.ts';

export const RUN_MUTATIONS: Record<string, Mutation> = {
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
    response: (res, req) =>
      calls(req, 'createRun') && res.status === 404 && /thread/i.test(String(object(res.body).detail)) ? { ...res, status: 422 } : res,
  },
  'run-list-ignores-status': {
    breaks: ['RUN-LIST'],
    description: 'the run list ignores its status filter',
    request: (req) => (calls(req, 'listRuns') && req.path.includes('?') ? { ...req, path: req.path.replace(/status=[^&]*&?/, '') } : req),
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
      return calls(req, 'searchAssistants') && res.status === 200 && Array.isArray(res.body) && integerFrom(1)(limit) ? { ...res, body: res.body.slice(0, (limit as number) - 1) } : res;
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
