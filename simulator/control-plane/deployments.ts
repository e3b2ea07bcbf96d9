// Deployments and their revisions (spec §2.3, §3, §4.1). A deployment is built from a
// repository that one of the workspace's integrations reaches; each change of its source
// revision starts a revision, which moves through the real service's statuses on the
// virtual clock (revision-lifecycle.ts) to DEPLOYED, or to a failure a test asked for.
// Fields the spec does not show follow the real control plane (the control plane's OpenAPI document, api.host.langchain.com/openapi.json).
// Plain state, no HTTP.
import type { Workspace } from '../auth/workspaces.ts';
import type { Clock } from '../clock.ts';
import { ApiError, conflict, notFound, unprocessable, type ValidationIssue } from '../http/errors.ts';
import type { IdGenerator } from '../ids.ts';
import type { RepositoryCatalog } from './repositories.ts';
import { stepsOf, TERMINAL, type Failure, type RevisionStatus } from './revision-lifecycle.ts';

type Json = Record<string, unknown>;

export type DeploymentStatus = 'AWAITING_DATABASE' | 'READY' | 'UNUSED' | 'AWAITING_DELETE' | 'UNKNOWN';

export interface SourceConfig {
  integration_id: string;
  repo_url: string;
  deployment_type: string;
  build_on_push: boolean;
  /** Set by the service for source-host deployments: the address of the deployment's agent server. */
  custom_url: string | null;
  resource_spec: Json | null;
  listener_id: null;
  listener_config: null;
  install_command: string | null;
  build_command: string | null;
}

export interface SourceRevisionConfig {
  repo_ref: string;
  langgraph_config_path: string;
  image_uri: string | null;
  source_tarball_path: string | null;
  /** Read-only: the commit the revision was built from. */
  repo_commit_sha: string;
}

export interface Secret {
  name: string;
  value: string;
}

export interface Deployment {
  id: string;
  name: string;
  source: 'github';
  source_config: SourceConfig;
  source_revision_config: SourceRevisionConfig;
  secrets: Secret[];
  secret_references: null;
  tenant_id: string;
  created_at: string;
  updated_at: string;
  status: DeploymentStatus;
  latest_revision_id: string;
  active_revision_id: string | null;
  image_version: string | null;
}

export interface Revision {
  id: string;
  created_at: string;
  updated_at: string;
  status: RevisionStatus;
  source: 'github';
  source_revision_config: SourceRevisionConfig;
}

export interface Page<T> {
  resources: T[];
  /** The offset to pass for the next page (control plane OpenAPI). */
  offset: number;
}

/** Starts the agent server a deployment exposes and answers its base URL. */
export type AgentServerHost = () => Promise<string>;

interface RevisionRecord {
  revision: Revision;
  createdAt: number;
  cancel: (() => void)[];
}

interface DeploymentRecord {
  workspaceId: string;
  deployment: Deployment;
  /** Oldest first. */
  revisions: RevisionRecord[];
  /** The hosted agent server, published as custom_url once a revision is DEPLOYED. */
  url?: string;
}

const DEPLOYMENT_TYPES = ['dev_free', 'dev', 'prod'];
const IMMUTABLE_SOURCE_CONFIG = ['integration_id', 'repo_url', 'deployment_type', 'custom_url', 'listener_id'] as const;
const REVISION_FIELDS = ['repo_ref', 'langgraph_config_path', 'image_uri', 'source_tarball_path'] as const;

export class DeploymentStore {
  private readonly records = new Map<string, DeploymentRecord>();

  constructor(
    private readonly env: { clock: Clock; ids: IdGenerator; repositories: RepositoryCatalog; host?: AgentServerHost },
  ) {}

