// Deployments and their revisions (spec §2.3, §3, §4.1). A deployment is built from a
// repository that one of the workspace's integrations reaches; each change of its source
// revision starts a revision, which moves through the real service's statuses on the
// virtual clock (revision-lifecycle.ts) to DEPLOYED, or to a failure a test asked for: the
// typical flow of §4.1, create, read, poll, update.
// Fields the spec does not show follow the real control plane (the control plane's OpenAPI document, api.host.langchain.com/openapi.json).
// Plain state, no HTTP.
import type { Workspace } from '../auth/workspaces.ts';
import type { Clock } from '../clock.ts';
import type { components, operations } from '../../specs/types/control-plane.ts';
import { ApiError, conflict, notFound, unprocessable } from '../http/errors.ts';
import type { IdGenerator } from '../ids.ts';
import type { RepositoryCatalog } from './repositories.ts';
import { stepsOf, TERMINAL, type RevisionFailure, type RevisionStatus } from './revision-lifecycle.ts';

type Schemas = components['schemas'];

/**
 * The create and update bodies, as the server hands them over: valid against the schemas
 * DeploymentCreate and DeploymentPatch, which hold every single-field constraint. Their fields
 * beyond those §4.1 names are the real service's (DEPLOY-BODY-FIELDS).
 */
type CreateRequest = Schemas['DeploymentCreate'];
type PatchRequest = Schemas['DeploymentPatch'];
type SourceConfigRequest = CreateRequest['source_config'];
type RevisionConfigRequest = CreateRequest['source_revision_config'];
type Secret = Schemas['DeploymentSecret'];

/** Request fields a deployment answers with their default when the request left them out. */
type Defaulted<T, K extends keyof T> = { [P in K]-?: NonNullable<T[P]> };
/** Request fields a deployment answers as given, null when the request left them out. */
type AsGiven<T, K extends keyof T> = { [P in K]-?: Exclude<T[P], undefined> };

type DeploymentStatus = 'AWAITING_DATABASE' | 'READY' | 'UNUSED' | 'AWAITING_DELETE' | 'UNKNOWN';

/** source_config as a deployment answers it: the create body's fields, and the service's own. */
type SourceConfig = Defaulted<SourceConfigRequest, 'integration_id' | 'repo_url' | 'deployment_type' | 'build_on_push'> &
  AsGiven<SourceConfigRequest, 'resource_spec' | 'install_command' | 'build_command'> & {
    /** Set by the service for source-host deployments: the address of the deployment's agent server. */
    custom_url: string | null;
    listener_id: null;
    listener_config: null;
  };

/** The source revision a revision builds: the request's fields, and the commit it was built from. */
type SourceRevisionConfig = Defaulted<RevisionConfigRequest, 'repo_ref' | 'langgraph_config_path'> &
  AsGiven<RevisionConfigRequest, 'image_uri' | 'source_tarball_path'> & {
    /** Read-only: the commit the revision was built from. */
    repo_commit_sha: string;
  };

/** The schema's Deployment (id, latest_revision_id) with the fields the spec does not show (§2.3, DEPLOY-OTHER-FIELDS). */
type Deployment = Schemas['Deployment'] & {
  name: string;
  source: NonNullable<CreateRequest['source']>;
  source_config: SourceConfig;
  source_revision_config: SourceRevisionConfig;
  secrets: Secret[];
  secret_references: null;
  tenant_id: string;
  created_at: string;
  updated_at: string;
  status: DeploymentStatus;
  active_revision_id: string | null;
  image_version: string | null;
};

/** The schema's Revision (status) with the fields the spec does not show (§2.3, REVISION-OTHER-FIELDS). */
type Revision = Schemas['Revision'] & {
  id: string;
  created_at: string;
  updated_at: string;
  status: RevisionStatus;
  source: Deployment['source'];
  source_revision_config: SourceRevisionConfig;
};

type Listing<Op extends 'listDeployments' | 'listRevisions'> = operations[Op]['responses'][200]['content']['application/json'];
/** A page of a listing, {resources, offset} as the listing's schema gives it; offset is always set. */
type Paged<T> = {
  resources: T[];
  /** The offset to pass for the next page (control plane OpenAPI). */
  offset: number;
};
type DeploymentPage = Listing<'listDeployments'> & Paged<Deployment>;
type RevisionPage = Listing<'listRevisions'> & Paged<Revision>;

/** Starts the agent server a deployment exposes and answers its base URL. */
type AgentServerHost = () => Promise<string>;

