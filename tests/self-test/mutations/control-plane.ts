// The control plane broken: repositories, deployments and revisions.
import type { Mutation } from '../broken-target.ts';
import { addressedWith, calls, crash, json, jsonError, object, param } from './support.ts';

export const CONTROL_PLANE_MUTATIONS: Record<string, Mutation> = {
  'repo-id-string': {
    endpoint: 'control-plane',
    // A repository with a string id is not a Repository, so the listing is wrong too.
    breaks: ['REPO-ID-INTEGER', 'REPO-LIST'],
    description: "a repository's id is a string",
    response: (res, req) =>
      calls(req, 'listRepositories') && Array.isArray(res.body) ? { ...res, body: res.body.map((r) => ({ ...object(r), id: String(object(r).id) })) } : res,
  },
  'repos-list-500': {
    endpoint: 'control-plane',
    // The rules that judge a listing fail; the tests that need a repository only as a step skip naming REPO-LIST.
    breaks: ['REPO-LIST', 'AUTH-CP-API-KEY', 'AUTH-REPOS-SCHEMES', 'VERSION-CP-PATH-PREFIX'],
    description: 'the repository listing of an integration crashes (500) where it would answer its repositories',
    response: (res, req) => (calls(req, 'listRepositories') && res.status === 200 ? crash : res),
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
    // GET must name the revision the create answered; DEPLOY-FLOW polls the revision GET names, which is none.
    breaks: ['DEPLOY-LATEST-REVISION-ID', 'DEPLOY-GET', 'DEPLOY-FLOW'],
    description: 'GET /v2/deployments/{id} answers the active revision as latest_revision_id (null until one deploys)',
    response: (res, req) =>
      calls(req, 'getDeployment') && res.status === 200
        ? { ...res, body: { ...object(res.body), latest_revision_id: object(res.body).active_revision_id ?? null } }
        : res,
  },
  'repos-malformed-id-404': {
    endpoint: 'control-plane',
    // ERROR-SHAPE-CONTROL-PLANE takes its example of a 422 from the same malformed listing.
    breaks: ['ERROR-422-REPOS', 'ERROR-SHAPE-CONTROL-PLANE'],
    description: 'the repository listing looks a malformed integration_id up instead of refusing it: 404, not 422',
    response: (res, req) => (calls(req, 'listRepositories') && res.status === 422 ? jsonError(404, 'Integration not found') : res),
  },
  'writes-accepted-202': {
    endpoint: 'control-plane',
    // The spec gives no status for creating or patching a deployment (§4.1); the real service's 201 and 200
    // are SHOULD rules.
    breaks: ['DEPLOY-CREATE-201', 'DEPLOY-PATCH-NEW-REVISION'],
    description: 'creating or patching a deployment answers 202 Accepted with the deployment, its build running on',
    response: (res, req) => (calls(req, 'createDeployment', 'patchDeployment') && res.status < 300 ? { ...res, status: 202 } : res),
  },
  'revision-status-null': {
    endpoint: 'control-plane',
    breaks: ['REVISION-STATUS', 'REVISION-STATUS-VALUES'],
    description: 'a revision answers status null while it builds',
    response: (res, req) =>
      calls(req, 'getRevision') && res.status === 200 && object(res.body).status === 'BUILDING' ? { ...res, body: { ...object(res.body), status: null } } : res,
  },
  'repo-name-owner-empty': {
    endpoint: 'control-plane',
    // §2.1 asks for strings; an empty one is a string.
    breaks: [],
    description: "a repository's name and owner are empty strings",
    response: (res, req) =>
      calls(req, 'listRepositories') && Array.isArray(res.body) ? { ...res, body: res.body.map((r) => ({ ...object(r), name: '', owner: '' })) } : res,
  },
  'repos-422-empty-detail': {
    endpoint: 'control-plane',
    // §2.2 makes detail optional: the ValidationError rules are then skipped, not passed.
    breaks: [],
    description: 'a repository listing 422 answers {detail: []}, naming no ValidationError',
    response: (res, req) => (calls(req, 'listRepositories') && res.status === 422 ? { ...res, body: { detail: [] } } : res),
  },
  'deployment-spec-fields-only': {
    endpoint: 'control-plane',
    // §2.3 and §4.1 show id and latest_revision_id only: a target showing nothing else breaks no rule, and
    // the rules judged on other fields (the update, the agent server's URL, the active revision) are skipped.
    breaks: [],
    description: 'a deployment shows id and latest_revision_id only',
    response: (res, req) => {
      const only = (d: unknown) => ({ id: object(d).id, latest_revision_id: object(d).latest_revision_id });
      if (calls(req, 'createDeployment', 'getDeployment', 'patchDeployment') && res.status < 300) return { ...res, body: only(res.body) };
      const resources = object(res.body).resources;
      return calls(req, 'listDeployments') && Array.isArray(resources) ? { ...res, body: { ...object(res.body), resources: resources.map(only) } } : res;
    },
  },
  'foreign-deployment-403': {
    endpoint: 'control-plane',
    // The status for another workspace's deployment is not shown (§7): the suites take any 4xx.
    breaks: [],
    description: "another workspace's deployment answers 403 instead of 404",
    response: (res, req, memory) => {
      if (calls(req, 'createDeployment') && res.status < 300) memory.set(String(object(res.body).id).toLowerCase(), true);
      const id = calls(req, 'getDeployment', 'patchDeployment') ? param(req, 'deployment_id')?.toLowerCase() : undefined;
      return id && res.status === 404 && memory.has(id) ? jsonError(403, 'Forbidden') : res;
    },
  },
  'failed-build-recovers': {
    endpoint: 'control-plane',
    breaks: ['REVISION-FAILURE-TERMINAL'],
    description: 'a revision that answered BUILD_FAILED answers DEPLOYED from the next read on',
    response: (res, req, memory) => {
      const id = calls(req, 'getRevision') ? param(req, 'revision_id')?.toLowerCase() : undefined;
      if (!id || res.status !== 200) return res;
      if (memory.has(id)) return { ...res, body: { ...object(res.body), status: 'DEPLOYED' } };
      if (object(res.body).status === 'BUILD_FAILED') memory.set(id, true);
      return res;
    },
  },
  'builds-fail': {
    endpoint: 'control-plane',
    breaks: ['REVISION-POLL-DEPLOYED', 'REVISION-STATUS', 'DEPLOY-FLOW'],
    description: 'every build fails: a revision answers BUILD_FAILED once its build ends',
    response: (res, req) => {
      const built = ['AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED'].includes(String(object(res.body).status));
      return calls(req, 'getRevision') && built ? { ...res, body: { ...object(res.body), status: 'BUILD_FAILED' } } : res;
    },
  },
  'unversioned-path-403': {
    endpoint: 'control-plane',
    // As an API gateway answers a path it does not route: still no endpoint, which is all §9 asks.
    breaks: [],
    description: 'a path without a version segment answers 403 {"message": "Missing Authentication Token"}',
    request: (req) =>
      req.operation === undefined && (addressedWith(req, '/v1') ?? addressedWith(req, '/v2')) ? json(403, { message: 'Missing Authentication Token' }) : req,
  },
  'revision-lost-while-building': {
    endpoint: 'control-plane',
    // Polling stops at the refusal: the rules waiting for the revision to settle fail at once, not skip. The
    // deployment the tests share (named so by fixtures.ts) is spared: when REVISION-GET reads it depends on the order.
    breaks: ['DEPLOY-FLOW', 'REVISION-FAILURE-TERMINAL'],
    description: "a deployment's revision answers 404 once its build starts",
    response: (res, req, memory) => {
      if (calls(req, 'createDeployment') && res.status < 300 && String(object(req.body).name).includes('shared-deployment')) {
        memory.set(String(object(res.body).id).toLowerCase(), true);
      }
      const building = calls(req, 'getRevision') && res.status === 200 && object(res.body).status === 'BUILDING';
      return building && !memory.has(param(req, 'deployment_id')?.toLowerCase() ?? '') ? jsonError(404, 'Revision not found.') : res;
    },
  },
};