  async create(workspace: Workspace, body: Json): Promise<Deployment> {
    const request = parseCreate(body);
    if (!this.env.repositories.knows(workspace, request.integrationId)) {
      throw new ApiError(400, `Integration ${request.integrationId} not found in this workspace.`);
    }
    const repository = this.env.repositories.find(workspace, request.integrationId, request.repoUrl);
    if (!repository) {
      throw new ApiError(400, `Repository ${request.repoUrl} is not reachable through integration ${request.integrationId}.`);
    }
    if (request.buildOnPush && request.revision.repo_ref.startsWith('refs/tags/')) {
      throw new ApiError(400, 'source_config.build_on_push must be false when source_revision_config.repo_ref is a tag.');
    }
    // The agent server starts first, so the ids below are drawn in one go, whatever else runs meanwhile.
    const url = await this.env.host?.();
    const id = this.env.ids.uuid();
    const now = this.env.clock.iso();
    const record: DeploymentRecord = {
      workspaceId: workspace.id,
      url,
      revisions: [],
      deployment: {
        id,
        name: request.name ?? repository.name,
        source: 'github',
        source_config: {
          integration_id: request.integrationId,
          repo_url: repository.url,
          deployment_type: request.deploymentType,
          build_on_push: request.buildOnPush,
          custom_url: null,
          resource_spec: request.resourceSpec,
          listener_id: null,
          listener_config: null,
          install_command: request.installCommand,
          build_command: request.buildCommand,
        },
        source_revision_config: { ...request.revision, repo_commit_sha: '' },
        secrets: request.secrets,
        secret_references: null,
        tenant_id: workspace.id,
        created_at: now,
        updated_at: now,
        status: 'AWAITING_DATABASE',
        latest_revision_id: '',
        active_revision_id: null,
        image_version: null,
      },
    };
    this.records.set(id, record);
    this.startRevision(record, request.revision);
    return structuredClone(record.deployment);
  }

  get(workspace: Workspace, deploymentId: string): Deployment {
    return structuredClone(this.record(workspace, deploymentId).deployment);
  }

  /** Newest first. */
  list(workspace: Workspace, page: { limit?: number; offset?: number; nameContains?: string }): Page<Deployment> {
    const mine = [...this.records.values()]
      .filter((r) => r.workspaceId === workspace.id && (!page.nameContains || r.deployment.name.includes(page.nameContains)))
      .reverse();
    return paginate(mine.map((r) => structuredClone(r.deployment)), page);
  }

  /**
   * Applies an update. A new source revision, new secrets or a new resource_spec start a new
   * revision (control plane OpenAPI); fields fixed at creation refuse a different value.
   */
  patch(workspace: Workspace, deploymentId: string, body: Json): Deployment {
    const record = this.record(workspace, deploymentId);
    const update = parsePatch(body, record.deployment);
    const deployment = record.deployment;
    const sourceConfig = { ...deployment.source_config, ...update.sourceConfig };
    const changed = JSON.stringify(sourceConfig) !== JSON.stringify(deployment.source_config) || update.newRevision !== undefined || update.secrets !== undefined;
    deployment.source_config = sourceConfig;
    if (update.secrets) deployment.secrets = update.secrets;
    if (update.newRevision) this.startRevision(record, update.newRevision);
    if (changed) deployment.updated_at = this.env.clock.iso();
    return structuredClone(deployment);
  }

  revision(workspace: Workspace, deploymentId: string, revisionId: string): Revision {
    const found = this.record(workspace, deploymentId).revisions.find((r) => r.revision.id === revisionId.toLowerCase());
    if (!found) throw notFound(`Revision ID ${revisionId} not found.`);
    return structuredClone(found.revision);
  }

  /** Latest first (LangSmith docs "Control plane API reference", docs.langchain.com/langsmith/api-ref-control-plane). */
  revisions(workspace: Workspace, deploymentId: string, page: { limit?: number; offset?: number }): Page<Revision> {
    const record = this.record(workspace, deploymentId);
    return paginate([...record.revisions].reverse().map((r) => structuredClone(r.revision)), page);
  }

