// §9: version segments in every path, and the OpenAPI document of the control plane.
import { skipDeclared } from '../../harness/checks/attribution.ts';
import { expectStatus } from '../../harness/checks/index.ts';
import { expect, test } from '../../harness/fixtures.ts';
import { INTEGRATIONS, repositoriesOf } from './deployments-steps.ts';

test('repository listing is served under /v1 and deployments under /v2, and not without a version', { tag: '@VERSION-CP-PATH-PREFIX' }, async ({
  controlPlane,
}) => {
  // Each listing is judged: the integration listed under /v1 is the one whose repositories are listed there.
  const listed = await controlPlane.get<{ id: string }[]>(INTEGRATIONS);
  expectStatus(listed, 200);
  const integrationId = Array.isArray(listed.json) ? listed.json[0]?.id : undefined;
  if (integrationId) expectStatus(await controlPlane.get(repositoriesOf(integrationId)), 200);
  expectStatus(await controlPlane.get('/v2/deployments?limit=1'), 200);
  const unversioned = integrationId ? [`/integrations/sourcehost/${integrationId}/repos`, '/deployments'] : ['/deployments'];
  for (const path of unversioned) {
    const res = await controlPlane.get(path);
    // No status is given for a path that is no endpoint: any refusal (a gateway may answer 403).
    expect(res.status >= 400 && res.status < 500, res.describe('an unversioned path is no endpoint (a 4xx)')).toBe(true);
  }
});

test('the control plane is described by an OpenAPI 3.1.0 document at interface version 0.1.0', { tag: '@VERSION-CP-OPENAPI' }, async ({ controlPlane }) => {
  const res = await controlPlane.get<{ openapi?: string; info?: { version?: string }; paths?: Record<string, unknown> }>('/openapi.json');
  // The spec gives no path: the document is looked for where the service publishes it, and a target that publishes it elsewhere is not judged.
  skipDeclared(
    res.status === 404,
    `the target publishes no document at /openapi.json, where the service publishes it (the spec gives no path): ${res.describe()}`,
  );
  expectStatus(res, 200);
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
