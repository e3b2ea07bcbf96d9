// §1, §2.3, §4.1: creating, reading, updating and listing deployments.
import { skipDeclared, skipForPrecondition } from '../../harness/checks/attribution.ts';
import { expectJsonError, expectRefused, expectSchema, expectStatus, precondition } from '../../harness/checks/index.ts';
import { expect, test } from './fixtures.ts';
import { createDeployment, deploymentBody, deploymentName, pollRevision, repository, revisionPath, type Deployment, type Polled } from './deployments-steps.ts';

const UNKNOWN = '00000000-0000-4000-8000-0000000dead0';

test('POST /v2/deployments with integration_id, repo_url and repo_ref creates a deployment with id and latest_revision_id', { tag: '@DEPLOY-CREATE' }, async ({
  controlPlane,
  testKey,
}) => {
  const repo = await repository(controlPlane);
  const res = await controlPlane.post<Deployment>('/v2/deployments', deploymentBody(repo, deploymentName(testKey)));
  // The spec gives no status for a creation (§4.1): DEPLOY-CREATE-201 asks for the real service's 201.
  expectStatus(res, '2xx');
  expectSchema(res, 'control-plane', 'Deployment');
  const read = await controlPlane.get<Deployment>(`/v2/deployments/${res.json.id}`);
  expect(read.status, read.describe('the created deployment exists')).toBe(200);
});

test('a successful creation answers 201', { tag: '@DEPLOY-CREATE-201' }, async ({ controlPlane, testKey }) => {
  const repo = await repository(controlPlane);
  expectStatus(await controlPlane.post('/v2/deployments', deploymentBody(repo, deploymentName(testKey))), 201);
});

test('a deployment has a string id, the same in the create, get and patch answers', { tag: '@DEPLOY-ID' }, async ({ controlPlane, testKey }) => {
  const { deployment, res } = await createDeployment(controlPlane, await repository(controlPlane), deploymentName(testKey));
  expect(typeof deployment.id, res.describe('id on create')).toBe('string');
  const read = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
  expectStatus(read, 200);
  expect(read.json.id, read.describe('id on get')).toBe(deployment.id);
  const patched = await controlPlane.patch<Deployment>(`/v2/deployments/${deployment.id}`, { source_config: { build_on_push: false } });
  expectStatus(patched, '2xx');
  expect(patched.json.id, patched.describe('id on patch')).toBe(deployment.id);
});

test('latest_revision_id is a string naming the first revision at creation', { tag: '@DEPLOY-LATEST-REVISION-ID' }, async ({ controlPlane, testKey }) => {
  const { deployment, res } = await createDeployment(controlPlane, await repository(controlPlane), deploymentName(testKey));
  expect(typeof deployment.latest_revision_id, res.describe('latest_revision_id on create')).toBe('string');
  const revision = await controlPlane.get(revisionPath(deployment, deployment.latest_revision_id));
  expect(revision.status, revision.describe('the latest revision exists')).toBe(200);
  const read = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
  expectStatus(read, 200);
  expect(read.json.latest_revision_id, read.describe('latest_revision_id on get, before any update')).toBe(deployment.latest_revision_id);
});

test('GET /v2/deployments/{id} answers the deployment with that id', { tag: '@DEPLOY-GET' }, async ({ controlPlane, testKey }) => {
  const name = deploymentName(testKey);
  const { deployment } = await createDeployment(controlPlane, await repository(controlPlane), name);
  const read = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
  expectStatus(read, 200);
  expectSchema(read, 'control-plane', 'Deployment');
  expect(read.json.id, read.describe('the id asked for')).toBe(deployment.id);
  expect(read.json.latest_revision_id, read.describe('the same latest revision as created')).toBe(deployment.latest_revision_id);
});

