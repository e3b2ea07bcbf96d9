// Assistants broken at the agent server: reading one, searching them, and the ids that name them.
import type { Mutation } from '../broken-target.ts';
import { calls, json, object, param, redirect, UUID } from './support.ts';

/** A UUID in its 32-hex-digit form, without hyphens. */
const HEX_ID = /^[0-9a-f]{32}$/i;
const hyphenated = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** A copy of `value` with every `assistant_id` string, at any depth, changed. */
function assistantIds(value: unknown, change: (id: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => assistantIds(item, change));
  if (!value || typeof value !== 'object') return value;
  const changed = (key: string, v: unknown) => (key === 'assistant_id' && typeof v === 'string' ? change(v) : assistantIds(v, change));
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, changed(key, v)]));
}
const toHex = (id: string) => (UUID.test(id) ? id.replaceAll('-', '') : id);
const fromHex = (id: string) => (HEX_ID.test(id) ? hyphenated(id) : id);

export const ASSISTANT_MUTATIONS: Record<string, Mutation> = {
  'assistant-get-other-id': {
    breaks: ['ASSISTANT-GET'],
    description: 'GET /assistants/{uuid} answers the assistant under another id (a version id in place of the assistant id)',
    response: (res, req) => {
      if (!calls(req, 'getAssistant') || res.status !== 200 || !UUID.test(param(req, 'assistant_id') ?? '')) return res;
      const id = String(object(res.body).assistant_id);
      return { ...res, body: { ...object(res.body), assistant_id: `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}` } };
    },
  },
  'unknown-assistant-400': {
    breaks: ['ASSISTANT-GET-UNKNOWN-404'],
    description: 'an unknown assistant answers 400',
    response: (res, req) => (calls(req, 'getAssistant') && res.status === 404 ? { ...res, status: 400 } : res),
  },
  'assistant-search-wrapped': {
    breaks: ['ASSISTANT-SEARCH'],
    description: 'assistant search answers {assistants: [...]} instead of an array',
    response: (res, req) => (calls(req, 'searchAssistants') && res.status === 200 ? { ...res, body: { assistants: res.body } } : res),
  },
  'assistant-search-accepts-bogus': {
    // The bad-input property sends bodies of wrong types to the search among other endpoints.
    breaks: ['ASSISTANT-SEARCH-INVALID', 'ERROR-BAD-INPUT-AGENT'],
    description: 'assistant search answers 200 [] to an invalid limit or offset',
    response: (res, req) => (calls(req, 'searchAssistants') && res.status === 422 ? json(200, []) : res),
  },
  'assistant-ids-unhyphenated': {
    breaks: ['ASSISTANT-ID-UUID'],
    description: 'assistants are named by 32 hex digits, not UUIDs, wherever the server answers or takes an assistant id',
    request: (req) => {
      const id = param(req, 'assistant_id');
      const named = calls(req, 'getAssistant') && id && HEX_ID.test(id) ? redirect(req, 'getAssistant', { assistant_id: hyphenated(id) }) : req;
      return { ...named, body: assistantIds(req.body, fromHex) };
    },
    response: (res) => ({ ...res, body: assistantIds(res.body, toHex) }),
    stream: (text, headers) => ({
      text: text.replace(/("assistant_id": ?")([0-9a-f-]{36})"/gi, (_all, key: string, id: string) => `${key}${toHex(id)}"`),
      headers,
    }),
    delivery: (req) => ({ ...req, body: assistantIds(req.body, toHex) }),
  },
  'assistant-delete-keeps': {
    breaks: ['ASSISTANT-DELETE'],
    description: 'DELETE /assistants/{assistant_id} answers 204 and deletes nothing',
    request: (req) => (calls(req, 'deleteAssistant') ? { status: 204, headers: {}, body: undefined } : req),
  },
  'assistant-update-same-version': {
    breaks: ['ASSISTANT-UPDATE'],
    description: 'an updated assistant keeps its version',
    response: (res, req) =>
      calls(req, 'updateAssistant') && res.status < 300 ? { ...res, body: { ...object(res.body), version: Number(object(res.body).version) - 1 } } : res,
  },
  'run-assistant-as-given': {
    breaks: ['ASSISTANT-GRAPH-ID-DEFAULT'],
    description: "a run created by graph id names the graph id as its assistant, not the graph's default assistant",
    response: (res, req) => {
      const given = object(req.body).assistant_id;
      if (!calls(req, 'createRun') || res.status >= 300 || typeof given !== 'string' || UUID.test(given)) return res;
      return { ...res, body: { ...object(res.body), assistant_id: given } };
    },
  },
};
