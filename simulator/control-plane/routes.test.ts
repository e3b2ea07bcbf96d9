// The control plane's route table (routes.ts), in process: every row but getOpenApiDocument
// needs credentials (401 without, 403 without a workspace), the repository listing also takes
// a bearer token, each row reaches the deployment store in the caller's workspace with the
// path and query, createDeployment answers 201 and deleteDeployment 204 with no body.
// The stores themselves are tested beside them (deployments, repositories, oauth).
import { expect, test } from '@playwright/test';
import { contract } from '../../specs/contract.ts';
import type { AuthenticateResponse } from '../../specs/types/platform-api.ts';
import type { Deployment, Integration, Repository, Revision } from '../../specs/types/control-plane.ts';
import { Simulator } from '../simulator.ts';

const sims: Simulator[] = [];
// A deployment created starts its own agent server, which close() stops.
test.afterAll(() => Promise.all(sims.map((sim) => sim.close())));

function controlPlane() {
  const sim = new Simulator({ seed: 'control-routes', quiet: true });
  sims.push(sim);
  const { api_keys, bearer_tokens, workspaces } = sim.info().credentials;
  const keyOf = (role: string) => api_keys.find((k) => k.role === role)!.key;
  const credentials = { key: keyOf('primary'), other: keyOf('second-workspace'), org: keyOf('org-scoped'), bearer: bearer_tokens[0].token, workspaces };
  /** `auth` are the request's credential headers: the primary key unless told. */
  const call = (method: string, path: string, body?: unknown, auth: Record<string, string> = { 'x-api-key': credentials.key }) =>
    sim.request('control-plane', path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...auth },
    });
  const json = async <T>(method: string, path: string, body?: unknown, auth?: Record<string, string>): Promise<T> => {
    const res = await call(method, path, body, auth);
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return (await res.json()) as T;
  };
  /** A valid create body: the first repository of the primary workspace's integration. */
  const deploymentBody = async (name?: string) => {
    const [integration] = await json<Integration[]>('GET', '/v1/integrations/sourcehost/install');
    const [repo] = await json<Repository[]>('GET', `/v1/integrations/sourcehost/${integration.id}/repos`);
    return { name, integration_id: integration.id, source_config: { repo_url: repo.url }, source_revision_config: { repo_ref: repo.default_branch } };
  };
  return { sim, call, json, credentials, deploymentBody };
}

test('every row but getOpenApiDocument answers 401 without credentials and 403 without a workspace', async () => {
  const { call, credentials, deploymentBody } = controlPlane();
  // Bodies that pass the schema, so the refusal is the credentials'.
  const bodies: Record<string, unknown> = {
    createDeployment: await deploymentBody(),
    patchDeployment: { name: 'x' },
    authenticate: { provider: 'github', scopes: ['repo'] },
  };
  const someId = '00000000-0000-4000-8000-000000000000';
  const operations = contract().operationsOf('control-plane');
  expect(operations.length).toBeGreaterThan(10);
  for (const op of operations) {
    const path = op.path.replace(/\{\w+\}/g, someId);
    const anonymous = await call(op.method, path, bodies[op.operationId], {});
    const orgScoped = await call(op.method, path, bodies[op.operationId], { 'x-api-key': credentials.org });
    const expected = op.operationId === 'getOpenApiDocument' ? [200, 200] : [401, 403];
    expect([anonymous.status, orgScoped.status], op.operationId).toEqual(expected);
  }
});

test("getOpenApiDocument answers the contract's control-plane document", async () => {
  const { call } = controlPlane();
  const res = await call('GET', '/openapi.json', undefined, {});
  expect(await res.json()).toEqual(contract().documents['control-plane']);
});

