// Conformant variants of the control plane: what §3, §4.1, §5 and §7 leave open, written by hand.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { contract } from '../../../specs/contract.ts';
import type { MutableRequest, MutableResponse } from '../broken-target.ts';
import { calls, jsonError, object } from '../mutations/support.ts';
import { AUTHENTICATE_FIELDS, authenticateRequires } from './access.ts';
import type { Variant } from './variant.ts';

/** The statuses before DEPLOYED the simulator gives, and a target's own names for them. */
const OWN_STATUS_NAMES: Record<string, string> = {
  CREATING: 'Provisioning',
  QUEUED: 'Pending',
  AWAITING_BUILD: 'Pending',
  BUILDING: 'Building',
  AWAITING_DEPLOY: 'Built',
  DEPLOYING: 'RollingOut',
};

const renamed = (revision: unknown) => {
  const status = object(revision).status;
  return typeof status === 'string' && status in OWN_STATUS_NAMES ? { ...object(revision), status: OWN_STATUS_NAMES[status] } : revision;
};

/** A deployment as a target with fields of its own answers it: id and latest_revision_id, and nothing the real service names. */
const ownFields = (deployment: unknown) => {
  const { id, latest_revision_id } = object(deployment);
  return { id, latest_revision_id, display_name: `deployment ${String(id)}`, created: '2025-01-01T00:00:00Z', state: 'active' };
};

/** The body fields a target that lets PATCH change anything takes without a word: those fixed at creation are dropped. */
const FIXED_AT_CREATION = ['repo_url', 'integration_id', 'deployment_type', 'custom_url', 'listener_id'];

const withoutFixed = (body: unknown) => {
  const { name: _, source: __, integration_id: ___, ...rest } = object(body);
  if (rest.source_config === undefined) return rest;
  const sourceConfig = Object.fromEntries(Object.entries(object(rest.source_config)).filter(([field]) => !FIXED_AT_CREATION.includes(field)));
  return { ...rest, source_config: sourceConfig };
};

/** Requests of the deployment and revision endpoints an unknown or foreign id reaches. */
const ID_OPERATIONS = ['getDeployment', 'patchDeployment', 'deleteDeployment', 'getRevision', 'listRevisions', 'listRepositories'];

/** The headers a target with its own names for the bearer and tenant-ID schemes reads on the repository listing. */
const BEARER_HEADER = 'x-auth-token';
const TENANT_HEADER = 'x-workspace';

/** The repository listing as such a target sees it: its own headers in, the simulator's (Authorization, x-tenant-id) never read. */
function ownSchemeHeaders(req: MutableRequest): MutableRequest {
  if (!calls(req, 'listRepositories')) return req;
  const { authorization: _, 'x-tenant-id': tenant, [BEARER_HEADER]: token, [TENANT_HEADER]: workspace, ...headers } = req.headers;
  // x-tenant-id still selects the workspace of a key (§5 names it); only the bearer scheme's pair is the target's own.
  const own: Record<string, string> = { ...headers };
  if (headers['x-api-key'] !== undefined && tenant !== undefined) own['x-tenant-id'] = tenant;
  if (token !== undefined) own.authorization = `Bearer ${token}`;
  if (token !== undefined && workspace !== undefined) own['x-tenant-id'] = workspace;
  return { ...req, headers: own };
}

const fixture = (name: string) => parseYaml(readFileSync(new URL(`../../../fixtures/platform/${name}`, import.meta.url), 'utf8'));

/** The integrations of the simulator's primary key's workspace, as a user whose target lists none writes them in its config. */
export function primaryIntegrations(): string[] {
  const { api_keys } = fixture('workspaces.yaml') as { api_keys: { role: string; default_workspace?: string }[] };
  const workspace = api_keys.find((k) => k.role === 'primary')?.default_workspace;
  const { integrations } = fixture('integrations.yaml') as { integrations: { id: string; workspace: string }[] };
  return integrations.filter((i) => i.workspace === workspace).map((i) => i.id);
}

const NOT_SHOWN = new Set(
  contract()
    .operationsOf('control-plane')
    .filter((o) => o.notShown)
    .map((o) => o.operationId),
);

