// Deployments, revisions and repository listings broken on the control plane (§4.1, §2.1).
import type { Mutation } from '../broken-target.ts';
import { calls, json, jsonError, object } from './support.ts';

/** The path with one query parameter left out. */
function withoutQuery(path: string, name: string): string {
  const [bare, query = ''] = path.split('?');
  const params = new URLSearchParams(query);
  params.delete(name);
  return params.size > 0 ? `${bare}?${params}` : bare;
}

const queryOf = (path: string) => new URLSearchParams(path.split('?')[1] ?? '');

export const DEPLOYMENT_MUTATIONS: Record<string, Mutation> = {
  'deployments-list-ignores-offset': {
    endpoint: 'control-plane',
    breaks: ['DEPLOY-LIST'],
    description: 'the deployment listing ignores a valid offset: every page starts at the first deployment',
    request: (req) =>
      calls(req, 'listDeployments') && /^[1-9]\d*$/.test(queryOf(req.path).get('offset') ?? '') ? { ...req, path: withoutQuery(req.path, 'offset') } : req,
  },
  'deploy-bad-body-400': {
    endpoint: 'control-plane',
    // Still a 4xx with a JSON error body: only the rule asking for 422 fails.
    breaks: ['DEPLOY-BAD-INPUT'],
    description: 'a create or patch body that fails validation answers 400 with a string detail instead of 422',
    response: (res, req) => (calls(req, 'createDeployment', 'patchDeployment') && res.status === 422 ? jsonError(400, 'Invalid deployment body') : res),
  },
  'deployments-share-one-server': {
    endpoint: 'control-plane',
    breaks: ['DEPLOY-AGENT-SERVER'],
    description: "every deployed deployment names the first one's agent server as its custom_url",
    response: (res, req, memory) => {
      const deployment = object(res.body);
      const sourceConfig = object(deployment.source_config);
      if (!calls(req, 'createDeployment', 'getDeployment', 'patchDeployment') || res.status >= 300 || typeof sourceConfig.custom_url !== 'string') return res;
      if (!memory.has('url')) memory.set('url', sourceConfig.custom_url);
      return { ...res, body: { ...deployment, source_config: { ...sourceConfig, custom_url: memory.get('url') } } };
    },
  },
  'unknown-revision-400': {
    endpoint: 'control-plane',
    // Only an unknown revision of a deployment the caller sees: an unknown or foreign deployment still answers 404.
    breaks: ['REVISION-UNKNOWN-404'],
    description: 'getting an unknown revision of a known deployment answers 400',
    response: (res, req) =>
      calls(req, 'getRevision') && res.status === 404 && /^Revision ID /.test(String(object(res.body).detail)) ? jsonError(400, 'Invalid revision id') : res,
  },
  'unknown-integration-empty': {
    endpoint: 'control-plane',
    breaks: ['REPO-LIST-UNKNOWN-INTEGRATION'],
    description: 'listing the repositories of an unknown integration answers 200 with no repositories',
    response: (res, req) =>
      calls(req, 'listRepositories') && res.status === 404 && /^Integration .* not found/.test(String(object(res.body).detail)) ? json(200, []) : res,
  },
};
