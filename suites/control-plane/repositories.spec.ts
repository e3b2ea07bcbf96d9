// §2.1, §4.1: the repositories available to an integration.
import fc from 'fast-check';
import { expectJsonError, expectSchema, expectStatus, preconditionFields } from '../../harness/checks/index.ts';
import { forRule, skipDeclared, skipForPrecondition } from '../../harness/checks/attribution.ts';
import { expect, test } from './fixtures.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { ConformanceRun } from '../../harness/conformance-run.ts';
import { allows } from '../../harness/profile.ts';
import { assertProperty } from '../../harness/property.ts';
import { deploymentBody, deploymentName, INTEGRATIONS, integrations, repositories, repositoriesOf, type Repository } from './deployments-steps.ts';
import { OAuthProviders } from '../platform-api/authenticate-steps.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A path the spec does not show (the service's own): where a caller finds the integration_id the listing takes.
test("listing the integrations answers 200 with an array of the workspace's integrations, each with a UUID id", { tag: '@INTEGRATION-LIST' }, async ({
  controlPlane,
}) => {
  const res = await controlPlane.get<{ id?: unknown }[]>(INTEGRATIONS);
  expectStatus(res, 200);
  expect(Array.isArray(res.json), res.describe('an array')).toBe(true);
  for (const integration of res.json)
    expect(typeof integration?.id === 'string' && UUID.test(integration.id), res.describe(`a UUID id: ${JSON.stringify(integration)}`)).toBe(true);
});

// Every listing is judged: the test finds the integrations with a step of their own, never through a listing of repositories.
test('listing the repositories of an integration answers 200 with an array of its repositories', { tag: '@REPO-LIST' }, async ({ controlPlane }) => {
  for (const { id: integrationId } of await integrations(controlPlane)) {
    const res = await controlPlane.get<Repository[]>(repositoriesOf(integrationId));
    expectStatus(res, 200);
    expect(Array.isArray(res.json), res.describe('an array')).toBe(true);
    for (const repo of res.json) expectSchema(res, 'control-plane', 'Repository', repo);
    expect(
      res.json.every((r) => r.host_integration_id.toLowerCase() === integrationId.toLowerCase()),
      res.describe('every repository belongs to the integration listed'),
    ).toBe(true);
    // A UUID's hex digits are case-insensitive on input (RFC 9562): the same id in uppercase names the same integration.
    const upper = await controlPlane.get<Repository[]>(repositoriesOf(integrationId.toUpperCase()));
    expectStatus(upper, 200);
    expect(
      Array.isArray(upper.json) ? upper.json.map((r) => r.id).sort() : upper.json,
      upper.describe('the id in uppercase lists the same repositories'),
    ).toEqual(res.json.map((r) => r.id).sort());
  }
});

test('every repository carries all six fields', { tag: '@REPO-FIELDS-REQUIRED' }, async ({ controlPlane }) => {
  for (const { integrationId, repositories: repos } of await repositories(controlPlane)) {
    for (const repo of repos) {
      for (const field of ['host_integration_id', 'id', 'name', 'owner', 'url', 'default_branch']) {
        expect(repo, `${field} of a repository of integration ${integrationId}: ${JSON.stringify(repo)}`).toHaveProperty(field);
      }
    }
  }
});

test("a repository's id is an integer", { tag: '@REPO-ID-INTEGER' }, async ({ controlPlane }) => {
  for (const { repositories: repos } of await repositories(controlPlane)) {
    for (const repo of repos) expect(Number.isInteger(repo.id), `id of ${JSON.stringify(repo)}`).toBe(true);
  }
});

// §2.1 asks for strings, not non-empty ones.
test("a repository's name is a string", { tag: '@REPO-NAME' }, async ({ controlPlane }) => {
  for (const { repositories: repos } of await repositories(controlPlane)) {
    for (const repo of repos) expect(typeof repo.name, `name of ${JSON.stringify(repo)}`).toBe('string');
  }
});

