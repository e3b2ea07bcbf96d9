// Webhook deliveries broken between the server and the receiver.
import { EMBEDDED_RECEIVER_URL } from '../../../harness/target.ts';
import type { MutableRequest, Mutation } from '../broken-target.ts';
import { allowedHost, calls, object, param, type Json } from './support.ts';

/** The operations that take `webhook` and notify it (§6a). */
const EMITTING = ['createRun', 'streamRun', 'waitRun', 'streamStatelessRun', 'waitStatelessRun', 'createCron', 'createThreadCron'];

/** A webhook payload changed on its way to the receiver. */
const payload =
  (change: (payload: Json) => Json) =>
  (req: MutableRequest): MutableRequest => ({ ...req, body: change(object(req.body)) });
const withoutHeader =
  (name: string) =>
  (req: MutableRequest): MutableRequest => ({ ...req, headers: Object.fromEntries(Object.entries(req.headers).filter(([h]) => h !== name)) });

/** Webhook deliveries broken between the server and the receiver. */
export const WEBHOOK_MUTATIONS: Record<string, Mutation> = {
  'webhook-text-plain': {
    breaks: ['WEBHOOK-CONTENT-TYPE'],
    description: 'notifications are sent as text/plain',
    delivery: (req) => ({ ...req, headers: { ...req.headers, 'content-type': 'text/plain' } }),
  },
  'webhook-error-string': {
    breaks: ['WEBHOOK-PAYLOAD-ERROR'],
    description: "a failed run's error is a string, as the JS reference server sends it",
    delivery: payload((p) => (p.error ? { ...p, error: `${object(p.error).error}: ${object(p.error).message}` } : p)),
  },
  'webhook-values-on-stateless': {
    breaks: ['WEBHOOK-PAYLOAD-VALUES-STATELESS'],
    description: 'a stateless run notifies with values too',
    delivery: payload((p) => ('values' in p ? p : { ...p, values: {} })),
  },
  'webhook-assistant-as-given': {
    breaks: ['WEBHOOK-PAYLOAD-RUN-RECORD'],
    description: 'the payload names the assistant as the caller gave it (the graph id), not as the run holds it',
    delivery: payload((p) => ({ ...p, assistant_id: 'agent' })),
  },
  'webhook-no-run-id': {
    // The payload is the run record (RUN-RECORD); the emission tests leave a missing run_id to RUN-ID.
    breaks: ['WEBHOOK-PAYLOAD-RUN-ID', 'WEBHOOK-PAYLOAD-RUN-RECORD'],
    description: 'notifications name no run_id',
    delivery: payload(({ run_id: _run, ...p }) => p),
  },
  'webhook-values-empty-state-empty': {
    breaks: ['WEBHOOK-PAYLOAD-VALUES'],
    description: "a run with a webhook writes nothing: its notification's values and its thread's state read empty",
    delivery: payload((p) => ('values' in p ? { ...p, values: {} } : p)),
    response: (res, req, memory) => {
      const thread = param(req, 'thread_id');
      if (calls(req, 'createRun') && res.status < 300 && thread && typeof object(req.body).webhook === 'string') memory.set(thread, true);
      const remembered = thread !== undefined && memory.has(thread);
      return calls(req, 'getThread', 'getThreadState') && res.status === 200 && remembered ? { ...res, body: { ...object(res.body), values: {} } } : res;
    },
  },
  'webhook-assistant-as-given-run-read-minimal': {
    breaks: ['RUN-GET', 'RUN-SHAPE', 'WEBHOOK-PAYLOAD-RUN-RECORD'],
    description: 'the payload names the assistant as the caller gave it, and a run reads back only run_id, thread_id and status',
    delivery: payload((p) => ({ ...p, assistant_id: 'agent' })),
    response: (res, req) => {
      if (!calls(req, 'getRun') || res.status !== 200) return res;
      const { run_id: runId, thread_id: threadId, status } = object(res.body);
      return { ...res, body: { run_id: runId, thread_id: threadId, status } };
    },
  },
  'webhook-no-ended-at': {
    breaks: ['WEBHOOK-PAYLOAD-RUN-ENDED-AT'],
    description: 'a finished run notifies without run_ended_at',
    delivery: payload(({ run_ended_at: _ended, ...p }) => p),
  },
  'webhook-query-dropped': {
    breaks: ['AUTH-WEBHOOK-SECRET-QUERY'],
    description: "the webhook URL's query string is dropped from the delivery",
    delivery: (req) => ({ ...req, path: req.path.split('?')[0] }),
  },
  'webhook-query-url-never-notified': {
    breaks: ['AUTH-WEBHOOK-SECRET-QUERY'],
    description: 'a webhook URL that carries a query (?token=...) is accepted at creation and never notified',
    request: (req) => {
      const { webhook, ...body } = object(req.body);
      return calls(req, ...EMITTING) && typeof webhook === 'string' && webhook.includes('?') ? { ...req, body } : req;
    },
  },
  'webhook-static-header-dropped': {
    // The version rule checks the same header as the feature it dates.
    breaks: ['WEBHOOK-CONFIG-HEADERS', 'VERSION-WEBHOOK-HEADERS-0-5-36'],
    description: 'the static header of webhooks.headers is not sent',
    delivery: withoutHeader('x-apc-conformance'),
  },
  'webhook-env-header-unresolved': {
    // A reference under the prefix that is not substituted breaks the prefix rule as well.
    breaks: ['WEBHOOK-CONFIG-HEADERS-ENV', 'WEBHOOK-CONFIG-ENV-PREFIX'],
    description: 'a ${{ env.VAR }} header value is sent unsubstituted',
    // Header names arrive lower-cased (node:http).
    delivery: (req) => ({ ...req, headers: { ...req.headers, 'x-apc-from-env': '${{ env.LG_WEBHOOK_APC_CONFORMANCE }}' } }),
  },
  'webhook-no-retry': {
    breaks: ['WEBHOOK-RETRY'],
    description: 'a receiver answering 5xx or 429 is not tried again',
    deliveryAnswer: (res) => (res.status >= 500 || res.status === 429 ? { status: 200, headers: {}, body: undefined } : res),
  },
  'webhook-domains-unchecked': {
    // A URL outside the allowlist is the violation the 422 rule is checked with.
    breaks: ['WEBHOOK-CONFIG-ALLOWED-DOMAINS', 'WEBHOOK-CONFIG-VIOLATION-422'],
    description: 'webhooks.url.allowed_domains is not enforced at run creation',
    // The run is created with an allowed URL instead, so the server accepts what it should refuse.
    request: (req) => {
      const body = object(req.body);
      if (req.method !== 'POST' || typeof body.webhook !== 'string' || !/^https?:/.test(body.webhook)) return req;
      const url = new URL(body.webhook);
      if (allowedHost(url.hostname)) return req;
      url.hostname = new URL(EMBEDDED_RECEIVER_URL).hostname;
      return { ...req, body: { ...body, webhook: url.toString() } };
    },
  },
};
