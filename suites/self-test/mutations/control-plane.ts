// The control plane broken: repositories, deployments and revisions.
import type { Mutation } from '../broken-target.ts';
import { calls, crash, jsonError, object, param } from './support.ts';

export const CONTROL_PLANE_MUTATIONS: Record<string, Mutation> = {
  'repo-id-string': {
    endpoint: 'control-plane',
    // A repository with a string id is not a Repository, so the listing is wrong too.
    breaks: ['REPO-ID-INTEGER', 'REPO-LIST'],
    description: "a repository's id is a string",
    response: (res, req) =>
      calls(req, 'listRepositories') && Array.isArray(res.body)
        ? { ...res, body: res.body.map((r) => ({ ...object(r), id: String(object(r).id) })) }
        : res,
  },
  'revision-never-deployed': {
    endpoint: 'control-plane',
    // DEPLOYED is the status the spec gives and the end of the §4.1 flow.
    breaks: ['REVISION-POLL-DEPLOYED', 'REVISION-STATUS', 'DEPLOY-FLOW'],
    description: 'a revision never reads DEPLOYED',
    response: (res, req) =>
      calls(req, 'getRevision') && object(res.body).status === 'DEPLOYED' ? { ...res, body: { ...object(res.body), status: 'DEPLOYING' } } : res,
  },
  'patch-ignores-revision': {
    endpoint: 'control-plane',
    // No new revision starts, so the revision list holds the first one only.
    breaks: ['DEPLOY-PATCH', 'DEPLOY-PATCH-NEW-REVISION', 'REVISION-LIST'],
    description: 'PATCH /v2/deployments/{id} ignores a valid source_revision_config',
    request: (req) => {
      const { source_revision_config: revision, ...body } = object(req.body);
      return calls(req, 'patchDeployment') && typeof object(revision).repo_ref === 'string' ? { ...req, body } : req;
    },
  },
  'unknown-deployment-500': {
    endpoint: 'control-plane',
    // The lookup crashes only on ids that exist nowhere: another workspace's deployment still answers 404.
    // ERROR-SHAPE-CONTROL-PLANE takes its example of a string-detail error from an unknown deployment.
    breaks: ['DEPLOY-UNKNOWN-404', 'ERROR-SHAPE-CONTROL-PLANE'],
    description: 'a deployment id that exists in no workspace crashes the server',
    response: (res, req, memory) => {
      if (calls(req, 'createDeployment') && res.status < 300) memory.set(String(object(res.body).id).toLowerCase(), true);
      const id = calls(req, 'getDeployment', 'patchDeployment', 'deleteDeployment') ? param(req, 'deployment_id')?.toLowerCase() : undefined;
      return id && res.status === 404 && !memory.has(id) ? crash : res;
    },
  },
  'latest-revision-is-active': {
    endpoint: 'control-plane',
    // GET must name the revision the create answered. (DEPLOY-FLOW, polling the revision GET names, is left unproved: skipped.)
    breaks: ['DEPLOY-LATEST-REVISION-ID', 'DEPLOY-GET'],
    description: 'GET /v2/deployments/{id} answers the active revision as latest_revision_id (null until one deploys)',
    response: (res, req) =>
      calls(req, 'getDeployment') && res.status === 200 ? { ...res, body: { ...object(res.body), latest_revision_id: object(res.body).active_revision_id ?? null } } : res,
  },
  'repos-malformed-id-404': {
    endpoint: 'control-plane',
    // ERROR-SHAPE-CONTROL-PLANE takes its example of a 422 from the same malformed listing.
    breaks: ['ERROR-422-REPOS', 'ERROR-SHAPE-CONTROL-PLANE'],
    description: 'the repository listing looks a malformed integration_id up instead of refusing it: 404, not 422',
    response: (res, req) => (calls(req, 'listRepositories') && res.status === 422 ? jsonError(404, 'Integration not found') : res),
  },
};
