// Cron creation broken at the agent server: the webhook it must accept, and input it must refuse.
import { checkWebhookUrl } from '../../../simulator/agent-server/webhook-policy.ts';
import { EMBEDDED_URL_POLICY } from '../../../harness/target.ts';
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { calls, jsonError, object } from './support.ts';

/** Refuses a webhook the broken target's URL policy accepts, at these operations (one it refuses is refused anyway). */
function refusesWebhook(operation: string): (req: MutableRequest) => MutableRequest | MutableResponse {
  return (req) => {
    const webhook = object(req.body).webhook;
    if (!calls(req, operation) || typeof webhook !== 'string') return req;
    try {
      checkWebhookUrl(webhook, EMBEDDED_URL_POLICY);
    } catch {
      return req;
    }
    return jsonError(422, 'webhook is not supported for crons');
  };
}

export const CRON_BODY_MUTATIONS: Record<string, Mutation> = {
  'thread-cron-refuses-webhook': {
    breaks: ['CRON-THREAD-CREATE'],
    description: 'POST /threads/{thread_id}/runs/crons refuses a body with webhook',
    request: refusesWebhook('createThreadCron'),
  },
  'cron-refuses-webhook': {
    breaks: ['CRON-CREATE'],
    description: 'POST /runs/crons refuses a body with webhook',
    request: refusesWebhook('createCron'),
  },
  'cron-ignores-non-string-webhook': {
    breaks: ['CRON-BAD-INPUT'],
    description: 'a cron webhook that is not a string is dropped and the cron created',
    request: (req) => {
      const { webhook, ...body } = object(req.body);
      return calls(req, 'createCron', 'createThreadCron') && webhook !== undefined && typeof webhook !== 'string' ? { ...req, body } : req;
    },
  },
};
