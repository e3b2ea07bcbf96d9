// Credentials, workspaces and isolation broken, on the control plane and the platform API (§5).
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { calls, json, jsonError, object } from './support.ts';

/** The simulator's answer to a key it does not know (not to a missing one, nor to a key of the other region). */
const invalidKey = (res: MutableResponse) => res.status === 401 && object(res.body).detail === 'Invalid API key';

const withoutHeader = (req: MutableRequest, name: string): MutableRequest => ({
  ...req,
  headers: Object.fromEntries(Object.entries(req.headers).filter(([n]) => n !== name)),
});

export const ACCESS_MUTATIONS: Record<string, Mutation> = {
  'cp-repos-refuse-api-key': {
    endpoint: 'control-plane',
    // Every listing carries the key: tried on the rules' own tests. The listing lists the API key among its schemes.
    breaks: ['AUTH-CP-API-KEY', 'AUTH-REPOS-SCHEMES'],
    description: 'the repository listing ignores X-Api-Key and asks for a bearer token (401)',
    request: (req) => (calls(req, 'listRepositories') && !req.headers.authorization ? jsonError(401, 'Missing bearer token') : req),
  },
  'cp-invalid-key-404': {
    endpoint: 'control-plane',
    breaks: ['AUTH-CP-MISSING-CREDENTIALS'],
    description: 'an invalid API key answers 404, as if what it asked for did not exist',
    response: (res) => (invalidKey(res) ? jsonError(404, 'Not Found') : res),
  },
  'cp-integrations-ignore-tenant': {
    endpoint: 'control-plane',
    breaks: ['AUTH-CP-TENANT-HEADER'],
    description: "the integrations listing ignores X-Tenant-Id: a key lists its default workspace's integrations",
    request: (req) => (calls(req, 'listIntegrations') ? withoutHeader(req, 'x-tenant-id') : req),
  },
  'deployments-ignore-tenant': {
    endpoint: 'control-plane',
    breaks: ['AUTH-CP-TENANT-ID'],
    description: 'deployment calls ignore X-Tenant-Id: a key always acts in its default workspace',
    request: (req) => (calls(req, 'createDeployment', 'getDeployment', 'listDeployments', 'patchDeployment') ? withoutHeader(req, 'x-tenant-id') : req),
  },
  'deployments-readable-across-workspaces': {
    endpoint: 'control-plane',
    breaks: ['AUTH-CP-TENANT-ID', 'AUTH-CP-WORKSPACE-ISOLATION'],
    description: "GET /v2/deployments/{id} answers another workspace's deployment",
    response: (res, req, memory) => {
      if (calls(req, 'createDeployment') && res.status < 300) memory.set(String(object(res.body).id).toLowerCase(), res.body);
      const id = calls(req, 'getDeployment') ? req.params?.deployment_id?.toLowerCase() : undefined;
      return id && res.status >= 400 && res.status < 500 && memory.has(id) ? json(200, memory.get(id)) : res;
    },
  },
  'cp-tenant-id-400': {
    endpoint: 'control-plane',
    // Each rule whose tests send x-tenant-id fails: no request carrying it is a step of theirs.
    breaks: ['AUTH-CP-TENANT-ID', 'AUTH-CP-TENANT-HEADER', 'AUTH-CP-BEARER'],
    description: 'the control plane refuses every request carrying x-tenant-id with 400',
    request: (req) => (req.headers['x-tenant-id'] !== undefined ? jsonError(400, 'x-tenant-id is not accepted') : req),
  },
  'repos-key-needs-tenant': {
    endpoint: 'control-plane',
    // Nearly every test lists repositories with the key alone: tried on the rule's own test.
    breaks: ['AUTH-REPOS-SCHEMES'],
    description: 'the repository listing refuses an API key sent without X-Tenant-Id, as if the schemes were required together',
    request: (req) =>
      calls(req, 'listRepositories') && req.headers['x-api-key'] && !req.headers['x-tenant-id'] ? jsonError(401, 'Send x-tenant-id with the API key') : req,
  },
  'repos-bearer-refused': {
    endpoint: 'control-plane',
    breaks: ['AUTH-CP-BEARER'],
    description: 'the repository listing refuses every bearer token (401): only the API key scheme is served',
    request: (req) => (calls(req, 'listRepositories') && req.headers.authorization && !req.headers['x-api-key'] ? jsonError(401, 'Invalid bearer token') : req),
  },
  'platform-create-refuses-api-key': {
    endpoint: 'platform-api',
    // Every request carries the key: tried on the rule's own test.
    breaks: ['AUTH-PLATFORM-API-KEY'],
    description: 'POST /runs ignores X-Api-Key and asks for a bearer token (401)',
    request: (req) => (calls(req, 'createRun') && !req.headers.authorization ? jsonError(401, 'Missing bearer token') : req),
  },
  'platform-invalid-key-404': {
    endpoint: 'platform-api',
    breaks: ['AUTH-PLATFORM-MISSING-CREDENTIALS'],
    description: 'an invalid API key answers 404, as if what it asked for did not exist',
    response: (res) => (invalidKey(res) ? jsonError(404, 'Not Found') : res),
  },
  'experiments-readable-across-workspaces': {
    endpoint: 'platform-api',
    breaks: ['AUTH-PLATFORM-WORKSPACE-ISOLATION'],
    description: "GET /api/v1/sessions/{id} answers another workspace's experiment",
    response: (res, req, memory) => {
      const experiment = object(object(res.body).experiment);
      if (calls(req, 'uploadExperiment') && res.status === 200) memory.set(String(experiment.id).toLowerCase(), experiment);
      const id = calls(req, 'readSession') ? req.params?.session_id?.toLowerCase() : undefined;
      return id && res.status === 404 && memory.has(id) ? json(200, memory.get(id)) : res;
    },
  },
};
