// Version segments and the interface description broken (§9).
import { contract } from '../../../specs/contract.ts';
import type { Mutation } from '../broken-target.ts';
import { addressedWith, calls, jsonError, object, viaAlias } from './support.ts';

/** Platform operations whose own path is bare: the /api/v1 form is their alias (GET /info's is TRACE-INFO's). */
const BARE_OPERATIONS = ['createRun', 'updateRun', 'readRun', 'ingestRunsBatch', 'queryRuns', 'createFeedback', 'listFeedback', 'readFeedback'];

/** Whether the control-plane operation is one of the deployments endpoints (tagged so in the contract). */
const deploymentsOperation = (operationId: string | undefined) =>
  operationId !== undefined && (contract().operation('control-plane', operationId).document.tags as string[] | undefined)?.includes('deployments') === true;

export const VERSIONING_MUTATIONS: Record<string, Mutation> = {
  'cp-unversioned-deployments': {
    endpoint: 'control-plane',
    breaks: ['VERSION-CP-PATH-PREFIX'],
    description: 'the control plane serves /deployments without a version segment too',
    request: (req) => (req.operation === undefined && deploymentsOperation(addressedWith(req, '/v2')) ? { ...req, path: `/v2${req.path}` } : req),
  },
  'cp-openapi-3-0': {
    endpoint: 'control-plane',
    breaks: ['VERSION-CP-OPENAPI'],
    description: 'the control plane publishes an OpenAPI 3.0.3 document',
    response: (res, req) => (calls(req, 'getOpenApiDocument') && res.status === 200 ? { ...res, body: { ...object(res.body), openapi: '3.0.3' } } : res),
  },
  'authn-under-v1-only': {
    endpoint: 'platform-api',
    // Every authenticate request takes the path: tried on the rule's own test.
    breaks: ['VERSION-AUTHN-V2'],
    description: 'authentication is served under /v1/auth/authenticate: /v2/auth/authenticate answers 404',
    request: (req) => (calls(req, 'authenticate') ? jsonError(404, 'Not Found') : req),
  },
  'upload-bare-only': {
    endpoint: 'platform-api',
    // Every upload takes the path: tried on the rule's own test.
    breaks: ['VERSION-PLATFORM-PATHS'],
    description: 'the experiment upload is served at /datasets/upload-experiment: the /api/v1 path answers 404',
    request: (req) => (calls(req, 'uploadExperiment') ? jsonError(404, 'Not Found') : req),
  },
  'no-api-v1-alias': {
    endpoint: 'platform-api',
    breaks: ['VERSION-PLATFORM-API-V1-ALIAS'],
    description: 'the run and feedback routes are served bare only: their /api/v1 form answers 404',
    request: (req) => (calls(req, ...BARE_OPERATIONS) && viaAlias(req) ? jsonError(404, 'Not Found') : req),
  },
};