// A path the spec does not show (the service's own, which the run's cleanup uses).
test('DELETE /v2/deployments/{id} answers 204, and the deployment can no longer be read', { tag: '@DEPLOY-DELETE' }, async ({
  controlPlane,
  testKey,
  time,
}) => {
  const { deployment } = await createDeployment(controlPlane, await repository(controlPlane), deploymentName(testKey));
  expectStatus(await controlPlane.delete(`/v2/deployments/${deployment.id}`), 204);
  // Whatever 4xx a target answers for an id it no longer has (§7), once the deletion has settled.
  const read = await time.poll(
    () => controlPlane.get(`/v2/deployments/${deployment.id}`),
    (res) => res.status >= 400 && res.status < 500,
    { deadline: 'settle', first: 500 },
  );
  expectRefused(read.value);
});

test('PATCH /v2/deployments/{id} answers the updated deployment', { tag: '@DEPLOY-PATCH' }, async ({ controlPlane, testKey }) => {
  const repo = await repository(controlPlane);
  const { deployment } = await createDeployment(controlPlane, repo, deploymentName(testKey));
  const ref = `${repo.default_branch}-apc-update`;
  const patched = await controlPlane.patch<Deployment>(`/v2/deployments/${deployment.id}`, { source_revision_config: { repo_ref: ref } });
  expectStatus(patched, '2xx');
  expectSchema(patched, 'control-plane', 'Deployment');
  expect(patched.json.id, patched.describe('the same deployment')).toBe(deployment.id);
  const read = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
  precondition(read, 'read the deployment');
  // Fields beyond id and latest_revision_id are not shown (§4.1): the update is judged where the answers show it.
  const shown = [patched, read].filter((res) => res.json.source_revision_config !== undefined);
  skipDeclared(
    shown.length === 0,
    "the target's deployment shows no source_revision_config (§4.1 leaves it unshown), so whether the answer is the updated deployment cannot be judged",
  );
  for (const res of shown) {
    expect(res.json.source_revision_config?.repo_ref, res.describe(res === read ? 'the update stays' : 'the update is in the answer')).toBe(ref);
  }
});

test('the fields of a deployment beyond id and latest_revision_id', { tag: '@DEPLOY-OTHER-FIELDS' }, async ({ controlPlane, testKey, observe }) => {
  const { deployment } = await createDeployment(controlPlane, await repository(controlPlane), deploymentName(testKey));
  const read = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
  observe(
    'DEPLOY-OTHER-FIELDS',
    `create answers ${Object.keys(deployment).sort().join(', ')}; get answers ${Object.keys(read.json ?? {})
      .sort()
      .join(', ')}`,
  );
});

test('body fields beyond those named, and what the answers carry', { tag: '@DEPLOY-BODY-FIELDS' }, async ({ controlPlane, testKey, observe }) => {
  const repo = await repository(controlPlane);
  const res = await controlPlane.post<Deployment>(
    '/v2/deployments',
    deploymentBody(repo, deploymentName(testKey), { source: 'github', secrets: [{ name: 'APC_SECRET', value: 'x' }], apc_unknown_field: true }),
  );
  observe(
    'DEPLOY-BODY-FIELDS',
    `create with name, source, secrets and an unknown field → ${res.status}; answer fields: ${Object.keys(res.json ?? {})
      .sort()
      .join(', ')}`,
  );
  if (res.status >= 300) return;
  const patched = await controlPlane.patch<Deployment>(`/v2/deployments/${res.json.id}`, { secrets: [{ name: 'APC_SECRET', value: 'y' }] });
  observe(
    'DEPLOY-BODY-FIELDS',
    `patch with secrets → ${patched.status}; latest_revision_id ${patched.json?.latest_revision_id === res.json.latest_revision_id ? 'unchanged' : 'changed'}`,
  );
});

