// Webhook notifications broken where the server decides to send them: which operations notify,
// to which URL, with which error, and what a failing delivery does to the run.
import { checkWebhookUrl } from '../../../simulator/agent-server/webhook-policy.ts';
import { EMBEDDED_URL_POLICY } from '../../../harness/target.ts';
import type { MutableRequest, Mutation } from '../broken-target.ts';
import { calls, object, param } from './support.ts';
import { listsOtherThreadsRuns } from '../variants/agent-server-run-reads.ts';

const THREAD_RUN_CREATES = ['createRun', 'streamRun', 'waitRun'];
/** The operations that take `webhook` and notify it (§6a). */
const EMITTING = [...THREAD_RUN_CREATES, 'streamStatelessRun', 'waitStatelessRun', 'createCron', 'createThreadCron'];

/** Runs whose notification was sent more than once (retried): a delivery to them failed. Filled by deliveries, read by answers. */
const retried = new Set<string>();
const deliveredOnce = new Set<string>();

function noteRetries(req: MutableRequest): MutableRequest {
  const runId = String(object(req.body).run_id);
  if (deliveredOnce.has(runId)) retried.add(runId);
  deliveredOnce.add(runId);
  return req;
}

/** Whether the broken target's URL policy (the embedded simulator's) accepts this webhook URL. */
function accepted(url: string): boolean {
  try {
    checkWebhookUrl(url, EMBEDDED_URL_POLICY);
    return true;
  } catch {
    return false;
  }
}

/** Drops a webhook the policy accepts from these operations: taken, never used (one the policy refuses is still refused). */
function dropsAcceptedWebhook(...operations: string[]): (req: MutableRequest) => MutableRequest {
  return (req) => {
    const { webhook, ...body } = object(req.body);
    return calls(req, ...operations) && typeof webhook === 'string' && accepted(webhook) ? { ...req, body } : req;
  };
}

export const WEBHOOK_EMISSION_MUTATIONS: Record<string, Mutation> = {
  'create-run-drops-webhook': {
    breaks: ['WEBHOOK-EMIT-CREATE-RUN'],
    description: 'POST /threads/{thread_id}/runs accepts webhook and never uses it',
    request: dropsAcceptedWebhook('createRun'),
  },
  'create-run-drops-webhook-runs-listed-with-others': {
    // The notification that never comes is judged, whatever the listing (a path the spec does not show) answers.
    breaks: ['RUN-LIST', 'WEBHOOK-EMIT-CREATE-RUN'],
    description: "POST /threads/{thread_id}/runs accepts webhook and never uses it, and a thread's run listing answers other threads' runs too",
    request: dropsAcceptedWebhook('createRun'),
    response: listsOtherThreadsRuns,
  },
  'stream-run-drops-webhook': {
    breaks: ['WEBHOOK-EMIT-STREAM-RUN'],
    description: 'POST /threads/{thread_id}/runs/stream accepts webhook and never uses it',
    request: dropsAcceptedWebhook('streamRun'),
  },
  'wait-run-drops-webhook': {
    // With webhooks enabled (the embedded configuration), the disable tests check that a wait run notifies.
    breaks: ['WEBHOOK-EMIT-WAIT-RUN', 'WEBHOOK-CONFIG-DISABLE-WEBHOOKS', 'VERSION-DISABLE-WEBHOOKS-0-2-78'],
    description: 'POST /threads/{thread_id}/runs/wait accepts webhook and never uses it',
    request: dropsAcceptedWebhook('waitRun'),
  },
  'stateless-stream-drops-webhook': {
    breaks: ['WEBHOOK-EMIT-STATELESS-STREAM'],
    description: 'POST /runs/stream accepts webhook and never uses it',
    request: dropsAcceptedWebhook('streamStatelessRun'),
  },
  'no-webhook-for-failed-run': {
    breaks: ['WEBHOOK-TRIGGER'],
    description: 'a run that fails sends no notification: the webhook of a run whose input makes the graph fail is dropped',
    request: (req) => {
      const { webhook, ...body } = object(req.body);
      return calls(req, ...EMITTING) && typeof webhook === 'string' && object(body.input).fail === true ? { ...req, body } : req;
    },
  },
  'webhook-kept-for-later-runs': {
    breaks: ['WEBHOOK-NO-URL-NO-POST'],
    description: "a run created without webhook notifies the URL of the thread's earlier run",
    request: (req, memory) => {
      const thread = param(req, 'thread_id');
      if (!calls(req, ...THREAD_RUN_CREATES) || !thread) return req;
      const body = object(req.body);
      if (typeof body.webhook === 'string') memory.set(`webhook:${thread}`, body.webhook);
      const earlier = memory.get(`webhook:${thread}`);
      return body.webhook === undefined && typeof earlier === 'string' ? { ...req, body: { ...body, webhook: earlier } } : req;
    },
  },
  'webhook-error-on-success': {
    breaks: ['WEBHOOK-PAYLOAD-ERROR-ABSENT'],
    description: 'a run that succeeded notifies with an empty error object',
    delivery: (req) => (object(req.body).status === 'success' ? { ...req, body: { ...object(req.body), error: { error: '', message: '' } } } : req),
  },
  'retried-run-reads-error': {
    breaks: ['WEBHOOK-FAILURE-NO-EFFECT'],
    description: 'a run whose notification failed and was sent again reads error',
    delivery: noteRetries,
    response: (res, req) => {
      const run = object(res.body);
      return calls(req, 'getRun') && res.status === 200 && retried.has(String(run.run_id)) ? { ...res, body: { ...run, status: 'error' } } : res;
    },
  },
};
