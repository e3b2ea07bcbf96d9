// Errors broken at the agent server: the media type of answers, the error body, what a refusal
// leaves behind, and credentials.
import type { Mutation } from '../broken-target.ts';
import { calls, isRecord, jsonError, object } from './support.ts';

/** A header of the front's own, marking a request the front changed; the target ignores it. */
const MARK = 'x-apc-front-mark';
const INVALID_KEY = 'apc-invalid-key';

export const AGENT_ERROR_MUTATIONS: Record<string, Mutation> = {
  'thread-answers-text-json': {
    breaks: ['ERROR-JSON-PAYLOADS-AGENT'],
    description: 'thread and assistant answers are labelled text/json, not application/json',
    response: (res, req) =>
      calls(req, 'createThread', 'getThread', 'searchThreads', 'getThreadState', 'getThreadHistory', 'searchAssistants') && res.status < 300
        ? { ...res, headers: { ...res.headers, 'content-type': 'text/json' } }
        : res,
  },
  'refusals-text-plain': {
    // A refusal's body is a payload (§4: "Payloads are JSON unless stated"), and the SHOULD error shape and bad-input rules ask for a JSON error.
    breaks: ['ERROR-JSON-PAYLOADS-AGENT', 'ERROR-SHAPE-AGENT', 'ERROR-BAD-INPUT-AGENT'],
    description: 'agent-server refusals answer text/plain: a 4xx carries its message as a bare string',
    response: (res) => {
      if (res.status < 400 || res.status >= 500) return res;
      const { detail } = object(res.body);
      return { status: res.status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: typeof detail === 'string' ? detail : 'Not Found' };
    },
  },
  'error-message-not-detail': {
    breaks: ['ERROR-SHAPE-AGENT'],
    description: 'error bodies say what went wrong in message, not detail',
    response: (res) => {
      const { detail, ...body } = object(res.body);
      return res.status >= 400 && typeof detail === 'string' ? { ...res, body: { ...body, message: detail } } : res;
    },
  },
  'wait-without-assistant-still-runs': {
    breaks: ['ERROR-REFUSED-UNCHANGED-AGENT'],
    description: "a wait without assistant_id is refused with 422, yet run with the graph's default assistant",
    request: (req) => {
      const body = req.body;
      const runnable = calls(req, 'waitRun') && isRecord(body) && !('assistant_id' in body) && 'input' in body;
      return runnable ? { ...req, headers: { ...req.headers, [MARK]: 'no-assistant' }, body: { ...body, assistant_id: 'agent' } } : req;
    },
    response: (res, req) => (req.headers[MARK] === 'no-assistant' ? jsonError(422, 'assistant_id is required') : res),
  },
  'invalid-key-refused-after-writing': {
    breaks: ['AUTH-AGENT-MISSING-CREDENTIALS'],
    description: 'an invalid API key is refused with 401, but only after a write it asked for was made',
    keyedOnSecrets: true,
    request: (req) => (req.headers['x-api-key'] === INVALID_KEY && !calls(req, 'createThread') ? jsonError(401, 'Invalid API key') : req),
    response: (res, req) => (req.headers['x-api-key'] === INVALID_KEY ? jsonError(401, 'Invalid API key') : res),
  },
};
