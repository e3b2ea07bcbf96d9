// Steps the control-plane suites share: find a repository to deploy, create a deployment
// from it, and poll a revision until it settles (the typical flow of spec §4.1).
import { skipDeclared, skipForPrecondition } from '../../harness/checks/attribution.ts';
import { precondition, preconditionArray, preconditionFields, rulesOfStep } from '../../harness/checks/index.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { serves, type Target } from '../../harness/target.ts';
import type { Time } from '../../harness/time.ts';
import { contract } from '../../specs/contract.ts';
import type { Deployment as DocumentedDeployment, Repository, Revision } from '../../specs/types/control-plane.ts';

export type { Repository, Revision };

/** A deployment (§2.3), with the fields of the real control plane the suites read where it answers them. */
export type Deployment = DocumentedDeployment & {
  name?: string;
  active_revision_id?: string | null;
  source_config?: { custom_url?: string | null; repo_url?: string };
  source_revision_config?: { repo_ref?: string };
};

export const INTEGRATIONS = '/v1/integrations/sourcehost/install';
export const repositoriesOf = (integrationId: string) => `/v1/integrations/sourcehost/${integrationId}/repos`;
export const revisionPath = (deployment: Pick<Deployment, 'id'>, revisionId: string) => `/v2/deployments/${deployment.id}/revisions/${revisionId}`;

/** A status after which a revision does not move (the real CLI's terminal set, langgraph-cli langgraph_cli/deploy.py). */
const settled = (status: string) => status === 'DEPLOYED' || /FAILED|SKIPPED|INTERRUPTED/.test(status);

/** What a target config says of the integrations of the workspace a client's key acts in. */
interface GivenIntegrations {
  target: string;
  /** The config's integration_ids. */
  ids?: readonly string[];
  /** Whether the target serves listIntegrations (not_shown_operations). */
  listed: boolean;
}

const given = new WeakMap<ApiClient, GivenIntegrations>();

/**
 * Marks `cp`, a client sending the target's own API key, with what the target config says of that key's workspace:
 * the integrations it gives (integration_ids), and whether the target serves the listing of them.
 */
export function withIntegrations(cp: ApiClient, target: Target): ApiClient {
  given.set(cp, {
    target: target.name,
    ids: target.integrationIds,
    listed: serves(target, contract().operation('control-plane', 'listIntegrations')),
  });
  return cp;
}

/**
 * The integrations of the caller's workspace: a step, never empty. The listing of them is a path the spec does not
 * show (INTEGRATION-LIST judges it): for the target's own key, the target config may give them instead
 * (integration_ids), and a target that declares it serves no listing and gives none skips the test as declared.
 */
export async function integrations(cp: ApiClient): Promise<{ id: string }[]> {
  const config = given.get(cp);
  if (config?.ids) return config.ids.map((id) => ({ id }));
  skipDeclared(
    config?.listed === false,
    `target '${config?.target}' serves no listing of its integrations (listIntegrations, a path the spec does not show: its not_shown_operations) and its config gives no integration_ids: the repository listing needs an integration id`,
  );
  const listed = await cp.get<{ id: string }[]>(INTEGRATIONS);
  const found = preconditionArray(listed, 'list the integrations');
  if (found.length === 0) skipForPrecondition(`precondition failed: the workspace has no integration: ${listed.describe()}`, rulesOfStep(listed));
  return found;
}

/**
 * The integrations of the caller's workspace that reach at least one repository, with those repositories.
 * A step: REPO-LIST judges the listing, so a listing that fails, answers no array or lists nothing anywhere
 * skips the calling test naming it.
 */
export async function repositories(cp: ApiClient): Promise<{ integrationId: string; repositories: Repository[]; res: ApiResponse<Repository[]> }[]> {
  const found: { integrationId: string; repositories: Repository[]; res: ApiResponse<Repository[]> }[] = [];
  for (const integration of await integrations(cp)) {
    const res = await cp.get<Repository[]>(repositoriesOf(integration.id));
    const repos = preconditionArray(res, `list the repositories of integration ${integration.id}`, undefined, ['REPO-LIST']);
    if (repos.length > 0) found.push({ integrationId: integration.id, repositories: repos, res });
  }
  if (found.length === 0) skipForPrecondition('precondition failed: no integration of the workspace reaches a repository', ['REPO-LIST']);
  return found;
}

/** The first repository, with the three fields a create-deployment body takes from it (§2.1) checked. */
export async function repository(cp: ApiClient): Promise<Repository> {
  const [{ repositories: repos, res }] = await repositories(cp);
  preconditionFields(res, 'control-plane', 'Repository', repos[0], ['host_integration_id', 'url', 'default_branch'], 'the repository to deploy');
  return repos[0];
}

/** A deployment name unique to the test (names are kept apart on a shared target). */
export function deploymentName(testKey: string, suffix = ''): string {
  return `apc-${testKey}${suffix}`.toLowerCase().replace(/[^a-z0-9-]+/g, '-');
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

/** What polling a revision saw: its last answer, and each status it took, in order. */
export interface Polled {
  /** The answer that ended the polling: the settled revision, the last one read, or a refusal. */
  last: ApiResponse<Revision>;
  /** The statuses its 2xx answers gave (a status that is no string included), each change once. */
  statuses: unknown[];
  /** The same, for messages. */
  seen: string[];
  /** The target's ms the polling took. */
  waited: number;
}

/** Reads the revision until `until` holds for its status, polling up to the target's deploy timeout. */
export async function pollRevision(
  cp: ApiClient,
  time: Time,
  deployment: Pick<Deployment, 'id'>,
  revisionId: string,
  until: (status: string) => boolean = settled,
): Promise<Polled> {
  time.allow('deploy');
  const statuses: unknown[] = [];
  const ok = (res: ApiResponse) => res.status >= 200 && res.status < 300;
  const read = async () => {
    const last = await cp.get<Revision>(revisionPath(deployment, revisionId));
    if (ok(last) && (statuses.length === 0 || statuses[statuses.length - 1] !== last.json?.status)) statuses.push(last.json?.status);
    return last;
  };
  // From 5 s up to the minute the hosted service's documentation polls at. A refused read ends the
  // polling at once: the revision can no longer be seen to settle, and the caller judges that answer.
  // A gateway answer (502-504, a connection reset on the way) is transient, as a polling client treats it.
  const transient = (res: ApiResponse) => res.status >= 502 && res.status <= 504;
  const done = (res: ApiResponse<Revision>) => (!ok(res) && !transient(res)) || (ok(res) && until(String(res.json?.status)));
  const { value: last, waited } = await time.poll(read, done, { deadline: 'deploy', first: 5_000, max: 60_000, what: `revision ${revisionId} to build` });
  return { last, waited, statuses, seen: statuses.map((s) => (typeof s === 'string' ? s : `(status ${JSON.stringify(s) ?? 'absent'})`)) };
}