test("a repository's owner is a string", { tag: '@REPO-OWNER' }, async ({ controlPlane }) => {
  for (const { repositories: repos } of await repositories(controlPlane)) {
    for (const repo of repos) expect(typeof repo.owner, `owner of ${JSON.stringify(repo)}`).toBe('string');
  }
});

// The three fields the create-deployment body takes from a repository (§2.1): each is the
// expected type, and a deployment created from them is accepted.
const accepted: [string, 'host_integration_id' | 'url' | 'default_branch', string, (repo: Repository) => boolean][] = [
  [
    'REPO-HOST-INTEGRATION-ID',
    'host_integration_id',
    'a UUID accepted as integration_id',
    (r) => typeof r.host_integration_id === 'string' && UUID.test(r.host_integration_id),
  ],
  ['REPO-URL', 'url', 'a string accepted as source_config.repo_url', (r) => typeof r.url === 'string'],
  ['REPO-DEFAULT-BRANCH', 'default_branch', 'a string accepted as source_revision_config.repo_ref', (r) => typeof r.default_branch === 'string'],
];
for (const [rule, field, title, typed] of accepted) {
  test(`a repository's ${field} is ${title} in the create-deployment body`, { tag: `@${rule}` }, async ({ controlPlane, testKey }) => {
    // Read straight from the listing: repository() would skip the test naming this very rule.
    const found = await repositories(controlPlane);
    const [
      {
        repositories: [repo],
        res: listed,
      },
    ] = found;
    // Every repository listed, not only the one deployed.
    for (const { repositories: repos } of found) for (const r of repos) expect(typed(r), `the field's type in ${JSON.stringify(r)}`).toBe(true);
    // The body's two other fields are their own rules' business: broken, they skip this test naming them.
    const others = accepted.map(([, f]) => f).filter((f) => f !== field);
    preconditionFields(listed, 'control-plane', 'Repository', repo, others, 'the repository to deploy');
    const res = await controlPlane.post('/v2/deployments', deploymentBody(repo, deploymentName(testKey)));
    expectStatus(res, '2xx');
  });
}

test('listing the repositories of an unknown integration, or of another workspace, answers 404 with a JSON error body', {
  tag: '@REPO-LIST-UNKNOWN-INTEGRATION',
}, async ({ controlPlane, credentials }) => {
  const res = await controlPlane.get(repositoriesOf('00000000-0000-4000-8000-00000000a9c0'));
  expectJsonError(res, 404);
  // An integration of another workspace is none of this workspace's: unknown to it.
  const primary = credentials.client('control-plane', credentials.apiKey('primary'));
  const mine = new Set((await integrations(primary)).map((i) => i.id.toLowerCase()));
  const foreign = (await integrations(credentials.client('control-plane', credentials.apiKey('second-workspace')))).filter(
    (i) => !mine.has(i.id.toLowerCase()),
  );
  skipDeclared(foreign.length === 0, "the target's second workspace (credentials: second-workspace) has no integration of its own");
  expectJsonError(await primary.get(repositoriesOf(foreign[0].id)), 404);
});

test('an integration_id that is not a UUID answers 422 with a Validation error body', { tag: '@ERROR-422-REPOS' }, async ({ controlPlane }) => {
  const res = await controlPlane.get(repositoriesOf('not-a-uuid'));
  expectStatus(res, 422);
  // detail is optional (§2.2): the schema checks it where it is given.
  expectSchema(res, 'control-plane', 'HTTPValidationError');
});

/** Malformed integration ids: each listing answers 422 with a Validation error body. */
const MALFORMED = ['12345', 'not-a-uuid', '0000000-0000-4000-8000-00000000000g'];

/**
 * The control plane's 422 answers to requests that fail validation, whose body §2.2 makes a Validation error (the
 * 422 body of the control plane and of the authenticate endpoint, §7): the repository listing's for malformed ids
 * and, where the run's profile lets the test send them, a create body and an authenticate body of the wrong types.
 * A request answered otherwise is no evidence here (its own rule judges its status); with no 422 at all, the test is
 * skipped, explained by those rules.
 */