  /**
   * Makes a revision in progress end in `failure` instead of DEPLOYED (a simulator power, for
   * the failure path). The failure lands when the revision's build or deploy stage ends.
   */
  fail(deploymentId: string, revisionId: string, failure: Failure): Revision {
    const record = this.records.get(deploymentId.toLowerCase());
    const found = record?.revisions.find((r) => r.revision.id === revisionId.toLowerCase());
    if (!record || !found) throw notFound(`Revision ${revisionId} of deployment ${deploymentId} not found.`);
    const elapsed = this.env.clock.now() - found.createdAt;
    const steps = stepsOf(failure).filter((s) => s.at > elapsed);
    if (TERMINAL.has(found.revision.status) || steps[steps.length - 1]?.status !== failure) {
      throw conflict(`Revision ${revisionId} is ${found.revision.status}: too late for ${failure}.`);
    }
    this.schedule(record, found, steps);
    return structuredClone(found.revision);
  }

  /** Deletes a deployment and its revisions (control plane OpenAPI); its builds stop. */
  delete(workspace: Workspace, deploymentId: string): void {
    const record = this.record(workspace, deploymentId);
    for (const r of record.revisions) r.cancel.forEach((cancel) => cancel());
    this.records.delete(record.deployment.id);
  }

  clear(): void {
    for (const record of this.records.values()) for (const r of record.revisions) r.cancel.forEach((cancel) => cancel());
    this.records.clear();
  }

  private record(workspace: Workspace, deploymentId: string): DeploymentRecord {
    const record = this.records.get(deploymentId.toLowerCase());
    // Another workspace's deployment does not exist for this caller (spec §5).
    if (!record || record.workspaceId !== workspace.id) throw notFound(`Deployment ID ${deploymentId} not found.`);
    return record;
  }

  private startRevision(record: DeploymentRecord, config: Omit<SourceRevisionConfig, 'repo_commit_sha'>): void {
    const now = this.env.clock.iso();
    for (const earlier of record.revisions) {
      if (TERMINAL.has(earlier.revision.status)) continue;
      // A newer revision supersedes one still in progress.
      earlier.cancel.forEach((cancel) => cancel());
      earlier.cancel = [];
      earlier.revision.status = 'INTERRUPTED';
      earlier.revision.updated_at = now;
    }
    const id = this.env.ids.uuid();
    const sourceRevisionConfig = { ...config, repo_commit_sha: commitSha(this.env.ids) };
    const revision: RevisionRecord = {
      revision: { id, created_at: now, updated_at: now, status: 'CREATING', source: 'github', source_revision_config: sourceRevisionConfig },
      createdAt: this.env.clock.now(),
      cancel: [],
    };
    record.revisions.push(revision);
    record.deployment.latest_revision_id = id;
    record.deployment.source_revision_config = structuredClone(sourceRevisionConfig);
    record.deployment.updated_at = now;
    this.schedule(record, revision, stepsOf().slice(1));
  }

  private schedule(record: DeploymentRecord, revision: RevisionRecord, steps: { status: RevisionStatus; at: number }[]): void {
    revision.cancel.forEach((cancel) => cancel());
    revision.cancel = steps.map((step) =>
      this.env.clock.schedule(revision.createdAt + step.at, () => this.enter(record, revision, step.status)),
    );
  }

  private enter(record: DeploymentRecord, revision: RevisionRecord, status: RevisionStatus): void {
    const now = this.env.clock.iso();
    revision.revision.status = status;
    revision.revision.updated_at = now;
    if (status !== 'DEPLOYED') return;
    const deployment = record.deployment;
    deployment.active_revision_id = revision.revision.id;
    deployment.status = 'READY';
    deployment.source_config.custom_url = record.url ?? null;
    deployment.updated_at = now;
  }
}

interface CreateRequest {
  name?: string;
  integrationId: string;
  repoUrl: string;
  deploymentType: string;
  buildOnPush: boolean;
  resourceSpec: Json | null;
  installCommand: string | null;
  buildCommand: string | null;
  revision: Omit<SourceRevisionConfig, 'repo_commit_sha'>;
  secrets: Secret[];
}

/**
 * The create body: §4.1 names integration_id, source_config.repo_url and
 * source_revision_config.repo_ref. integration_id is taken at the top level, where §4.1 puts
 * it, or inside source_config, where the real service reads it (control plane OpenAPI).
 */
