import { expect, test } from '@playwright/test';
import { contract } from '../../specs/contract.ts';
import { WorkspaceDirectory } from '../auth/workspaces.ts';
import { VirtualClock } from '../clock.ts';
import { awaitedRefusalOf } from '../http/errors.ts';
import { IdGenerator } from '../ids.ts';
import { DeploymentStore } from './deployments.ts';
import { RepositoryCatalog } from './repositories.ts';
import { TIME_TO_DEPLOY } from './revision-lifecycle.ts';

const [alpha, beta] = WorkspaceDirectory.fromFixture().workspaces;
const repositories = RepositoryCatalog.fromFixture();
const repo = repositories.repositories(alpha, repositories.list(alpha)[0].id)[0];
const body = (extra: Record<string, unknown> = {}) => ({
  integration_id: repo.host_integration_id,
  source_config: { repo_url: repo.url },
  source_revision_config: { repo_ref: repo.default_branch },
  ...extra,
});

function setup(host?: () => Promise<string>, unhost?: (url: string) => void) {
  const clock = new VirtualClock();
  return { clock, store: new DeploymentStore({ clock, ids: new IdGenerator('deployments'), repositories, host, unhost }) };
}

/** The status an action is refused with, if any. */
const refusal = async (run: () => unknown) => (await awaitedRefusalOf(run))?.status;

