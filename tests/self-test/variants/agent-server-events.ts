// Conformant variants of the agent server's events, errors, multitask refusals, thread search and
// crons: what §4.5, §6 and §7 leave open. Each differs from the simulator only there.
import { randomUUID } from 'node:crypto';
import type { MutableRequest, MutableResponse } from '../broken-target.ts';
import { calls, isRecord, jsonError, object, type Json } from '../mutations/support.ts';
import type { Variant } from './variant.ts';

/** The operations that create a run and take multitask_strategy (§4.5: the same body as create run). */
const RUN_CREATES = ['createRun', 'streamRun', 'waitRun'];
/** The date-time fields of the webhook payload (§6). */
const PAYLOAD_TIMES = ['created_at', 'updated_at', 'run_started_at', 'run_ended_at', 'webhook_sent_at'];

/** A thread as answered (thread_id, created_at, updated_at), not a run, a cron or a webhook payload, which name a thread too. */
const isThread = (value: unknown): value is Json =>
  isRecord(value) &&
  typeof value.thread_id === 'string' &&
  typeof value.created_at === 'string' &&
  'updated_at' in value &&
  !('run_id' in value) &&
  !('cron_id' in value);

/** A delivery with headers added. */
const withHeaders =
  (headers: (req: MutableRequest) => Record<string, string>) =>
  (req: MutableRequest): MutableRequest => ({ ...req, headers: { ...req.headers, ...headers(req) } });

/** The receiver's answer as the sending server sees it. */
const answered = (status: number): MutableResponse => ({ status, headers: {}, body: undefined });

export const AGENT_SERVER_EVENT_VARIANTS: Record<string, Variant> = {
  'agent-server-webhook-no-retry': {
    description: 'a delivery the receiver answers with a 5xx or 429 is not tried again',
    allowedBy: '§6: "Retry behaviour, payload signing and the response the receiver must give: not shown"',
    deliveryAnswer: (res) => (res.status >= 500 || res.status === 429 ? answered(200) : res),
  },
  'agent-server-webhook-retries-4xx': {
    description: 'a delivery the receiver answers with any 4xx is tried again, as a 5xx is',
    allowedBy: '§6: "Retry behaviour ... : not shown"',
    deliveryAnswer: (res) => (res.status >= 400 && res.status < 500 && res.status !== 429 ? answered(503) : res),
  },
  'agent-server-webhook-answer-ignored': {
    description: "the receiver's answer is ignored: whatever it says, the delivery counts as done",
    allowedBy: '§6: "... and the response the receiver must give: not shown"',
    deliveryAnswer: () => answered(200),
  },
  'agent-server-webhook-signed': {
    description: 'each delivery is signed: webhook-id, webhook-timestamp and webhook-signature headers (an HMAC of the body)',
    allowedBy: '§6: "Retry behaviour, payload signing ... : not shown"',
    delivery: withHeaders((req) => ({
      'webhook-id': `msg_${randomUUID()}`,
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': `v1,${Buffer.from(JSON.stringify(req.body ?? ''))
        .toString('base64')
        .slice(0, 44)}`,
    })),
  },
  'agent-server-webhook-extra-headers': {
    description: 'each delivery carries headers of the server own: a user-agent, a request id and an accept header',
    allowedBy: '§6: the delivery is "an HTTP POST to that URL with a JSON body", and webhooks.headers are added to it; no section says it carries no others',
    delivery: withHeaders(() => ({ 'user-agent': 'apc-variant-agent-server/1.0', 'x-request-id': randomUUID(), accept: '*/*' })),
  },
  'agent-server-webhook-times-offset': {
    description: "the payload's date-times are written with a +00:00 offset, not Z",
    allowedBy: '§6: the payload\'s times are "string (datetime)"; RFC 3339 writes UTC as Z or +00:00',
    delivery: (req) => {
      const body = object(req.body);
      const times = PAYLOAD_TIMES.filter((f) => typeof body[f] === 'string').map((f) => [f, String(body[f]).replace(/Z$/i, '+00:00')]);
      return { ...req, body: { ...body, ...Object.fromEntries(times) } };
    },
  },
  'agent-server-reject-409-body': {
    description: 'the 409 of reject says what went wrong in error and message, not detail',
    allowedBy: '§7: "Error body of 409: not shown"',
    response: (res, req) =>
      calls(req, ...RUN_CREATES) && res.status === 409
        ? { status: 409, headers: { 'content-type': 'application/json' }, body: { error: 'ThreadBusy', message: 'the thread already has a run in progress' } }
        : res,
  },
  'agent-server-unknown-id-400': {
    description: 'an id the server does not know (a thread, a run, a checkpoint, an assistant, a cron) is answered 400, not 404',
    allowedBy: '§7: "Status codes for missing or invalid credentials, unknown ids and rate-limit rejections: not shown"',
    response: (res, req) => (req.operation && res.status === 404 ? { ...res, status: 400 } : res),
  },
  'agent-server-sort-order-uppercase': {
    description: 'thread search takes sort_order only as ASC or DESC, and refuses any other value with 422',
    allowedBy: '§4.5: "Allowed values of `sort_order`: not shown"',
    request: (req) => {
      const body = object(req.body);
      if (!calls(req, 'searchThreads') || !('sort_order' in body)) return req;
      if (body.sort_order === 'ASC' || body.sort_order === 'DESC') return { ...req, body: { ...body, sort_order: body.sort_order.toLowerCase() } };
      return jsonError(422, `sort_order must be ASC or DESC, not ${JSON.stringify(body.sort_order)}`);
    },
  },
  'agent-server-thread-updated-at-fixed': {
    description: "a thread's updated_at is its created_at: runs do not move it (and search sorts by it so)",
    allowedBy: '§2.7: a thread has updated_at, a datetime; no section says what moves it',
    request: (req) => {
      const body = object(req.body);
      return calls(req, 'searchThreads') && body.sort_by === 'updated_at' ? { ...req, body: { ...body, sort_by: 'created_at' } } : req;
    },
    response: (res) => {
      const fixed = (v: unknown) => (isThread(v) ? { ...v, updated_at: v.created_at } : v);
      return { ...res, body: Array.isArray(res.body) ? res.body.map(fixed) : fixed(res.body) };
    },
  },
  'agent-server-cron-answers-ids-only': {
    description: 'the cron endpoints answer a cron as its ids alone: cron_id, thread_id and assistant_id',
    allowedBy: '§4.5: "Bodies of the cron endpoints: not shown"',
    response: (res, req) => {
      if (!calls(req, 'createCron', 'createThreadCron', 'searchCrons') || res.status >= 300) return res;
      const ids = (c: unknown) => {
        const { cron_id, thread_id, assistant_id } = object(c);
        return { cron_id, thread_id, assistant_id };
      };
      return { ...res, body: Array.isArray(res.body) ? res.body.map(ids) : ids(res.body) };
    },
  },
};
