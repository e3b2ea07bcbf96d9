// The two regions broken (§1): the front stands before the EU address.
import type { Mutation } from '../broken-target.ts';
import { jsonError, object } from './support.ts';

export const REGION_MUTATIONS: Record<string, Mutation> = {
  'eu-region-not-served': {
    endpoint: 'platform-api-eu',
    // The other region rules use the EU address as a step: they are skipped as failed preconditions.
    breaks: ['REGION-TWO-REGIONS'],
    description: 'the EU address serves no platform API: every documented operation answers 404',
    request: (req) => (req.operation ? jsonError(404, 'Not Found') : req),
  },
  'eu-foreign-key-404': {
    endpoint: 'platform-api-eu',
    breaks: ['REGION-HOME-KEY-ONLY'],
    description: "the EU address answers a US account's key with 404, as if the data were missing, not as an invalid credential",
    response: (res) => (res.status === 401 && /^Invalid API key for the EU region/.test(String(object(res.body).detail)) ? jsonError(404, 'Not Found') : res),
  },
};
