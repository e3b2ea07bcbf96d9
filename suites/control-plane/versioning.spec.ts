// §9: version segments in every path, and the OpenAPI document of the control plane.
import { expectStatus, precondition } from '../../harness/checks/index.ts';
import { clientWithKey } from '../../harness/fixtures.ts';
import { integrations, repositoriesOf } from './deployments-steps.ts';
import { expect, test } from './fixtures.ts';

test('repository listing is served under /v1 and deployments under /v2, and not without a version', { tag: '@VERSION-CP-PATH-PREFIX' }, async ({
  controlPlane,
  sharedDeployment,
}) => {
  // Judged on paths the spec shows: the integration listed and the deployment created are steps, and the repository
  // listing under /v1 and the deployment read under /v2 are the evidence.
  const [{ id: integrationId }] = await integrations(controlPlane);
  expectStatus(await controlPlane.get(repositoriesOf(integrationId)), 200);
  const { deployment } = await sharedDeployment.create();
  expectStatus(await controlPlane.get(`/v2/deployments/${deployment.id}`), 200);
  for (const path of [`/integrations/sourcehost/${integrationId}/repos`, `/deployments/${deployment.id}`]) {
    const res = await controlPlane.get(path);
    // No status is given for a path that is no endpoint: any refusal (a gateway may answer 403).
    expect(res.status >= 400 && res.status < 500, res.describe('an unversioned path is no endpoint (a 4xx)')).toBe(true);
  }
});

const isJson = (contentType: string | undefined) => /^application\/(.+\+)?json/i.test(contentType ?? '');

test(
  'GET /openapi.json answers the OpenAPI document as JSON, without credentials',
  { tag: '@VERSION-CP-OPENAPI-JSON' },
  async ({ conformanceRun }, testInfo) => {
    const res = await clientWithKey(conformanceRun, 'control-plane', testInfo, undefined)!.get<{ openapi?: unknown; paths?: unknown }>('/openapi.json');
    expectStatus(res, 200);
    expect(isJson(res.headers['content-type']), res.describe('a JSON content-type')).toBe(true);
    expect(typeof res.json?.openapi === 'string' && typeof res.json.paths === 'object', res.describe('an OpenAPI document: openapi and paths')).toBe(true);
  },
);

test('the control plane is described by an OpenAPI 3.1.0 document at interface version 0.1.0', { tag: '@VERSION-CP-OPENAPI' }, async ({ controlPlane }) => {
  // The spec gives no path: the document is read where the service publishes it, a step that VERSION-CP-OPENAPI-JSON
  // judges; a target that publishes none there leaves this rule not judged (declared when its config says so).
  const res = await controlPlane.get<{ openapi?: string; info?: { version?: string }; paths?: Record<string, unknown> }>('/openapi.json');
  precondition(res, 'read the OpenAPI document at /openapi.json');
  expect(res.json.openapi, res.describe('openapi')).toBe('3.1.0');
  expect(res.json.info?.version, res.describe('info.version')).toBe('0.1.0');
  expect(
    Object.keys(res.json.paths ?? {}).some((p) => p.startsWith('/v2/deployments')),
    res.describe('it describes the deployments'),
  ).toBe(true);
});

test('deprecation and compatibility signals', { tag: '@VERSION-DEPRECATION' }, async ({ controlPlane, observe }) => {
  const res = await controlPlane.get('/v2/deployments?limit=1');
  const signals = ['deprecation', 'sunset', 'link', 'warning', 'api-version'].filter((h) => res.headers[h] !== undefined);
  observe(
    'VERSION-DEPRECATION',
    signals.length ? signals.map((h) => `${h}: ${res.headers[h]}`).join('; ') : 'no Deprecation, Sunset, Link, Warning or API-Version header',
  );
});
