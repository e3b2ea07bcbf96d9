// §5: API keys, workspace selection and the repository listing's three schemes on the control plane;
// §9: its authentication, served under v2.
import { expectJsonError, expectRefused, expectSchema, expectStatus, precondition } from '../../harness/checks/index.ts';
import { forRule, skipForPrecondition } from '../../harness/checks/attribution.ts';
import { clientWithKey, targetApiKey } from '../../harness/fixtures.ts';
import { authenticate, OAuthProviders } from '../platform-api/authenticate-steps.ts';
import { expect, test } from './fixtures.ts';
import {
  createDeployment,
  deploymentBody,
  deploymentName,
  INTEGRATIONS,
  integrations,
  repositoriesOf,
  repository,
  type Deployment,
} from './deployments-steps.ts';

test(
  'the API key authenticates in the X-Api-Key header, whatever the case of its name',
  { tag: '@AUTH-CP-API-KEY' },
  async ({ controlPlane, conformanceRun, targetCredentials }, testInfo) => {
    // The integration is a step; the repository listing, the request the spec shows that needs no id the test
    // creates, is judged with the key under each spelling of the header name. Whether a request without the key is
    // refused is AUTH-CP-MISSING-CREDENTIALS's (§7 shows no status for it).
    const [{ id: integrationId }] = await integrations(controlPlane);
    const bare = clientWithKey(conformanceRun, 'control-plane', testInfo, undefined)!;
    const sent = targetApiKey(conformanceRun, targetCredentials) ?? '';
    for (const header of ['X-Api-Key', 'x-api-key', 'X-API-KEY']) {
      expectStatus(await bare.get(repositoriesOf(integrationId), { headers: { [header]: sent } }), 200);
    }
  },
);

test(
  'a missing or invalid API key answers 401 or 403 with a JSON error body and changes nothing',
  { tag: '@AUTH-CP-MISSING-CREDENTIALS' },
  async ({ controlPlane, conformanceRun, testKey }, testInfo) => {
    const repo = await repository(controlPlane);
    const name = deploymentName(testKey);
    for (const key of [undefined, 'apc-not-a-valid-key']) {
      const client = clientWithKey(conformanceRun, 'control-plane', testInfo, key)!;
      expectJsonError(await client.get(repositoriesOf(repo.host_integration_id)), [401, 403]);
      expectJsonError(
        await client.post('/v2/deployments', {
          name,
          integration_id: repo.host_integration_id,
          source_config: { repo_url: repo.url },
          source_revision_config: { repo_ref: repo.default_branch },
        }),
        [401, 403],
      );
    }
    const after = await controlPlane.get<{ resources: unknown[] }>(`/v2/deployments?name_contains=${name}`);
    precondition(after, 'list the deployments of the test');
    expect(after.json.resources, after.describe('no deployment was created')).toEqual([]);
  },
);

test(
  'every operation on an existing deployment refuses a missing or invalid API key with 401 or 403, and changes nothing',
  { tag: '@AUTH-CP-MISSING-CREDENTIALS' },
  async ({ controlPlane, conformanceRun, testKey }, testInfo) => {
    const repo = await repository(controlPlane);
    const { deployment } = await createDeployment(controlPlane, repo, deploymentName(testKey));
    const before = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
    precondition(before, 'read the deployment');
    for (const key of [undefined, 'apc-not-a-valid-key']) {
      const client = clientWithKey(conformanceRun, 'control-plane', testInfo, key)!;
      expectJsonError(await client.get(`/v2/deployments/${deployment.id}`), [401, 403]);
      expectJsonError(await client.patch(`/v2/deployments/${deployment.id}`, { source_revision_config: { repo_ref: `${repo.default_branch}-x` } }), [401, 403]);
      expectJsonError(await client.get(`/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`), [401, 403]);
      expectJsonError(await client.get(`/v2/deployments/${deployment.id}/revisions`), [401, 403]);
    }
    const after = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
    expect(after.json, after.describe('the deployment is unchanged')).toEqual(before.json);
  },
);

test(
  'the status code for missing or invalid credentials on the control plane',
  { tag: '@ERROR-CREDENTIALS-STATUS-CP' },
  async ({ conformanceRun, observe }, testInfo) => {
    const answers: string[] = [];
    for (const [what, key] of [
      ['no key', undefined],
      ['an invalid key', 'apc-not-a-valid-key'],
    ] as const) {
      const res = await clientWithKey(conformanceRun, 'control-plane', testInfo, key)!.get('/v2/deployments?limit=1');
      answers.push(`${what} → ${res.status} ${res.text.slice(0, 100)}`);
    }
    observe('ERROR-CREDENTIALS-STATUS-CP', answers.join('; '));
  },
);