test('listRepositories takes an API key or a bearer token; the other rows refuse a bearer; x-tenant-id picks the workspace', async () => {
  const { call, json, credentials } = controlPlane();
  const [integration] = await json<Integration[]>('GET', '/v1/integrations/sourcehost/install');
  const repos = `/v1/integrations/sourcehost/${integration.id}/repos`;
  const byKey = await json<Repository[]>('GET', repos);
  expect(byKey.length).toBeGreaterThan(0);
  expect(await json('GET', repos, undefined, { authorization: `Bearer ${credentials.bearer}` })).toEqual(byKey);
  expect((await call('GET', '/v1/integrations/sourcehost/install', undefined, { authorization: `Bearer ${credentials.bearer}` })).status).toBe(401);

  const [, beta] = credentials.workspaces;
  const otherWorkspace = await json<Integration[]>('GET', '/v1/integrations/sourcehost/install', undefined, { 'x-api-key': credentials.other });
  const chosen = await json<Integration[]>('GET', '/v1/integrations/sourcehost/install', undefined, { 'x-api-key': credentials.org, 'x-tenant-id': beta.id });
  expect(chosen).toEqual(otherWorkspace);
  expect(chosen).not.toEqual([integration]);
});

test('createDeployment answers 201; get, list, patch, revisions and delete reach it in the caller workspace', async () => {
  const { call, json, credentials, deploymentBody } = controlPlane();
  const created = await call('POST', '/v2/deployments', await deploymentBody('first'));
  expect(created.status).toBe(201);
  const first = (await created.json()) as Deployment;
  const second = await json<Deployment>('POST', '/v2/deployments', await deploymentBody('second'));
  const at = `/v2/deployments/${first.id}`;
  expect(await json('GET', at)).toEqual(first);
  expect((await call('GET', at, undefined, { 'x-api-key': credentials.other })).status, 'another workspace').toBe(404);

  const names = async (query: string) => (await json<{ resources: Deployment[] }>('GET', `/v2/deployments${query}`)).resources.map((d) => d.name);
  expect(await names('')).toEqual(['second', 'first']);
  expect(await names('?limit=1&offset=1')).toEqual(['first']);
  expect(await names('?name_contains=sec')).toEqual([second.name]);

  const patched = await json<Deployment>('PATCH', at, { source_revision_config: { repo_ref: 'release' } });
  expect(patched.latest_revision_id).not.toBe(first.latest_revision_id);
  const revisions = await json<{ resources: Revision[] }>('GET', `${at}/revisions?limit=1`);
  expect(revisions.resources.map((r) => r.id)).toEqual([patched.latest_revision_id]);
  expect((await json<Revision>('GET', `${at}/revisions/${first.latest_revision_id}`)).id).toBe(first.latest_revision_id);

  const deleted = await call('DELETE', at);
  expect([deleted.status, await deleted.text()]).toEqual([204, '']);
  expect((await call('GET', at)).status).toBe(404);
});

test("authenticate acts in the caller's workspace, on the flows the US platform API shares", async () => {
  const { sim, json, credentials } = controlPlane();
  const body = { provider: 'github', scopes: ['repo'] };
  const started = await json<AuthenticateResponse>('POST', '/v2/auth/authenticate', body);
  expect(started.status).toBe('pending');
  const onPlatform = await sim.request('platform-api', '/v2/auth/authenticate', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'x-api-key': credentials.key },
  });
  expect(((await onPlatform.json()) as AuthenticateResponse).auth_id).toBe(started.auth_id);
  const elsewhere = await json<AuthenticateResponse>('POST', '/v2/auth/authenticate', body, { 'x-api-key': credentials.other });
  expect(elsewhere.auth_id).not.toBe(started.auth_id);
});

test('credentials are checked before the request is validated: a keyless bad request answers 401, not 422', async () => {
  const { call } = controlPlane();
  expect((await call('POST', '/v2/deployments', {}, {})).status).toBe(401);
  expect((await call('GET', '/v2/deployments?limit=abc', undefined, {})).status).toBe(401);
  expect((await call('POST', '/v2/deployments', {})).status, 'with a key, the same body is refused by validation').toBe(422);
});