export interface RevisionRecord {
  revision: Revision;
  createdAt: number;
  /** The failure a test asked for (failRevision), which its remaining steps lead to. */
  failure?: RevisionFailure;
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

/** A deployment as a snapshot holds it: no timers. */
type StoredDeployment = Omit<DeploymentRecord, 'revisions'> & { revisions: Omit<RevisionRecord, 'cancel'>[] };

const IMMUTABLE_SOURCE_CONFIG = ['integration_id', 'repo_url', 'deployment_type', 'custom_url', 'listener_id'] as const;
const REVISION_FIELDS = ['repo_ref', 'langgraph_config_path', 'image_uri', 'source_tarball_path'] as const;

/** The typical flow of §4.1 (DEPLOY-FLOW): create, read, poll the latest revision until DEPLOYED, update. */
export class DeploymentStore {
  private readonly records = new Map<string, DeploymentRecord>();

  constructor(
    private readonly env: { clock: Clock; ids: IdGenerator; repositories: RepositoryCatalog; host?: AgentServerHost; unhost?: (url: string) => void },
  ) {}

  /** DEPLOY-CREATE: a deployment and its first revision, which is also the latest. */
  async create(workspace: Workspace, body: CreateRequest): Promise<Deployment> {
    const integrationId = integrationOf(body);
    const { source_config: sourceConfig, source_revision_config: revisionConfig } = body;
    if (sourceConfig.build_on_push && isTag(revisionConfig.repo_ref)) throw tagBuild(['body', 'source_config', 'build_on_push']);
    if (!this.env.repositories.knows(workspace, integrationId)) {
      throw new ApiError(400, `Integration ${integrationId} not found in this workspace.`);
    }
    const repository = this.env.repositories.find(workspace, integrationId, sourceConfig.repo_url);
    if (!repository) {
      throw new ApiError(400, `Repository ${sourceConfig.repo_url} is not reachable through integration ${integrationId}.`);
    }
    const revision = {
      repo_ref: revisionConfig.repo_ref,
      langgraph_config_path: revisionConfig.langgraph_config_path ?? 'langgraph.json',
      image_uri: null,
      source_tarball_path: null,
    };
    // The deployment's own agent server (DEPLOY-AGENT-SERVER). It starts first, so the ids below are
    // drawn in one go, whatever else runs meanwhile.
    const url = await this.env.host?.();
    const id = this.env.ids.uuid();
    const now = this.env.clock.iso();
    const record: DeploymentRecord = {
      workspaceId: workspace.id,
      url,
      revisions: [],
      deployment: {
        id,
        name: body.name ?? repository.name,
        source: 'github',
        source_config: {
          integration_id: integrationId,
          repo_url: repository.url,
          deployment_type: sourceConfig.deployment_type ?? 'dev',
          build_on_push: sourceConfig.build_on_push ?? false,
          custom_url: null,
          resource_spec: sourceConfig.resource_spec ?? null,
          listener_id: null,
          listener_config: null,
          install_command: sourceConfig.install_command ?? null,
          build_command: sourceConfig.build_command ?? null,
        },
        source_revision_config: { ...revision, repo_commit_sha: '' },
        secrets: secretsOf(body.secrets) ?? [],
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
    this.startRevision(record, revision);
    return structuredClone(record.deployment);
  }

  /** DEPLOY-GET. */
  get(workspace: Workspace, deploymentId: string): Deployment {
    return structuredClone(this.record(workspace, deploymentId).deployment);
  }

  /** Newest first. */
  list(workspace: Workspace, page: { limit?: number; offset?: number; nameContains?: string }): DeploymentPage {
    const mine = [...this.records.values()]
      .filter((r) => r.workspaceId === workspace.id && (!page.nameContains || r.deployment.name.includes(page.nameContains)))
      .reverse();
    return paginate(
      mine.map((r) => structuredClone(r.deployment)),
      page,
    );
  }

  /**
   * Applies an update (DEPLOY-PATCH). A new source revision, new secrets or a new resource_spec start a new
   * revision, which latest_revision_id then names (control plane OpenAPI; DEPLOY-PATCH-NEW-REVISION);
   * fields fixed at creation refuse a different value.
   */
  patch(workspace: Workspace, deploymentId: string, body: PatchRequest): Deployment {
    const record = this.record(workspace, deploymentId);
    const update = changesOf(body, record.deployment);
    const deployment = record.deployment;
    const sourceConfig = { ...deployment.source_config, ...update.sourceConfig };
    const changed =
      JSON.stringify(sourceConfig) !== JSON.stringify(deployment.source_config) || update.newRevision !== undefined || update.secrets !== undefined;
    deployment.source_config = sourceConfig;
    if (update.secrets) deployment.secrets = update.secrets;
    if (update.newRevision) this.startRevision(record, update.newRevision);
    if (changed) deployment.updated_at = this.env.clock.iso();
    return structuredClone(deployment);
  }

  /** REVISION-GET; an unknown revision answers 404 (REVISION-UNKNOWN-404). */
  revision(workspace: Workspace, deploymentId: string, revisionId: string): Revision {
    const found = this.record(workspace, deploymentId).revisions.find((r) => r.revision.id === revisionId.toLowerCase());
    if (!found) throw notFound(`Revision ID ${revisionId} not found.`);
    return structuredClone(found.revision);
  }

  /** Latest first (LangSmith docs "Control plane API reference", docs.langchain.com/langsmith/api-ref-control-plane; REVISION-LIST). */
  revisions(workspace: Workspace, deploymentId: string, page: { limit?: number; offset?: number }): RevisionPage {
    const record = this.record(workspace, deploymentId);
    return paginate(
      [...record.revisions].reverse().map((r) => structuredClone(r.revision)),
      page,
    );
  }

  /**
   * Makes a revision in progress end in `failure` instead of DEPLOYED (the capability
   * revision-faults, for the failure path). The failure lands when the revision's build or deploy
   * stage ends.
   */
  fail(deploymentId: string, revisionId: string, failure: RevisionFailure): Revision {
    const record = this.records.get(deploymentId.toLowerCase());
    const found = record?.revisions.find((r) => r.revision.id === revisionId.toLowerCase());
    if (!record || !found) throw notFound(`Revision ${revisionId} of deployment ${deploymentId} not found.`);
    const elapsed = this.env.clock.now() - found.createdAt;
    const steps = stepsOf(failure).filter((s) => s.at > elapsed);
    if (TERMINAL.has(found.revision.status) || steps[steps.length - 1]?.status !== failure) {
      throw conflict(`Revision ${revisionId} is ${found.revision.status}: too late for ${failure}.`);
    }
    found.failure = failure;
    this.schedule(record, found, steps);
    return structuredClone(found.revision);
  }

  /** Deletes a deployment and its revisions (control plane OpenAPI); its builds and its agent server stop. */
  delete(workspace: Workspace, deploymentId: string): void {
    const record = this.record(workspace, deploymentId);
    for (const r of record.revisions) for (const cancel of r.cancel) cancel();
    this.records.delete(record.deployment.id);
    if (record.url !== undefined) this.env.unhost?.(record.url);
  }

  /** The deployments and their revisions as plain JSON, oldest first, each with its agent server's URL. */
  snapshot(): StoredDeployment[] {
    return [...this.records.values()].map((record) =>
      structuredClone({ ...record, revisions: record.revisions.map(({ cancel: _cancel, ...revision }) => revision) }),
    );
  }

  /** Puts the deployments back; a revision in progress takes its remaining steps from its creation time (the clock is set first). */
  restore(snapshot: StoredDeployment[]): void {
    const records = snapshot.map(
      (d): DeploymentRecord => ({ ...structuredClone(d), revisions: d.revisions.map((r) => ({ ...structuredClone(r), cancel: [] })) }),
    );
    this.clear();
    for (const record of records) {
      this.records.set(record.deployment.id, record);
      for (const revision of record.revisions) {
        if (TERMINAL.has(revision.revision.status)) continue;
        const steps = stepsOf(revision.failure);
        this.schedule(record, revision, steps.slice(steps.findIndex((s) => s.status === revision.revision.status) + 1));
      }
    }
  }

  /** A restored deployment's agent server listens at another address: its URL follows. */
  moved(deploymentId: string, url: string): void {
    const record = this.records.get(deploymentId)!;
    if (record.deployment.source_config.custom_url === record.url) record.deployment.source_config.custom_url = url;
    record.url = url;
  }

  clear(): void {
    for (const record of this.records.values()) for (const r of record.revisions) for (const cancel of r.cancel) cancel();
    this.records.clear();
  }

  private record(workspace: Workspace, deploymentId: string): DeploymentRecord {
    const record = this.records.get(deploymentId.toLowerCase());
    // Another workspace's deployment does not exist for this caller (spec §5, AUTH-CP-WORKSPACE-ISOLATION);
    // an unknown one answers 404 (DEPLOY-UNKNOWN-404).
    if (!record || record.workspaceId !== workspace.id) throw notFound(`Deployment ID ${deploymentId} not found.`);
    return record;
  }

  private startRevision(record: DeploymentRecord, config: RevisionRequest): void {
    const now = this.env.clock.iso();
    for (const earlier of record.revisions) {
      if (TERMINAL.has(earlier.revision.status)) continue;
      // A newer revision supersedes one still in progress.
      for (const cancel of earlier.cancel) cancel();
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
    for (const cancel of revision.cancel) cancel();
    revision.cancel = steps.map((step) => this.env.clock.schedule(revision.createdAt + step.at, () => this.enter(record, revision, step.status)));
  }

  private enter(record: DeploymentRecord, revision: RevisionRecord, status: RevisionStatus): void {
    const now = this.env.clock.iso();
    revision.revision.status = status;
    revision.revision.updated_at = now;
    // Only a DEPLOYED revision becomes the active one (REVISION-FAILURE-TERMINAL).
    if (status !== 'DEPLOYED') return;
    const deployment = record.deployment;
    deployment.active_revision_id = revision.revision.id;
    deployment.status = 'READY';
    deployment.source_config.custom_url = record.url ?? null;
    deployment.updated_at = now;
  }
}

/** The revision fields a request sets; the commit is the service's. */
type RevisionRequest = Omit<SourceRevisionConfig, 'repo_commit_sha'>;

/** A refusal of a body that spans several fields, which no schema says: 422 as the server's (§2.2). */
function invalid(loc: (string | number)[], msg: string, type = 'value_error'): ApiError {
  return unprocessable(`Invalid request: ${loc.join('.')}: ${msg}`, [{ loc, msg, type }]);
}

/**
 * The create body's integration id: §4.1 names integration_id in the body; the real service
 * reads it inside source_config (control plane OpenAPI). One of the two is required, and when
 * both are given they agree (DEPLOY-BAD-INPUT: checked before anything is created).
 */
function integrationOf(body: CreateRequest): string {
  const top = body.integration_id;
  const nested = body.source_config.integration_id;
  if (top === undefined && nested === undefined) {
    throw invalid(['body', 'integration_id'], 'integration_id is required (at the top level, or as source_config.integration_id)', 'missing');
  }
  if (top !== undefined && nested !== undefined && top.toLowerCase() !== nested.toLowerCase()) {
    throw invalid(['body', 'source_config', 'integration_id'], 'source_config.integration_id differs from integration_id');
  }
  return (top ?? nested ?? '').toLowerCase();
}

const isTag = (ref: string) => ref.startsWith('refs/tags/');

/** A push never moves a tag, so build_on_push must be false when repo_ref is a tag (control plane OpenAPI). */
const tagBuild = (loc: (string | number)[]) => invalid(loc, 'source_config.build_on_push must be false when source_revision_config.repo_ref is a tag');

/** The secrets as stored: name and value only. */
function secretsOf(secrets: Secret[] | null | undefined): Secret[] | undefined {
  return secrets?.map(({ name, value }) => ({ name, value }));
}

interface Changes {
  sourceConfig: Partial<SourceConfig>;
  secrets?: Secret[];
  newRevision?: RevisionRequest;
}

/** What an update changes. A field fixed at creation may repeat its value; another one is refused (400). */
function changesOf(body: PatchRequest, current: Deployment): Changes {
  const sourceConfig = body.source_config ?? {};
  const revisionConfig = body.source_revision_config ?? {};
  const differs = (value: unknown, now: unknown) => value !== undefined && value !== null && value !== now;
  const immutable = [
    ...(['name', 'source'] as const).filter((key) => differs(body[key], current[key])),
    ...IMMUTABLE_SOURCE_CONFIG.filter((key) => differs(sourceConfig[key], current.source_config[key])).map((key) => `source_config.${key}`),
  ];
  if (immutable.length > 0) throw new ApiError(400, `Cannot change ${immutable.join(', ')} once the deployment is created.`);

  const update: Partial<SourceConfig> = {};
  if (sourceConfig.build_on_push != null) update.build_on_push = sourceConfig.build_on_push;
  if (sourceConfig.install_command != null) update.install_command = sourceConfig.install_command;
  if (sourceConfig.build_command != null) update.build_command = sourceConfig.build_command;
  if (sourceConfig.resource_spec != null) update.resource_spec = sourceConfig.resource_spec;
  const revisionChanges: Partial<RevisionRequest> = {};
  for (const key of REVISION_FIELDS) {
    const value = revisionConfig[key];
    if (value != null) revisionChanges[key] = value;
  }
  const secrets = secretsOf(body.secrets);
  const startsRevision = Object.keys(revisionChanges).length > 0 || update.resource_spec !== undefined || secrets !== undefined;
  const { repo_commit_sha: _sha, ...base } = current.source_revision_config;
  if ((update.build_on_push ?? current.source_config.build_on_push) && isTag(revisionChanges.repo_ref ?? base.repo_ref)) {
    throw tagBuild(update.build_on_push ? ['body', 'source_config', 'build_on_push'] : ['body', 'source_revision_config', 'repo_ref']);
  }
  return { sourceConfig: update, secrets, newRevision: startsRevision ? { ...base, ...revisionChanges } : undefined };
}

function paginate<T>(items: T[], page: { limit?: number; offset?: number }): Paged<T> {
  const offset = page.offset ?? 0;
  const resources = items.slice(offset, offset + (page.limit ?? 20));
  return { resources, offset: offset + resources.length };
}

/** A 40-hex commit id drawn from the seeded stream. */
function commitSha(ids: IdGenerator): string {
  return (ids.uuid() + ids.uuid()).replace(/-/g, '').slice(0, 40);
}