export const CONTROL_PLANE_VARIANTS: Record<string, Variant> = {
  'control-plane-serves-only-shown-given-integrations': {
    endpoint: 'control-plane',
    description: 'the control plane serves none of the operations the spec does not show (404); its config declares so and gives the integration to deploy',
    allowedBy: `§4.1: the endpoint table lists what a target serves; ${[...NOT_SHOWN].join(', ')} are beyond it ("not shown")`,
    request: (req: MutableRequest) => (req.operation && NOT_SHOWN.has(req.operation) ? jsonError(404, 'Not Found') : req),
    declares: { not_shown_operations: { 'control-plane': [] }, integration_ids: primaryIntegrations() },
  },
  'control-plane-revision-status-names': {
    endpoint: 'control-plane',
    description: 'a revision reads Provisioning, Pending, Building, Built and RollingOut before DEPLOYED, not the real service’s names',
    allowedBy: '§2.3 "the value DEPLOYED is the only status value given"; §3 "states before DEPLOYED are not listed"',
    response: (res: MutableResponse, req: MutableRequest) => {
      if (calls(req, 'getRevision') && res.status === 200) return { ...res, body: renamed(res.body) };
      const resources = object(res.body).resources;
      return calls(req, 'listRevisions') && Array.isArray(resources) ? { ...res, body: { ...object(res.body), resources: resources.map(renamed) } } : res;
    },
  },
  'control-plane-deployment-own-fields': {
    endpoint: 'control-plane',
    description: 'a deployment answers id and latest_revision_id with fields of its own, none of the real service’s (name, source_config …)',
    allowedBy: '§2.3 "Other fields of a deployment and of a revision: not shown"; §4.1 "response fields beyond id, latest_revision_id and status: not shown"',
    response: (res: MutableResponse, req: MutableRequest) => {
      if (calls(req, 'createDeployment', 'getDeployment', 'patchDeployment') && res.status < 300) return { ...res, body: ownFields(res.body) };
      const resources = object(res.body).resources;
      return calls(req, 'listDeployments') && Array.isArray(resources) ? { ...res, body: { ...object(res.body), resources: resources.map(ownFields) } } : res;
    },
  },
  'control-plane-patch-takes-any-field': {
    endpoint: 'control-plane',
    description: 'PATCH /v2/deployments/{id} takes a body with fields fixed at creation (name, repo_url …) and leaves them as they were',
    allowedBy: '§4.1: the PATCH request is an "update body"; "Body fields of POST and PATCH deployments beyond those named … not shown"',
    request: (req: MutableRequest) => (calls(req, 'patchDeployment') ? { ...req, body: withoutFixed(req.body) } : req),
  },
  'control-plane-unknown-id-410': {
    endpoint: 'control-plane',
    description: 'an unknown or foreign deployment, revision or integration id answers 410 Gone, not 404',
    allowedBy: '§7 "Status codes for missing or invalid credentials, unknown ids and rate-limit rejections: not shown"',
    response: (res: MutableResponse, req: MutableRequest) =>
      calls(req, ...ID_OPERATIONS) && res.status === 404 ? jsonError(410, `Gone: ${String(object(res.body).detail ?? 'no such id')}`) : res,
  },
  'control-plane-authenticate-requires-every-field': {
    ...authenticateRequires('control-plane', AUTHENTICATE_FIELDS),
    // AUTHN-CONTROL-PLANE is a SHOULD, whose failure no MUST count would show: the body the test chose is no part of it.
    passes: ['AUTHN-CONTROL-PLANE', 'VERSION-CP-AUTHN-V2'],
  },
  'control-plane-own-scheme-headers': {
    endpoint: 'control-plane',
    description: `the repository listing's bearer scheme reads its token from ${BEARER_HEADER} and its tenant from ${TENANT_HEADER}, not Authorization and x-tenant-id`,
    allowedBy: '§5 "The exact header names of the bearer scheme and of the tenant-ID scheme on the control plane: not shown"',
    request: ownSchemeHeaders,
  },
};
