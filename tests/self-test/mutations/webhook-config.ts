// The deployment configuration's webhook settings (§6) left unenforced: a webhooks.url policy at
// run and cron creation (a URL breaking one setting is taken as one that keeps it), and
// http.disable_webhooks.
import { EMBEDDED_RECEIVER_URL, EMBEDDED_URL_POLICY } from '../../../harness/target.ts';
import { sleep } from '../../../harness/time.ts';
import type { MutableRequest, Mutation } from '../broken-target.ts';
import { object } from './support.ts';

/** Changes the webhook of any creating request (run or cron) that has one. */
const webhookChanged =
  (change: (url: string) => string) =>
  (req: MutableRequest): MutableRequest => {
    const body = object(req.body);
    if (req.method !== 'POST' || typeof body.webhook !== 'string') return req;
    const webhook = change(body.webhook);
    return webhook === body.webhook ? req : { ...req, body: { ...body, webhook } };
  };

/** The run's receiver: the deliveries of every other test go there, and keep arriving. */
const RECEIVER_HOST = new URL(EMBEDDED_RECEIVER_URL).hostname;

const absolute = (url: string) => /^https?:\/\//i.test(url);

/**
 * How late a delivery comes, in wall ms: past the 300 ms the suites once waited for a delivery
 * that should not come (on a virtual clock, as the broken target's), within the 2 s a delivery
 * has to arrive within there (WebhookChannel.deadline).
 */
const LATE_MS = 1_500;

export const WEBHOOK_CONFIG_MUTATIONS: Record<string, Mutation> = {
  'disabled-webhooks-delivered-late': {
    // The server states a version that has the option (0.2.78 or later), so its version rule breaks too.
    breaks: ['VERSION-DISABLE-WEBHOOKS-0-2-78', 'WEBHOOK-CONFIG-DISABLE-WEBHOOKS'],
    description: 'http.disable_webhooks is true in the configuration the server states, and it notifies all the same, late',
    deploymentConfig: (config) => ({ ...config, http: { ...config.http, disable_webhooks: true } }),
    delivery: async (req) => {
      await sleep(LATE_MS);
      return req;
    },
  },
  'loopback-not-disabled': {
    breaks: ['WEBHOOK-CONFIG-DISABLE-LOOPBACK'],
    description: 'webhooks.url.disable_loopback is not enforced: a relative webhook URL is accepted (and never called)',
    request: (req) => {
      const { webhook, ...body } = object(req.body);
      return req.method === 'POST' && typeof webhook === 'string' && webhook.startsWith('/') ? { ...req, body } : req;
    },
  },
  'url-length-unchecked': {
    breaks: ['WEBHOOK-CONFIG-MAX-URL-LENGTH'],
    description: 'webhooks.url.max_url_length is not enforced: a longer URL is accepted (the server keeps its first characters)',
    request: webhookChanged((url) => {
      const max = EMBEDDED_URL_POLICY.max_url_length;
      return absolute(url) && url.length > max ? url.slice(0, max) : url;
    }),
  },
  'http-default-port-443': {
    breaks: ['WEBHOOK-CONFIG-ALLOWED-PORTS'],
    description: 'an http webhook URL that names no port is checked as on 443, not 80 (the receiver of the run excepted)',
    request: webhookChanged((url) => {
      const bare = /^http:\/\/([^/:?#]+)(?=[/?#]|$)/i.exec(url);
      return bare && bare[1].toLowerCase() !== RECEIVER_HOST ? url.replace(bare[0], `${bare[0]}:443`) : url;
    }),
  },
  'ports-unchecked': {
    breaks: ['WEBHOOK-CONFIG-ALLOWED-PORTS'],
    description: 'webhooks.url.allowed_ports is not enforced: a URL on another port is accepted (and called on an allowed one)',
    request: webhookChanged((url) => {
      if (!absolute(url) || !URL.canParse(url)) return url;
      const parsed = new URL(url);
      const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
      if (EMBEDDED_URL_POLICY.allowed_ports.includes(port)) return url;
      parsed.port = String(EMBEDDED_URL_POLICY.allowed_ports[0]);
      return parsed.toString();
    }),
  },
};