test('a key linked to several workspaces selects one with x-tenant-id', { tag: '@AUTH-CP-TENANT-ID' }, async ({ credentials, testKey }) => {
  const multi = credentials.client('control-plane', credentials.apiKey('multi-workspace'));
  const [home, other] = credentials.workspaces('multi-workspace');
  const otherKey = credentials.client('control-plane', credentials.apiKey('second-workspace'));
  // The repository to deploy is found with the other workspace's own key: every request carrying x-tenant-id is judged.
  const inOther = await repository(otherKey);
  const selected = { headers: { 'x-tenant-id': other } };
  const created = await multi.post<Deployment>('/v2/deployments', deploymentBody(inOther, deploymentName(testKey)), selected);
  expectStatus(created, '2xx');
  const there = await multi.get(`/v2/deployments/${created.json.id}`, selected);
  expect(there.status, there.describe('found in the workspace named by x-tenant-id')).toBe(200);
  const here = await multi.get(`/v2/deployments/${created.json.id}`, { headers: { 'x-tenant-id': home } });
  // §5 says which workspace is selected, not which status an id of another workspace gets: any refusal.
  expectStatus(here, '4xx');
  const byDefault = await multi.get(`/v2/deployments/${created.json.id}`);
  expect(
    byDefault.status >= 400 && byDefault.status < 500,
    byDefault.describe('without x-tenant-id the key acts in its default workspace, not the selected one (a 4xx)'),
  ).toBe(true);
  const seenByOwner = await otherKey.get(`/v2/deployments/${created.json.id}`);
  expect(seenByOwner.status, seenByOwner.describe("the selected workspace's own key sees it")).toBe(200);
  // Every operation selects the workspace, not only create and read.
  const patched = await multi.patch<Deployment>(
    `/v2/deployments/${created.json.id}`,
    { source_revision_config: { repo_ref: `${inOther.default_branch}-apc-tenant` } },
    selected,
  );
  expectStatus(patched, '2xx');
  const revision = await multi.get(`/v2/deployments/${created.json.id}/revisions/${patched.json.latest_revision_id}`, selected);
  expect(revision.status, revision.describe('its revision, read in the workspace named by x-tenant-id')).toBe(200);
  const revisions = await multi.get(`/v2/deployments/${created.json.id}/revisions`, selected);
  expect(revisions.status, revisions.describe('its revisions, listed in the workspace named by x-tenant-id')).toBe(200);
});

test('the tenant-ID scheme is the X-Tenant-Id header carrying the workspace id', { tag: '@AUTH-CP-TENANT-HEADER' }, async ({ credentials }) => {
  const multi = credentials.client('control-plane', credentials.apiKey('multi-workspace'));
  const [home, other] = credentials.workspaces('multi-workspace');
  for (const [workspace, header] of [
    [home, 'X-Tenant-Id'],
    [other, 'x-tenant-id'],
  ]) {
    const mine = await multi.get<{ id: string }[]>(INTEGRATIONS, { headers: { [header]: workspace } });
    expectStatus(mine, 200);
    const owner = credentials.client('control-plane', workspace === home ? credentials.apiKey('primary') : credentials.apiKey('second-workspace'));
    const expected = await owner.get<{ id: string }[]>(INTEGRATIONS);
    precondition(expected, "list the workspace's integrations with its own key");
    expect(mine.json.map((i) => i.id).sort(), mine.describe(`${header}: ${workspace} selects that workspace's integrations`)).toEqual(
      expected.json.map((i) => i.id).sort(),
    );
  }
  const foreign = await multi.get(INTEGRATIONS, { headers: { 'x-tenant-id': '00000000-0000-4000-8000-0000000000aa' } });
  expectRefused(foreign, [401, 403, 404]);
});

test('the repository listing accepts an API key, or a bearer token with the tenant ID selecting the workspace', {
  tag: ['@AUTH-REPOS-SCHEMES', '@AUTH-CP-BEARER'],
}, async ({ credentials }) => {
  const bearer = credentials.bearerToken;
  const anonymous = credentials.client('control-plane');
  const primary = credentials.client('control-plane', credentials.apiKey('primary'));
  // The integration is found with the workspace's own key: the listings judged here are the repository listings.
  // A bearer scheme refused leaves the API key judged; a listing that answers nothing with the key either says
  // nothing of the bearer scheme, which is then not judged.
  const [mine] = await integrations(primary);
  const keyed = await primary.get(repositoriesOf(mine.id));
  await forRule('AUTH-REPOS-SCHEMES', () => expectStatus(keyed, 200));
  if (keyed.status !== 200)
    skipForPrecondition(`precondition failed: the repository listing answered no repositories to the API key either: ${keyed.describe()}`, ['REPO-LIST']);
  await forRule('AUTH-CP-BEARER', async () => {
    const res = await anonymous.get(repositoriesOf(mine.id), {
      headers: { authorization: `Bearer ${bearer.token}`, 'x-tenant-id': credentials.workspaces('primary')[0] },
    });
    expectStatus(res, 200);
    const bad = await anonymous.get(repositoriesOf(mine.id), { headers: { authorization: 'Bearer apc-not-a-valid-token' } });
    expectRefused(bad, [401, 403]);
  });
});

