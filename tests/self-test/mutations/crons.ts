// Crons broken at the agent server.
import type { Mutation } from '../broken-target.ts';
import { calls, dropsAllowedWebhook, integerFrom, object } from './support.ts';

/** Crons broken at the agent server. */
export const CRON_MUTATIONS: Record<string, Mutation> = {
  'cron-delete-noop': {
    breaks: ['CRON-DELETE'],
    description: 'deleting a cron answers 204 and keeps it',
    request: (req) => (calls(req, 'deleteCron') ? { status: 204, headers: {}, body: undefined } : req),
  },
  'cron-search-ignores-offset': {
    breaks: ['CRON-SEARCH'],
    description: 'cron search ignores offset',
    request: (req) => (calls(req, 'searchCrons') && integerFrom(1)(object(req.body).offset) ? { ...req, body: { ...object(req.body), offset: 0 } } : req),
  },
  'cron-drops-webhook': {
    // The stateless cron's runs are seen through its notifications.
    breaks: ['WEBHOOK-EMIT-CRON', 'WEBHOOK-EMIT-THREAD-CRON', 'CRON-RUNS-ON-SCHEDULE'],
    description: "a cron's webhook is accepted and never used",
    request: dropsAllowedWebhook('createCron', 'createThreadCron'),
  },
  'cron-next-run-now': {
    breaks: ['CRON-CREATE-SCHEDULE'],
    description: "a created cron's next_run_date is its creation time",
    response: (res, req) =>
      calls(req, 'createCron', 'createThreadCron') && res.status < 300
        ? { ...res, body: { ...object(res.body), next_run_date: object(res.body).created_at } }
        : res,
  },
  'cron-next-run-tomorrow-without-created-at': {
    breaks: ['CRON-CREATE-SCHEDULE'],
    description: "a daily cron's next_run_date is a day late, and the cron answers no created_at",
    response: (res, req) => {
      if (!calls(req, 'createCron', 'createThreadCron') || res.status >= 300 || object(req.body).schedule !== '30 4 * * *') return res;
      const { created_at: _created, ...cron } = object(res.body);
      return { ...res, body: { ...cron, next_run_date: new Date(Date.parse(String(cron.next_run_date)) + 24 * 3600 * 1000).toISOString() } };
    },
  },
  'cron-search-empty': {
    breaks: ['CRON-SEARCH'],
    description: 'cron search answers an empty array',
    response: (res, req) => (calls(req, 'searchCrons') && Array.isArray(res.body) ? { ...res, body: [] } : res),
  },
  'stateless-wait-drops-webhook': {
    breaks: ['WEBHOOK-EMIT-STATELESS-WAIT'],
    description: 'POST /runs/wait ignores webhook',
    request: dropsAllowedWebhook('waitStatelessRun'),
  },
};
