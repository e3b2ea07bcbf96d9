// Steps the control-plane suites share: find a repository to deploy, create a deployment
// from it, and poll a revision until it settles (the typical flow of spec §4.1).
import { test } from '@playwright/test';
import { precondition } from '../checks/index.ts';
import type { ApiClient, ApiResponse } from '../client.ts';
import type { Time } from '../fixtures.ts';

export interface Repository {
  host_integration_id: string;
  id: number;
  name: string;
  owner: string;
  url: string;
  default_branch: string;
}

export interface Deployment {
  id: string;
  latest_revision_id: string;
  name?: string;
  active_revision_id?: string | null;
  source_config?: { custom_url?: string | null; repo_url?: string };
  source_revision_config?: { repo_ref?: string };
  [field: string]: unknown;
}

export interface Revision {
  id?: string;
  status: string;
  [field: string]: unknown;
}

export const INTEGRATIONS = '/v1/integrations/sourcehost/install';
export const repositoriesOf = (integrationId: string) => `/v1/integrations/sourcehost/${integrationId}/repos`;
export const revisionPath = (deployment: Pick<Deployment, 'id'>, revisionId: string) => `/v2/deployments/${deployment.id}/revisions/${revisionId}`;

/** A status after which a revision does not move (the real CLI's terminal set, platform-facts.md §4.5). */
export const settled = (status: string) => status === 'DEPLOYED' || /FAILED|SKIPPED|INTERRUPTED/.test(status);

/** The integrations of the caller's workspace that reach at least one repository, with those repositories. */
export async function repositories(cp: ApiClient): Promise<{ integrationId: string; repositories: Repository[] }[]> {
  const listed = await cp.get<{ id: string }[]>(INTEGRATIONS);
  precondition(listed, 'list the integrations');
  const found: { integrationId: string; repositories: Repository[] }[] = [];
  for (const integration of listed.json) {
    const repos = await cp.get<Repository[]>(repositoriesOf(integration.id));
    precondition(repos, `list the repositories of integration ${integration.id}`);
    if (Array.isArray(repos.json) && repos.json.length > 0) found.push({ integrationId: integration.id, repositories: repos.json });
  }
  test.skip(found.length === 0, 'precondition failed: the target has no integration that reaches a repository');
  return found;
}

export async function repository(cp: ApiClient): Promise<Repository> {
  return (await repositories(cp))[0].repositories[0];
}

/** A deployment name unique to the test (names are kept apart on a shared target). */
export function deploymentName(scope: string, suffix = ''): string {
  return `apc-${scope}${suffix}`.toLowerCase().replace(/[^a-z0-9-]+/g, '-');
}

/** The create body of spec §4.1, from a listed repository: its integration, URL and default branch. */
export function deploymentBody(repo: Repository, name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    integration_id: repo.host_integration_id,
    source_config: { repo_url: repo.url },
    source_revision_config: { repo_ref: repo.default_branch },
    ...extra,
  };
}

export async function createDeployment(cp: ApiClient, repo: Repository, name: string): Promise<{ deployment: Deployment; res: ApiResponse<Deployment> }> {
  const res = await cp.post<Deployment>('/v2/deployments', deploymentBody(repo, name));
  precondition(res, 'create a deployment');
  return { deployment: res.json, res };
}

/**
 * On a real target a revision takes minutes to deploy: the test gets the time, polling at
 * the interval the real documentation uses. The simulator's virtual clock makes it instant.
 */
export function allowDeploymentTime(time: Time): void {
  if (!time.virtual) test.setTimeout(35 * 60_000);
}

/** Reads the revision until `until` holds for its status, letting time pass between reads. */
export async function pollRevision(
  cp: ApiClient,
  time: Time,
  deployment: Pick<Deployment, 'id'>,
  revisionId: string,
  until: (status: string) => boolean = settled,
): Promise<{ last: ApiResponse<Revision>; seen: string[] }> {
  const step = time.virtual ? 5_000 : 60_000;
  const seen: string[] = [];
  for (let waited = 0; ; waited += step) {
    const last = await cp.get<Revision>(revisionPath(deployment, revisionId));
    precondition(last, 'read the revision while polling it');
    const status = String(last.json?.status);
    if (seen[seen.length - 1] !== status) seen.push(status);
    if (until(status) || waited >= 30 * 60_000) return { last, seen };
    await time.pass(step);
  }
}