// A test of its own: finding the other workspace's integration is a step, which must not leave the API key unjudged.
test("the bearer token's x-tenant-id selects its other workspace for the repository listing", { tag: '@AUTH-CP-BEARER' }, async ({ credentials }) => {
  const bearer = credentials.bearerToken;
  const [, other] = bearer.workspaces;
  const otherKey = credentials.client('control-plane', credentials.apiKey('second-workspace'));
  const [inOther] = await integrations(otherKey);
  // The listing answers the workspace's own key: a step, so that only the bearer scheme is judged here.
  precondition(await otherKey.get(repositoriesOf(inOther.id)), "list the repositories with the workspace's own key", ['REPO-LIST']);
  const res = await credentials.client('control-plane').get(repositoriesOf(inOther.id), {
    headers: { authorization: `Bearer ${bearer.token}`, 'x-tenant-id': other },
  });
  expectStatus(res, 200);
});

test('the header names of the bearer and tenant-ID schemes', { tag: '@AUTH-CP-HEADER-NAMES' }, async ({ controlPlane, conformanceRun, observe }, testInfo) => {
  const [{ id: integrationId }] = await integrations(controlPlane);
  const anonymous = clientWithKey(conformanceRun, 'control-plane', testInfo, undefined)!;
  const answers: string[] = [];
  for (const [what, headers] of [
    ['Authorization: Bearer <invalid>', { authorization: 'Bearer apc-not-a-valid-token' }],
    ['X-Tenant-Id alone', { 'x-tenant-id': '00000000-0000-4000-8000-0000000000aa' }],
  ] as const) {
    const res = await anonymous.get(repositoriesOf(integrationId), { headers: { ...headers } });
    answers.push(`${what} → ${res.status}`);
  }
  observe('AUTH-CP-HEADER-NAMES', answers.join('; '));
});

test('a deployment of one workspace is invisible from another', { tag: '@AUTH-CP-WORKSPACE-ISOLATION' }, async ({ credentials, testKey }) => {
  const alpha = credentials.client('control-plane', credentials.apiKey('primary'));
  const beta = credentials.client('control-plane', credentials.apiKey('second-workspace'));
  const { deployment } = await createDeployment(alpha, await repository(alpha), deploymentName(testKey));
  // "Finds nothing": a refusal of any 4xx, as the spec names no status for another workspace's ids.
  expectRefused(await beta.get(`/v2/deployments/${deployment.id}`));
  expectRefused(await beta.patch(`/v2/deployments/${deployment.id}`, { source_config: { build_on_push: false } }));
  expectRefused(await beta.get(`/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`));
  expectRefused(await beta.get(`/v2/deployments/${deployment.id}/revisions`));
  const listed = await beta.get<{ resources: Deployment[] }>(`/v2/deployments?name_contains=${deploymentName(testKey)}`);
  expectStatus(listed, 200);
  expect(listed.json.resources, listed.describe("another workspace's list does not show it")).toEqual([]);
});

const AUTHENTICATE = '/v2/auth/authenticate';
/** An authenticate body (§2.4) for this test's own user, naming the run's provider. */
const authenticateBody = (oauth: OAuthProviders, testKey: string) => ({ provider: oauth.first, scopes: ['read'], user_id: `apc-user-${testKey}` });
/** Not served: a route the target does not have (a 404 or 405 without a validation error). */
const unserved = (status: number) => status === 404 || status === 405;

// §9 says where authentication is served, not where it is not: what /v1 answers is not judged.
test('authentication on the control plane is served under v2', { tag: '@VERSION-CP-AUTHN-V2' }, async ({ controlPlane, testKey, conformanceRun }) => {
  const oauth = new OAuthProviders(conformanceRun.target);
  // §9 names no path: /v2/auth/authenticate is the only authentication path the spec gives (§4.2).
  const v2 = await controlPlane.post(AUTHENTICATE, authenticateBody(oauth, testKey));
  // A 404 to a made-up provider may say the provider is unknown rather than the route.
  if (v2.status === 404) oauth.skipIfRefusedMadeUp(v2, oauth.first);
  expect(unserved(v2.status), v2.describe(`authentication served at ${AUTHENTICATE}`)).toBe(false);
});

test('the control plane serves POST /v2/auth/authenticate with the body and result of §2.4', { tag: '@AUTHN-CONTROL-PLANE' }, async ({
  controlPlane,
  testKey,
  conformanceRun,
}) => {
  const oauth = new OAuthProviders(conformanceRun.target);
  // The body is the test's choice (§4.2: which fields are required is not shown): sent again with every field of §2.4 where it is refused 422.
  const res = await authenticate(controlPlane, authenticateBody(oauth, testKey), oauth);
  expectStatus(res, 200);
  expectSchema(res, 'control-plane', 'AuthenticateResponse');
  expect(typeof res.json.token === 'string' || typeof res.json.url === 'string', res.describe('a token, or the url that starts the flow')).toBe(true);
  expectJsonError(await controlPlane.post(AUTHENTICATE, { provider: oauth.first, scopes: 'read' }), 422);
});
