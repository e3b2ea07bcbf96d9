// The source-host integrations and their repositories (spec §2.1, §4.1) without HTTP: what each
// workspace lists and reaches, how an integration id is matched, and the 404 for one out of reach.
// A small catalog written here pins the behaviour; the last test checks the simulator's fixture.
import { expect, test } from '@playwright/test';
import type { Workspace } from '../auth/workspaces.ts';
import { WorkspaceDirectory } from '../auth/workspaces.ts';
import { refusalOf } from '../http/errors.ts';
import { RepositoryCatalog } from './repositories.ts';

const ALPHA_INTEGRATION = '0f6a2b7c-1d3e-4f50-8a9b-0c1d2e3f4a5b';
const BETA_INTEGRATION = '9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4';
const alpha: Workspace = { id: 'w-alpha', name: 'alpha', region: 'us' };
const beta: Workspace = { id: 'w-beta', name: 'beta', region: 'us' };
const lonely: Workspace = { id: 'w-none', name: 'none', region: 'eu' };

const weather = { id: 101, owner: 'acme', name: 'weather', url: 'https://source.example/acme/weather', default_branch: 'main' };
const support = { id: 102, owner: 'acme', name: 'support', url: 'https://source.example/acme/support', default_branch: 'develop' };
const research = { id: 201, owner: 'beta-org', name: 'research', url: 'https://source.example/beta-org/research', default_branch: 'trunk' };

const catalog = () =>
  new RepositoryCatalog([
    { id: ALPHA_INTEGRATION, installation_id: 1, name: 'alpha-host', workspace: 'alpha', repositories: [weather, support] },
    { id: BETA_INTEGRATION, installation_id: 2, name: 'beta-host', workspace: 'beta', repositories: [research] },
  ]);

test('a workspace lists only its own integrations, as id, installation id and name', () => {
  // AUTH-CP-WORKSPACE-ISOLATION
  expect(catalog().list(alpha)).toEqual([{ id: ALPHA_INTEGRATION, installation_id: 1, name: 'alpha-host' }]);
  expect(catalog().list(beta)).toEqual([{ id: BETA_INTEGRATION, installation_id: 2, name: 'beta-host' }]);
  expect(catalog().list(lonely)).toEqual([]);
});

test('an integration lists its repositories, each with the integration id and the five host fields', () => {
  // REPO-LIST, REPO-FIELDS-REQUIRED, REPO-HOST-INTEGRATION-ID
  expect(catalog().repositories(alpha, ALPHA_INTEGRATION)).toEqual([
    { host_integration_id: ALPHA_INTEGRATION, ...weather },
    { host_integration_id: ALPHA_INTEGRATION, ...support },
  ]);
  expect(catalog().repositories(beta, BETA_INTEGRATION)).toEqual([{ host_integration_id: BETA_INTEGRATION, ...research }]);
});

test('an integration id is matched whatever its case, and answered in lower case', () => {
  const upper = ALPHA_INTEGRATION.toUpperCase();
  expect(
    catalog()
      .repositories(alpha, upper)
      .map((r) => r.host_integration_id),
  ).toEqual([ALPHA_INTEGRATION, ALPHA_INTEGRATION]);
  expect(catalog().knows(alpha, upper)).toBe(true);
  expect(catalog().find(alpha, upper, weather.url)?.id).toBe(weather.id);
});

test('an unknown integration, or one of another workspace, answers 404', () => {
  // REPO-LIST-UNKNOWN-INTEGRATION, AUTH-CP-WORKSPACE-ISOLATION
  const unknown = '11111111-2222-4333-8444-555555555555';
  expect(refusalOf(() => catalog().repositories(alpha, unknown))).toMatchObject({ status: 404, message: expect.stringContaining(unknown) });
  expect(refusalOf(() => catalog().repositories(alpha, BETA_INTEGRATION))?.status).toBe(404);
  expect(refusalOf(() => catalog().repositories(beta, ALPHA_INTEGRATION))?.status).toBe(404);
});

test('find answers the repository at a URL the integration reaches, and nothing for any other', () => {
  const repos = catalog();
  expect(repos.find(alpha, ALPHA_INTEGRATION, support.url)).toEqual({ host_integration_id: ALPHA_INTEGRATION, ...support });
  expect(repos.find(alpha, ALPHA_INTEGRATION, research.url), 'a repository of another integration').toBeUndefined();
  expect(repos.find(alpha, ALPHA_INTEGRATION, `${support.url}/`), 'the URL must be the same').toBeUndefined();
  expect(repos.find(alpha, BETA_INTEGRATION, research.url), 'an integration of another workspace').toBeUndefined();
  expect(repos.knows(alpha, ALPHA_INTEGRATION)).toBe(true);
  expect(repos.knows(alpha, BETA_INTEGRATION)).toBe(false);
  expect(repos.knows(beta, BETA_INTEGRATION)).toBe(true);
});

test('the simulator fixture gives two workspaces integrations of their own, whose repositories carry every §2.1 field', () => {
  // REPO-FIELDS-REQUIRED, REPO-HOST-INTEGRATION-ID, REPO-ID-INTEGER, REPO-NAME, REPO-OWNER, REPO-URL, REPO-DEFAULT-BRANCH
  const fixture = RepositoryCatalog.fromFixture();
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const [primary, second] = WorkspaceDirectory.fromFixture().workspaces;
  for (const workspace of [primary, second]) {
    const integrations = fixture.list(workspace);
    expect(integrations.length, workspace.name).toBeGreaterThan(0);
    for (const integration of integrations) {
      expect(integration.id).toMatch(uuid);
      const repositories = fixture.repositories(workspace, integration.id);
      expect(repositories.length, integration.name).toBeGreaterThan(0);
      for (const repo of repositories) {
        expect(Object.keys(repo).sort()).toEqual(['default_branch', 'host_integration_id', 'id', 'name', 'owner', 'url']);
        expect(repo.host_integration_id).toBe(integration.id);
        expect(Number.isInteger(repo.id)).toBe(true);
        for (const field of ['name', 'owner', 'url', 'default_branch'] as const) expect(typeof repo[field], field).toBe('string');
      }
    }
  }
  expect(
    fixture.list(primary).some((i) => fixture.list(second).some((j) => j.id === i.id)),
    'no integration is shared',
  ).toBe(false);
});
