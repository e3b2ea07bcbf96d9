// §4, §7: JSON payloads, the error shape, and bad input on every control-plane endpoint.
import { expectJsonError, expectRefused, expectSchema, expectStatus, precondition } from '../../harness/checks/index.ts';
import { forRule } from '../../harness/checks/attribution.ts';
import { clientWithKey } from '../../harness/fixtures.ts';
import { expect, test } from './fixtures.ts';
import type { ApiResponse } from '../../harness/client.ts';
import { createDeployment, deploymentBody, deploymentName, repositoriesOf, repository, revisionPath, type Deployment } from './deployments-steps.ts';

const isJson = (res: ApiResponse) => /^application\/(.+\+)?json/i.test(res.headers['content-type'] ?? '');

test('requests sent as application/json are accepted and answers with a body are JSON', { tag: '@ERROR-JSON-PAYLOADS-CONTROL-PLANE' }, async ({
  controlPlane,
  testKey,
}) => {
  const repo = await repository(controlPlane);
  const json = { headers: { 'content-type': 'application/json' } };
  const created = await controlPlane.post<Deployment>('/v2/deployments', deploymentBody(repo, deploymentName(testKey)), json);
  expectStatus(created, '2xx');
  // §4: a request with a body carries application/json, and is taken so: refused for its media type (415), it is not.
  // Which PATCH fields a target takes is not shown (§4.1): what else it answers is its own rules' business.
  const patched = await controlPlane.patch(`/v2/deployments/${created.json.id}`, { source_config: { build_on_push: false } }, json);
  expect(patched.status, patched.describe('a PATCH body sent as application/json is not refused for its media type')).not.toBe(415);
  const answers = [
    created,
    patched,
    await controlPlane.get(repositoriesOf(repo.host_integration_id)),
    await controlPlane.get(`/v2/deployments/${created.json.id}`),
    await controlPlane.get(revisionPath(created.json, created.json.latest_revision_id)),
    await controlPlane.get(repositoriesOf('not-a-uuid')),
  ];
  for (const res of answers) {
    expect(isJson(res), res.describe('a JSON content-type')).toBe(true);
    expect(() => JSON.parse(res.text), res.describe('a JSON body')).not.toThrow();
  }
});

test(
  'an error body is {detail}: a ValidationError array on 422, a string otherwise',
  { tag: '@ERROR-SHAPE-CONTROL-PLANE' },
  async ({ controlPlane, conformanceRun }, testInfo) => {
    const invalid = await controlPlane.get(repositoriesOf('not-a-uuid'));
    expectStatus(invalid, 422);
    expectSchema(invalid, 'control-plane', 'HTTPValidationError');
    expect(Array.isArray((invalid.json as { detail?: unknown }).detail), invalid.describe('detail is an array')).toBe(true);
    const others = [
      await controlPlane.get('/v2/deployments/00000000-0000-4000-8000-0000000dead0'),
      await clientWithKey(conformanceRun, 'control-plane', testInfo, undefined)!.get('/v2/deployments'),
    ];
    for (const res of others) {
      expectJsonError(res);
      expect(typeof (res.json as { detail?: unknown }).detail, res.describe('detail is a string')).toBe('string');
    }
  },
);

test.describe('bad input on every endpoint answers 4xx in the documented shape, never 5xx', { tag: '@ERROR-BAD-INPUT-CONTROL-PLANE' }, () => {
  test('malformed ids, query parameters and bodies', async ({ controlPlane, testKey }) => {
    const repo = await repository(controlPlane);
    const { deployment } = await createDeployment(controlPlane, repo, deploymentName(testKey));
    const json = { 'content-type': 'application/json' };
    const answers = [
      await controlPlane.get(repositoriesOf('%20')),
      await controlPlane.get('/v2/deployments?limit=many'),
      await controlPlane.get('/v2/deployments?limit=0'),
      await controlPlane.get('/v2/deployments?offset=-1'),
      await controlPlane.post('/v2/deployments', undefined, { rawBody: '{"name": ', headers: json }),
      await controlPlane.post('/v2/deployments', undefined, { rawBody: '[]', headers: json }),
      await controlPlane.post('/v2/deployments', undefined, { rawBody: 'null', headers: json }),
      await controlPlane.post('/v2/deployments', { integration_id: 12, source_config: [], source_revision_config: null }),
      await controlPlane.patch(`/v2/deployments/${deployment.id}`, undefined, { rawBody: '{', headers: json }),
      await controlPlane.patch(`/v2/deployments/${deployment.id}`, undefined, { rawBody: '"text"', headers: json }),
      await controlPlane.get(`/v2/deployments/${deployment.id}/revisions?limit=abc`),
    ];
    for (const res of answers) {
      expectJsonError(res);
      if (res.status === 422) expectSchema(res, 'control-plane', 'HTTPValidationError');
    }
  });
});

test('a refused request creates and changes nothing', { tag: '@ERROR-REFUSED-UNCHANGED-CONTROL-PLANE' }, async ({ controlPlane, testKey }) => {
  const repo = await repository(controlPlane);
  const name = deploymentName(testKey);
  const { deployment } = await createDeployment(controlPlane, repo, `${name}-kept`);
  const before = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
  precondition(before, 'read the deployment');
  const refused = [
    await controlPlane.post('/v2/deployments', { ...deploymentBody(repo, `${name}-refused`), source_revision_config: { repo_ref: 5 } }),
    await controlPlane.post('/v2/deployments', { ...deploymentBody(repo, `${name}-refused`), integration_id: '00000000-0000-4000-8000-0000000000aa' }),
    await controlPlane.patch(`/v2/deployments/${deployment.id}`, { source_revision_config: { repo_ref: ['main'] } }),
    // A valid field beside the invalid one: refused, it is not applied either.
    await controlPlane.patch(`/v2/deployments/${deployment.id}`, { source_config: { build_on_push: true }, source_revision_config: { repo_ref: ['main'] } }),
    await controlPlane.patch(`/v2/deployments/${deployment.id}`, { source_config: { repo_url: 'https://sourcehost.example/someone/else' } }),
  ];
  // The rule is about what a refusal leaves unchanged: its body's shape is ERROR-SHAPE-CONTROL-PLANE's.
  for (const res of refused) await forRule('ERROR-REFUSED-UNCHANGED-CONTROL-PLANE', () => expectRefused(res));
  const listed = await controlPlane.get<{ resources: Deployment[] }>(`/v2/deployments?name_contains=${name}-refused`);
  precondition(listed, 'list the deployments of the test');
  expect(listed.json.resources, listed.describe('no deployment was created')).toEqual([]);
  const after = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
  expect(after.json, after.describe('the deployment is unchanged')).toEqual(before.json);
  const revisions = await controlPlane.get<{ resources: unknown[] }>(`/v2/deployments/${deployment.id}/revisions`);
  precondition(revisions, 'list the revisions of the deployment');
  expect(revisions.json.resources.length, revisions.describe('no revision was started')).toBe(1);
});
