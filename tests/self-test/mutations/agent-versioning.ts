// The agent server's version, as GET /info names it, broken.
import type { Mutation } from '../broken-target.ts';
import { calls, object } from './support.ts';

export const AGENT_VERSIONING_MUTATIONS: Record<string, Mutation> = {
  'info-version-without-patch': {
    // Without a dotted version the version-gated tests skip, saying so.
    breaks: ['VERSION-AGENT-SERVER-INFO'],
    description: 'GET /info names the version without its patch number (0.10)',
    response: (res, req) => {
      const version = object(res.body).version;
      if (!calls(req, 'getServerInfo') || typeof version !== 'string') return res;
      return { ...res, body: { ...object(res.body), version: version.split('.').slice(0, 2).join('.') } };
    },
  },
};