function parseCreate(body: Json): CreateRequest {
  const issues = new Issues();
  const sourceConfig = (body.source_config ?? {}) as Json;
  const revisionConfig = (body.source_revision_config ?? {}) as Json;
  const top = body.integration_id;
  const nested = sourceConfig.integration_id;
  if (top === undefined && (nested === undefined || nested === null)) {
    issues.add(['body', 'integration_id'], 'integration_id is required (at the top level, or as source_config.integration_id)', 'missing');
  } else if (top !== undefined && nested !== undefined && nested !== null && String(top).toLowerCase() !== String(nested).toLowerCase()) {
    issues.add(['body', 'source_config', 'integration_id'], 'source_config.integration_id differs from integration_id', 'value_error');
  }
  issues.optionalString(body, 'name', ['body']);
  if (body.source !== undefined && body.source !== 'github') {
    issues.add(['body', 'source'], "source must be 'github': the simulator builds deployments from the source-code host only", 'enum');
  }
  const deploymentType = sourceConfig.deployment_type ?? 'dev';
  if (!DEPLOYMENT_TYPES.includes(deploymentType as string)) {
    issues.add(['body', 'source_config', 'deployment_type'], `must be one of ${JSON.stringify(DEPLOYMENT_TYPES)}`, 'enum');
  }
  issues.optionalBoolean(sourceConfig, 'build_on_push', ['body', 'source_config']);
  issues.optionalObject(sourceConfig, 'resource_spec', ['body', 'source_config']);
  for (const key of ['install_command', 'build_command']) issues.optionalString(sourceConfig, key, ['body', 'source_config']);
  if (typeof revisionConfig.repo_ref !== 'string' || revisionConfig.repo_ref.trim() === '') {
    issues.add(['body', 'source_revision_config', 'repo_ref'], 'repo_ref must be a non-empty string (a branch, or refs/tags/<tag>)', 'string_type');
  }
  for (const key of REVISION_FIELDS.slice(1)) issues.optionalString(revisionConfig, key, ['body', 'source_revision_config']);
  const secrets = issues.secrets(body.secrets, ['body', 'secrets']);
  issues.throwIfAny();
  return {
    name: body.name as string | undefined,
    integrationId: String(top ?? nested).toLowerCase(),
    repoUrl: sourceConfig.repo_url as string,
    deploymentType: deploymentType as string,
    buildOnPush: (sourceConfig.build_on_push as boolean | null | undefined) ?? false,
    resourceSpec: (sourceConfig.resource_spec as Json | null | undefined) ?? null,
    installCommand: (sourceConfig.install_command as string | null | undefined) ?? null,
    buildCommand: (sourceConfig.build_command as string | null | undefined) ?? null,
    revision: {
      repo_ref: revisionConfig.repo_ref as string,
      langgraph_config_path: (revisionConfig.langgraph_config_path as string | null | undefined) ?? 'langgraph.json',
      image_uri: null,
      source_tarball_path: null,
    },
    secrets: secrets ?? [],
  };
}

interface PatchRequest {
  sourceConfig: Partial<SourceConfig>;
  secrets?: Secret[];
  newRevision?: Omit<SourceRevisionConfig, 'repo_commit_sha'>;
}