test('GET /v2/deployments answers {resources, offset} and honours limit, offset and name_contains', { tag: '@DEPLOY-LIST' }, async ({
  controlPlane,
  testKey,
}) => {
  const repo = await repository(controlPlane);
  const name = deploymentName(testKey);
  const created = [
    (await createDeployment(controlPlane, repo, `${name}-a`)).deployment.id,
    (await createDeployment(controlPlane, repo, `${name}-b`)).deployment.id,
  ];
  // A deployment whose name does not contain the test's: name_contains leaves it out.
  await createDeployment(controlPlane, repo, deploymentName(`other-${testKey}`));
  const all = await controlPlane.get<{ resources: Deployment[]; offset: number }>(`/v2/deployments?name_contains=${name}&limit=10`);
  expectStatus(all, 200);
  expect(Array.isArray(all.json.resources), all.describe('resources is an array')).toBe(true);
  expect(typeof all.json.offset, all.describe('offset is a number')).toBe('number');
  expect(all.json.resources.map((d) => d.id).sort(), all.describe("the test's deployments, those whose name contains its name")).toEqual([...created].sort());
  const first = await controlPlane.get<{ resources: Deployment[] }>(`/v2/deployments?name_contains=${name}&limit=1&offset=0`);
  const second = await controlPlane.get<{ resources: Deployment[] }>(`/v2/deployments?name_contains=${name}&limit=1&offset=1`);
  expectStatus(first, 200);
  expectStatus(second, 200);
  expect(first.json.resources.length, first.describe('limit 1')).toBe(1);
  expect(second.json.resources.length, second.describe('limit 1, offset 1')).toBe(1);
  expect(first.json.resources[0].id, second.describe('offset 1 is the other deployment')).not.toBe(second.json.resources[0].id);
  // An offset at or past the end is a page with nothing on it, not an error.
  for (const offset of [2, 50]) {
    const past = await controlPlane.get<{ resources: Deployment[] }>(`/v2/deployments?name_contains=${name}&limit=1&offset=${offset}`);
    expectStatus(past, 200);
    expect(past.json.resources, past.describe(`offset ${offset}, past the two deployments`)).toEqual([]);
  }
});

test('getting, patching or listing the revisions of an unknown deployment answers 404 with a JSON error body', { tag: '@DEPLOY-UNKNOWN-404' }, async ({
  controlPlane,
}) => {
  expectJsonError(await controlPlane.get(`/v2/deployments/${UNKNOWN}`), 404);
  expectJsonError(await controlPlane.patch(`/v2/deployments/${UNKNOWN}`, { source_config: { build_on_push: false } }), 404);
  expectJsonError(await controlPlane.get(`/v2/deployments/${UNKNOWN}/revisions`), 404);
  // A revision path under an unknown deployment names that deployment too.
  expectJsonError(await controlPlane.get(revisionPath({ id: UNKNOWN }, '00000000-0000-4000-8000-00000000beef')), 404);
});

test('the status code for unknown ids on the control plane', { tag: '@ERROR-UNKNOWN-ID-STATUS-CP' }, async ({ controlPlane, observe }) => {
  const answers = [
    await controlPlane.get(`/v2/deployments/${UNKNOWN}`),
    await controlPlane.get(`/v2/deployments/${UNKNOWN}/revisions/${UNKNOWN}`),
    await controlPlane.get(`/v2/deployments/not-a-uuid`),
    await controlPlane.patch(`/v2/deployments/${UNKNOWN}`, {}),
  ];
  observe('ERROR-UNKNOWN-ID-STATUS-CP', answers.map((r) => `${r.method} ${r.path} → ${r.status} ${r.text.slice(0, 80)}`).join('; '));
});