test('a revision moves through the real statuses to DEPLOYED, which publishes the agent server URL', async () => {
  const { clock, store } = setup(async () => 'http://127.0.0.1:9999');
  const created = await store.create(alpha, body());
  const statuses = [store.revision(alpha, created.id, created.latest_revision_id).status];
  for (let t = 0; t < TIME_TO_DEPLOY; t += 1000) {
    clock.advance(1000);
    const status = store.revision(alpha, created.id, created.latest_revision_id).status;
    if (status !== statuses[statuses.length - 1]) statuses.push(status);
  }
  expect(statuses).toEqual(['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
  const deployed = store.get(alpha, created.id);
  expect([deployed.status, deployed.active_revision_id, deployed.source_config.custom_url]).toEqual([
    'READY',
    created.latest_revision_id,
    'http://127.0.0.1:9999',
  ]);
});

test('a revision asked to fail ends in that failure and never deploys', async () => {
  const { clock, store } = setup();
  const created = await store.create(alpha, body());
  store.fail(created.id, created.latest_revision_id, 'BUILD_FAILED');
  clock.advance(TIME_TO_DEPLOY * 2);
  expect(store.revision(alpha, created.id, created.latest_revision_id).status).toBe('BUILD_FAILED');
  expect(store.get(alpha, created.id).active_revision_id).toBeNull();
  expect(await refusal(() => store.fail(created.id, created.latest_revision_id, 'DEPLOY_FAILED'))).toBe(409);
});

test('a patch of the source revision starts a revision and interrupts the one in progress', async () => {
  const { clock, store } = setup();
  const created = await store.create(alpha, body());
  clock.advance(3000);
  const patched = store.patch(alpha, created.id, { source_revision_config: { repo_ref: 'release' } });
  expect(patched.latest_revision_id).not.toBe(created.latest_revision_id);
  expect(store.revision(alpha, created.id, created.latest_revision_id).status).toBe('INTERRUPTED');
  expect(store.revisions(alpha, created.id, {}).resources.map((r) => r.id)).toEqual([patched.latest_revision_id, created.latest_revision_id]);
  expect(store.patch(alpha, created.id, { source_config: { build_on_push: true } }).latest_revision_id).toBe(patched.latest_revision_id);
});

test('fields fixed at creation refuse another value and change nothing', async () => {
  const { store } = setup();
  const created = await store.create(alpha, body());
  expect(await refusal(() => store.patch(alpha, created.id, { source_config: { repo_url: 'https://elsewhere.example/x' } }))).toBe(400);
  expect(store.patch(alpha, created.id, { name: created.name, source_config: { repo_url: repo.url, deployment_type: null } })).toEqual(created);
  expect(store.get(alpha, created.id)).toEqual(created);
});

/** Where the schema of an operation refuses a body: the server answers 422 there before the store runs. */
const refusedAt = (operationId: string, value: unknown) =>
  contract()
    .validateRequestBody(contract().operation('control-plane', operationId), value)
    .map((v) => v.at);

test('the schemas refuse bad fields of the create and update bodies, each at its location', () => {
  expect(refusedAt('createDeployment', body())).toEqual([]);
  expect(refusedAt('createDeployment', { ...body(), integration_id: undefined, unknown_field: 1 })).toEqual([]);
  expect(refusedAt('createDeployment', body({ source: 'external_docker', name: 5, secrets: [{ name: 'A' }] }))).toEqual(['/name', '/source', '/secrets/0']);
  expect(
    refusedAt('createDeployment', body({ source_config: { repo_url: repo.url, deployment_type: 'huge', build_on_push: 'yes', resource_spec: [] } })),
  ).toEqual(['/source_config/deployment_type', '/source_config/build_on_push', '/source_config/resource_spec']);
  expect(refusedAt('createDeployment', body({ source_revision_config: { repo_ref: '  ' } }))).toEqual(['/source_revision_config/repo_ref']);
  expect(refusedAt('patchDeployment', { source_config: null, source_revision_config: { repo_ref: null }, secrets: null })).toEqual([]);
  expect(refusedAt('patchDeployment', { secrets: 'A=1', source_revision_config: { repo_ref: 7, image_uri: false } })).toEqual([
    '/source_revision_config/repo_ref',
    '/source_revision_config/image_uri',
    '/secrets',
  ]);
});

test('rules across fields answer 422 in the validation error shape', async () => {
  const { store } = setup();
  const issue = async (run: () => unknown) => (await awaitedRefusalOf(run))?.issues?.map((i) => [i.loc.join('.'), i.type]);
  expect(await issue(() => store.create(alpha, { ...body(), integration_id: undefined }))).toEqual([['body.integration_id', 'missing']]);
  const other = '00000000-0000-4000-8000-0000000000aa';
  expect(await issue(() => store.create(alpha, body({ source_config: { repo_url: repo.url, integration_id: other } })))).toEqual([
    ['body.source_config.integration_id', 'value_error'],
  ]);
  const tag = { source_revision_config: { repo_ref: 'refs/tags/v1' } };
  expect(await issue(() => store.create(alpha, body({ ...tag, source_config: { repo_url: repo.url, build_on_push: true } })))).toEqual([
    ['body.source_config.build_on_push', 'value_error'],
  ]);
  const created = await store.create(alpha, body({ source_config: { repo_url: repo.url, build_on_push: true } }));
  expect(await issue(() => store.patch(alpha, created.id, tag))).toEqual([['body.source_revision_config.repo_ref', 'value_error']]);
  expect(store.patch(alpha, created.id, { ...tag, source_config: { build_on_push: false } }).source_revision_config.repo_ref).toBe('refs/tags/v1');
});

test("a create naming no integration, another workspace's or an unreachable repository is refused", async () => {
  const { store } = setup();
  expect(await refusal(() => store.create(alpha, { ...body(), integration_id: undefined }))).toBe(422);
  expect(await refusal(() => store.create(beta, body()))).toBe(400);
  expect(await refusal(() => store.create(alpha, body({ source_config: { repo_url: 'https://sourcehost.example/none' } })))).toBe(400);
  expect(
    (await store.create(alpha, { ...body(), integration_id: undefined, source_config: { repo_url: repo.url, integration_id: repo.host_integration_id } }))
      .source_config.integration_id,
  ).toBe(repo.host_integration_id);
});

test('another workspace finds no deployment', async () => {
  const { store } = setup();
  const created = await store.create(alpha, body());
  expect(await refusal(() => store.get(beta, created.id))).toBe(404);
  expect(store.list(beta, {}).resources).toEqual([]);
  expect(store.list(alpha, { limit: 1 })).toEqual({ resources: [store.get(alpha, created.id)], offset: 1 });
});

test("a deleted deployment's agent server is let go, and only its own", async () => {
  let port = 9000;
  const unhosted: string[] = [];
  const { store } = setup(
    async () => `http://127.0.0.1:${++port}`,
    (url) => unhosted.push(url),
  );
  const kept = await store.create(alpha, body());
  const deleted = await store.create(alpha, body());
  store.delete(alpha, deleted.id);
  expect(unhosted).toEqual(['http://127.0.0.1:9002']);
  expect(await refusal(() => store.get(alpha, deleted.id))).toBe(404);
  expect(store.get(alpha, kept.id).id).toBe(kept.id);
});