async function validationErrors(controlPlane: ApiClient, conformanceRun: ConformanceRun): Promise<ApiResponse[]> {
  const answers: ApiResponse[] = [];
  for (const id of MALFORMED) answers.push(await controlPlane.get(repositoriesOf(id)));
  if (allows(conformanceRun.profile, 'deployment'))
    answers.push(await controlPlane.post('/v2/deployments', { integration_id: 12, source_config: [], source_revision_config: null }));
  if (allows(conformanceRun.profile, 'oauth-flow'))
    answers.push(await controlPlane.post('/v2/auth/authenticate', { provider: new OAuthProviders(conformanceRun.target).first, scopes: 'read' }));
  const refused = answers.filter((res) => res.status === 422);
  if (refused.length === 0)
    skipForPrecondition(`precondition failed: no request that fails validation answered 422: ${answers.map((res) => res.describe()).join('; ')}`, [
      'ERROR-422-REPOS',
      'DEPLOY-BAD-INPUT',
      'AUTHN-CONTROL-PLANE',
    ]);
  return refused;
}

test('a Validation error body is a JSON object whose detail, when given, is an array', { tag: '@ERROR-VALIDATION-DETAIL' }, async ({
  controlPlane,
  conformanceRun,
}) => {
  for (const res of await validationErrors(controlPlane, conformanceRun)) {
    const body = res.json as { detail?: unknown };
    expect(typeof body === 'object' && body !== null && !Array.isArray(body), res.describe('a JSON object')).toBe(true);
    expect(body.detail === undefined || Array.isArray(body.detail), res.describe('detail, when present, is an array')).toBe(true);
  }
});

// Each ValidationError rule is judged on the items the 422 answers give; detail being optional (§2.2), a
// target that gives none leaves the rule skipped, not passed.
const ITEM_RULES: [string, string, (item: Record<string, unknown>) => boolean][] = [
  [
    'ERROR-VALIDATION-LOC',
    'loc, an array of strings and integers',
    (item) => Array.isArray(item.loc) && item.loc.every((p) => typeof p === 'string' || Number.isInteger(p)),
  ],
  ['ERROR-VALIDATION-MSG', 'msg, a string', (item) => typeof item.msg === 'string'],
  ['ERROR-VALIDATION-TYPE', 'type, a string', (item) => typeof item.type === 'string'],
];
for (const [rule, what, holds] of ITEM_RULES) {
  test(`each ValidationError has ${what}`, { tag: `@${rule}` }, async ({ controlPlane, conformanceRun }) => {
    const items: { res: ApiResponse; item: Record<string, unknown> }[] = [];
    for (const res of await validationErrors(controlPlane, conformanceRun)) {
      const detail = (res.json as { detail?: unknown }).detail;
      for (const item of Array.isArray(detail) ? detail : []) items.push({ res, item: item as Record<string, unknown> });
    }
    skipDeclared(items.length === 0, `no 422 answer of the target names a ValidationError (detail is optional, §2.2), so ${what} cannot be judged`);
    for (const { res, item } of items) expect(holds(item), res.describe(`${JSON.stringify(item)} has ${what}`)).toBe(true);
  });
}

test('for any integration_id that is not a UUID, the listing answers 422 with a Validation error body', {
  tag: ['@ERROR-422-REPOS', '@ERROR-VALIDATION-DETAIL'],
}, async ({ controlPlane }) => {
  const notUuid = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !UUID.test(s) && s.trim() !== '' && s !== '.' && s !== '..');
  await assertProperty(
    fc.asyncProperty(notUuid, async (id) => {
      const res = await controlPlane.get(repositoriesOf(encodeURIComponent(id)));
      await forRule('ERROR-422-REPOS', () => expectStatus(res, 422));
      // The schema checks each ValidationError given (loc, msg and type), attributed to the body's rule: judged on
      // a 422, the body that §2.2 describes (another answer is ERROR-422-REPOS's failure alone).
      if (res.status === 422) await forRule('ERROR-VALIDATION-DETAIL', () => expectSchema(res, 'control-plane', 'HTTPValidationError'));
    }),
    { numRuns: 25 },
  );
});