test.describe('a malformed create body answers 422 with a JSON error body and creates nothing', { tag: '@DEPLOY-BAD-INPUT' }, () => {
  const cases: [string, (body: Record<string, unknown>) => string][] = [
    ['malformed JSON', (body) => JSON.stringify(body).slice(0, -1)],
    ['no integration_id', ({ integration_id: _i, ...body }) => JSON.stringify(body)],
    ['no source_config.repo_url', (body) => JSON.stringify({ ...body, source_config: {} })],
    ['no source_revision_config.repo_ref', (body) => JSON.stringify({ ...body, source_revision_config: {} })],
    ['integration_id not a UUID', (body) => JSON.stringify({ ...body, integration_id: 'integration-1' })],
    ['repo_ref not a string', (body) => JSON.stringify({ ...body, source_revision_config: { repo_ref: 42 } })],
    ['source_config not an object', (body) => JSON.stringify({ ...body, source_config: 'https://example.invalid/repo' })],
  ];
  for (const [name, broken] of cases) {
    test(name, async ({ controlPlane, testKey }) => {
      const repo = await repository(controlPlane);
      const deployment = deploymentName(testKey);
      const res = await controlPlane.post('/v2/deployments', undefined, {
        rawBody: broken(deploymentBody(repo, deployment)),
        headers: { 'content-type': 'application/json' },
      });
      expectJsonError(res, 422);
      const after = await controlPlane.get<{ resources: unknown[] }>(`/v2/deployments?name_contains=${deployment}`);
      precondition(after, 'list the deployments of the test');
      expect(after.json.resources, after.describe('no deployment was created')).toEqual([]);
    });
  }

  test('a patch with a field of the wrong type answers 422 and changes nothing', async ({ controlPlane, testKey }) => {
    const { deployment } = await createDeployment(controlPlane, await repository(controlPlane), deploymentName(testKey));
    const before = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
    precondition(before, 'read the deployment');
    // The last body's valid field must not be applied either: a refused patch changes nothing (not part of it).
    for (const body of [
      { source_revision_config: { repo_ref: 7 } },
      { source_revision_config: 'main' },
      { secrets: 'APC=1' },
      { source_config: { build_on_push: true }, source_revision_config: { repo_ref: 7 } },
    ]) {
      expectJsonError(await controlPlane.patch(`/v2/deployments/${deployment.id}`, body), 422);
    }
    const after = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
    expect(after.json, after.describe('the deployment is unchanged')).toEqual(before.json);
  });
});

test('each deployment exposes an agent server of its own, at its own URL', { tag: '@DEPLOY-AGENT-SERVER' }, async ({
  controlPlane,
  sharedDeployment,
  testKey,
  time,
}) => {
  const repo = await repository(controlPlane);
  const { deployment: second } = await createDeployment(controlPlane, repo, deploymentName(testKey));
  // Neither deployment can serve once one of them failed: the test stops then, not when both settled.
  const deployed = async (step: Promise<{ deployment: Deployment } & Polled>) => {
    const { deployment, last, seen } = await step;
    const refused = last.status >= 300 ? `, then ${last.describe()}` : '';
    if (last.json?.status !== 'DEPLOYED') {
      skipForPrecondition(`precondition failed: the revision ended ${seen.join(' → ')}${refused}`, ['REVISION-POLL-DEPLOYED', 'DEPLOY-FLOW']);
    }
    const read = await controlPlane.get<Deployment>(`/v2/deployments/${deployment.id}`);
    precondition(read, 'read the deployed deployment');
    return read.json;
  };
  // The shared deployment is one of the two; on a real target both build at the same time.
  const pollSecond = async () => ({ deployment: second, ...(await pollRevision(controlPlane, time, second, second.latest_revision_id)) });
  const both = time.virtual
    ? [await deployed(sharedDeployment.settled()), await deployed(pollSecond())]
    : await Promise.all([deployed(sharedDeployment.settled()), deployed(pollSecond())]);
  const [a, b] = both.map((d) => d.source_config?.custom_url);
  // Where a deployment's agent server is reached is not shown (§4.1); the real service names it in source_config.custom_url.
  const named = typeof a === 'string' && typeof b === 'string';
  skipDeclared(!named, `the target's deployed deployment names no URL in source_config.custom_url (${a}, ${b}), so its agent server cannot be reached`);
  expect(a, 'two deployments have two URLs').not.toBe(b);
  // The agent servers are reached directly: they are other targets than the control plane.
  // Statuses are not shown for these (§4.5, §7): a success, and a refusal (any 4xx) for an id the server does not hold.
  const thread = await fetch(`${a}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(thread.ok, `${a} answers POST /threads as an agent server (${thread.status})`).toBe(true);
  const { thread_id } = (await thread.json()) as { thread_id: string };
  const here = await fetch(`${a}/threads/${thread_id}`);
  expect(here.ok, `the thread is on the first agent server (${here.status})`).toBe(true);
  const there = await fetch(`${b}/threads/${thread_id}`);
  expect(there.status >= 400 && there.status < 500, `the second deployment's agent server does not hold the first one's thread (${there.status})`).toBe(true);
});