function parsePatch(body: Json, current: Deployment): PatchRequest {
  const issues = new Issues();
  const immutable: string[] = [];
  if (body.name !== undefined && body.name !== null && body.name !== current.name) immutable.push('name');
  if (body.source !== undefined && body.source !== null && body.source !== current.source) immutable.push('source');
  const sourceConfig = issues.optionalObject(body, 'source_config', ['body']) ?? {};
  for (const key of IMMUTABLE_SOURCE_CONFIG) {
    const value = sourceConfig[key];
    if (value !== undefined && value !== null && value !== current.source_config[key]) immutable.push(`source_config.${key}`);
  }
  issues.optionalBoolean(sourceConfig, 'build_on_push', ['body', 'source_config']);
  const resourceSpec = issues.optionalObject(sourceConfig, 'resource_spec', ['body', 'source_config']);
  for (const key of ['install_command', 'build_command']) issues.optionalString(sourceConfig, key, ['body', 'source_config']);
  const revisionConfig = issues.optionalObject(body, 'source_revision_config', ['body']) ?? {};
  for (const key of REVISION_FIELDS) issues.optionalString(revisionConfig, key, ['body', 'source_revision_config']);
  const secrets = issues.secrets(body.secrets, ['body', 'secrets']);
  issues.throwIfAny();
  if (immutable.length > 0) throw new ApiError(400, `Cannot change ${immutable.join(', ')} once the deployment is created.`);

  const update: Partial<SourceConfig> = {};
  if (typeof sourceConfig.build_on_push === 'boolean') update.build_on_push = sourceConfig.build_on_push;
  if (typeof sourceConfig.install_command === 'string') update.install_command = sourceConfig.install_command;
  if (typeof sourceConfig.build_command === 'string') update.build_command = sourceConfig.build_command;
  if (resourceSpec) update.resource_spec = resourceSpec;
  const revisionChanges = Object.fromEntries(REVISION_FIELDS.filter((k) => typeof revisionConfig[k] === 'string').map((k) => [k, revisionConfig[k]]));
  const startsRevision = Object.keys(revisionChanges).length > 0 || resourceSpec !== undefined || secrets !== undefined;
  const { repo_commit_sha: _sha, ...base } = current.source_revision_config;
  const repoRef = (revisionChanges.repo_ref as string | undefined) ?? base.repo_ref;
  if ((update.build_on_push ?? current.source_config.build_on_push) && repoRef.startsWith('refs/tags/')) {
    throw new ApiError(400, 'source_config.build_on_push must be false when source_revision_config.repo_ref is a tag.');
  }
  return { sourceConfig: update, secrets, newRevision: startsRevision ? { ...base, ...revisionChanges } : undefined };
}

/** Collects §2.2 validation errors so one 422 names every broken field. */
class Issues {
  private readonly list: ValidationIssue[] = [];

  add(loc: (string | number)[], msg: string, type: string): void {
    this.list.push({ loc, msg, type });
  }

  optionalString(parent: Json, key: string, at: (string | number)[]): void {
    const value = parent[key];
    if (value !== undefined && value !== null && typeof value !== 'string') this.add([...at, key], `${key} must be a string`, 'string_type');
  }

  optionalBoolean(parent: Json, key: string, at: (string | number)[]): void {
    const value = parent[key];
    if (value !== undefined && value !== null && typeof value !== 'boolean') this.add([...at, key], `${key} must be a boolean`, 'bool_type');
  }

  optionalObject(parent: Json, key: string, at: (string | number)[]): Json | undefined {
    const value = parent[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) {
      this.add([...at, key], `${key} must be an object`, 'dict_type');
      return undefined;
    }
    return value as Json;
  }

  secrets(value: unknown, at: (string | number)[]): Secret[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) {
      this.add(at, 'secrets must be an array of {name, value}', 'list_type');
      return undefined;
    }
    value.forEach((secret, i) => {
      const s = secret as Json | null;
      if (typeof s?.name !== 'string' || typeof s?.value !== 'string') this.add([...at, i], 'a secret is {name: string, value: string}', 'model_type');
    });
    return (value as Secret[]).map(({ name, value: v }) => ({ name, value: v }));
  }

  throwIfAny(): void {
    if (this.list.length === 0) return;
    throw unprocessable(`Invalid request: ${this.list.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`, this.list);
  }
}

function paginate<T>(items: T[], page: { limit?: number; offset?: number }): Page<T> {
  const offset = page.offset ?? 0;
  const resources = items.slice(offset, offset + (page.limit ?? 20));
  return { resources, offset: offset + resources.length };
}

/** A 40-hex commit id drawn from the seeded stream. */
function commitSha(ids: IdGenerator): string {
  return (ids.uuid() + ids.uuid()).replace(/-/g, '').slice(0, 40);
}
